"""The VRKM paper's Table 3 on our data: time until the loss reaches the final
loss of batch k-means, for VRKM, VRKM++, mini-batch k-means, nmbatch
(the paper's "growbatch") and scikit-learn, against vcgmm's Lloyd.

For every C and seed, all algorithms start from the same k-means++ centers
(vcgmm.kmeans_plusplus, seed s; the seeding is not timed for anyone) and run
one after another on 2 threads:

  Lloyd (vcgmm)        vcgmm.lloyd(tol=1e-4) to convergence: "batch KM", whose final
                       loss L_batch is the level everyone else must reach, and whose
                       time to it is the reference (speedup = its time / theirs)
  sklearn KMeans       sklearn KMeans(algorithm="lloyd", n_init=1, tol=0), per-iteration inertia
  VRKM, VRKM++         vcgmm.VRKMeans(variant=...), the paper's defaults (eta = C / n,
                       epoch_size = n, sequential inner loop, update_rule="svrg": Alg.
                       3/4 as written), tol=0
  VRKM++ blocked       the same with block_size=B (our blocked inner loop)
  nmbatch (growbatch)  vcgmm.fit_nmbatch(rho=100, batch_size=5000)
  mbatch, sklearn MBKM partial_fit per batch of 5000 (the same batches for both)

Everything except Lloyd runs until it reaches L_batch or until
``--cap`` x Lloyd's time (at least ``--min-cap`` seconds); the table gives the
time to L_batch (mean +- SEM over the seeds that reached it), the speedup,
and the final loss (at reaching L_batch or at the cap) relative to L_batch.
How each trace is observed is documented in bench/_traces.py.

The cost breakdown (for the issue's question whether the paper's sequential
inner loop can beat a matrix-product Lloyd): the inner loop's time per drawn
point, the full pass's time per point, and Lloyd's time per point per
iteration, all measured in the same runs.

Usage (from the repository root):
  python -m bench.vrkm                                  # patches-sklearn, C = 100, 1000
  python -m bench.vrkm --dataset patches-all --clusters 100 1000 --seeds 5   # the issue's size
  python -m bench.vrkm --quick
  python -m bench.vrkm ... --resume                     # go on after an interruption

Every finished (C, seed) is appended to ``bench/results/vrkm/<name>.runs.jsonl``;
``--resume`` reuses those of the same data set (without it the file starts
afresh).
"""

from __future__ import annotations

import argparse
import re
import statistics

import numpy as np

import vcgmm
from bench import _harness
from bench import _traces as tr
from bench.datasets import load

BATCH = 5000
SCALAR = "Lloyd, one inner product per center (numpy GEMV, 1 thread)"


def eta_suffix(f):
    return f", eta={f:g}C/n"


def algorithms(args):
    out = ["sklearn KMeans", "VRKM", "VRKM++", f"VRKM++ blocked B={args.block}",
           "nmbatch (growbatch)", "mbatch", "sklearn MBKM"]
    extra = []
    for f in args.eta_factors:
        extra += [f"VRKM{eta_suffix(f)}", f"VRKM++{eta_suffix(f)}",
                  f"VRKM++ blocked B={args.block}{eta_suffix(f)}"]
    out[4:4] = extra
    if args.scalar_lloyd:
        out.insert(0, SCALAR)
    return out


def start_centers(X, C, seed, args):
    """The common start: k-means++ (ours), or C distinct rows drawn uniformly
    (the paper's "random instances")."""
    if args.init == "random":
        rows = np.sort(np.random.default_rng(seed).choice(X.shape[0], C, replace=False))
        return np.ascontiguousarray(X[rows])
    init, _ = vcgmm.kmeans_plusplus(X, C, random_state=seed, n_threads=args.threads)
    return init


