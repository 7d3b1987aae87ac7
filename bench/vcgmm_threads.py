"""vc-GMM's serial fraction, phase by phase, and what it projects to many cores.

A fit's phases (coreset, seeding, EM iterations, refinement, evaluation) run
on 1 and on ``--threads`` threads (default 2), taking turns so that load from
other processes hits both alike; each phase's time is the fit's own timing of
it (``VCGMMResult.timings``), the minimum over ``--repeats`` fits. From the
speedup S on p threads, Amdahl's law gives the serial fraction
f = (p / S - 1) / (p - 1) and projects the speedup on P threads as
1 / (f + (1 - f) / P), reported for 16 and 64. The fits on 1 and p threads
are checked to give the same centers bit for bit (the determinism contract).

On a machine with many cores, ``--threads 2 4 8 16`` measures each
speedup directly (the 16-core check; it runs in a few minutes at the default
sizes). Each p gets its own rows, with the serial fraction it implies.

The 'fit' rows also give the process CPU time on p threads over that on 1
(OpenMP's waiting threads sleep: OMP_WAIT_POLICY=passive unless set): the
work a fit adds per thread, which is measurable with p above the cores too
(e.g. ``--threads 2 8`` on two cores, where only that ratio means anything).

``--replay 2 16 64`` projects without those cores: a fit runs with
n_threads = P while the library records every parallel region and runs its
tasks one after the other on one thread (``vcgmm._core.start_region_trace``;
the algorithms take the paths of P threads, the results are the same bits).
Each region's tasks are then handed to P threads the way OpenMP's dynamic
schedule does (each task to the first thread free, with the region's own
thread cap), and the time between regions stays serial. Per phase, the
table gives that serial time and the projected time on P threads: the
losses from too few tasks, unequal tasks and serial code, but not from
shared memory bandwidth or caches (an upper bound on the speedup).

Run from the repository root::

    python -m bench.vcgmm_threads --clusters 1000 4000 --coreset 16
    python -m bench.vcgmm_threads --clusters 1000 4000 --replay 2 16 64

``--lloyd-reference`` adds Lloyd's iterations on all rows, timed the same way:
the speedup the machine gives a pass that scales, against which to read the
fit's (on two shared cores the fit's 2-thread speedup also counts how its
memory-bound passes share the cores as serial).
"""

from __future__ import annotations

import argparse
import heapq
import os
import sys
import time

# Read by OpenMP when vcgmm loads: waiting threads sleep, so CPU time is work.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np  # noqa: E402

from bench import _harness  # noqa: E402
from bench.datasets import load  # noqa: E402

NAME = "vcgmm_threads"
PHASES = ("coreset", "seeding", "iterations", "refinement", "evaluation")
LLOYD_ITERATIONS = 3


def _amdahl(speedup, p):
    """Serial fraction from the speedup on p threads (clipped to [0, 1])."""
    f = (p / speedup - 1.0) / (p - 1.0)
    return min(1.0, max(0.0, f))


def _project(f, P):
    return 1.0 / (f + (1.0 - f) / P)


def _makespan(tasks, p):
    """Finish time of `tasks` (seconds, in order) handed one at a time to the
    first of p threads to become free (OpenMP's schedule(dynamic, 1))."""
    free = [0.0] * p
    for d in tasks:
        heapq.heapreplace(free, free[0] + d)
    return max(free)


def _region_threads(p, n_tasks, worth):
    """The threads parallel_for gives a region (its cap by work, as in
    cpp/src/detail/parallel.hpp)."""
    nt = min(p, n_tasks)
    if worth < nt:
        nt = 1 if worth < 1.0 else int(worth)
    return nt


