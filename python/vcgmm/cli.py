"""The ``vcgmm`` command line: ``fit``, ``demo``, ``info``.

Usage errors and bad input end with one line ``vcgmm: error: ...`` on stderr
and exit status 2, like argparse's own errors; the messages of the library's
ValueError/TypeError are passed through unchanged.

Adding an algorithm to ``vcgmm fit`` takes one function
``(args, n_samples) -> (estimator, description)`` and one entry in
:data:`ALGORITHMS` (plus :data:`ALGORITHM_OPTIONS` if it uses
algorithm-specific options).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
import warnings

import numpy as np

__all__ = ["main", "build_parser", "ALGORITHMS"]

PROG = "vcgmm"


class CLIError(Exception):
    """A user error reported as ``vcgmm: error: <message>`` with exit status 2."""


# --------------------------------------------------------------------------- fit

def _default_coreset_size(n_samples, n_clusters):
    # The library's default (vcgmm.default_coreset_size): 64 coreset points
    # per cluster, at least 2^12, at most the data; the same for lwcs and
    # vcgmm so that the two compare at equal N'.
    from ._vcgmm import default_coreset_size

    return default_coreset_size(n_samples, n_clusters)


def _resolve_max_iter(args, default):
    """--max-iter, or the algorithm's own default (300 Lloyd, 1000 EM iterations)."""
    if args.max_iter is None:
        args.max_iter = default
    return args.max_iter


def _make_kmeanspp(args, n_samples):
    from . import KMeans

    est = KMeans(args.clusters, max_iter=_resolve_max_iter(args, 300), tol=args.tol,
                 random_state=args.seed, n_threads=args.threads, verbose=args.verbose)
    return est, "k-means++ seeding (D^2 sampling) + Lloyd iterations on all data"


def _make_lwcs(args, n_samples):
    from . import KMeans

    m = args.coreset_size
    if m is None:
        m = _default_coreset_size(n_samples, args.clusters)
        origin = "default min(n, max(4096, 64*C))"
    else:
        origin = "--coreset-size"
    chain = 20 if args.chain_length is None else args.chain_length
    est = KMeans(args.clusters, init="afk-mc2", coreset_size=m, chain_length=chain,
                 max_iter=_resolve_max_iter(args, 300), tol=args.tol, random_state=args.seed,
                 n_threads=args.threads, verbose=args.verbose)
    return est, (f"lightweight coreset of N'={m:,} points ({origin}) + AFK-MC^2 seeding "
                 f"(chain length {chain}) + weighted Lloyd on the coreset")


def _variational(args, n_samples, coreset):
    from . import VCGMM

    G = 5 if args.G is None else args.G
    chain = 20 if args.chain_length is None else args.chain_length
    if coreset:
        m = args.coreset_size
        origin = "--coreset-size"
        if m is None:
            m = _default_coreset_size(n_samples, args.clusters)
            origin = "default min(n, max(4096, 64*C))"
    else:
        m = None
    est = VCGMM(args.clusters, G=G, coreset_size=m, plus1=bool(args.plus1), chain_length=chain,
                max_iter=_resolve_max_iter(args, 1000), tol=args.tol, random_state=args.seed,
                n_threads=args.threads, verbose=args.verbose)
    g_text = f"G={G}{'+1' if args.plus1 else ''}"
    if coreset:
        return est, (f"vc-GMM: lightweight coreset of N'={m:,} points ({origin}) + AFK-MC^2 "
                     f"seeding (chain length {chain}) + truncated variational EM ({g_text})")
    return est, (f"var-GMM-S: AFK-MC^2 seeding (chain length {chain}) + truncated "
                 f"variational EM ({g_text}) on all data")


def _make_vcgmm(args, n_samples):
    return _variational(args, n_samples, coreset=True)


def _make_vargmm(args, n_samples):
    return _variational(args, n_samples, coreset=False)


#: algorithm name -> function (args, n_samples) -> (unfitted estimator, description)
ALGORITHMS = {
    "kmeans++": _make_kmeanspp,
    "lwcs": _make_lwcs,
    "vcgmm": _make_vcgmm,
    "vargmm": _make_vargmm,
}

#: options that only some algorithms use: option dest -> algorithms using it
ALGORITHM_OPTIONS = {
    "coreset_size": ("lwcs", "vcgmm"),
    "chain_length": ("lwcs", "vcgmm", "vargmm"),
    "G": ("vcgmm", "vargmm"),
    "plus1": ("vcgmm", "vargmm"),
}

_OUTPUT_EXTENSIONS = (".npy", ".csv", ".txt")


