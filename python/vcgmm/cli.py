"""The ``vcgmm`` command line: ``fit``, ``demo``, ``info``.

Usage errors and bad input end with one line ``vcgmm: error: ...`` on stderr
and exit status 2, like argparse's own errors; the messages of the library's
ValueError/TypeError are passed through unchanged.

Adding an algorithm to ``vcgmm fit`` takes one entry in :data:`ALGORITHMS`
(its estimator family and the parameters it fixes); its flags, their types,
checks, defaults and help text come from the family's parameter table
(``_params`` of the estimator; see ``vcgmm._params``). The ``demo`` command
(parser and run) is ``vcgmm._cli_demo``'s.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ._params import Boolean

__all__ = ["main", "build_parser", "ALGORITHMS"]

PROG = "vcgmm"


class CLIError(Exception):
    """A user error reported as ``vcgmm: error: <message>`` with exit status 2."""


# --------------------------------------------------------------------------- fit

@dataclass(frozen=True)
class Algorithm:
    """An ``--algo`` choice: an estimator family with some parameters fixed.

    ``estimator`` is the estimator class (its ``_params`` table gives the
    flags that apply), ``fixed`` the parameters the choice sets itself (their
    flags do not apply), ``defaults`` the family defaults it replaces,
    ``unused`` parameters of the family it does not use (their flags do not
    apply), ``summary`` one line for ``--help``, ``describe(est, n)`` what
    the fit will do, for the report, and ``stops`` the parameters that end the
    fit, shown in the report (the first: the iteration limit; None when the
    algorithm has no convergence test and always runs to it).
    """

    estimator: str
    fixed: dict
    summary: str
    describe: Callable
    defaults: dict = field(default_factory=dict)
    unused: tuple = ()
    stops: tuple = ("max_iter", "tol")
    converges: bool = True
    objective: str = "quantization error (full data)"
    costs: tuple = ("n_distance_evals_", "distance evaluations")
    writes_centers: bool = True


def _estimator_class(name):
    import vcgmm

    return getattr(vcgmm, name)


def _chain_text(est):
    return f"AFK-MC^2 seeding (chain length {est.chain_length})"


def _coreset_text(est, n_samples):
    from ._coreset import resolve_coreset_size

    count = getattr(est, est._count_param)
    m = resolve_coreset_size(est.coreset_size, n_samples, count)
    origin = "default min(n, max(4096, 64*C))" if est.coreset_size == "auto" else "--coreset-size"
    return f"lightweight coreset of N'={m:,} points ({origin})"


def _g_text(est):
    return f"G={est.G}{'+1' if est.plus1 else ''}"


def _seeding_text(est):
    if not isinstance(est.init, str):
        return "given initial centers"
    return {"random": "random samples as initial centers", "k-means++": "k-means++ seeding",
            "afk-mc2": _chain_text(est)}[est.init]


def _nmbatch_text(est, n):
    return (f"nested mini-batch k-means (first batch {est.batch_size}, rho={est.rho:g}, "
            f"{est.bounds} bounds) from {_seeding_text(est)}")


def _vrkm_text(est, n):
    loop = "sequential" if est.block_size == 1 else f"blocked by {est.block_size}"
    return (f"{est.variant.upper()}: {_seeding_text(est)} + epochs of a full pass and "
            f"{est.epoch_size} {loop} updates (learning rate {est.learning_rate})")


def _kernel_kmeans_text(est, n):
    kernel = est.kernel
    if kernel in ("rbf", "laplacian", "poly"):
        coef = f"kappa={est.kappa:g}" if est.kappa is not None else f"gamma={est.gamma}"
        kernel = f"{kernel} kernel ({coef})"
    elif kernel in ("knn", "heat"):
        kernel = (f"{kernel} graph kernel ({est.n_neighbors}-nn graph, dense {n:,} x {n:,}"
                  + (f", t={est.t:g})" if est.kernel == "heat" else ")"))
    else:
        kernel = f"{kernel} kernel"
    seeding = ("kernel k-means++ seeding" if isinstance(est.init, str)
               else "given initial points")
    if est.algorithm == "full":
        loop = "full-batch kernel k-means (O(n^2) kernel evaluations per iteration)"
    elif est.algorithm == "minibatch":
        loop = (f"untruncated mini-batch kernel k-means (batch {est.batch_size}, "
                f"{est.learning_rate} learning rate)")
    else:
        loop = (f"mini-batch kernel k-means with truncated centers (batch {est.batch_size}, "
                f"tau={est.tau}, {est.learning_rate} learning rate)")
    return f"{loop}, {kernel}, from {seeding}"


#: algorithm name -> Algorithm
ALGORITHMS = {
    "kmeans++": Algorithm(
        "KMeans", {"init": "k-means++", "coreset_size": None},
        "k-means++ seeding (D^2 sampling) + Lloyd iterations on all data (the papers' "
        "baseline; exact but O(N C D) per iteration)",
        lambda est, n: "k-means++ seeding (D^2 sampling) + Lloyd iterations on all data",
        unused=("chain_length",)),
    "lwcs": Algorithm(
        "KMeans", {"init": "afk-mc2"},
        "lightweight coreset of M weighted points + AFK-MC^2 seeding + weighted Lloyd "
        "on the coreset",
        lambda est, n: (f"{_coreset_text(est, n)} + {_chain_text(est)} + weighted Lloyd "
                        "on the coreset"),
        defaults={"coreset_size": "auto"}),
    "vcgmm": Algorithm(
        "VCGMM", {},
        "vc-GMM: lightweight coreset + AFK-MC^2 + truncated variational EM with "
        "neighbourhoods of G clusters, O(M G^2 D) per iteration (the headline)",
        lambda est, n: (f"vc-GMM: {_coreset_text(est, n)} + {_chain_text(est)} + truncated "
                        f"variational EM ({_g_text(est)})")),
    "vargmm": Algorithm(
        "VCGMM", {"coreset_size": None},
        "var-GMM-S: the same EM on all data (no coreset)",
        lambda est, n: (f"var-GMM-S: {_chain_text(est)} + truncated variational EM "
                        f"({_g_text(est)}) on all data")),
    "mbatch": Algorithm(
        "MiniBatchKMeans", {"compute_labels": True},
        "mini-batch k-means (Sculley): batches of b random samples, running-mean "
        "updates; a fixed number of batches",
        lambda est, n: (f"mini-batch k-means (batch size {est.batch_size}) from "
                        f"{_seeding_text(est)}"),
        stops=("max_iter",), converges=False),
    "nmbatch": Algorithm(
        "NestedMiniBatchKMeans", {},
        "nested mini-batch k-means with Elkan/Yinyang bounds (Newling & Fleuret): "
        "growing nested batches, converges to a Lloyd fixed point",
        _nmbatch_text, stops=("max_iter", "time_budget")),
    "vrkm++": Algorithm(
        "VRKMeans", {"variant": "vrkm++"},
        "variance-reduced k-means VRKM++ (Zhao et al.): full passes + single-sample "
        "updates with a constant learning rate",
        _vrkm_text, stops=("max_epochs", "tol")),
    "vrkm": Algorithm(
        "VRKMeans", {"variant": "vrkm"},
        "VRKM: VRKM++ with the position correction by the batch gradient (same "
        "iterates, slower)",
        _vrkm_text, stops=("max_epochs", "tol")),
    "kernel-kmeans": Algorithm(
        "KernelKMeans", {},
        "kernel k-means in the feature space of a kernel (--kernel): mini-batch with "
        "truncated centers (the default, O(k (tau + b)^2) per iteration independent of n), "
        "untruncated mini-batch or full batch (--kernel-algorithm)",
        _kernel_kmeans_text, objective="feature-space inertia (full data)",
        costs=("n_kernel_evals_", "kernel evaluations"), writes_centers=False),
}

# The estimator argument each command-line-only name stands for.
_COUNT_PARAMS = ("n_clusters", "n_components")


def _flag_params():
    """Command-line flags from the families' tables: dest -> (Param, {algo: default},
    {algo: Param}); the first Param gives the flag's names and help, and each
    algorithm's own Param parses and checks its value (``--learning-rate`` is
    a number for VRKM, a name for kernel k-means)."""
    flags = {}
    for algo, spec in ALGORITHMS.items():
        table = _estimator_class(spec.estimator)._params
        for p in table:
            if not p.flags or p.name in spec.fixed or p.name in spec.unused:
                continue
            dest = "clusters" if p.name in _COUNT_PARAMS else p.name
            entry = flags.setdefault(dest, (p, {}, {}))
            entry[1][algo] = spec.defaults.get(p.name, table.defaults[p.name])
            entry[2][algo] = p
    return flags


def _flag_type(param, flag):
    def parse(text):
        try:
            return param.constraint.check(param.constraint.parse(text), flag)
        except (TypeError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


@dataclass(frozen=True)
class _FlagText:
    """A flag's text that some algorithm's parameter accepts; parsed again
    by the chosen algorithm's own parameter in :func:`_make_estimator`."""

    text: str