def replay(args):
    """Trace fits with n_threads = P and project them onto P threads."""
    import vcgmm
    from vcgmm._base.loader import core

    X = load(args.dataset, dtype=np.dtype(args.dtype))
    print(f"{args.dataset}: {X.shape[0]:,} x {X.shape[1]} {X.dtype}", file=sys.stderr, flush=True)
    info = _harness.machine_info()
    rows = []
    for C in args.clusters:
        for e in args.coreset:
            n_prime = 2 ** e
            ref = vcgmm.fit_vcgmm(X, C, args.G, n_prime, random_state=args.seed, n_threads=1)
            for P in args.replay:
                best = None
                for _ in range(args.repeats):
                    core.start_region_trace()
                    try:
                        r = vcgmm.fit_vcgmm(X, C, args.G, n_prime, random_state=args.seed,
                                            n_threads=P)
                    finally:
                        regions = core.stop_region_trace()
                    total = sum(r.timings[q] for q in PHASES)
                    if best is None or total < best[0]:
                        best = (total, r, regions)
                total, r, regions = best
                same = bool(np.array_equal(r.centers, ref.centers))
                # The phases run back to back and end with the last region.
                end = regions[-1][1] if regions else 0.0
                bounds, t = {}, end
                for q in reversed(PHASES):
                    bounds[q] = (t - r.timings[q], t)
                    t -= r.timings[q]
                acc = {q: {"n": 0, "inside": 0.0, "proj": 0.0} for q in PHASES}
                for start, stop, worth, tasks in regions:
                    mid = 0.5 * (start + stop)
                    q = next((q for q in PHASES if bounds[q][0] <= mid < bounds[q][1]),
                             PHASES[0] if mid < bounds[PHASES[0]][0] else PHASES[-1])
                    nt = _region_threads(P, len(tasks), worth)
                    outside_tasks = (stop - start) - float(np.sum(tasks))
                    acc[q]["n"] += 1
                    acc[q]["inside"] += stop - start
                    acc[q]["proj"] += _makespan(tasks, nt) + outside_tasks
                fit = {"t1": 0.0, "n": 0, "inside": 0.0, "serial": 0.0, "tp": 0.0}
                for q in PHASES:
                    t1 = r.timings[q]
                    serial = max(0.0, t1 - acc[q]["inside"])
                    tp = serial + acc[q]["proj"]
                    rows.append({"C": C, "n_prime": f"2^{e}", "p": P, "phase": q, "t1": t1,
                                 "regions": acc[q]["n"], "serial": serial, "tp": tp,
                                 "speedup": t1 / tp if tp > 0 else float("nan"),
                                 "identical": same})
                    fit["t1"] += t1
                    fit["n"] += acc[q]["n"]
                    fit["serial"] += serial
                    fit["tp"] += tp
                rows.append({"C": C, "n_prime": f"2^{e}", "p": P, "phase": "fit", "t1": fit["t1"],
                             "regions": fit["n"], "serial": fit["serial"], "tp": fit["tp"],
                             "speedup": fit["t1"] / fit["tp"], "identical": same})
                print(f"[C={C} N'=2^{e}] replayed on {P} threads: {fit['t1']:.2f} s -> "
                      f"{fit['tp']:.3f} s ({fit['t1'] / fit['tp']:.2f}x), serial "
                      f"{fit['serial']:.3f} s, identical {same}", file=sys.stderr, flush=True)
        columns = [
            ("C", "C", None), ("n_prime", "N'", None), ("p", "P", None), ("phase", "phase", None),
            ("t1", "traced, 1 thread [s]", ".3f"), ("regions", "parallel regions", None),
            ("serial", "outside regions [s]", ".4f"), ("tp", "projected on P [s]", ".4f"),
            ("speedup", "projected speedup", ".2f"), ("identical", "same centers", None),
        ]
        notes = [
            f"vcgmm.fit_vcgmm(X, C, G={args.G}, N', random_state={args.seed}, n_threads=P) on "
            f"{args.dataset} ({args.dtype}), traced (vcgmm._core.start_region_trace): every "
            "parallel region ran its tasks one after the other on one thread and recorded each "
            f"task's time; the fastest of {args.repeats} traced fits per P.",
            "traced, 1 thread = the fit's own timing of the phase; outside regions = that minus "
            "the time inside its parallel regions (serial code); projected = outside regions + "
            "per region the finish time of its tasks handed in order to the first free of its "
            "threads (min(P, tasks, its work cap), as parallel_for does). Phases are placed "
            "back to back ending at the last region, so a region near a phase boundary may count "
            "in the neighbouring phase.",
            "Not modelled: memory bandwidth and caches shared by the threads, thread start and "
            "barrier costs: the projection bounds the speedup from above.",
            "same centers = the traced fit gave the centers of a fit on 1 thread bit for bit.",
        ]
        _harness.write_results(args.name, columns, rows,
                               title=f"vc-GMM's parallel regions replayed on P threads "
                                     f"({args.dataset})",
                               params=dict(vars(args)), notes=notes, info=info)
    return rows


