"""Nested mini-batch k-means: the first batch b0 fixed (the paper's 5000) or growing with C.

The paper (002) starts every run from b0 = 5000 rows whatever k; at k = 1000
that is 5 rows per cluster, so the first doublings take many iterations. This
fits ``NestedMiniBatchKMeans(C, batch_size=b0)`` at its defaults otherwise for
b0 = "auto" (max(C, min(5000, n)), the paper's), 20 C and 100 C (capped by
n), per C and seed, and reports the fit time, the exact error per point on
all rows and the iterations run.

Run from the repository root::

    python -m bench.nmbatch_b0
    python -m bench.nmbatch_b0 --dataset patches-sklearn --clusters 200 1000 --seeds 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from bench import _harness
from bench.datasets import load
from bench.users_data import quantization

NAME = "nmbatch_b0"


def run(args):
    import vcgmm

    X = load(args.dataset, np.float32)
    info = _harness.machine_info()
    rows, raw = [], []
    for C in args.clusters:
        for factor in [None] + args.factors:
            b0 = "auto" if factor is None else min(factor * C, X.shape[0])
            recs = []
            for seed in range(args.seeds):
                t = time.perf_counter()
                est = vcgmm.NestedMiniBatchKMeans(C, batch_size=b0, random_state=seed,
                                                  compute_labels=False,
                                                  n_threads=args.threads).fit(X)
                seconds = time.perf_counter() - t
                err = quantization(X, est.cluster_centers_)[0]
                recs.append({"C": C, "b0": b0, "seed": seed, "seconds": seconds, "error": err,
                             "n_iter": int(est.n_iter_)})
                print(C, b0, seed, f"{seconds:.2f} s", f"{err:.6g}", est.n_iter_, flush=True)
            raw.extend(recs)
            row = {"C": C, "b0": "auto (paper)" if factor is None else f"{factor} C = {b0}",
                   "seconds": statistics.fmean(r["seconds"] for r in recs),
                   "error": statistics.fmean(r["error"] for r in recs),
                   "n_iter": statistics.fmean(r["n_iter"] for r in recs)}
            if factor is None:
                auto = row
            row["time_ratio"] = row["seconds"] / auto["seconds"]
            row["error_vs_auto"] = 100.0 * (row["error"] / auto["error"] - 1.0)
            rows.append(row)
    columns = [("C", "C", None), ("b0", "b0", None), ("seconds", "time [s]", ".2f"),
               ("time_ratio", "time / auto", ".2f"), ("error", "error per point", ".6g"),
               ("error_vs_auto", "error vs auto [%]", "+.2f"), ("n_iter", "iterations", ".0f")]
    notes = [f"vcgmm.NestedMiniBatchKMeans(C, batch_size=b0, random_state=seed, "
             f"compute_labels=False, n_threads={args.threads}) on {args.dataset} (float32), "
             f"defaults otherwise; means over seeds 0..{args.seeds - 1}.",
             "error per point: exact, on all rows (users_data.quantization); iterations: "
             "n_iter_ (max_iter is 1000 by default)."]
    _harness.write_results(args.name, columns, rows,
                           title=f"nmbatch's first batch b0 ({args.dataset})",
                           params=dict(vars(args)), notes=notes, info=info,
                           extra={"runs": raw})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="patches-sklearn")
    parser.add_argument("--clusters", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--factors", type=int, nargs="+", default=[20, 100],
                        help="b0 = factor * C rows (capped by n) beside 'auto'")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