def _distinct_params(params):
    """The Params of a flag with different constraints (one of each)."""
    seen = {}
    for p in params.values():
        seen.setdefault(p.constraint.describe(), p)
    return list(seen.values())


def _multi_flag_type(params, flag):
    """A flag whose algorithms parse it differently: argparse accepts text
    that one of them accepts (so a value no algorithm takes is still a usage
    error), the chosen algorithm's own parameter decides."""
    checks = [_flag_type(p, flag) for p in params]

    def parse(text):
        errors = []
        for check in checks:
            try:
                check(text)
                return _FlagText(text)
            except argparse.ArgumentTypeError as exc:
                errors.append(str(exc))
        raise argparse.ArgumentTypeError(" / ".join(errors))

    return parse


def _flag_value(value, param, flag):
    """The value of a flag for the chosen algorithm's parameter."""
    if not isinstance(value, _FlagText):
        return value
    try:
        return param.constraint.check(param.constraint.parse(value.text), flag)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"argument {flag}: {exc}") from None


def _default_text(defaults):
    values = {}
    for algo, value in defaults.items():
        values.setdefault(repr(value) if isinstance(value, str) else str(value), []).append(algo)
    if len(values) == 1:
        return next(iter(values))
    return ", ".join(f"{v} for {'/'.join(algos)}" for v, algos in values.items())