def run(args):
    import vcgmm

    X = load(args.dataset, dtype=np.dtype(args.dtype))
    print(f"{args.dataset}: {X.shape[0]:,} x {X.shape[1]} {X.dtype}", file=sys.stderr, flush=True)
    info = _harness.machine_info()
    counts = [1] + [p for p in args.threads if p != 1]
    rows, raw = [], []
    for C in args.clusters:
        for e in args.coreset:
            n_prime = 2 ** e
            runs = {t: [] for t in counts}
            cpu = {t: [] for t in counts}
            for rep in range(args.repeats + 1):  # the first round warms up
                for t in counts:
                    c0 = time.process_time()
                    r = vcgmm.fit_vcgmm(X, C, args.G, n_prime, random_state=args.seed,
                                        n_threads=t)
                    if rep > 0:
                        runs[t].append(r)
                        cpu[t].append(time.process_time() - c0)
            same = all(np.array_equal(a.centers, runs[1][0].centers)
                       for t in counts for a in runs[t])

            def seconds(r, phase):
                if phase == "fit":
                    return sum(r.timings[q] for q in PHASES)
                return r.timings[phase]

            for p in counts[1:]:
                for phase in PHASES + ("fit",):
                    t1 = min(seconds(r, phase) for r in runs[1])
                    tp = min(seconds(r, phase) for r in runs[p])
                    speedup = t1 / tp if tp > 0 else float("nan")
                    f = _amdahl(speedup, p) if tp > 0 else float("nan")
                    work = min(cpu[p]) / min(cpu[1]) if phase == "fit" else None
                    rows.append({"C": C, "n_prime": f"2^{e}", "p": p, "phase": phase,
                                 "t1": t1, "tp": tp, "speedup": speedup, "serial": f,
                                 "s16": _project(f, 16), "s64": _project(f, 64),
                                 "cpu": work, "identical": same})
                fit = rows[-1]
                print(f"[C={C} N'=2^{e}] fit {fit['t1']:.2f} s / {fit['tp']:.2f} s on 1 / {p} "
                      f"threads, serial fraction {fit['serial']:.3f}, identical {same}",
                      file=sys.stderr, flush=True)
            if args.lloyd_reference:
                rows.extend(_lloyd_reference(vcgmm, X, C, counts, args))
            for phase in PHASES + ("fit",):
                raw.append({"C": C, "n_prime": n_prime, "phase": phase,
                            "seconds": {str(t): [seconds(r, phase) for r in runs[t]]
                                        for t in counts}})
            raw.append({"C": C, "n_prime": n_prime, "phase": "fit process CPU",
                        "seconds": {str(t): cpu[t] for t in counts}})
        _write(args, rows, raw, info)
    return rows


def _lloyd_reference(vcgmm, X, C, counts, args):
    """Lloyd's iterations on all rows, 1 and p threads taking turns: what the
    machine gives a pass that scales (compute-bound, few regions)."""
    init = X[np.random.default_rng(args.seed).choice(X.shape[0], C, replace=False)]
    best, centers = {t: float("inf") for t in counts}, {}
    for rep in range(args.repeats + 1):
        for t in counts:
            t0 = time.perf_counter()
            out, _ = vcgmm.lloyd(X, init, max_iter=LLOYD_ITERATIONS, n_threads=t)
            if rep > 0:
                best[t] = min(best[t], time.perf_counter() - t0)
                centers.setdefault(t, out)
    same = all(np.array_equal(centers[t], centers[1]) for t in counts)
    rows = []
    for p in counts[1:]:
        speedup = best[1] / best[p]
        f = _amdahl(speedup, p)
        rows.append({"C": C, "n_prime": "all", "p": p, "phase": "Lloyd (reference)",
                     "t1": best[1], "tp": best[p], "speedup": speedup, "serial": f,
                     "s16": _project(f, 16), "s64": _project(f, 64), "cpu": None,
                     "identical": same})
    return rows


