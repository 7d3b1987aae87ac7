"""vc-GMM's E-step and M-step, each on 1 and p threads.

On an LWCS coreset of ``--coreset`` (log2) rows of the data, seeded by
AFK-MC^2, a :class:`vcgmm.VariationalLoop` runs ``--iterations`` E-step /
M-step pairs for every thread count (1 and each ``--threads``); each step's
wall time is the mean over the iterations, and the reported time per step
the minimum over ``--repeats`` loops. The speedup of each step on p threads
is its 1-thread time over its p-thread time (the serial parts of a fit by
step: ``bench/vcgmm_threads.py`` times its phases).

Run from the repository root::

    python -m bench.em_threads --clusters 1000 2000 --threads 2
    python -m bench.em_threads --threads 2 4 8 16      # on a machine with 16 cores
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "em_threads"


def _steps(Y, w, centers, G, n_threads, iterations, seed, skip=0):
    """Mean E-step and M-step seconds over `iterations` pairs after `skip`
    untimed ones (the first pair estimates sigma^2), and the final means."""
    import vcgmm

    loop = vcgmm.VariationalLoop(Y, centers, G=G, sample_weight=w, n_threads=n_threads,
                                 random_state=seed)
    e = m = 0.0
    for it in range(skip + iterations):
        t = time.perf_counter()
        loop.e_step(estimate_sigma=(it == 0))
        te = time.perf_counter() - t
        t = time.perf_counter()
        loop.m_step()
        tm = time.perf_counter() - t
        if it >= skip:
            e += te
            m += tm
    return e / iterations, m / iterations, loop.means


def run(args):
    import vcgmm

    X = load(args.dataset, dtype=np.dtype(args.dtype))
    print(f"{args.dataset}: {X.shape[0]:,} x {X.shape[1]} {X.dtype}", file=sys.stderr, flush=True)
    info = _harness.machine_info()
    counts = [1] + [p for p in args.threads if p != 1]
    idx, w = vcgmm.lwcs(X, 2 ** args.coreset, random_state=args.seed)
    Y = np.ascontiguousarray(X[idx])
    rows = []
    for C in args.clusters:
        centers, _ = vcgmm.afkmc2(Y, C, sample_weight=w, random_state=args.seed)
        best, means = {}, {}
        for _rep in range(args.repeats):
            for t in counts:  # taking turns, so load from other processes hits all alike
                e, m, mu = _steps(Y, w, centers, args.G, t, args.iterations, args.seed)
                old = best.get(t, (np.inf, np.inf))
                best[t] = (min(old[0], e), min(old[1], m))
                means[t] = mu
        same = all(np.array_equal(means[t], means[1]) for t in counts)
        for t in counts:
            e, m = best[t]
            rows.append({"C": C, "p": t, "e_ms": 1e3 * e, "m_ms": 1e3 * m,
                         "e_speedup": best[1][0] / e, "m_speedup": best[1][1] / m,
                         "identical": same})
            print(f"[C={C}] {t} threads: E {1e3 * e:.1f} ms, M {1e3 * m:.1f} ms",
                  file=sys.stderr, flush=True)
    columns = [("C", "C", None), ("p", "threads", None), ("e_ms", "E-step [ms]", ".1f"),
               ("m_ms", "M-step [ms]", ".1f"), ("e_speedup", "E speedup", ".2f"),
               ("m_speedup", "M speedup", ".2f"), ("identical", "same means", None)]
    notes = [
        f"{args.dataset} ({args.dtype}), LWCS coreset of 2^{args.coreset} rows (seed {args.seed}), "
        f"AFK-MC^2 seeds, G = {args.G}; per thread count the mean over {args.iterations} "
        f"E-step / M-step pairs from the seeds, minimum over {args.repeats} loops.",
        "same means = the loops on every thread count ended with the same means bit for bit.",
    ]
    _harness.write_results(args.name, columns, rows, title="vc-GMM's E-step and M-step by threads",
                           params=dict(vars(args)), notes=notes, info=info)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="patches-sklearn")
    parser.add_argument("--clusters", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--coreset", type=int, default=16, help="log2 of the coreset size N'")
    parser.add_argument("-G", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[2])
    parser.add_argument("--iterations", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    with _harness.thread_limits(max(args.threads)):
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
