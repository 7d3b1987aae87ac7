"""Mini-batch kernel k-means (paper 003, Figure 1 and Appendix C) on our data:
full-batch, truncated mini-batch and untruncated mini-batch kernel k-means
with both learning rates, against scikit-learn's KMeans, MiniBatchKMeans and
Nystroem features + MiniBatchKMeans, in one run.

Rows (every kernel row uses the Gaussian kernel exp(-gamma ||x - y||^2) with
one gamma per data set: vcgmm's median heuristic, ``gamma="auto"`` with seed
0, times ``--gamma-scale``; the paper tunes kappa = 1 / gamma by hand; or,
with ``--kernel knn`` / ``heat``, the paper's graph kernels of the
``--n-neighbors`` graph, each fit building its own, and scikit-learn's
SpectralClustering on the same k-nn graph instead of the Nystroem rows):

  full                      KernelKMeans(algorithm="full", max_iter=--full-max-iter):
                            Lloyd in feature space until no label changes (O(n^2)
                            kernel evaluations per iteration); on sets larger than
                            --full-max-n it runs on a random subsample of that
                            size (said in the table), its labels scored there
  truncated b=B tau=T (lr)  KernelKMeans(algorithm="truncated", batch_size=B, tau=T,
                            learning_rate=lr), --iters iterations (the paper: 200);
                            with --eq1 also "..., Eq. 1)": renormalize=False, the
                            window weights of the paper's Eq. (1) as written
  minibatch b=B (lr)        the untruncated mini-batch algorithm, same iterations
  mbkm b=B (lr)             vcgmm.MiniBatchKMeans(batch_size=B, learning_rate=lr) on the
                            raw data, --iters batches, no early stop, no reassignment
                            (the paper's non-kernel comparison of the two rates)
  sklearn KMeans            k-means++ + Lloyd on the raw data (n_init=1)
  sklearn MiniBatchKMeans   batch --peer-batch, on the raw data (n_init=1)
  Nystroem m + MBKM         sklearn Nystroem(kernel="rbf", same gamma,
                            n_components=m) features, then MiniBatchKMeans
                            (batch --peer-batch): what users do today

For each seed (``--repeats``) every row runs once, in turn (so a burst of load
from other processes hits all of them alike); the table gives mean and SD
over the seeds of ARI and NMI against the class labels, of the wall time of
the whole fit (seeding, iterations and the labels of all points; Nystroem:
features + clustering), and of the kernel evaluations (vcgmm's
``n_kernel_evals_``, all phases; Nystroem: n m + m^2 for the features).

Targets are evaluated in the notes, as measured: truncated >= 10x faster than
full at ARI within 0.02 of it; better ARI than Nystroem + MiniBatchKMeans at
about equal wall time; beta vs sklearn learning rate.

Every finished run is appended to
``bench/results/kernel_kmeans/<name>.runs.jsonl`` as it ends; ``--resume``
reuses the runs found there (same data set, seed and row) instead of
repeating them, so an interrupted run loses only the fit in progress.
Mini-batch rows with a batch larger than the data set are skipped (said in
the notes).

Usage (from the repository root):
  python -m bench.kernel_kmeans                                  # letter, digits
  python -m bench.kernel_kmeans --datasets letter fashion-mnist --repeats 10
  python -m bench.kernel_kmeans --quick                          # digits, 2 seeds
  python -m bench.kernel_kmeans --datasets circles --kernel heat  # two noisy rings
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

import vcgmm
from bench import _harness
from bench.datasets import load

#: number of classes = n_clusters
CLUSTERS = {"letter": 26, "digits": 10, "fashion-mnist": 10, "mnist-5k": 10, "circles": 2}
GRAPH_KERNELS = ("knn", "heat")


def load_set(ds, dtype, args):
    """X, y of a data set; "circles": make_circles(--circles-n, factor=0.4,
    noise=0.05, random_state=0), two rings no linear method separates."""
    if ds == "circles":
        from sklearn.datasets import make_circles

        X, y = make_circles(args.circles_n, factor=0.4, noise=0.05, random_state=0)
        return X.astype(dtype), y
    return load(ds, dtype=dtype, return_labels=True)


def kernel_params(args, gamma, k):
    """KernelKMeans' kernel arguments of the run."""
    if args.kernel == "rbf":
        return dict(kernel="rbf", gamma=gamma)
    out = dict(kernel=args.kernel, n_neighbors=args.n_neighbors, t=args.heat_t)
    if args.kernel == "knn" and args.n_modes:
        out["n_modes"] = k if args.n_modes == "k" else int(args.n_modes)
    return out