def _add_family_flags(parser):
    for dest, (param, defaults, params) in _flag_params().items():
        if dest == "clusters":
            continue
        if param.name in ("random_state", "n_threads"):
            continue  # --seed and --threads: the command line's own defaults, below
        flags = param.flags
        if isinstance(param.constraint, Boolean):
            parser.add_argument(*flags, dest=dest, action="store_true", default=None,
                                help=f"{param.help} ({'/'.join(defaults)})")
            continue
        distinct = _distinct_params(params)
        if len(distinct) == 1:
            kind, text = _flag_type(param, flags[0]), param.help
        else:  # each family's own meaning
            kind = _multi_flag_type(distinct, flags[0])
            text = "; ".join(
                "/".join(a for a, q in params.items()
                         if q.constraint.describe() == p.constraint.describe()) + ": " + p.help
                for p in distinct)
        parser.add_argument(
            *flags, dest=dest, type=kind, default=None,
            metavar=dest.upper().replace("_", "-") if len(dest) > 1 else dest,
            help=f"{text} (--algo {'/'.join(defaults)}; default: {_default_text(defaults)})")


def _add_run_flags(parser, seed_help, seed_default=None):
    """--seed and --threads, checked by the run parameters' constraints."""
    from ._run import RUN_PARAMS

    run = {p.name: p for p in RUN_PARAMS}
    parser.add_argument("--seed", type=_flag_type(run["random_state"], "--seed"),
                        default=seed_default, metavar="S", help=seed_help)
    parser.add_argument("--threads", type=_flag_type(run["n_threads"], "--threads"),
                        default=None, metavar="T",
                        help="threads (default: all available; OMP_NUM_THREADS limits "
                             "them); results do not depend on it")


def _progress_bar(est, spec):
    """A tqdm bar on stderr over the iteration limit, fed by the estimator's
    progress callback (the objective as postfix); returns the bar."""
    from tqdm import tqdm

    limit = getattr(est, spec.stops[0], None)
    bar = tqdm(total=limit if isinstance(limit, int) else None, unit="it", file=sys.stderr,
               desc="iterations", dynamic_ncols=True, leave=True)

    def update(record):
        if record.phase in ("iterations", "refinement"):
            bar.set_description(record.phase)
            bar.set_postfix(objective=f"{record.objective:.6g}", refresh=False)
            bar.update(1)

    est.set_params(callback=update)
    return bar


