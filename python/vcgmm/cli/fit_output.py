"""What ``vcgmm fit`` writes: the output files (checked before the fit,
written atomically) and the report's progress bar, phase table and stop line."""

from __future__ import annotations

import fnmatch
import os
import sys
import tempfile

import numpy as np
from tqdm import tqdm

from .common import CLIError

__all__ = ["check_outputs", "print_phases", "progress_bar", "save", "stop_text"]

_OUTPUT_EXTENSIONS = (".npy", ".csv", ".txt")


def check_outputs(args):
    """Fail before fitting (not after a long run) if an output cannot be
    written, would overwrite the input, or two outputs are the same file."""
    outputs = [(opt, path) for opt, path in (("--out", args.out), ("--labels-out", args.labels_out))
               if path is not None]
    data = os.path.realpath(args.data)
    chunk_files = {os.path.realpath(f) for f in getattr(args, "chunk_files", ())}
    seen = {}
    for option, path in outputs:
        ext = os.path.splitext(path)[1].lower()
        if ext not in _OUTPUT_EXTENSIONS:
            raise CLIError(f"{option} {path}: the file name must end in one of "
                           f"{', '.join(_OUTPUT_EXTENSIONS)}")
        real = os.path.realpath(path)
        if real in chunk_files:
            raise CLIError(f"{option} {path} is one of the input chunks: it would be "
                           "overwritten; choose another output file")
        if ext == ".npy" and _read_as_chunk(args, real):
            raise CLIError(f"{option} {path} would be read as a chunk of the input {args.data} "
                           "by the next run on it; write it outside the input")
        if real == data or (os.path.exists(real) and os.path.exists(args.data)
                            and os.path.samefile(real, args.data)):
            raise CLIError(f"{option} {path} is the input file {args.data}: it would be "
                           "overwritten; choose another output file")
        if real in seen:
            raise CLIError(f"{option} and {seen[real]} are the same file ({path})")
        seen[real] = option
        parent = os.path.dirname(real)
        if not os.path.isdir(parent):
            raise CLIError(f"{option} {path}: directory {parent} does not exist")
        if os.path.isdir(real):
            raise CLIError(f"{option} {path} is a directory")
        if not os.access(parent, os.W_OK) or (os.path.exists(real) and not os.access(real, os.W_OK)):
            raise CLIError(f"{option} {path}: not writable (permission denied)")


def _read_as_chunk(args, real):
    """Whether a ``.npy`` file at ``real`` belongs to the chunked input: a file
    in its folder, or one its glob pattern matches."""
    if not getattr(args, "chunk_files", ()):
        return False
    if os.path.isdir(args.data):
        return os.path.dirname(real) == os.path.realpath(args.data)
    return fnmatch.fnmatchcase(os.path.abspath(real), os.path.abspath(args.data)) or \
        fnmatch.fnmatchcase(real, os.path.realpath(os.path.dirname(os.path.abspath(args.data)))
                            + os.sep + os.path.basename(args.data))


