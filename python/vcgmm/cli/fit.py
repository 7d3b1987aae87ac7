"""``vcgmm fit ALGORITHM DATA -C N [flags]``: cluster a data file and report
quality and cost per phase.

Each algorithm of the registry (``vcgmm._registry.ALGORITHMS``) is a
subcommand whose flags come from its own entry only: its estimator's parameter
table, less what the choice fixes or does not use, with the choice's defaults.
A flag thus has one meaning per subcommand. The flags every subcommand shares
(DATA, -C, --seed, --threads, files, -v, --progress) are added by
:func:`add_shared_flags`. The older ``vcgmm fit DATA --algo NAME`` form is
:mod:`.fit_alias`'s; both end in :func:`run`.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import textwrap
import time
import warnings
from dataclasses import dataclass

import numpy as np

from .._base.params import Boolean
from .._base.validation import compute_dtype
from .._data.files import IMPORTANT, is_chunked_path, open_chunks, open_data
from .._registry import ALGORITHMS, FAMILIES
from .common import PROG, CLIError, _add_run_flags, _flag_type, _threads_text
from .fit_output import check_outputs, print_phases, progress_bar, save, stop_text

__all__ = ["add_input_flags", "add_parser", "add_run_flags", "add_shared_flags",
           "algorithm_params", "auto_algorithm", "count_param", "run"]

# The estimator parameters the shared flags stand for: -C, and --seed/--threads
# (with the command line's own defaults).
_COUNT_PARAMS = ("n_clusters", "n_components")
_RUN_PARAMS = ("random_state", "n_threads")

#: the algorithm of the --algo form without --algo: chosen by the data's size
DEFAULT_ALGORITHM = "auto"

#: --algo auto fits exact k-means (kmeans++) while N C (D + 16), the work of one
#: Lloyd iteration in multiply-adds plus a per-distance overhead, stays at or
#: below this; above it, vc-GMM (bench/results/users_data: a full Lloyd fit at
#: this size takes up to about a minute on two cores).
AUTO_LLOYD_WORK = 5e9

AUTO_TEXT = (
    "--algo auto (the default of this form) picks kmeans++ (exact k-means, within 1%%\n"
    "of scikit-learn's KMeans) when N C (D + 16) <= %.0e, a full fit of up to about a\n"
    "minute on two cores, and vcgmm (vc-GMM on a coreset: time independent of N) above\n"
    "that and for chunked data; its flags are checked once the choice is made.\n"
    % AUTO_LLOYD_WORK)

USAGE = (f"{PROG} fit ALGORITHM DATA -C N [flags of the algorithm]\n"
         f"       {PROG} fit DATA -C N [--algo ALGORITHM] [flags]  (the --algo form)")

DATA_FILES = (
    "data files: .npy (memory-mapped), .npz (one array, --key; memory-mapped\n"
    "when stored uncompressed), .csv/.tsv/.txt (delimiter guessed, header row\n"
    "skipped if not numeric).\n")

CHUNKED_DATA = (
    "chunked data (larger than memory{names}): a folder of .npy\n"
    "files, a quoted glob such as 'parts/*.npy' (natural name order), or a zarr\n"
    "store; each chunk is read twice for the coreset and once more for the\n"
    "quantization error and labels.")

# ------------------------------------------------------------ the registry


def count_param(name):
    """The Param that -C sets for algorithm ``name``."""
    table = ALGORITHMS[name].estimator._params
    return next(table[p] for p in _COUNT_PARAMS if p in table)


def algorithm_params(name):
    """The Params of algorithm ``name`` that are flags of its own: those of its
    estimator's table with a flag, less the fixed and unused ones and those of
    the shared flags."""
    spec = ALGORITHMS[name]
    skip = set(spec.fixed) | set(spec.unused) | set(_COUNT_PARAMS) | set(_RUN_PARAMS)
    return [p for p in spec.estimator._params if p.flags and p.name not in skip]


def default_of(name, param):
    """The default of ``param`` for algorithm ``name`` (the choice's or the table's)."""
    spec = ALGORITHMS[name]
    return spec.defaults.get(param.name, spec.estimator._params.defaults[param.name])


def on_coreset(name):
    """Whether algorithm ``name`` can fit on a coreset (chunked data need one)."""
    spec = ALGORITHMS[name]
    return ("coreset_size" in spec.estimator._params
            and spec.fixed.get("coreset_size", "auto") is not None)


def chunked_choices():
    """The algorithms that fit chunked data: on a coreset drawn out of core.
    Those whose estimator fits on a coreset by default (vc-GMM) come before
    those whose choice turns one on (LWCS)."""
    names = [name for family in FAMILIES if family.chunked for name in family.cli
             if on_coreset(name)]
    return sorted(names, key=lambda name: "coreset_size" in ALGORITHMS[name].defaults)


def auto_algorithm(n, d, c, chunked):
    """``--algo auto``: the algorithm for ``n`` x ``d`` data into ``c`` clusters,
    and the reason to print."""
    if chunked:
        return "vcgmm", "chunked data are fitted on a coreset"
    work = float(n) * c * (d + 16)
    if work <= AUTO_LLOYD_WORK:
        return "kmeans++", f"N C (D + 16) = {work:.2g} <= {AUTO_LLOYD_WORK:.0e}: exact k-means"
    return "vcgmm", f"N C (D + 16) = {work:.2g} > {AUTO_LLOYD_WORK:.0e}: vc-GMM on a coreset"


def flag_metavar(dest):
    return dest.upper().replace("_", "-") if len(dest) > 1 else dest


# ------------------------------------------------------------- the parsers


def add_shared_flags(parser, count, centers=True):
    """The flags every algorithm takes: DATA and -C (parsed by the Param
    ``count``), then those of the run and its files (:func:`add_run_flags`)."""
    add_input_flags(parser, count)
    add_run_flags(parser, centers)


def add_input_flags(parser, count):
    """DATA and -C, parsed by the Param ``count``."""
    parser.add_argument("data", metavar="DATA",
                        help="data file (.npy, .npz, .csv, .tsv, .txt), or chunked data: a "
                             "folder or glob of .npy files, a zarr store")
    parser.add_argument(*count.flags, dest="clusters", type=_flag_type(count, count.flags[0]),
                        required=True, metavar="N", help="number of clusters C")


def add_run_flags(parser, centers=True):
    """--seed, --threads, --dtype, --key, --out, --labels-out, -v, --progress.
    ``centers``: whether --out is shown (it always parses, so that an algorithm
    without centers in the data space can say why it does not apply)."""
    run = parser.add_argument_group("data, output and run")
    _add_run_flags(run, seed_help="random seed (default: drawn at random and printed)")
    run.add_argument("--dtype", choices=["float32", "float64"], default=None,
                     help="convert the data to this type (default: float32 stays float32, "
                          "float16 and 8/16-bit integers become float32, anything else "
                          "float64)")
    run.add_argument("--key", default=None, help="array name inside an .npz file "
                     "(default: the only array)")
    run.add_argument("--out", default=None, metavar="CENTERS",
                     help=("write the centers here (.npy, or .csv/.txt as text)" if centers
                           else argparse.SUPPRESS))
    run.add_argument("--labels-out", default=None, metavar="LABELS",
                     help="write the label of every sample here (.npy, or .csv/.txt)")
    run.add_argument("-v", "--verbose", action="store_true",
                     help="log every phase and iteration (stderr) and how the file was read")
    run.add_argument("--progress", action="store_true",
                     help="show progress on stderr (tqdm): a line as the coreset and "
                          "the seeding end, then the iterations with the objective and its "
                          "change (no ETA: the iteration limit is a cap)")


def _value_text(value):
    return repr(value) if isinstance(value, str) else str(value)


def _add_algorithm_flags(parser, name):
    """The flags of algorithm ``name``: one per parameter of its own, parsed and
    checked by that parameter's constraint."""
    group = parser.add_argument_group(f"{name} parameters")
    for p in algorithm_params(name):
        if isinstance(p.constraint, Boolean):
            group.add_argument(*p.flags, dest=p.name, action="store_true", default=None,
                               help=p.help)
        else:
            group.add_argument(*p.flags, dest=p.name, type=_flag_type(p, p.flags[0]),
                               default=None, metavar=flag_metavar(p.name),
                               help=f"{p.help} (default: {_value_text(default_of(name, p))})")