def _make_estimator(args, n_samples):
    spec = ALGORITHMS[args.algo]
    cls = _estimator_class(spec.estimator)
    table = cls._params
    kwargs = {**spec.defaults, **spec.fixed}
    unused = []
    for dest, (param, defaults, params) in _flag_params().items():
        value = getattr(args, dest, None)
        if value is None or dest == "clusters":
            continue
        if args.algo not in defaults:
            unused.append(param.flags[0])
        else:
            kwargs[param.name] = _flag_value(value, params[args.algo], param.flags[0])
    if unused:
        raise CLIError(f"{', '.join(unused)} does not apply to --algo {args.algo}")
    count = next(name for name in _COUNT_PARAMS if name in table)
    kwargs[count] = args.clusters
    kwargs.update(random_state=args.seed, n_threads=args.threads, verbose=args.verbose)
    est = cls(**kwargs)
    return est, spec.describe(est, n_samples)


_OUTPUT_EXTENSIONS = (".npy", ".csv", ".txt")


def _check_outputs(args):
    """Fail before fitting (not after a long run) if an output cannot be
    written, would overwrite the input, or two outputs are the same file."""
    outputs = [(opt, path) for opt, path in (("--out", args.out), ("--labels-out", args.labels_out))
               if path is not None]
    data = os.path.realpath(args.data)
    chunk_files = set(os.path.realpath(f) for f in getattr(args, "chunk_files", ()))
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


def _save(path, array):
    """Writes the array atomically: into a temporary file beside the target,
    renamed over it when complete (an interrupted run leaves no half file)."""
    import tempfile

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
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would hide the file from others
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _threads_text(n_threads):
    from ._run import available_threads

    if n_threads is None or n_threads == -1:
        return f"default ({available_threads()})"
    return str(n_threads)


def _print_phases(est, out, costs=("n_distance_evals_", "distance evaluations")):
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


def _stop_text(est, spec):
    """Why the fit ended, for the report."""
    limit = spec.stops[0]
    if not spec.converges:
        return f" (runs --{limit.replace('_', '-')} {getattr(est, limit)}; no convergence test)"
    if getattr(est, "converged_", False):
        return " (converged)"
    if est.n_iter_ >= getattr(est, limit):
        return f" (NOT converged: reached --{limit.replace('_', '-')} {getattr(est, limit)})"
    others = ", ".join("--" + p.replace("_", "-") for p in spec.stops[1:])
    return f" (NOT converged: stopped by {others})"


def _open_chunked(args):
    """Chunked DATA (a folder or glob of .npy files, a zarr store): the
    chunks, notes, shape and dtype, after checking the options that apply."""
    from ._io import open_chunks

    if args.key is not None:
        raise CLIError("--key applies to .npz files, not to chunked data")
    if args.dtype is not None:
        raise CLIError("--dtype does not apply to chunked data (float32 chunks stay float32, "
                       "the others are converted to float64 one chunk at a time)")
    X, notes, shape, dtype = open_chunks(args.data)
    args.chunk_files = X if isinstance(X, list) else ()
    return X, notes, shape, dtype


