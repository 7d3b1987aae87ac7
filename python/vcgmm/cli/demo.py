"""``vcgmm demo``: the paper's Table 1 on the built-in image patches.

The command's parser (:func:`add_parser`) and its run (:func:`run`). The
rows, their measurement, the summary and the table are ``vcgmm._table1``'s,
the same as the benchmark's (bench/table1.py); what is the demo's own is its
data (the image patches at a stride), its defaults, its progress lines and
the explanation printed under the table.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
import warnings

from .._base.loader import core as _core
from .._base.run import available_threads
from ..datasets import image_patches
from . import table1 as _table1
from .common import PROG, CLIError, _add_run_flags, _threads_text

__all__ = ["add_parser", "run", "DEFAULT_STRIDE"]

# Stride 1 is the whole data set (535,940 patches), the papers' setting; nearly
# all of the demo's time is the k-means++ baseline, which stride 2 (134,196
# patches) cuts to about a quarter.
DEFAULT_STRIDE = 1
DEFAULT_CLUSTERS = 1000
QUICK = {"stride": 8, "clusters": 100, "coreset_sizes": (2**11, 2**13)}

EXPLANATION = (
    "eta is the relative quantization error (Q_algo - Q_kmpp) / Q_kmpp, where Q is the "
    "sum of squared distances of ALL {n:,} patches to their nearest center (whatever "
    "subset an algorithm trained on) and k-means++ (D^2 seeding + Lloyd on the full data) "
    "is the baseline: +10% means a 10% larger error than k-means++. The speedups are "
    "k-means++'s cost divided by the algorithm's: wall time ({threads}) and distance "
    "evaluations (one per point-center pair, however computed), both summed over coreset "
    "construction, seeding and the Lloyd/EM iterations; the final pass that labels the "
    "full data and computes Q is excluded, as in the paper. 'iterations' counts Lloyd/EM "
    "iterations until the stopping rule held (below); "
    "'coreset+seeding' is the share of the algorithm's time spent before the iterations. "
    "LWCS = lightweight coreset of N' weighted points + AFK-MC^2 seeding (chain length "
    "{chain}) + weighted Lloyd on the coreset. vc-GMM = the same coreset and seeding + "
    "truncated variational EM in which each point searches only the G-neighbourhoods of its "
    "G nearest clusters (G=3+1: plus one random cluster), so an iteration costs "
    "O(N' G^2 D) instead of O(N' C D); var-GMM-S = that EM on all points. 'vc-GMM "
    "refine={refine}' (not in the paper; the library's default) = "
    "vc-GMM followed by {refine} hard Lloyd steps on the coreset, each labelling every "
    "coreset point among all C means by an approximate search (their time is in the row's; "
    "'iterations' counts the EM iterations before them). 'VCGMM() defaults' = vc-GMM as "
    "VCGMM() and fit_vcgmm run it on that coreset: greedy k-means++ seeding up to {auto_max} "
    "clusters (AFK-MC^2 above), G={G}, {refine} refinement steps. {repeat_note} "
    "{stop_rules}"
)


# ------------------------------------------------------------------ parser
def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


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


def add_parser(sub):
    """Add the ``demo`` command to the subparsers ``sub`` of the ``vcgmm`` parser."""
    demo = sub.add_parser(
        "demo", help="the paper's Table 1 on built-in image patches",
        description=(
            "Cluster the built-in image patches (6x6x3 patches of scikit-learn's two "
            "photos; stride 1 = 535,940 x 108) with k-means++ (the baseline), var-GMM-S, "
            "LWCS and vc-GMM (as in the paper, and with the library's default refinement "
            "steps), and print relative quantization error and speedups as in "
            "Table 1 of the vc-GMM paper."
        ),
    )
    demo.add_argument("--stride", type=_positive_int, default=None, metavar="S",
                      help="step between patch origins (default: 1 = all patches; "
                           "2 keeps about a quarter)")
    demo.add_argument("--clusters", "-C", type=_positive_int, default=None, metavar="C",
                      help="number of clusters (default: 1000)")
    demo.add_argument("--coreset-sizes", type=_parse_sizes, default=None, metavar="LIST",
                      help="coreset sizes N' of the LWCS and vc-GMM rows, e.g. 2^14,2^16 (the default); sizes "
                           "larger than the data are skipped")
    demo.add_argument("--repeats", type=_positive_int, default=1, metavar="R",
                      help="runs per row with seeds S..S+R-1; the table shows means and "
                           "standard errors (default: 1)")
    _add_run_flags(demo, seed_help="random seed (default: %(default)s)", seed_default=0)
    demo.add_argument("--quick", action="store_true",
                      help="tiny setting for smoke tests: stride 8, C=100, N' in 2^11, 2^13")
    demo.set_defaults(func=run)
    return demo


# ------------------------------------------------------------------ run
def _choice(given, quick_key, default, quick):
    """A flag's value: as given, else the --quick setting, else the default."""
    if given is not None:
        return given
    return QUICK[quick_key] if quick else default