def _chunked_names():
    return " or ".join(chunked_choices())


def _add_algorithm(algorithms, name):
    spec = ALGORITHMS[name]
    epilog = DATA_FILES + "\n" + (CHUNKED_DATA.format(names="") if name in chunked_choices() else
                                  f"chunked data: not for {name} (only {_chunked_names()}).")
    parser = algorithms.add_parser(
        name, prog=f"{PROG} fit {name}", help=spec.summary,
        description=textwrap.fill(f"{name}: {spec.summary}.", 78),
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=epilog)
    _add_algorithm_flags(parser, name)
    add_shared_flags(parser, count_param(name), centers=spec.writes_centers)
    parser.set_defaults(func=run, alias=False)


def add_parser(sub):
    """Adds ``fit`` and its algorithm subcommands to the subcommands ``sub``."""
    fit = sub.add_parser(
        "fit", help="cluster a data file", usage=USAGE,
        description=textwrap.fill(
            "Cluster the rows of a data file and report quality and cost per phase. Each "
            f"algorithm is a subcommand with its own flags: '{PROG} fit ALGORITHM --help' "
            "lists them.", 78),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            f"the --algo form: '{PROG} fit DATA -C N --algo ALGORITHM [flags]' runs as\n"
            f"'{PROG} fit ALGORITHM DATA -C N [flags]'; it is kept for existing command\n"
            "lines, with their messages.\n" + AUTO_TEXT + "\n"
            + DATA_FILES + CHUNKED_DATA.format(names=f"; {_chunked_names()}")),
    )
    algorithms = fit.add_subparsers(title="algorithms", dest="algo", metavar="ALGORITHM",
                                    prog=f"{PROG} fit")
    algorithms.required = True
    for name in ALGORITHMS:
        _add_algorithm(algorithms, name)
    return fit