def _cmd_fit(args):
    from ._io import is_chunked_path, open_data

    spec = ALGORITHMS[args.algo]
    if args.out is not None and not spec.writes_centers:
        raise CLIError(f"--out does not apply to --algo {args.algo}: its centers are "
                       "combinations of training points in feature space, not points of the "
                       "data space; use --labels-out")
    chunked = is_chunked_path(args.data)
    if chunked:
        if (args.algo in ("kmeans++", "vargmm")
                or "coreset_size" not in _estimator_class(spec.estimator)._params):
            raise CLIError(f"--algo {args.algo} fits on all points and needs the data in "
                           "memory; chunked data (a folder, glob or zarr store) are fitted on a "
                           "coreset: use --algo vcgmm or lwcs")
    if chunked:  # the chunk files first: an output must not overwrite one of them
        start = time.perf_counter()
        X, notes, (n, d), dtype = _open_chunked(args)
        load_seconds = time.perf_counter() - start
    _check_outputs(args)
    if args.seed is None:
        # Draw the seed here so it can be printed and the run repeated.
        args.seed = secrets.randbelow(2**31)
        seed_note = " (drawn at random; pass --seed to repeat the run)"
    else:
        seed_note = ""

    if not chunked:
        start = time.perf_counter()
        X, notes = open_data(args.data, key=args.key, dtype=args.dtype)
        load_seconds = time.perf_counter() - start
        n, d = X.shape
        dtype = X.dtype
    if args.clusters > n:
        raise CLIError(f"-C {args.clusters} exceeds the number of samples ({n:,}) in {args.data}")
    if args.verbose and dtype not in (np.float32, np.float64):
        notes.append(f"{dtype} data are converted to float64 by the library "
                     + ("(one chunk at a time)" if chunked else "(one copy)"))
    if args.verbose and not chunked and not X.flags.c_contiguous:
        notes.append("the data are not C-contiguous; the library copies them to C order once")

    est, description = _make_estimator(args, n)
    if chunked and est.coreset_size is None:
        raise CLIError("chunked data are fitted on a coreset: --coreset-size must be a number "
                       "or 'auto'")
    out = print
    if chunked:
        kind = ("out of core: " + ("zarr array" if not isinstance(X, list) else
                                   f"{len(X)} chunk files")
                + ", each chunk read twice for the coreset, once for the labels")
    else:
        kind = "memory-mapped" if isinstance(X, np.memmap) else "in memory"
    out(f"data        : {args.data}" + (f" [{args.key}]" if args.key else ""))
    out(f"              {n:,} x {d} {dtype} ({kind}, "
        + (f"headers read in {load_seconds:.2f} s)" if chunked else
           f"read in {load_seconds:.2f} s)"))
    from ._io import IMPORTANT

    for note in notes:
        if note.startswith(IMPORTANT):
            out(f"              {note}")
        elif args.verbose:
            out(f"              note: {note}")
    out(f"algorithm   : {args.algo}: {description}")
    stops = "".join(f"{name}={getattr(est, name)}, " for name in ALGORITHMS[args.algo].stops)
    out(f"parameters  : C={args.clusters}, {stops}"
        f"seed={args.seed}{seed_note}, threads={_threads_text(args.threads)}")
    sys.stdout.flush()

    bar = _progress_bar(est, ALGORITHMS[args.algo]) if args.progress else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        try:
            est.fit(X)
        finally:
            if bar is not None:
                bar.close()
        wall = time.perf_counter() - start
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)

    q = float(est.inertia_)
    out(f"iterations  : {est.n_iter_}{_stop_text(est, spec)}")
    relocated = getattr(est, "n_relocated_", 0)
    if relocated:
        out(f"relocated   : {relocated} empty clusters moved to far points")
    out(f"{spec.objective}: {q:.12g}  (mean per sample {q / n:.6g})")
    if hasattr(est, "sigma2_"):
        out(f"mixture     : sigma^2 = {est.sigma2_:.6g} per feature, final free energy "
            f"{est.free_energy_[-1]:.10g} (per unit weight {est.lower_bound_:.6g})")
    out(f"wall time   : {wall:.3f} s for fit; per phase:")
    _print_phases(est, out, spec.costs)
    if args.out is not None:
        _save(args.out, np.asarray(est.cluster_centers_))
        out(f"centers     : {est.cluster_centers_.shape[0]} x {est.cluster_centers_.shape[1]} "
            f"{est.cluster_centers_.dtype} written to {args.out}")
    if args.labels_out is not None:
        labels = getattr(est, "labels_", None)
        if labels is None:
            labels = est.predict(X)
        _save(args.labels_out, np.asarray(labels))
        out(f"labels      : {labels.shape[0]:,} {labels.dtype} written to {args.labels_out}")
    return 0


# -------------------------------------------------------------------------- info

def _cmd_info(args):
    import platform

    import vcgmm

    from ._run import available_threads

    build = vcgmm.show_build()
    features = build.get("cpu_features", {})
    yes = {True: "yes", False: "no"}
    forced = os.environ.get("VCGMM_OPT_LEVEL")
    print(f"vcgmm {build['version']}")
    print(f"  instruction set in use : {build['opt_level']}"
          + (f" (forced by VCGMM_OPT_LEVEL={forced})" if forced else " (widest built level this CPU supports)"))
    print(f"  levels built           : {', '.join(build.get('available_levels', []))}")
    print(f"  CPU supports           : "
          + ", ".join(f"{k} {yes.get(v, v)}" for k, v in features.items()))
    print(f"  OpenMP                 : {yes[bool(build['openmp'])]}"
          f" ({available_threads()} CPUs available to this process)")
    print(f"  Python {platform.python_version()}, numpy {np.__version__}, "
          f"location {os.path.dirname(vcgmm.__file__)}")
    return 0