def configs(args, n=None):
    """(row name, kind, parameters) in table order; mini-batch rows with a
    batch larger than n points are left out."""
    out = [("full", "full", {})]
    for b in args.batch:
        if n is not None and b > n:
            continue
        for tau in args.tau:
            for lr in args.rates:
                out.append((f"truncated b={b} tau={tau} ({lr})", "truncated",
                            dict(batch_size=b, tau=tau, learning_rate=lr)))
                if args.eq1:
                    out.append((f"truncated b={b} tau={tau} ({lr}, Eq. 1)", "truncated",
                                dict(batch_size=b, tau=tau, learning_rate=lr,
                                     renormalize=False)))
    for b in args.minibatch_batch:
        if n is not None and b > n:
            continue
        for lr in args.rates:
            out.append((f"minibatch b={b} ({lr})", "minibatch",
                        dict(batch_size=b, learning_rate=lr)))
    for b in args.mbkm_batch:
        if n is not None and b > n:
            continue
        for lr in args.rates:
            out.append((f"mbkm b={b} ({lr})", "mbkm", dict(batch_size=b, learning_rate=lr)))
    out.append(("sklearn KMeans", "sk-kmeans", {}))
    out.append((f"sklearn MiniBatchKMeans b={args.peer_batch}", "sk-mbkm", {}))
    if args.kernel in GRAPH_KERNELS:
        out.append((f"sklearn SpectralClustering ({args.n_neighbors}-nn graph)", "sk-spectral",
                    {}))
        return out
    for m in args.nystroem:
        out.append((f"Nystroem m={m} + MiniBatchKMeans", "nystroem", dict(n_components=m)))
    return out


def run_one(kind, params, X, y, k, gamma, seed, args, sub):
    """One fit: (labels scored, labels truth, seconds, kernel evaluations, info)."""
    from sklearn.cluster import KMeans, MiniBatchKMeans, SpectralClustering
    from sklearn.kernel_approximation import Nystroem

    info = {}
    if kind in ("full", "truncated", "minibatch"):
        Xf, yf = (X[sub], y[sub]) if kind == "full" and sub is not None else (X, y)
        extra = dict(max_iter=args.full_max_iter) if kind == "full" else dict(max_iter=args.iters)
        est = vcgmm.KernelKMeans(k, **kernel_params(args, gamma, k), algorithm=kind,
                                 random_state=seed, n_threads=args.threads, **extra, **params)
        t0 = time.perf_counter()
        est.fit(Xf)
        seconds = time.perf_counter() - t0
        evals = int(sum(est.n_kernel_evals_.values()))
        info = {"n_iter": int(est.n_iter_), "converged": bool(est.converged_),
                "evals_per_phase": dict(est.n_kernel_evals_),
                "seconds_per_phase": dict(est.timings_), "n_support": int(est.support_.size),
                "inertia": float(est.inertia_)}
        return est.labels_, yf, seconds, evals, info
    if kind == "mbkm":
        est = vcgmm.MiniBatchKMeans(k, max_iter=args.iters, max_no_improvement=0,
                                    reassignment_ratio=0.0, random_state=seed,
                                    n_threads=args.threads, **params)
        t0 = time.perf_counter()
        est.fit(X)
        seconds = time.perf_counter() - t0
        return est.labels_, y, seconds, None, {"n_iter": int(est.n_iter_)}
    if kind == "sk-kmeans":
        est = KMeans(k, n_init=1, random_state=seed)
        t0 = time.perf_counter()
        labels = est.fit_predict(X)
        seconds = time.perf_counter() - t0
        return labels, y, seconds, None, {"n_iter": int(est.n_iter_)}
    if kind == "sk-mbkm":
        est = MiniBatchKMeans(k, batch_size=args.peer_batch, n_init=1, random_state=seed)
        t0 = time.perf_counter()
        labels = est.fit_predict(X)
        seconds = time.perf_counter() - t0
        return labels, y, seconds, None, {"n_iter": int(est.n_iter_)}
    if kind == "sk-spectral":
        est = SpectralClustering(k, affinity="nearest_neighbors", n_neighbors=args.n_neighbors,
                                 random_state=seed)
        t0 = time.perf_counter()
        labels = est.fit_predict(X)
        seconds = time.perf_counter() - t0
        return labels, y, seconds, None, {"n_iter": 0}
    if kind == "nystroem":
        m = min(params["n_components"], X.shape[0])
        t0 = time.perf_counter()
        F = Nystroem(kernel="rbf", gamma=gamma, n_components=m,
                     random_state=seed).fit_transform(X)
        est = MiniBatchKMeans(k, batch_size=args.peer_batch, n_init=1, random_state=seed)
        labels = est.fit_predict(F)
        seconds = time.perf_counter() - t0
        n = X.shape[0]
        return labels, y, seconds, n * m + m * m, {"n_iter": int(est.n_iter_)}
    raise ValueError(kind)