# ------------------------------------------------------------------ the run


def _choice_text(args, name):
    """How the messages name an algorithm: as the command line chose it."""
    return f"--algo {name}" if args.alias else f"'{PROG} fit {name}'"


def _make_estimator(args, n_samples):
    spec = ALGORITHMS[args.algo]
    if getattr(args, "late_error", None) is not None:  # the --algo form's flag checks
        raise args.late_error
    kwargs = {**spec.defaults, **spec.fixed}
    for param in algorithm_params(args.algo):
        value = getattr(args, param.name, None)
        if value is not None:
            kwargs[param.name] = value
    kwargs[count_param(args.algo).name] = args.clusters
    kwargs.update(random_state=args.seed, n_threads=args.threads, verbose=args.verbose)
    est = spec.estimator(**kwargs)
    return est, spec.describe(est, n_samples)


def _check_algorithm(args, spec, chunked):
    """What the chosen algorithm cannot do: write centers, fit chunked data."""
    if args.out is not None and not spec.writes_centers:
        raise CLIError(f"--out does not apply to {_choice_text(args, args.algo)}: its centers "
                       "are combinations of training points in feature space, not points of "
                       "the data space; use --labels-out")
    if chunked and not on_coreset(args.algo):
        names = chunked_choices()
        use = (f"--algo {' or '.join(names)}" if args.alias else
               " or ".join(_choice_text(args, name) for name in names))
        raise CLIError(f"{_choice_text(args, args.algo)} fits on all points and needs the data "
                       "in memory; chunked data (a folder, glob or zarr store) are fitted on a "
                       f"coreset: use {use}")


@dataclass
class _Data:
    X: object
    notes: list
    n: int
    d: int
    dtype: object
    seconds: float
    chunked: bool


def _open_chunked(args):
    """Chunked DATA (a folder or glob of .npy files, a zarr store), after
    checking the options that apply."""
    if args.key is not None:
        raise CLIError("--key applies to .npz files, not to chunked data")
    if args.dtype is not None:
        raise CLIError("--dtype does not apply to chunked data (float32 chunks stay float32, "
                       "float16 and 8/16-bit integer chunks become float32, the others float64, one "
                       "chunk at a time)")
    start = time.perf_counter()
    X, notes, (n, d), dtype = open_chunks(args.data)
    args.chunk_files = X if isinstance(X, list) else ()
    return _Data(X, notes, n, d, dtype, time.perf_counter() - start, True)


def _read_data(args, chunked):
    """The data, after checking the outputs (the chunk files first: an output
    must not overwrite one of them) and -C; draws the seed if none was given.
    Returns the data and the seed's note."""
    data = _open_chunked(args) if chunked else None
    check_outputs(args)
    seed_note = ""
    if args.seed is None:
        # Draw the seed here so it can be printed and the run repeated.
        args.seed = secrets.randbelow(2**31)
        seed_note = " (drawn at random; pass --seed to repeat the run)"
    if not chunked:
        start = time.perf_counter()
        X, notes = open_data(args.data, key=args.key, dtype=args.dtype)
        data = _Data(X, notes, *X.shape, X.dtype, time.perf_counter() - start, False)
    if args.clusters > data.n:
        raise CLIError(f"-C {args.clusters} exceeds the number of samples ({data.n:,}) "
                       f"in {args.data}")
    if args.verbose and data.dtype not in (np.float32, np.float64):
        data.notes.append(f"{data.dtype} data are converted to {compute_dtype(data.dtype)} by "
                          "the library " + ("(one chunk at a time)" if chunked else "(one copy)"))
    if args.verbose and not chunked and not data.X.flags.c_contiguous:
        data.notes.append("the data are not C-contiguous; the library copies them to C "
                          "order once")
    return data, seed_note