# ------------------------------------------------------------------------ parser

def _version():
    from . import __version__

    return __version__


def _algorithms_help():
    import textwrap

    width = max(len(name) for name in ALGORITHMS) + 2
    lines = []
    for name, spec in ALGORITHMS.items():
        text = textwrap.wrap(spec.summary, 78 - width - 2)
        lines.append(f"  {name.ljust(width)}{text[0]}")
        lines.extend(" " * (width + 2) + t for t in text[1:])
    return "\n".join(lines) + "\n"


def build_parser():
    """The argparse parser of the ``vcgmm`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Cluster very large data into very many clusters.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    fit = sub.add_parser(
        "fit", help="cluster a data file",
        description="Cluster the rows of a data file and report quality and cost per phase.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "algorithms:\n" + _algorithms_help() + "\n"
            "data files: .npy (memory-mapped), .npz (one array, --key; memory-mapped\n"
            "when stored uncompressed), .csv/.tsv/.txt (delimiter guessed, header row\n"
            "skipped if not numeric).\n"
            "chunked data (larger than memory; --algo vcgmm or lwcs): a folder of .npy\n"
            "files, a quoted glob such as 'parts/*.npy' (natural name order), or a zarr\n"
            "store; each chunk is read twice for the coreset and once more for the\n"
            "quantization error and labels."
        ),
    )
    fit.add_argument("data", metavar="DATA",
                     help="data file (.npy, .npz, .csv, .tsv, .txt), or chunked data: a folder "
                          "or glob of .npy files, a zarr store")
    count = _flag_params()["clusters"][0]
    fit.add_argument(*count.flags, dest="clusters", type=_flag_type(count, "-C"), required=True,
                     metavar="N", help="number of clusters C")
    fit.add_argument("--algo", choices=list(ALGORITHMS), default="kmeans++",
                     help="algorithm (default: %(default)s; see below)")
    _add_family_flags(fit)
    _add_run_flags(fit, seed_help="random seed (default: drawn at random and printed)")
    fit.add_argument("--dtype", choices=["float32", "float64"], default=None,
                     help="convert the data to this type (default: float32 stays float32, "
                          "anything else becomes float64)")
    fit.add_argument("--key", default=None, help="array name inside an .npz file "
                     "(default: the only array)")
    fit.add_argument("--out", default=None, metavar="CENTERS",
                     help="write the centers here (.npy, or .csv/.txt as text)")
    fit.add_argument("--labels-out", default=None, metavar="LABELS",
                     help="write the label of every sample here (.npy, or .csv/.txt)")
    fit.add_argument("-v", "--verbose", action="store_true",
                     help="log every phase and iteration (stderr) and how the file was read")
    fit.add_argument("--progress", action="store_true",
                     help="show a progress bar of the iterations on stderr (tqdm; the "
                          "objective as postfix)")
    fit.set_defaults(func=_cmd_fit)

    # imported here: _cli_demo imports this module's helpers
    from ._cli_demo import add_parser as add_demo_parser

    add_demo_parser(sub)

    info = sub.add_parser("info", help="build information (instruction set, OpenMP)",
                          description="Show the version, the instruction-set level in use "
                                      "and whether OpenMP is enabled.")
    info.set_defaults(func=_cmd_info)
    return parser


def _quiet_broken_pipe():
    """The reader went away (e.g. ``vcgmm ... | head``): stop quietly, and keep
    Python from complaining again when it flushes stdout at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 141  # 128 + SIGPIPE, as a shell reports a process killed by it


def main(argv=None):
    """Run the command line; returns the exit status (argparse usage errors and
    ``--version`` raise SystemExit as usual)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except BrokenPipeError:  # --help piped into head
        return _quiet_broken_pipe()
    try:
        return args.func(args)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except CLIError as exc:
        message = str(exc)
    except FileNotFoundError as exc:
        message = str(exc)
    except (ValueError, TypeError) as exc:
        message = str(exc)
    except OSError as exc:  # permission denied, disk full, ...
        message = f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    except MemoryError:
        message = "out of memory (try --dtype float32, a memory-mapped .npy file or a coreset)"
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    sys.stdout.flush()
    # One line, like argparse: library messages may span lines (scikit-learn's do).
    print(f"{PROG}: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