def run_one(name, X, init, seed, cap, args, level=None):
    C = init.shape[0]
    b = min(BATCH, X.shape[0])
    eta = C / X.shape[0]
    if ", eta=" in name:
        eta = float(name.split(", eta=")[1].split("C/n")[0]) * C / X.shape[0]
        name = name.split(", eta=")[0]
    eta = min(1.0, eta)
    if name == SCALAR:
        return tr.trace_scalar_lloyd(X, init, args.scalar_limit, level=level)
    if name == "sklearn KMeans":
        return tr.trace_sklearn_kmeans(X, init, cap, algorithm="lloyd", tol=0.0)
    if name == "VRKM":
        return tr.trace_vrkm(X, init, cap, tol=0.0, seed=seed, variant="vrkm",
                             learning_rate=eta)
    if name == "VRKM++":
        return tr.trace_vrkm(X, init, cap, tol=0.0, seed=seed, variant="vrkm++",
                             learning_rate=eta)
    if name.startswith("VRKM++ blocked"):
        return tr.trace_vrkm(X, init, cap, tol=0.0, seed=seed, variant="vrkm++",
                             block_size=args.block, learning_rate=eta)
    if name == "nmbatch (growbatch)":
        # nmbatch seeds itself ("random" = its paper's init); give it our
        # start, and hold it to the cap like the others
        return tr.trace_nmbatch(X, C, seed, cap, init=init, batch_size=max(b, C))
    if name == "mbatch":
        return tr.trace_mbatch(X, init, b, seed, cap)
    if name == "sklearn MBKM":
        return tr.trace_sklearn_minibatch(X, init, b, seed, cap)
    raise ValueError(name)


def pm(mean, sem, fmt=".3g"):
    if mean is None:
        return None
    return format(mean, fmt) + (f" ± {format(sem, '.2g')}" if sem is not None else "")


def plot(curves, path, dataset):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cs = sorted(curves)
    fig, axes = plt.subplots(1, len(cs), figsize=(6.5 * len(cs), 4.8), squeeze=False)
    for ax, C in zip(axes[0], cs):
        for j, (name, runs) in enumerate(curves[C].items()):
            for i, (trace, level) in enumerate(runs):
                t = np.array([p[0] for p in trace])
                e = np.array([p[1] for p in trace])
                keep = t > 0
                ax.plot(t[keep], (e[keep] - level) / level * 100, "-", color=f"C{j}", lw=1.0,
                        alpha=0.85, label=name if i == 0 else None)
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=0.1)
        ax.set_xlabel("wall time [s] (2 threads; energy evaluations excluded)")
        ax.set_ylabel("loss relative to Lloyd's final loss [%]")
        ax.set_title(f"{dataset}, C = {C}")
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", default="patches-sklearn")
    p.add_argument("--clusters", type=int, nargs="+", default=[100, 1000])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--cap", type=float, default=1.5,
                   help="stop the others at this multiple of Lloyd's time (default 1.5)")
    p.add_argument("--min-cap", type=float, default=5.0)
    p.add_argument("--lloyd-limit", type=float, default=300.0,
                   help="seconds after which Lloyd itself is stopped")
    p.add_argument("--block", type=int, default=1024, help="B of the blocked VRKM++ row")
    p.add_argument("--eta-factors", "--eta-factor", type=float, nargs="*", default=[],
                   help="also VRKM, VRKM++ and blocked VRKM++ rows with eta = each of these x C / n")
    p.add_argument("--init", choices=["k-means++", "random"], default="k-means++",
                   help="the common start: k-means++, or C distinct rows drawn uniformly (the "
                        "paper's random instances)")
    p.add_argument("--scalar-lloyd", action="store_true",
                   help="also a Lloyd without matrix products (the paper's baseline), run until "
                        "it reaches L_batch or --scalar-limit")
    p.add_argument("--scalar-limit", type=float, default=900.0)
    p.add_argument("--skip", default="", help="comma separated algorithm names to skip")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--name", default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--resume", action="store_true",
                   help="reuse the (C, seed) runs recorded in "
                        "bench/results/vrkm/<name>.runs.jsonl")
    args = p.parse_args(argv)
    if args.quick:
        args.dataset, args.clusters, args.seeds, args.min_cap = "digits", [10], 2, 0.5
    args.name = args.name or f"vrkm_table3_{args.dataset}" + ("_quick" if args.quick else "")
    return args