def _check_output_path(path, option):
    """Fail before fitting (not after a long run) if an output cannot be written."""
    if path is None:
        return
    ext = os.path.splitext(path)[1].lower()
    if ext not in _OUTPUT_EXTENSIONS:
        raise CLIError(f"{option} {path}: the file name must end in one of "
                       f"{', '.join(_OUTPUT_EXTENSIONS)}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise CLIError(f"{option} {path}: directory {parent} does not exist")


def _save(path, array):
    if path.lower().endswith(".npy"):
        np.save(path, array)
    elif np.issubdtype(array.dtype, np.integer):
        np.savetxt(path, array, fmt="%d")
    else:
        # repr precision, so the text file round-trips exactly
        np.savetxt(path, array, fmt="%.9g" if array.dtype == np.float32 else "%.17g",
                   delimiter="," if path.lower().endswith(".csv") else " ")


def _threads_text(n_threads):
    from ._validation import available_threads

    if n_threads is None or n_threads == -1:
        return f"all ({available_threads()})"
    return str(n_threads)


def _print_phases(est, out):
    timings = dict(getattr(est, "timings_", {}) or {})
    evals = dict(getattr(est, "n_distance_evals_", {}) or {})
    phases = list(dict.fromkeys(list(evals) + list(timings)))
    if not phases:
        return
    rows = [("phase", "distance evaluations", "seconds")]
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


def _cmd_fit(args):
    from ._io import open_data

    unused = [dest for dest, algos in ALGORITHM_OPTIONS.items()
              if getattr(args, dest) is not None and args.algo not in algos]
    if unused:
        flags = ", ".join("--" + dest.replace("_", "-") for dest in unused)
        raise CLIError(f"{flags} does not apply to --algo {args.algo}")
    _check_output_path(args.out, "--out")
    _check_output_path(args.labels_out, "--labels-out")
    if args.seed is None:
        # Draw the seed here so it can be printed and the run repeated.
        args.seed = secrets.randbelow(2**31)
        seed_note = " (drawn at random; pass --seed to repeat the run)"
    else:
        seed_note = ""

    start = time.perf_counter()
    X, notes = open_data(args.data, key=args.key, dtype=args.dtype)
    load_seconds = time.perf_counter() - start
    n, d = X.shape
    if args.clusters > n:
        raise CLIError(f"-C {args.clusters} exceeds the number of samples ({n:,}) in {args.data}")
    if args.verbose and X.dtype not in (np.float32, np.float64):
        notes.append(f"{X.dtype} data are converted to float64 by the library (one copy)")
    if args.verbose and not X.flags.c_contiguous:
        notes.append("the data are not C-contiguous; the library copies them to C order once")

    est, description = ALGORITHMS[args.algo](args, n)
    out = print
    kind = "memory-mapped" if isinstance(X, np.memmap) else "in memory"
    out(f"data        : {args.data}" + (f" [{args.key}]" if args.key else ""))
    out(f"              {n:,} x {d} {X.dtype} ({kind}, read in {load_seconds:.2f} s)")
    if args.verbose:
        for note in notes:
            out(f"              note: {note}")
    out(f"algorithm   : {args.algo}: {description}")
    out(f"parameters  : C={args.clusters}, max_iter={args.max_iter}, tol={args.tol:g}, "
        f"seed={args.seed}{seed_note}, threads={_threads_text(args.threads)}")
    sys.stdout.flush()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        est.fit(X)
        wall = time.perf_counter() - start
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)

    if hasattr(est, "inertia_"):
        q = float(est.inertia_)
    else:
        from ._functions import quantization_error

        q = float(quantization_error(X, est.cluster_centers_, n_threads=args.threads))
    converged = getattr(est, "converged_", None)
    out(f"iterations  : {est.n_iter_}"
        + ("" if converged is None else (" (converged)" if converged else
                                        f" (NOT converged: reached --max-iter {args.max_iter})")))
    relocated = getattr(est, "n_relocated_", 0)
    if relocated:
        out(f"relocated   : {relocated} empty clusters moved to far points")
    out(f"quantization error (full data): {q:.12g}  (mean per sample {q / n:.6g})")
    if hasattr(est, "sigma2_"):
        out(f"mixture     : sigma^2 = {est.sigma2_:.6g} per feature, final free energy "
            f"{est.free_energy_[-1]:.10g} (per unit weight {est.lower_bound_:.6g})")
    out(f"wall time   : {wall:.3f} s for fit; per phase:")
    _print_phases(est, out)
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