def save(path, array):
    """Writes the array atomically: into a temporary file beside the target,
    renamed over it when complete (an interrupted run leaves no half file)."""
    directory = os.path.dirname(os.path.abspath(path))
    ext = os.path.splitext(path)[1].lower()
    fd, tmp = tempfile.mkstemp(prefix=".vcgmm-", suffix=ext, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            if ext == ".npy":
                np.save(f, array)
            elif np.issubdtype(array.dtype, np.integer):
                np.savetxt(f, array, fmt="%d")
            else:
                # repr precision, so the text file round-trips exactly
                np.savetxt(f, array, fmt="%.9g" if array.dtype == np.float32 else "%.17g",
                           delimiter="," if ext == ".csv" else " ")
        try:  # an overwritten file keeps its permissions (a private 0600 stays private)
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask  # mkstemp's 0600 would hide a new file from others
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


#: the phase that follows the end of each phase before the iterations
_NEXT_PHASE = {"coreset": "seeding", "seeding": "iterations"}


def _objective_name(record):
    if record.phase == "refinement":
        return "error"
    return {"vc-gmm": "free energy", "mbatch": "batch error",
            "kernel-kmeans": "objective"}.get(record.algorithm, "error")


def progress_bar(est, n_samples, n_features):
    """A tqdm bar on stderr, fed by the estimator's progress callback; returns it.

    It counts what a fit can know: a line as each phase before the iterations
    ends, then the iterations of each loop (EM, then the refinement's hard
    steps, counted anew) with the objective, named, and the change the
    convergence test compares with ``tol`` (mbatch has none: it stops when its
    smoothed batch error stops reaching new minima, and the raw change from
    one random batch to the next would mislead). No total and no ETA: the
    iteration limit is a cap, not a forecast."""
    bar = tqdm(total=None, unit="it", file=sys.stderr, desc="preparing", dynamic_ncols=True,
               leave=True)
    gain = getattr(est, "stop_rule", None) == "gain"
    state = {"phase": None, "objective": None}

    def update(record):
        if record.phase in _NEXT_PHASE:
            bar.write(f"{record.phase:<12}: done in {record.seconds:.2f} s", file=sys.stderr)
            bar.set_description_str(_NEXT_PHASE[record.phase])
            return
        if record.phase not in ("iterations", "refinement"):
            return
        if record.phase != state["phase"]:
            if state["phase"] is not None:  # EM ended; the refinement counts its own steps
                bar.write(f"{state['phase']:<12}: {bar.n} done", file=sys.stderr)
                bar.reset(total=None)
                bar.set_postfix_str("", refresh=False)
            state.update(phase=record.phase, objective=None)
            bar.set_description_str(record.phase)
        postfix = {_objective_name(record): f"{record.objective:.6g}"}
        previous, state["objective"] = state["objective"], record.objective
        if previous is not None:
            delta = abs(record.objective - previous)
            if gain and record.phase == "iterations" and record.algorithm == "vc-gmm":
                # nats per point and feature: the coreset's weights sum to about N
                postfix["gain~"] = f"{delta / (n_samples * n_features):.2g}"
            elif previous != 0 and record.algorithm != "mbatch":
                postfix["change"] = f"{delta / abs(previous):.2g}"
        bar.set_postfix(postfix, refresh=False)
        bar.update(1)

    est.set_params(callback=update)
    return bar


def print_phases(est, out, costs=("n_distance_evals_", "distance evaluations")):
    timings = dict(getattr(est, "timings_", {}) or {})
    evals = dict(getattr(est, costs[0], {}) or {})
    phases = list(dict.fromkeys(list(evals) + list(timings)))
    if not phases:
        return
    rows = [("phase", costs[1], "seconds")]
    total_d, total_t = 0, 0.0
    for phase in phases:
        d, t = evals.get(phase), timings.get(phase)
        rows.append((phase, "-" if d is None else f"{int(d):,}",
                     "-" if t is None else f"{t:.3f}"))
        if phase != "evaluation":
            total_d += int(d or 0)
            total_t += float(t or 0.0)
    rows.append(("algorithm total", f"{total_d:,}", f"{total_t:.3f}"))
    widths = [max(len(r[j]) for r in rows) for j in range(3)]
    for i, r in enumerate(rows):
        out("  " + r[0].ljust(widths[0]) + "  " + r[1].rjust(widths[1]) + "  "
            + r[2].rjust(widths[2]))
        if i == 0:
            out("  " + "  ".join("-" * w for w in widths))
    out("  (algorithm total = all phases except 'evaluation', the final pass over the "
        "full data for labels and quantization error)")
    if "graph" in evals:
        out("  (graph: distance evaluations of the k-nn graph, not kernel evaluations)")


def stop_text(est, spec):
    """Why the fit ended, for the report."""
    limit = spec.stops[0]
    if getattr(est, "converged_", False):
        return " (converged)"
    if est.n_iter_ >= getattr(est, limit):
        return f" (NOT converged: reached --{limit.replace('_', '-')} {getattr(est, limit)})"
    others = ", ".join("--" + p.replace("_", "-") for p in spec.stops[1:])
    return f" (NOT converged: stopped by {others})"