def _write(args, rows, raw, info):
    p = "p"
    columns = [
        ("C", "C", None), ("n_prime", "N'", None), ("p", "p", None), ("phase", "phase", None),
        ("t1", "1 thread [s]", ".3f"), ("tp", "p threads [s]", ".3f"),
        ("speedup", "speedup", ".2f"), ("serial", "serial fraction", ".3f"),
        ("s16", "projected on 16", ".1f"), ("s64", "projected on 64", ".1f"),
        ("cpu", "CPU time p / 1", ".3f"), ("identical", "same centers", None),
    ]
    notes = [
        f"vcgmm.fit_vcgmm(X, C, G={args.G}, N', random_state={args.seed}, n_threads=t) on "
        f"{args.dataset} ({args.dtype}), t = 1 and p = {args.threads} taking turns, {args.repeats} timed "
        "fits each after one warm-up round; per phase the minimum over the fits of the "
        "fit's own timing of it ('fit' = the sum of the phases).",
        f"serial fraction f = ({p} / speedup - 1) / ({p} - 1) (Amdahl), clipped to [0, 1]; "
        "projected = 1 / (f + (1 - f) / P). A phase that takes milliseconds has a noisy "
        "fraction; read the 'fit' rows first.",
        "same centers = every fit on 1 and on p threads gave the same centers bit for bit.",
        "CPU time p / 1 ('fit' rows) = the process CPU time of a fit on p threads over that on "
        "1 (minimum of each), with OMP_WAIT_POLICY="
        f"{os.environ.get('OMP_WAIT_POLICY')}: above 1 by the work the threads add (rows "
        "re-read, scans repeated per thread), not by waiting.",
    ]
    if args.lloyd_reference:
        notes.append(f"Lloyd (reference) = vcgmm.lloyd(X, C random rows, max_iter="
                     f"{LLOYD_ITERATIONS}, n_threads=t) on all rows (wall time, the minimum over "
                     f"{args.repeats} after a warm-up), 1 and p threads taking turns: the speedup "
                     "this machine gives a compute-bound pass with few parallel regions, the "
                     "ceiling to read the fit's against.")
    over = [q for q in args.threads if q > (os.cpu_count() or 1)]
    if over:
        notes.append(f"p = {over} exceeds the {os.cpu_count()} cores: those rows' speedups and "
                     "projections measure nothing; only their CPU ratio does.")
    _harness.write_results(args.name, columns, rows,
                           title=f"vc-GMM's serial fraction by phase ({args.dataset})",
                           params=dict(vars(args)), notes=notes, info=info,
                           extra={"runs": raw})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="patches-sklearn")
    parser.add_argument("--clusters", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--coreset", type=int, nargs="+", default=[16],
                        help="log2 of the coreset sizes N'")
    parser.add_argument("-G", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[2],
                        help="the thread counts p compared with 1")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--replay", type=int, nargs="+", default=None, metavar="P",
                        help="instead of timing, trace fits with n_threads = P and project "
                             "them onto P threads")
    parser.add_argument("--lloyd-reference", action="store_true",
                        help="also time Lloyd's iterations on all rows on 1 and p threads")
    parser.add_argument("--name", default=None)
    args = parser.parse_args(argv)
    if args.name is None:
        args.name = NAME + ("_replay" if args.replay else "")
    if args.replay:
        if min(args.replay) < 1:
            parser.error("--replay takes thread counts >= 1")
        replay(args)
        return 0
    with _harness.thread_limits(max(args.threads)):
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