# -------------------------------------------------------------------------- demo

def _parse_sizes(text):
    sizes = []
    for part in text.split(","):
        part = part.strip()
        try:
            if part.startswith("2^"):
                value = 2 ** int(part[2:])
            else:
                value = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated sizes like 2^14,65536, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"coreset sizes must be positive, got {part!r}")
        sizes.append(value)
    return tuple(sizes)


def _cmd_demo(args):
    from . import _demo
    from .datasets import image_patches

    stride = args.stride if args.stride is not None else (
        _demo.QUICK["stride"] if args.quick else _demo.DEFAULT_STRIDE)
    clusters = args.clusters if args.clusters is not None else (
        _demo.QUICK["clusters"] if args.quick else _demo.DEFAULT_CLUSTERS)
    sizes = args.coreset_sizes if args.coreset_sizes is not None else (
        _demo.QUICK["coreset_sizes"] if args.quick else _demo.DEFAULT_CORESET_SIZES)

    start = time.perf_counter()
    X = image_patches(stride=stride)
    n, d = X.shape
    if clusters > n:
        raise CLIError(f"--clusters {clusters} exceeds the number of patches ({n:,}) at "
                       f"stride {stride}")
    subset = ("every patch: the full set" if stride == 1 else
              f"patch origins every {stride} pixels in each direction")
    print(f"data     : {n:,} x {d} {X.dtype} image patches (6x6 RGB) of scikit-learn's two "
          f"photos (china, flower),")
    print(f"           stride {stride} ({subset}); built in {time.perf_counter() - start:.1f} s")
    if args.quick:
        print("           --quick: a small smoke-test setting, not a benchmark")
    elif stride == _demo.DEFAULT_STRIDE and args.stride is None:
        print("           default stride 1: the whole set; the demo then takes about a minute "
              "on an idle 2-core machine,")
        print("           nearly all of it in the k-means++ baseline (--stride 2 keeps a quarter "
              "of the patches, ~10 s)")
    skipped = [s for s in sizes if s > n]
    rows = _demo.default_rows(n, sizes)
    print(f"clusters : C = {clusters}; "
          + (f"seeds {args.seed}..{args.seed + args.repeats - 1} ({args.repeats} runs per row)"
             if args.repeats > 1 else f"seed {args.seed}")
          + f"; threads {_threads_text(args.threads)}")
    if skipped:
        print(f"           skipped coreset sizes larger than the data: "
              f"{', '.join(_demo._format_n_prime(s) for s in skipped)}")
    sys.stdout.flush()

    setting = _demo.Setting(n_clusters=clusters, seed=args.seed, n_threads=args.threads)

    def progress(line):
        print(line, flush=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = _demo.run_demo(X, rows, setting, repeats=args.repeats, out=progress)
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)

    print()
    print(f"Relative quantization error and speedup with k-means++ as baseline "
          f"(image patches, N = {n:,}, D = {d}, C = {clusters}):")
    print()
    print(_demo.format_table(_demo.table_rows(results)))
    print()
    repeat_note = (f"Means over {args.repeats} runs with seeds {args.seed}..{args.seed + args.repeats - 1} "
                   "(+- standard error of the mean)." if args.repeats > 1 else
                   f"One run per row (seed {args.seed}); eta and the times vary from run "
                   "to run: --repeats R gives means and standard errors.")
    from ._validation import available_threads

    n_threads = available_threads() if args.threads in (None, -1) else args.threads
    print(_wrap(_demo.EXPLANATION.format(
        n=n, threads=f"{n_threads} thread{'s' if n_threads != 1 else ''}",
        chain=_demo.LWCS_CHAIN_LENGTH, repeat_note=repeat_note)))
    return 0


def _wrap(text, width=88):
    import textwrap

    return textwrap.fill(text, width=width)


# -------------------------------------------------------------------------- info

def _cmd_info(args):
    import platform

    import vcgmm

    from ._validation import available_threads

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

def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _threads(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer or -1, got {text!r}") from None
    if value == -1 or value >= 1:
        return value
    raise argparse.ArgumentTypeError(f"expected a positive integer or -1 (all), got {text!r}")


def _nonnegative_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not np.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value


def _seed(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text!r}") from None
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"the seed must be in [0, 2^32), got {text!r}")
    return value


