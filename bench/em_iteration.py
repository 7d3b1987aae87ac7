"""Per-iteration time of vc-GMM's variational loop as C grows.

vc-GMM's E-step evaluates about G^2 distances per coreset point whatever C is,
so its iteration should cost O(N' G^2 D), independent of C. This measures it:
an LWCS coreset of N' points of the data (as ``fit_vcgmm`` draws it), C
initial means drawn uniformly from the coreset, then ``VariationalLoop`` run
step by step, timing every E-step and M-step after a warm-up (the first
E-step estimates sigma^2 and the neighbourhoods start as random sets: the
warm-up iterations let them settle). Reported per C: median E-step and M-step
time, their sum (one iteration), distance evaluations per point per E-step,
and the iteration time relative to the smallest C of the run (target: at
most 1.3x from C = 1,000 up).

Run from the repository root::

    python -m bench.em_iteration                                   # patches, N' = 2^17, G = 5
    python -m bench.em_iteration --clusters 1000 16384 --iterations 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "em_iteration"


def measure(loop, n_points, warmup, iterations):
    """Median E-step and M-step seconds over `iterations` after `warmup`
    iterations, and the distance evaluations per point of one E-step."""
    for _ in range(warmup):
        loop.e_step()
        loop.m_step()
    e_times, m_times, e_cpu, m_cpu, evals = [], [], [], [], []
    for _ in range(iterations):
        before = loop.n_distance_evals
        t0, c0 = time.perf_counter(), time.process_time()
        loop.e_step()
        t1, c1 = time.perf_counter(), time.process_time()
        loop.m_step()
        t2, c2 = time.perf_counter(), time.process_time()
        e_times.append(t1 - t0)
        m_times.append(t2 - t1)
        e_cpu.append(c1 - c0)
        m_cpu.append(c2 - c1)
        evals.append((loop.n_distance_evals - before) / n_points)
    return {"estep_ms": 1e3 * float(np.median(e_times)),
            "mstep_ms": 1e3 * float(np.median(m_times)),
            "estep_cpu_ms": 1e3 * float(np.median(e_cpu)),
            "mstep_cpu_ms": 1e3 * float(np.median(m_cpu)),
            "evals_per_point": float(np.median(evals)),
            "estep_all_s": e_times, "mstep_all_s": m_times}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="patches-sklearn")
    parser.add_argument("--coreset-size", type=int, default=2 ** 17)
    parser.add_argument("--clusters", type=int, nargs="+",
                        default=[1000, 4096, 16384, 65536, 131072])
    parser.add_argument("--G", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)

    import vcgmm

    info = _harness.machine_info()
    X = load(args.dataset, dtype=np.float32)
    rows = []
    with _harness.thread_limits(args.threads):
        idx, w = vcgmm.lwcs(X, args.coreset_size, random_state=0, n_threads=args.threads)
        Y = np.ascontiguousarray(X[idx])
        w = np.ascontiguousarray(w)
        rng = np.random.default_rng(0)
        for C in args.clusters:
            means = Y[np.sort(rng.choice(Y.shape[0], size=C, replace=False))]
            t0 = time.perf_counter()
            loop = vcgmm.VariationalLoop(Y, means, G=args.G, sample_weight=w,
                                         n_threads=args.threads, random_state=0)
            t_build = time.perf_counter() - t0
            row = {"C": C, "N_prime": Y.shape[0], "D": Y.shape[1], "G": args.G,
                   "setup_ms": 1e3 * t_build,
                   **measure(loop, Y.shape[0], args.warmup, args.iterations)}
            row["iteration_ms"] = row["estep_ms"] + row["mstep_ms"]
            row["iteration_cpu_ms"] = row["estep_cpu_ms"] + row["mstep_cpu_ms"]
            rows.append(row)
            print(f"C={C:>7}  E {row['estep_ms']:8.1f} ms ({row['estep_cpu_ms']:8.1f} cpu)  "
                  f"M {row['mstep_ms']:8.1f} ms ({row['mstep_cpu_ms']:8.1f} cpu)  "
                  f"evals/point {row['evals_per_point']:5.1f}", flush=True)
            del loop
    for r in rows:
        r["ratio"] = r["iteration_ms"] / rows[0]["iteration_ms"]
        r["ratio_cpu"] = r["iteration_cpu_ms"] / rows[0]["iteration_cpu_ms"]
    columns = [
        ("C", "C", "d"),
        ("estep_ms", "E-step [ms]", ".1f"),
        ("mstep_ms", "M-step [ms]", ".1f"),
        ("iteration_ms", "iteration [ms]", ".1f"),
        ("ratio", f"iteration / C={rows[0]['C']}", ".2f"),
        ("estep_cpu_ms", "E-step CPU [ms]", ".1f"),
        ("mstep_cpu_ms", "M-step CPU [ms]", ".1f"),
        ("ratio_cpu", f"CPU / C={rows[0]['C']}", ".2f"),
        ("evals_per_point", "distance evals per point", ".1f"),
        ("setup_ms", "loop setup [ms]", ".1f"),
    ]
    _harness.write_results(
        args.name, columns, rows,
        title=f"vc-GMM: time per EM iteration as C grows ({args.dataset}, LWCS coreset "
              f"N' = {args.coreset_size}, G = {args.G}, float32, {args.threads} threads)",
        params=vars(args), info=info,
        notes=[f"Median of {args.iterations} iterations after {args.warmup} warm-up "
               "iterations; initial means drawn uniformly from the coreset (seed 0); "
               "`vcgmm.VariationalLoop` stepped from Python (one core call per step).",
               "Wall time and CPU time (process, all threads) per step: on a shared "
               "machine CPU time is the steadier of the two.",
               "Target: iteration time grows by at most 1.3x from "
               "C = 1,000 up at fixed N' and G."])


if __name__ == "__main__":
    main()