def mean_sd(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    if len(values) == 1:
        return float(values[0]), 0.0
    return statistics.fmean(values), statistics.stdev(values)


def pm(mean, sd, fmt=".3f"):
    if mean is None:
        return None
    return f"{format(mean, fmt)} ± {format(sd, '.2g')}"


def plot(per_set, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(per_set)
    fig, axes = plt.subplots(2, len(names), figsize=(7.5 * len(names), 9.0), squeeze=False)
    for col, ds in enumerate(names):
        rows = per_set[ds]
        labels = [r["algorithm"] for r in rows]
        ypos = np.arange(len(rows))
        colors = ["C3" if r["kind"] == "full" else "C0" if r["kind"] == "truncated" else
                  "C2" if r["kind"] == "minibatch" else "C7" for r in rows]
        for row_i, (key, xlabel, log) in enumerate(
                [("ari", "ARI (mean ± SD over seeds)", False),
                 ("seconds", "wall time of the fit [s] (mean ± SD, 2 threads)", True)]):
            ax = axes[row_i][col]
            means = [r[f"{key}_mean"] for r in rows]
            sds = [r[f"{key}_sd"] for r in rows]
            ax.barh(ypos, means, xerr=sds, color=colors, alpha=0.85)
            ax.set_yticks(ypos)
            ax.set_yticklabels(labels, fontsize=7)
            ax.invert_yaxis()
            if log:
                ax.set_xscale("log")
            ax.set_xlabel(xlabel)
            ax.set_title(f"{ds}: {'ARI' if key == 'ari' else 'time'}")
            ax.grid(True, axis="x", lw=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def targets(ds, rows, args):
    """The issue's targets for one data set, as measured (lines of text)."""
    by = {r["algorithm"]: r for r in rows}
    full = by["full"]
    out = []
    trunc = [r for r in rows if r["kind"] == "truncated"]
    if full["subsample"] is not None:
        out.append(f"{ds}: full-batch ran on a random subsample of {full['subsample']:,} points "
                   "(O(n^2) per iteration); its time is for that subsample, so the speedups "
                   "below understate the truncated algorithm's advantage on the whole set, and "
                   "its ARI is on the subsample.")
    if not full["all_converged"]:
        out.append(f"{ds}: full-batch did NOT converge within --full-max-iter "
                   f"{args.full_max_iter} in every seed (its time is for that many iterations).")
    good = [r for r in trunc if r["ari_mean"] >= full["ari_mean"] - 0.02]
    for r in trunc:
        r["speedup_vs_full"] = full["seconds_mean"] / r["seconds_mean"]
    if good:
        best = max(good, key=lambda r: r["speedup_vs_full"])
        ok = best["speedup_vs_full"] >= 10.0
        out.append(
            f"{ds}: truncated >= 10x faster than full at ARI within 0.02: fastest truncated row "
            f"with ARI >= full - 0.02 is '{best['algorithm']}', {best['speedup_vs_full']:.1f}x "
            f"faster (ARI {best['ari_mean']:.3f} vs full {full['ari_mean']:.3f}) -> "
            f"{'met' if ok else 'NOT MET'}")
    else:
        bestari = max(trunc, key=lambda r: r["ari_mean"])
        out.append(
            f"{ds}: truncated >= 10x faster than full at ARI within 0.02: NOT MET, no truncated "
            f"row reaches ARI >= full - 0.02 (full {full['ari_mean']:.3f}; best truncated "
            f"'{bestari['algorithm']}' {bestari['ari_mean']:.3f}, "
            f"{bestari['speedup_vs_full']:.1f}x faster)")
    graph = [r for r in [full] + trunc
             if all("graph" in q.get("seconds_per_phase", {}) for q in r["runs"])]
    if len(graph) > 1:
        def clustering(r):  # the fit without building the graph kernel
            return statistics.fmean(q["seconds"] - q["seconds_per_phase"]["graph"]
                                    for q in r["runs"])
        graph_s = statistics.fmean(q["seconds_per_phase"]["graph"] for q in full["runs"])
        out.append(
            f"{ds}: the graph kernel takes {graph_s:.3g} s of every fit; without it, full takes "
            f"{clustering(full):.3g} s and the truncated rows "
            + ", ".join(f"'{r['algorithm']}' {clustering(r):.3g} s (ARI {r['ari_mean']:.3f})"
                        for r in trunc))
    nys = [r for r in rows if r["kind"] == "nystroem"]
    for r in trunc:
        if r["learning_rate"] != "beta" or not nys:
            continue
        near = min(nys, key=lambda q: abs(math.log(q["seconds_mean"] / r["seconds_mean"])))
        ok = r["ari_mean"] > near["ari_mean"]
        slower_better = [q for q in nys if q["ari_mean"] >= r["ari_mean"]]
        out.append(
            f"{ds}: '{r['algorithm']}' ARI {r['ari_mean']:.3f} in {r['seconds_mean']:.2f} s vs "
            f"the Nystroem row nearest in time, '{near['algorithm']}', ARI "
            f"{near['ari_mean']:.3f} in {near['seconds_mean']:.2f} s -> "
            f"{'better' if ok else 'NOT better'}"
            + (f" (Nystroem rows with at least its ARI: "
               + ", ".join(f"m={q['params']['n_components']} {q['seconds_mean']:.2f} s"
                           for q in slower_better) + ")" if slower_better else ""))
    wins = []
    for r in rows:
        if r["kind"] in ("truncated", "minibatch", "mbkm") and r["learning_rate"] == "beta":
            twin = by.get(r["algorithm"].replace("(beta", "(sklearn"))
            if twin is not None:
                name = r["algorithm"].replace(" (beta)", "").replace("(beta, ", "(")
                wins.append((name, r["ari_mean"] - twin["ari_mean"],
                             r["nmi_mean"] - twin["nmi_mean"]))
    for r in rows:
        if r["algorithm"].endswith(", Eq. 1)"):
            twin = by[r["algorithm"].replace(", Eq. 1)", ")")]
            out.append(f"{ds}: '{r['algorithm']}' (renormalize=False) vs renormalised: ARI "
                       f"{r['ari_mean']:.3f} vs {twin['ari_mean']:.3f} "
                       f"({r['ari_mean'] - twin['ari_mean']:+.3f})")
    if wins:
        n_better = sum(d > 0 for _, d, _ in wins)
        out.append(f"{ds}: beta vs sklearn learning rate, ARI(beta) - ARI(sklearn): "
                   + ", ".join(f"{name} {d:+.3f}" for name, d, _ in wins)
                   + f" -> beta better in {n_better} of {len(wins)} configurations")
    return out


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", nargs="+", default=["letter", "digits"],
                   choices=sorted(CLUSTERS))
    p.add_argument("--repeats", type=int, default=3, help="seeds 0 .. repeats-1 (paper: 10)")
    p.add_argument("--iters", type=int, default=200,
                   help="mini-batch iterations (paper: 200; no early stopping)")
    p.add_argument("--full-max-iter", type=int, default=100)
    p.add_argument("--full-max-n", type=int, default=20000,
                   help="full batch on a random subsample of this size on larger sets")
    p.add_argument("--batch", type=int, nargs="+", default=[256, 1024])
    p.add_argument("--tau", type=int, nargs="+", default=[50, 200])
    p.add_argument("--minibatch-batch", type=int, nargs="*", default=[1024],
                   help="batch sizes of the untruncated rows (none: skip them)")
    p.add_argument("--rates", nargs="+", default=["beta", "sklearn"])
    p.add_argument("--eq1", action="store_true",
                   help="also every truncated row with renormalize=False (Eq. (1) as written)")
    p.add_argument("--mbkm-batch", type=int, nargs="*", default=[1024],
                   help="batch sizes of vcgmm's (non-kernel) MiniBatchKMeans rows with each "
                        "rate (none: skip them)")
    p.add_argument("--nystroem", type=int, nargs="*", default=[100, 300, 1000])
    p.add_argument("--peer-batch", type=int, default=1024)
    p.add_argument("--gamma-scale", type=float, default=1.0,
                   help="gamma = this x the median heuristic (per data set)")
    p.add_argument("--kernel", choices=["rbf", *GRAPH_KERNELS], default="rbf",
                   help="rbf (gamma by the median heuristic) or a graph kernel of the "
                        "--n-neighbors graph")
    p.add_argument("--n-neighbors", type=int, default=10, help="graph kernels' neighbours")
    p.add_argument("--heat-t", type=float, default=1000.0, help="heat kernel's t")
    p.add_argument("--n-modes", default=None,
                   help="knn kernel: its n_modes slowest graph modes (KernelKMeans(n_modes=)); "
                        "'k': the set's number of clusters")
    p.add_argument("--circles-n", type=int, default=20000, help="points of the circles set")
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--name", default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--resume", action="store_true",
                   help="reuse the runs recorded in "
                        "bench/results/kernel_kmeans/<name>.runs.jsonl")
    args = p.parse_args(argv)
    if args.quick:
        args.datasets, args.repeats, args.iters = ["digits"], 2, 50
    args.name = args.name or "kernel_kmeans" + ("_quick" if args.quick else "")
    return args


def main(argv=None):
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    args = parse_args(argv)
    info = _harness.machine_info()
    dtype = np.float32 if args.dtype == "float32" else np.float64
    all_rows, per_set, notes_targets, loads, data_notes = [], {}, [], [], []
    start_all = time.perf_counter()
    checkpoint = _harness.RunCheckpoint(args.name, args.resume)
    done = {(rec["dataset"], rec["seed"], rec["algorithm"]): rec["run"]
            for rec in checkpoint.records}
    n_reused = 0
    with _harness.thread_limits(args.threads):
        for ds in args.datasets:
            X, y = load_set(ds, dtype, args)
            n, d = X.shape
            k = CLUSTERS[ds]
            sub = None
            if n > args.full_max_n:
                sub = np.sort(np.random.default_rng(12345).choice(n, args.full_max_n,
                                                                  replace=False))
            if args.kernel == "rbf":
                g0 = vcgmm.KernelKMeans(k, kernel="rbf", max_iter=1, batch_size=min(256, n),
                                        tau=50, random_state=0,
                                        n_threads=args.threads).fit(X).gamma_
                gamma = g0 * args.gamma_scale
                data_notes.append(f"{ds}: {n:,} x {d} {X.dtype}, k = {k}, gamma = {gamma:.4g} "
                                  f"(median heuristic {g0:.4g} x {args.gamma_scale:g}; kappa = "
                                  f"{1 / gamma:.4g})")
            else:
                gamma = None
                data_notes.append(f"{ds}: {n:,} x {d} {X.dtype}, k = {k}, kernel "
                                  f"{args.kernel!r} of the symmetrised {args.n_neighbors}-nn "
                                  "graph" + (f", t = {args.heat_t:g}" if args.kernel == "heat"
                                             else "")
                                  + (f", its {k if args.n_modes == 'k' else args.n_modes} "
                                     "slowest modes (n_modes)"
                                     if args.kernel == "knn" and args.n_modes else "")
                                  + " (built inside every fit, timed)")
            print(data_notes[-1], flush=True)
            cfgs = configs(args, n)
            skipped = [b for b in sorted(set(args.batch) | set(args.minibatch_batch)) if b > n]
            if skipped:
                data_notes.append(f"{ds}: rows with batch size {skipped} > n = {n} skipped.")
            results = {name: [] for name, _, _ in cfgs}
            # Untimed warm-up of every row on the first rows (thread pools, BLAS, imports).
            warm = argparse.Namespace(**{**vars(args), "iters": 3, "full_max_iter": 2})
            m = min(n, 2048)
            for _, kind, params in cfgs:
                run_one(kind, params, X[:m], y[:m], k, gamma, 0, warm, None)
            for seed in range(args.repeats):
                for name, kind, params in cfgs:
                    if (ds, seed, name) in done:
                        results[name].append(done[(ds, seed, name)])
                        loads.append(done[(ds, seed, name)].get("other_cpu") or 0.0)
                        n_reused += 1
                        continue
                    with _harness.OtherCpu() as other:
                        labels, truth, seconds, evals, ri = run_one(kind, params, X, y, k, gamma,
                                                                    seed, args, sub)
                    loads.append(other.cores or 0.0)
                    ari = adjusted_rand_score(truth, labels)
                    nmi = normalized_mutual_info_score(truth, labels)
                    ri.update(seed=seed, ari=ari, nmi=nmi, seconds=seconds, evals=evals,
                              other_cpu=other.cores)
                    results[name].append(ri)
                    checkpoint.append({"dataset": ds, "seed": seed, "algorithm": name, "run": ri})
                    print(f"  {ds} seed {seed} {name:40s} ARI {ari:.3f} NMI {nmi:.3f} "
                          f"{seconds:8.2f} s  evals {evals if evals is not None else '-'}  "
                          f"it {ri.get('n_iter')}  (other CPU {other.cores or 0:.2f}; "
                          f"{time.perf_counter() - start_all:.0f} s so far)", flush=True)
            rows = []
            for name, kind, params in cfgs:
                rs = results[name]
                row = {"dataset": ds, "algorithm": name, "kind": kind, "params": params,
                       "learning_rate": params.get("learning_rate"),
                       "subsample": (len(sub) if (kind == "full" and sub is not None) else None),
                       "runs": rs}
                for key in ("ari", "nmi", "seconds", "evals"):
                    row[f"{key}_mean"], row[f"{key}_sd"] = mean_sd([r[key] for r in rs])
                row["ari"] = pm(row["ari_mean"], row["ari_sd"])
                row["nmi"] = pm(row["nmi_mean"], row["nmi_sd"])
                row["time"] = pm(row["seconds_mean"], row["seconds_sd"], ".3g")
                row["evals"] = (pm(row["evals_mean"], row["evals_sd"], ".3g")
                                if row["evals_mean"] is not None else None)
                row["iters"] = statistics.fmean(r["n_iter"] for r in rs)
                row["all_converged"] = all(r.get("converged", True) for r in rs)
                rows.append(row)
            notes_targets += targets(ds, rows, args)
            if sub is not None:
                rows[0]["algorithm"] = f"full (subsample {len(sub):,})"
            full = rows[0]["seconds_mean"]
            for r in rows:
                r["speedup"] = full / r["seconds_mean"]
            per_set[ds] = rows
            all_rows += rows
    png = _harness.results_dir() / f"{args.name}.png"
    plot(per_set, png)
    columns = [("dataset", "data", ""), ("algorithm", "algorithm", ""),
               ("ari", "ARI", ""), ("nmi", "NMI", ""), ("time", "wall time [s]", ""),
               ("speedup", "speedup vs full", ".1f"), ("evals", "kernel evaluations", ""),
               ("iters", "iterations", ".1f")]
    notes = data_notes + [
        f"{args.repeats} seeds per row (paper: 10), mean ± SD, after one untimed warm-up of "
        "every row on the first 2048 points; mini-batch rows run "
        f"{args.iters} iterations without early stopping (tol = 0, as the paper's "
        f"comparison); full runs until no label changes (at most {args.full_max_iter}).",
        "Wall time = the whole fit (seeding, iterations, labels of all points); Nystroem = "
        "features + MiniBatchKMeans; kernel evaluations = all phases of n_kernel_evals_ "
        "(Nystroem: n m + m^2 for its features). 'speedup vs full' = full's mean time / the "
        "row's.",
        f"{args.threads} threads for every library; rows run in turn within each seed. "
        f"Other processes kept {statistics.fmean(loads):.2f} cores busy on average during "
        f"the fits (max {max(loads):.2f}) on a {info.get('cpus_available')}-CPU machine: "
        "absolute times are inflated, ratios within one run are what counts.",
        f"Total run time {time.perf_counter() - start_all:.0f} s. Plot: {png.name} "
        "(red full, blue truncated, green untruncated mini-batch, grey peers).",
    ] + ([f"{n_reused} runs reused from {checkpoint.path.name} (--resume); runs marked "
            "'recovered from log' there hold only what the progress log printed (ARI, NMI, "
            "time, evaluations, iterations, other CPU)."] if n_reused else []) + [
        "Targets, as measured:",
    ] + [f"  {t}" for t in notes_targets]
    for r in all_rows:
        r.pop("kind", None)
    _harness.write_results(args.name, columns, all_rows,
                           title="Mini-batch kernel k-means (paper 003, Figure 1 / Appendix C)"
                           + ("" if args.kernel == "rbf" else f", {args.kernel} graph kernel"),
                           params=vars(args), notes=notes, info=info)


if __name__ == "__main__":
    main()