def _version():
    from . import __version__

    return __version__


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
            "algorithms:\n"
            "  kmeans++  k-means++ seeding (D^2 sampling) + Lloyd iterations on all data\n"
            "            (the papers' baseline; exact but O(N C D) per iteration)\n"
            "  lwcs      lightweight coreset of M weighted points + AFK-MC^2 seeding +\n"
            "            weighted Lloyd on the coreset; --coreset-size defaults to\n"
            "            M = min(n, max(4096, 64*C))\n"
            "  vcgmm     vc-GMM: lightweight coreset (same default M) + AFK-MC^2 +\n"
            "            truncated variational EM with neighbourhoods of G clusters,\n"
            "            O(M G^2 D) per iteration, independent of N and C (the headline)\n"
            "  vargmm    var-GMM-S: the same EM on all data (no coreset)\n"
            "\n"
            "data files: .npy (memory-mapped), .npz (one array, --key; memory-mapped\n"
            "when stored uncompressed), .csv/.tsv/.txt (delimiter guessed, header row\n"
            "skipped if not numeric)."
        ),
    )
    fit.add_argument("data", metavar="DATA", help="data file (.npy, .npz, .csv, .tsv, .txt)")
    fit.add_argument("-C", "--clusters", type=_positive_int, required=True, metavar="N",
                     help="number of clusters")
    fit.add_argument("--algo", choices=list(ALGORITHMS), default="kmeans++",
                     help="algorithm (default: %(default)s; see below)")
    fit.add_argument("--coreset-size", type=_positive_int, default=None, metavar="M",
                     help="coreset size for --algo lwcs/vcgmm (default: min(n, max(4096, 64*C)))")
    fit.add_argument("-G", type=_positive_int, default=None, metavar="G",
                     help="neighbourhood size for --algo vcgmm/vargmm (default: 5)")
    fit.add_argument("--plus1", action="store_true", default=None,
                     help="vcgmm/vargmm: add one random cluster to every search space")
    fit.add_argument("--chain-length", type=_positive_int, default=None, metavar="m",
                     help="AFK-MC^2 Markov chain length for --algo lwcs/vcgmm/vargmm "
                          "(default: 20)")
    fit.add_argument("--max-iter", type=_positive_int, default=None,
                     help="maximum Lloyd/EM iterations (default: 300 for kmeans++ and lwcs, "
                          "1000 for vcgmm and vargmm)")
    fit.add_argument("--tol", type=_nonnegative_float, default=1e-4,
                     help="stop when the relative change of the objective falls below this "
                          "(default: %(default)s)")
    fit.add_argument("--seed", type=_seed, default=None, metavar="S",
                     help="random seed (default: drawn at random and printed)")
    fit.add_argument("--threads", type=_threads, default=None, metavar="T",
                     help="threads (default: all available); results do not depend on it")
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
    fit.set_defaults(func=_cmd_fit)

    demo = sub.add_parser(
        "demo", help="the paper's Table 1 on built-in image patches",
        description=(
            "Cluster the built-in image patches (6x6x3 patches of scikit-learn's two "
            "photos; stride 1 = 535,940 x 108) with k-means++ (the baseline) and LWCS, "
            "and print relative quantization error and speedups as in Table 1 of the "
            "vc-GMM paper."
        ),
    )
    demo.add_argument("--stride", type=_positive_int, default=None, metavar="S",
                      help="step between patch origins (default: 1 = all patches; "
                           "2 keeps about a quarter)")
    demo.add_argument("--clusters", "-C", type=_positive_int, default=None, metavar="C",
                      help="number of clusters (default: 1000)")
    demo.add_argument("--coreset-sizes", type=_parse_sizes, default=None, metavar="LIST",
                      help="LWCS coreset sizes N', e.g. 2^14,2^16 (the default); sizes "
                           "larger than the data are skipped")
    demo.add_argument("--repeats", type=_positive_int, default=1, metavar="R",
                      help="runs per row with seeds S..S+R-1; the table shows means and "
                           "standard errors (default: 1)")
    demo.add_argument("--threads", type=_threads, default=None, metavar="T",
                      help="threads (default: all available)")
    demo.add_argument("--seed", type=_seed, default=0, metavar="S",
                      help="random seed (default: %(default)s)")
    demo.add_argument("--quick", action="store_true",
                      help="tiny setting for smoke tests: stride 8, C=100, N' in 2^11, 2^13")
    demo.set_defaults(func=_cmd_demo)

    info = sub.add_parser("info", help="build information (instruction set, OpenMP)",
                          description="Show the version, the instruction-set level in use "
                                      "and whether OpenMP is enabled.")
    info.set_defaults(func=_cmd_info)
    return parser


def main(argv=None):
    """Run the command line; returns the exit status (argparse usage errors and
    ``--version`` raise SystemExit as usual)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
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
