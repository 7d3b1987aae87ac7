"""Kernel k-means on small data: does a second thread help or hurt?

Should the small iterations of mini-batch kernel k-means run on one thread (a
parallel region that wakes a second thread for microseconds of work can cost
more than the work)? The core already caps each region's threads by a work
estimate (``detail::parallel_for``'s ``work_per_task``, below 2e6 flops per
thread a region runs on the calling thread); this benchmark measures the whole
fit with 1 and 2 threads on a small data set, where that matters most.

What is timed: ``vcgmm.KernelKMeans(k, kernel="rbf", n_threads=T, tol=0,
max_iter=...).fit(X)`` (seeding, iterations, labels of all points), one
random_state per repeat, 1 and 2 threads taking turns
(:func:`bench._harness.timeit_interleaved`), median over the repeats. The
results do not depend on the thread count (the library's determinism
contract), so only the time differs.

Run from the repository root::

    python -m bench.kernel_kmeans_threads                 # digits, 7 repeats
    python -m bench.kernel_kmeans_threads --dataset letter --repeats 3
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

import vcgmm
from bench import _harness
from bench.datasets import load
from bench.kernel_kmeans import CLUSTERS

#: (row name, KernelKMeans parameters); every row runs --iters iterations
#: without early stopping except full batch (until no label changes).
ROWS = [
    ("truncated b=256 tau=50", dict(algorithm="truncated", batch_size=256, tau=50)),
    ("truncated b=1024 tau=200", dict(algorithm="truncated", batch_size=1024, tau=200)),
    ("minibatch b=1024", dict(algorithm="minibatch", batch_size=1024)),
    ("full", dict(algorithm="full")),
]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", default="digits", choices=sorted(CLUSTERS))
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--name", default="kernel_kmeans_threads")
    args = p.parse_args(argv)

    info = _harness.machine_info()
    X = load(args.dataset, dtype=np.float32)
    n, d = X.shape
    k = CLUSTERS[args.dataset]
    rows = []
    for name, params in ROWS:
        if params.get("batch_size", 0) > n:
            continue
        seeds = {1: itertools.count(), 2: itertools.count()}  # the i-th fit of each count alike
        fits = {}
        for nt in (1, 2):
            def fit(nt=nt, params=params):
                vcgmm.KernelKMeans(k, kernel="rbf", max_iter=args.iters, tol=0.0,
                                   random_state=next(seeds[nt]), n_threads=nt, **params).fit(X)
            fits[nt] = fit
        with _harness.OtherCpu() as other:
            t = _harness.timeit_interleaved(fits, repeats=args.repeats, warmup=1)
        rows.append({"row": name, "t1": t[1]["median"] * 1e3, "t2": t[2]["median"] * 1e3,
                     "ratio": t[2]["median"] / t[1]["median"], "other_cpu": other.cores,
                     "all_1": t[1]["all"], "all_2": t[2]["all"]})
        print(f"{name:26s} 1 thread {rows[-1]['t1']:8.1f} ms  2 threads {rows[-1]['t2']:8.1f} ms"
              f"  2/1 {rows[-1]['ratio']:.2f}", flush=True)
    columns = [("row", "algorithm", ""), ("t1", "1 thread [ms]", ".1f"),
               ("t2", "2 threads [ms]", ".1f"), ("ratio", "2 threads / 1 thread", ".2f")]
    loads = [r["other_cpu"] or 0.0 for r in rows]
    notes = [
        f"{args.dataset}: {n:,} x {d} float32, k = {k}, Gaussian kernel with the median "
        f"heuristic gamma; {args.iters} iterations without early stopping (full batch: until "
        "no label changes).",
        f"Median of {args.repeats} fits per thread count (one random_state per fit, the same "
        "for both counts in turn), 1 and 2 threads taking turns after one warm-up each.",
        f"Other processes kept {max(loads):.2f} cores busy at most during the timings: on a "
        "loaded machine a region that wakes a second thread can wait for a time slice, so "
        "2 threads can lose there even when they win on a quiet one.",
    ]
    _harness.write_results(args.name, columns, rows, info=info, notes=notes,
                           title="Kernel k-means on small data: 1 vs 2 threads",
                           params=vars(args))


if __name__ == "__main__":
    main()