def main(argv=None):
    args = parse_args(argv)
    tr.THREADS = args.threads
    info = _harness.machine_info()
    X = load(args.dataset, dtype=np.float32)
    n = X.shape[0]
    print(f"{args.dataset}: {n:,} x {X.shape[1]} {X.dtype}", flush=True)
    # comma separated; a name's own ", eta=..." stays with it
    skip = {part.strip() for part in re.split(r",(?! eta=)", args.skip) if part.strip()}
    names = [a for a in algorithms(args) if a not in skip]
    rows, curves, raw, loads, target_notes, lloyd_converged = [], {}, {}, [], [], []
    # Every finished (C, seed) is appended to a checkpoint as it ends (a 1 h
    # run can be interrupted); --resume reuses those of the same data set
    # that ran every algorithm of this run.
    checkpoint = _harness.RunCheckpoint(args.name, args.resume)
    done = {(rec["C"], rec["seed"]): rec for rec in checkpoint.records
            if rec["dataset"] == args.dataset and set(names) <= set(rec["runs"])}
    n_reused = 0
    with _harness.thread_limits(args.threads):
        for C in args.clusters:
            per = {name: [] for name in ["Lloyd (vcgmm)"] + names}
            for seed in range(args.seeds):
                rec = done.get((C, seed))
                if rec is not None:
                    for name in per:
                        trace, ri = rec["runs"][name]
                        per[name].append(([tuple(p) for p in trace], ri))
                    loads.extend(rec["loads"])
                    n_reused += 1
                    print(f"C={C} seed={seed}: reused from {checkpoint.path.name}", flush=True)
                    continue
                loads_before = len(loads)
                init = start_centers(X, C, seed, args)
                with _harness.OtherCpu() as other:
                    lt, li = tr.trace_vcgmm_lloyd(X, init, args.lloyd_limit, tol=1e-4)
                loads.append(other.cores or 0.0)
                level = lt[-1][1]
                t_lloyd = tr.time_to(lt, level)
                li.update(other_cpu=other.cores, time_to_level=t_lloyd, level=level, final=level)
                per["Lloyd (vcgmm)"].append((lt, li))
                cap = max(args.min_cap, args.cap * t_lloyd)
                print(f"C={C} seed={seed} Lloyd: {li['n_iter']} it, {t_lloyd:.2f} s, "
                      f"loss {level:.6g} (converged {li['converged']}); cap {cap:.1f} s",
                      flush=True)
                for name in names:
                    with _harness.OtherCpu() as other:
                        trace, ri = run_one(name, X, init, seed, cap, args, level)
                    loads.append(other.cores or 0.0)
                    if name == SCALAR and tr.time_to(trace, level) is not None:
                        # long enough for the others to show the paper's 2x over it
                        cap = max(cap, tr.time_to(trace, level) / 2.0)
                        print(f"  cap now {cap:.1f} s (half the scalar Lloyd's time)", flush=True)
                    ri.update(other_cpu=other.cores, time_to_level=tr.time_to(trace, level),
                              level=level, cap=cap, final=trace[-1][1])
                    per[name].append((trace, ri))
                    reached = ri["time_to_level"]
                    print(f"  {name:28s} {ri['seconds']:7.2f} s {ri['n_iter']:6d} it  "
                          f"to L_batch: {'-' if reached is None else f'{reached:.2f} s'}  "
                          f"final {100 * (ri['final'] - level) / level:+.3f}%  "
                          f"(other CPU {other.cores or 0:.2f})", flush=True)
                record = {"dataset": args.dataset, "C": C, "seed": seed,
                          "loads": loads[loads_before:],
                          "runs": {name: rs[-1] for name, rs in per.items()}}
                checkpoint.append(record)
            lloyd_converged.append((C, sum(bool(i["converged"]) for _, i in per["Lloyd (vcgmm)"]),
                                    len(per["Lloyd (vcgmm)"])))
            curves[C] = {name: [(t, i["level"]) for t, i in rs] for name, rs in per.items()}
            raw[str(C)] = {name: [{"trace": t, "info": i} for t, i in rs]
                           for name, rs in per.items()}
            lloyd_times = [i["time_to_level"] for _, i in per["Lloyd (vcgmm)"]]
            scalar_times = ([i["time_to_level"] for _, i in per[SCALAR]] if SCALAR in per
                            else None)
            lloyd_pp = statistics.fmean(i["seconds_per_iter"] / n for _, i in per["Lloyd (vcgmm)"])
            for name, rs in per.items():
                times = [i["time_to_level"] for _, i in rs]
                m, s = _harness.mean_sem(times)
                reached = sum(t is not None for t in times)
                speed = [lt_ / t for lt_, t in zip(lloyd_times, times) if t is not None]
                sm, ss = _harness.mean_sem(speed)
                final = [100 * (i["final"] - i["level"]) / i["level"] for _, i in rs]
                fm, fs = _harness.mean_sem(final)
                if scalar_times is not None:
                    vs = [st / t for st, t in zip(scalar_times, times)
                          if t is not None and st is not None]
                    vm, vsem = _harness.mean_sem(vs)
                else:
                    vm = vsem = None
                row = {"C": C, "algorithm": name,
                       "speedup_scalar": (pm(vm, vsem, ".2f") + "x") if vm is not None else "-",
                       "speedup_scalar_mean": vm,
                       "time": (pm(m, s) + ("" if reached == len(rs) else f" ({reached}/{len(rs)})"))
                       if m is not None else f"not reached (0/{len(rs)})",
                       "speedup": (pm(sm, ss, ".2f") + "x") if sm is not None else "-",
                       "loss": pm(fm, fs, "+.3f"),
                       "run": pm(*_harness.mean_sem([i["seconds"] for _, i in rs])),
                       "iters": statistics.fmean(i["n_iter"] for _, i in rs),
                       "time_mean": m, "time_sem": s, "speedup_mean": sm, "reached": reached,
                       "infos": [i for _, i in rs]}
                if name.startswith("VRKM"):
                    inner = statistics.fmean(i["inner_seconds_per_point"] for _, i in rs)
                    full = statistics.fmean(i["full_pass_seconds_per_point"] for _, i in rs)
                    row["inner_us"] = 1e6 * inner
                    row["full_us"] = 1e6 * full
                    row["inner_vs_lloyd"] = inner / lloyd_pp
                    row["eta"] = rs[0][1]["learning_rate"]
                if name == "Lloyd (vcgmm)":
                    row["full_us"] = 1e6 * lloyd_pp
                rows.append(row)
            by = {r["algorithm"]: r for r in rows if r["C"] == C}
            if scalar_times is not None:
                for name, want in (("VRKM", 2.0), ("VRKM++", 4.0)):
                    for f in [1.0] + [f for f in args.eta_factors if f != 1.0]:
                        r = by.get(name + ("" if f == 1.0 else eta_suffix(f)))
                        if r is None:
                            continue
                        got = r["speedup_scalar_mean"]
                        ok = got is not None and got >= want and r["reached"] == args.seeds
                        target_notes.append(
                            f"C={C}: {r['algorithm']} at least {want:g}x faster than the scalar "
                            f"Lloyd to L_batch (the paper's claim): "
                            f"{r['speedup_scalar'] if got else 'not reached within the cap'} "
                            f"(L_batch reached in {r['reached']}/{args.seeds} seeds) -> "
                            f"{'met' if ok else 'NOT MET'}")
            vpp, v = by.get("VRKM++"), by.get("VRKM")
            if vpp is not None:
                ok = vpp["speedup_mean"] is not None and vpp["speedup_mean"] >= 2.0 \
                    and vpp["reached"] == args.seeds
                target_notes.append(
                    f"C={C}: VRKM++ at least 2x faster than our Lloyd to L_batch: "
                    f"{vpp['speedup'] if vpp['speedup_mean'] else 'not reached within the cap'}"
                    f" (L_batch reached in {vpp['reached']}/{args.seeds} seeds)"
                    f" -> {'met' if ok else 'NOT MET'}")
            if vpp is not None and v is not None:
                a, b_ = vpp["time_mean"], v["time_mean"]
                if a is not None and b_ is not None:
                    target_notes.append(f"C={C}: VRKM++ faster than VRKM: {a:.3g} s vs {b_:.3g} s "
                                        f"-> {'met' if a < b_ else 'NOT MET'}")
                else:
                    target_notes.append(f"C={C}: VRKM++ faster than VRKM: not decidable (one of "
                                        "them did not reach L_batch within the cap); runs: "
                                        f"VRKM++ {vpp['run']} s, VRKM {v['run']} s for the same "
                                        "capped time")
    png = _harness.results_dir() / f"{args.name}.png"
    plot(curves, png, args.dataset)
    columns = [("C", "C", ""), ("algorithm", "algorithm", ""),
               ("time", "time to L_batch [s]", ""), ("speedup", "speedup vs Lloyd", ""),
               *([("speedup_scalar", "speedup vs scalar Lloyd", "")] if args.scalar_lloyd
                 else []),
               ("loss", "final loss - L_batch [%]", ""), ("run", "run time [s]", ""),
               ("iters", "iterations / epochs", ".1f"),
               ("inner_us", "inner loop us/draw", ".3g"),
               ("full_us", "full pass us/point", ".3g"),
               ("inner_vs_lloyd", "inner draw / Lloyd point-iteration", ".1f")]
    notes = [
        f"Data {args.dataset}, {n:,} x {X.shape[1]} float32; C in {args.clusters}; "
        f"{args.seeds} seeds; {args.threads} threads for every library; the same "
        + ("k-means++ start" if args.init == "k-means++" else
           "random start (C distinct rows drawn uniformly, the paper's random instances)")
        + " per seed for all (not timed).",
        "L_batch = the final loss (exact quantization error on the full data) of vcgmm's Lloyd "
        "run to convergence (relative change of the loss < 1e-4) or for at most "
        f"{args.lloyd_limit:g} s (--lloyd-limit; converged: " + ", ".join(
            f"C={C} {conv}/{runs}" for C, conv, runs in lloyd_converged) + "), "
        "per seed; 'time to L_batch' "
        "= first moment an algorithm's exact loss is <= it; speedup = Lloyd's time / that "
        "time, mean ± SEM over the seeds that reached it. Others stop at "
        f"max({args.min_cap:g} s, {args.cap:g} x Lloyd's time"
        + (", half the scalar Lloyd's time to L_batch" if args.scalar_lloyd else "")
        + "); 'final loss' is then relative to L_batch (negative: better).",
        "nmbatch (growbatch): fit_nmbatch(rho=100, batch_size=max(5000, C)) from the same "
        "start, observed at max_iter = 1, 2, 4, ..., every run held to the cap by its "
        "time_budget (its times to a level are overestimated by up to 2x).",
        "VRKM rows: the paper's defaults (eta = C/n, epoch_size = n, update_rule 'svrg': "
        "Alg. 3/4 as written), "
        "tol = 0; the loss is read at every epoch's full pass, plus the final centers; "
        "'eta=fC/n' rows: the same with eta = min(1, f C / n) (--eta-factors).",
        *([f"{SCALAR}: Lloyd's iterations without matrix-matrix products: per block of 8192 "
           "rows one matrix-vector product per center (||c||^2 - 2 <x, c>, the row norms "
           "cached), the means by bincounts, one BLAS thread, from the same start, until its "
           "loss reaches L_batch (or "
           f"{args.scalar_limit:g} s): the kind of batch k-means the paper timed (sofia-ml's "
           "loop over points and centers), against which it reports VRKM 2x and VRKM++ 4x; "
           "'speedup vs scalar Lloyd' = its time to L_batch / the row's."]
          if args.scalar_lloyd else []),
        "Cost breakdown: 'inner loop us/draw' = inner-loop seconds / draws (sequential: one "
        "thread searches all C centers per draw; blocked: matrix products over B draws); "
        "'full pass us/point' = the full assignment pass per point (VRKM rows) or one Lloyd "
        "iteration per point (Lloyd row); last column = inner-loop time per draw / Lloyd "
        "time per point and iteration.",
        f"Other processes kept {statistics.fmean(loads):.2f} cores busy on average during "
        f"the runs (max {max(loads):.2f}); 2 cores in all.",
        f"Plot: {png.name}.",
    ] + checkpoint.reuse_note(n_reused, "(C, seed) runs") + [
        "Targets, as measured:",
    ] + [f"  {t}" for t in target_notes]
    _harness.write_results(args.name, columns, rows,
                           title="VRKM / VRKM++ vs batch k-means (paper 004, Table 3)",
                           params=vars(args), notes=notes, info=info, extra={"raw": raw})


if __name__ == "__main__":
    main()
