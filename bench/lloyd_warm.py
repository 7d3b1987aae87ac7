"""Lloyd's later iterations started from the last labels, against scanning
every iteration, on the same centers.

From its second iteration on, ``vcgmm.lloyd`` (and ``KMeans`` on all
points) assigns each point by walking out from its last label
(``assign_nearest_from`` in cpp/src/detail/assign.hpp): the center pairs
bound which centers can be nearer, and only those are measured. The result
is the scan's, bit for bit. A single-iteration call always scans, so ``k``
chained ``lloyd(max_iter=1)`` calls are Lloyd with a scan in every
iteration: the same centers, the old cost. Per data set and C this
benchmark runs both from the same C random rows, in the same process, and
reports both times, the later iterations' distances per point and whether
centers and objectives are the same bit for bit (they must be).

Run from the repository root::

    python -m bench.lloyd_warm --datasets blobs2m patches-sklearn fashion-mnist \
        --clusters 1000 4000 --iterations 5
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from bench import _harness
from bench.eval_warm import _data

NAME = "lloyd_warm"


def run(args):
    import vcgmm

    info = _harness.machine_info()
    rows = []
    k = args.iterations
    for name in args.datasets:
        X = _data(name)
        N = X.shape[0]
        print(f"{name}: {N:,} x {X.shape[1]}", file=sys.stderr, flush=True)
        for C in args.clusters:
            rng = np.random.default_rng(args.seed)
            init = X[np.sort(rng.choice(N, C, replace=False))].copy()
            start = time.perf_counter()
            centers, warm = vcgmm.lloyd(X, init, max_iter=k, tol=0)
            warm_s = time.perf_counter() - start
            chained, objectives = init, []
            start = time.perf_counter()
            for _ in range(k):
                chained, one = vcgmm.lloyd(X, chained, max_iter=1, tol=0)
                objectives.extend(list(one["objective"]))
            scan_s = time.perf_counter() - start
            same = bool(np.array_equal(centers, chained)
                        and list(warm["objective"]) == objectives)
            later = (warm["n_distance_evals"]["iterations"] - N * C) / (warm["n_iter"] - 1) / N
            rows.append({"data": name, "C": C, "iterations": warm["n_iter"],
                         "scan_s": scan_s, "warm_s": warm_s, "ratio": scan_s / warm_s,
                         "later": later, "error": warm["objective"][-1] / N,
                         "same": "yes" if same else "NO"})
            print(f"[{name} C={C}] scanning {scan_s:.2f} s, from the labels {warm_s:.2f} s, "
                  f"{later:.1f} distances/point in later iterations, same {same}",
                  file=sys.stderr, flush=True)
    columns = [("data", "data", None), ("C", "C", None), ("iterations", "iterations", None),
               ("scan_s", "every iteration scans [s]", ".2f"),
               ("warm_s", "later ones from the labels [s]", ".2f"),
               ("ratio", "speedup", ".2f"),
               ("later", "later iterations: distances / point", ".1f"),
               ("error", "last objective / point", ".6g"),
               ("same", "same centers and objectives", None)]
    notes = [
        f"vcgmm.lloyd(X, init, max_iter={k}, tol=0) from C random rows (seed {args.seed}) "
        f"against {k} chained vcgmm.lloyd(X, c, max_iter=1, tol=0) calls (each scans all C "
        "centers), in the same process, float32, 2 threads, one run each.",
        "later iterations: distances measured per point and iteration after the first "
        "(the scan's is C), the center pairs' C^2 included.",
        "same: final centers and every iteration's objective equal bit for bit.",
    ]
    _harness.write_results(args.name, columns, rows,
                           title="Lloyd's later iterations from the last labels vs scanning",
                           params=dict(vars(args)), notes=notes, info=info)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+",
                        default=["blobs2m", "patches-sklearn", "fashion-mnist"])
    parser.add_argument("--clusters", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    with _harness.thread_limits(2):
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