def _load(args, stride):
    """The image patches at ``stride``, described on stdout."""
    start = time.perf_counter()
    X = image_patches(stride=stride)
    n, d = X.shape
    subset = ("every patch: the full set" if stride == 1 else
              f"patch origins every {stride} pixels in each direction")
    print(f"data     : {n:,} x {d} {X.dtype} image patches (6x6 RGB) of scikit-learn's two "
          f"photos (china, flower),")
    print(f"           stride {stride} ({subset}); built in {time.perf_counter() - start:.1f} s")
    if args.quick:
        print("           --quick: a small smoke-test setting, not a benchmark")
    elif stride == DEFAULT_STRIDE and args.stride is None:
        print("           default stride 1: the whole set; the demo then takes a few minutes "
              "on 2 cores,")
        print("           nearly all of it in the k-means++ baseline (--stride 2 keeps a quarter "
              "of the patches)")
    return X


def _explanation(args, n, setting, summaries, shape):
    last = args.seed + args.repeats - 1
    repeat_note = (f"Means over {args.repeats} runs with seeds {args.seed}..{last} "
                   "(+- standard error of the mean)." if args.repeats > 1 else
                   f"One run per row (seed {args.seed}); eta and the times vary from run "
                   "to run: --repeats R gives means and standard errors.")
    n_threads = available_threads() if args.threads in (None, -1) else args.threads
    text = EXPLANATION.format(
        n=n, threads=f"{n_threads} thread{'s' if n_threads != 1 else ''}",
        chain=_table1.CHAIN_LENGTH, repeat_note=repeat_note, refine=_table1.DEFAULT_REFINE,
        G=_table1.VCGMM_PARAMS.defaults["G"], auto_max=_core.AUTO_SEEDING_MAX_CLUSTERS,
        stop_rules=_table1.stop_rules(setting, q_base=summaries[0]["Q"], shape=shape))
    return textwrap.fill(text, width=88)


def run(args):
    """``vcgmm demo``: fit every row on the patches and print Table 1."""
    stride = _choice(args.stride, "stride", DEFAULT_STRIDE, args.quick)
    clusters = _choice(args.clusters, "clusters", DEFAULT_CLUSTERS, args.quick)
    sizes = _choice(args.coreset_sizes, "coreset_sizes", _table1.DEFAULT_CORESET_SIZES,
                    args.quick)
    X = _load(args, stride)
    n, d = X.shape
    if clusters > n:
        raise CLIError(f"--clusters {clusters} exceeds the number of patches ({n:,}) at "
                       f"stride {stride}")
    skipped = [s for s in sizes if s > n]
    # the papers' rows, and vc-GMM as the library runs it by default
    rows = _table1.default_rows(n, sizes, vc_refine=(_table1.DEFAULT_REFINE,),
                                library_defaults=True)
    print(f"clusters : C = {clusters}; "
          + (f"seeds {args.seed}..{args.seed + args.repeats - 1} ({args.repeats} runs per row)"
             if args.repeats > 1 else f"seed {args.seed}")
          + f"; threads {_threads_text(args.threads)}")
    if skipped:
        print(f"           skipped coreset sizes larger than the data: "
              f"{', '.join(_table1.format_n_prime(s) for s in skipped)}")
    sys.stdout.flush()

    setting = _table1.Setting(n_clusters=clusters, seed=args.seed, n_threads=args.threads)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = _table1.run_rows(X, rows, setting, repeats=args.repeats,
                                   out=lambda line: print(line, flush=True))
    for w in caught:
        print(f"{PROG}: warning: {w.message}", file=sys.stderr)

    print()
    print(f"Relative quantization error and speedup with k-means++ as baseline "
          f"(image patches, N = {n:,}, D = {d}, C = {clusters}):")
    print()
    summaries = _table1.summarize(results)
    print(_table1.format_table(_table1.table_cells(summaries)))
    print()
    print(_explanation(args, n, setting, summaries, X.shape))
    return 0