def _print_start(args, data, est, description, seed_note, out):
    X = data.X
    if data.chunked:
        streamed = est.coreset_size is None and getattr(est, "_streams_chunks", False)
        kind = ("out of core: " + ("zarr array" if not isinstance(X, list) else
                                   f"{len(X)} chunk files")
                + (", streamed: the chunks read to count their rows, once for the seeding "
                   "rows, once per n / batch_size batches, once for the labels" if streamed else
                   ", each chunk read twice for the coreset, once for the labels"))
    else:
        kind = "memory-mapped" if isinstance(X, np.memmap) else "in memory"
    out(f"data        : {args.data}" + (f" [{args.key}]" if args.key else ""))
    out(f"              {data.n:,} x {data.d} {data.dtype} ({kind}, "
        + (f"headers read in {data.seconds:.2f} s)" if data.chunked else
           f"read in {data.seconds:.2f} s)"))
    for note in data.notes:
        if note.startswith(IMPORTANT):
            out(f"              {note}")
        elif args.verbose:
            out(f"              note: {note}")
    out(f"algorithm   : {args.algo}: {description}")
    if getattr(args, "auto_reason", None):
        out(f"              (chosen by --algo auto: {args.auto_reason})")
    stops = "".join(f"{name}={getattr(est, name)}, " for name in ALGORITHMS[args.algo].stops)
    out(f"parameters  : C={args.clusters}, {stops}"
        f"seed={args.seed}{seed_note}, threads={_threads_text(args.threads)}")
    sys.stdout.flush()


def _fit(args, est, data):
    """Fits ``est``; returns the wall time. Warnings go to stderr as one line each."""
    bar = progress_bar(est, data.n, data.d) if args.progress else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        try:
            est.fit(data.X)
        finally:
            if bar is not None:
                bar.close()
        wall = time.perf_counter() - start
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)
    return wall


def _print_result(args, spec, est, data, wall, out):
    q = float(est.inertia_)
    out(f"iterations  : {est.n_iter_}{stop_text(est, spec)}")
    relocated = getattr(est, "n_relocated_", 0)
    if relocated:
        out(f"relocated   : {relocated} empty clusters moved to far points")
    out(f"{spec.objective}: {q:.12g}  (mean per sample {q / data.n:.6g})")
    if hasattr(est, "sigma2_"):
        out(f"mixture     : sigma^2 = {est.sigma2_:.6g} per feature, final free energy "
            f"{est.free_energy_[-1]:.10g} (per unit weight {est.lower_bound_:.6g})")
    out(f"wall time   : {wall:.3f} s for fit; per phase:")
    print_phases(est, out, spec.costs)


def _write_outputs(args, est, X, out):
    if args.out is not None:
        save(args.out, np.asarray(est.cluster_centers_))
        out(f"centers     : {est.cluster_centers_.shape[0]} x {est.cluster_centers_.shape[1]} "
            f"{est.cluster_centers_.dtype} written to {args.out}")
    if args.labels_out is not None:
        labels = getattr(est, "labels_", None)
        if labels is None:
            labels = est.predict(X)
        save(args.labels_out, np.asarray(labels))
        out(f"labels      : {labels.shape[0]:,} {labels.dtype} written to {args.labels_out}")


def _choose(args, chunked):
    """Reads the data and resolves ``--algo auto``; then checks the chosen
    algorithm's flags (the --algo form's, deferred until now) and what it can do."""
    if chunked:  # before reading: the choice needs no size, and the checks come first
        args.algo, args.auto_reason = auto_algorithm(0, 0, 0, True)
        _check_algorithm(args, ALGORITHMS[args.algo], chunked)
    data, seed_note = _read_data(args, chunked)
    if not chunked:
        args.algo, args.auto_reason = auto_algorithm(data.n, data.d, args.clusters, False)
        _check_algorithm(args, ALGORITHMS[args.algo], chunked)
    args.late_error = args.check_flags()
    if args.late_error is not None:
        args.late_error = CLIError(f"{args.late_error} (chosen by --algo auto: "
                                   f"{args.auto_reason}; name another with --algo)")
    return data, seed_note


def run(args):
    """``vcgmm fit``: the fit of ``args.algo`` that ``args`` describe (either form)."""
    chunked = is_chunked_path(args.data)
    if args.algo == "auto":
        data, seed_note = _choose(args, chunked)
        spec = ALGORITHMS[args.algo]
    else:
        spec = ALGORITHMS[args.algo]
        _check_algorithm(args, spec, chunked)
        data, seed_note = _read_data(args, chunked)
    est, description = _make_estimator(args, data.n)
    if chunked and est.coreset_size is None and not getattr(est, "_streams_chunks", False):
        raise CLIError("chunked data are fitted on a coreset: --coreset-size must be a number "
                       "or 'auto'")
    out = print
    _print_start(args, data, est, description, seed_note, out)
    wall = _fit(args, est, data)
    _print_result(args, spec, est, data, wall, out)
    _write_outputs(args, est, data.X, out)
    return 0
