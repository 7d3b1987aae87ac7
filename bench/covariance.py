"""Per-component variances and weights (``covariance_type="spherical"``) vs the
papers' shared variance, on data of very uneven density.

On GeoNames (cities in xyz on the unit sphere) one shared sigma^2 is wider than
the dense clusters: posteriors spread and means collapse onto each other. This
benchmark measures, in one run, per C and seed:

- var-GMM-S (no coreset, all points) with ``covariance_type="shared"`` (the
  papers' model) and ``"spherical"``, against k-means++ =
  ``vcgmm.KMeans(C, init="k-means++", coreset_size=None)`` (Lloyd on all
  points from k-means++ seeding);
- vc-GMM (coreset of N' points) shared and spherical, against LWCS =
  ``vcgmm.KMeans(C, init="afk-mc2", coreset_size=N')`` (Lloyd on a coreset of
  the same size);

each also with ``refine=k`` hard steps after EM (``--refine``, with each
``--refine-search``), and reports the full-data quantization error (exact, the fits' evaluation
phase) relative to the baseline of the same seed, the number of means that
are nobody's nearest ("unused"), and the algorithm time (the evaluation pass
not counted).

Run from the repository root::

    python -m bench.covariance --clusters 1000 2000 --seeds 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "covariance_geonames"


def _stats(values):
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, sd


def _label(family, cov, refine, variance_floor=None, search=None):
    if cov == "shared" and refine == 0:
        return f"{family} shared (papers)"
    return (f"{family} {cov}" + (f" refine={refine} {search}" if refine else "")
            + (f" variance_floor={variance_floor:g}" if variance_floor is not None else ""))


def _settings(args):
    """(refine, refine_search) of the rows: no refinement, then every pair."""
    return [(0, "restricted")] + [(k, s) for k in args.refine if k for s in args.refine_search]


def _kmeans_rec(km, C, n_prime, seed, algo):
    t = km.timings_
    return {"C": C, "n_prime": n_prime, "seed": seed, "algo": algo, "Q": float(km.inertia_),
            "seconds": t["coreset"] + t["seeding"] + t["iterations"],
            "n_iter": int(km.n_iter_),
            "unused": int(C - np.unique(km.labels_).size)}


def _vcgmm_rec(r, C, n_prime, seed, algo):
    return {"C": C, "n_prime": n_prime, "seed": seed, "algo": algo, "Q": float(r.inertia),
            "seconds": r.algorithm_seconds, "n_iter": int(r.n_iter),
            "unused": int(C - np.unique(r.labels).size),
            "converged": bool(r.converged),
            "n_at_floor": int(np.sum(r.variances == r.variances.min()))
            if np.ptp(r.variances) > 0 else 0,
            "var_ratio_p90_p10": float(np.percentile(r.variances, 90)
                                       / np.percentile(r.variances, 10)),
            "n_zero_weight": int(np.sum(r.mixing_weights == 0))}


def run(args):
    import vcgmm

    X = load(args.dataset, dtype=np.float64)
    if args.subset and args.subset < X.shape[0]:
        X = X[np.random.default_rng(0).choice(X.shape[0], args.subset, replace=False)]
    print(f"{args.dataset}: {X.shape[0]:,} x {X.shape[1]} {X.dtype}", file=sys.stderr, flush=True)
    raw, rows = [], []
    info = _harness.machine_info()
    n_prime = 2 ** args.coreset
    for C in args.clusters:
        groups = {"k-means++ (all points)": ("k-means++ (all points)", []),
                  "LWCS": ("LWCS", [])}  # algorithm -> (baseline, records)
        for fam, base in (("var-GMM-S", "k-means++ (all points)"), ("vc-GMM", "LWCS")):
            for cov in ("shared", "spherical"):
                for k, search in _settings(args):
                    groups[_label(fam, cov, k, search=search)] = (base, [])
            for f in args.variance_floors:
                groups[_label(fam, "spherical", 0, f)] = (base, [])
            for k in args.shared_m_steps:
                groups[_label(fam, "spherical", 0) + f" shared_m_steps={k}"] = (base, [])
        for seed in range(args.seeds):
            t0 = time.perf_counter()
            kw = dict(random_state=seed, n_threads=args.threads)
            km = vcgmm.KMeans(C, init="k-means++", coreset_size=None, **kw).fit(X)
            groups["k-means++ (all points)"][1].append(
                _kmeans_rec(km, C, None, seed, "k-means++ (all points)"))
            lw = vcgmm.KMeans(C, init="afk-mc2", coreset_size=n_prime, **kw).fit(X)
            groups["LWCS"][1].append(_kmeans_rec(lw, C, n_prime, seed, "LWCS"))
            for cov in ("shared", "spherical"):
                for k, search in _settings(args):
                    label = _label("var-GMM-S", cov, k, search=search)
                    r = vcgmm.fit_vargmm(X, C, args.G, covariance_type=cov, refine=k,
                                         refine_search=search, return_labels=True, **kw)
                    groups[label][1].append(_vcgmm_rec(r, C, None, seed, label))
                    label = _label("vc-GMM", cov, k, search=search)
                    r = vcgmm.fit_vcgmm(X, C, args.G, n_prime, covariance_type=cov, refine=k,
                                        refine_search=search, return_labels=True, **kw)
                    groups[label][1].append(_vcgmm_rec(r, C, n_prime, seed, label))
            for f in args.variance_floors:
                label = _label("var-GMM-S", "spherical", 0, f)
                r = vcgmm.fit_vargmm(X, C, args.G, covariance_type="spherical", refine=0,
                                     variance_floor=f, return_labels=True, **kw)
                groups[label][1].append(_vcgmm_rec(r, C, None, seed, label))
                label = _label("vc-GMM", "spherical", 0, f)
                r = vcgmm.fit_vcgmm(X, C, args.G, n_prime, covariance_type="spherical", refine=0,
                                    variance_floor=f, return_labels=True, **kw)
                groups[label][1].append(_vcgmm_rec(r, C, n_prime, seed, label))
            for k in args.shared_m_steps:  # the authors' isoflex warm-up
                label = _label("var-GMM-S", "spherical", 0) + f" shared_m_steps={k}"
                r = vcgmm.fit_vargmm(X, C, args.G, covariance_type="spherical", refine=0,
                                     shared_m_steps=k, return_labels=True, **kw)
                groups[label][1].append(_vcgmm_rec(r, C, None, seed, label))
                label = _label("vc-GMM", "spherical", 0) + f" shared_m_steps={k}"
                r = vcgmm.fit_vcgmm(X, C, args.G, n_prime, covariance_type="spherical",
                                    refine=0, shared_m_steps=k, return_labels=True, **kw)
                groups[label][1].append(_vcgmm_rec(r, C, n_prime, seed, label))
            q = {k: v[1][-1]["Q"] for k, v in groups.items()}
            print(f"[C={C} seed {seed}] {time.perf_counter() - t0:.1f} s: "
                  + ", ".join(f"{k} {100 * (q[k] / q[b] - 1):+.2f}%"
                              for k, (b, _) in groups.items() if k != b),
                  file=sys.stderr, flush=True)
        for algo, (base, recs) in groups.items():
            raw.extend(recs)
            base_recs = groups[base][1]
            rel = [100.0 * (r["Q"] / b["Q"] - 1.0) for r, b in zip(recs, base_recs)]
            m_rel, sd_rel = _stats(rel)
            rows.append({
                "C": C, "algorithm": algo,
                "n_prime": "all" if recs[0]["n_prime"] is None else f"2^{args.coreset}",
                "baseline": base, "seeds": len(recs),
                "Q_mean": statistics.fmean(r["Q"] for r in recs),
                "rel_text": "-" if algo == base else f"{m_rel:+.2f}% ± {sd_rel:.2f}",
                "rel_vs_baseline": m_rel, "rel_vs_baseline_sd": sd_rel,
                "unused": statistics.fmean(r["unused"] for r in recs),
                "seconds": statistics.fmean(r["seconds"] for r in recs),
                "n_iter": statistics.fmean(r["n_iter"] for r in recs),
            })
        _write(args, rows, raw, info, X.shape)  # after every C: a cut-off run keeps its rows
    return rows


def _write(args, rows, raw, info, shape):
    columns = [
        ("C", "C", None), ("algorithm", "algorithm", None), ("n_prime", "N'", None),
        ("seeds", "seeds", None), ("Q_mean", "Q (mean)", ".6g"),
        ("rel_text", "Q vs baseline (same seed)", None), ("baseline", "baseline", None),
        ("unused", "unused means", ".1f"), ("seconds", "time [s]", ".2f"),
        ("n_iter", "iterations", ".1f"),
    ]
    notes = [
        f"Data: {args.dataset}, {shape[0]:,} x {shape[1]} float64"
        + (" (unit-sphere xyz)" if args.dataset == "geonames" else "")
        + (f", a uniform subset of {args.subset:,} rows (seed 0)" if args.subset else "") + ".",
        "Q = exact quantization error on all rows (the fits' evaluation phase); 'Q vs "
        "baseline' = mean over seeds of Q / Q_baseline(same seed) - 1 (± sample sd); "
        "negative = better than the baseline.",
        "unused means = means that are no row's nearest mean (collapsed or stranded).",
        f"k-means++ = vcgmm.KMeans(C, init='k-means++', coreset_size=None); LWCS = "
        f"vcgmm.KMeans(C, init='afk-mc2', coreset_size=N'); var-GMM-S = "
        f"vcgmm.fit_vargmm(X, C, {args.G}, covariance_type=...); vc-GMM = "
        f"vcgmm.fit_vcgmm(X, C, {args.G}, N', covariance_type=...); defaults otherwise "
        f"(AFK-MC^2 seeding, tol, stop rule); rows 'refine=k search' add k hard steps after EM "
        f"with refine_search=search (same seed: same coreset, seeding and EM as the row "
        f"without); {args.threads} threads.",
        "spherical = covariance_type='spherical' (a variance and a mixing weight per "
        "component; variance_floor 1e-6 of the data variance per feature unless the row "
        "says otherwise); shared = the papers' model (one variance, equal weights); "
        "shared_m_steps=k: the first k M-steps fit the shared model (the authors' isoflex "
        "code runs 2).",
        "The JSON runs also hold, per fit, n_at_floor (components at the smallest variance) "
        "and n_zero_weight (components of weight 0).",
        "time = algorithm time (coreset + seeding + iterations), the full-data "
        "evaluation excluded.",
    ]
    _harness.write_results(args.name, columns, rows,
                           title=f"Shared vs per-component variances on {args.dataset}",
                           params=dict(vars(args)), notes=notes, info=info,
                           extra={"runs": raw})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="geonames")
    parser.add_argument("--subset", type=int, default=0,
                        help="use a uniform subset of this many rows (0: all)")
    parser.add_argument("--clusters", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--coreset", type=int, default=15, help="log2 of the coreset size N'")
    parser.add_argument("-G", type=int, default=5)
    parser.add_argument("--refine", type=int, nargs="*", default=[3],
                        help="also run every vc-GMM / var-GMM-S row with these refine values")
    parser.add_argument("--refine-search", nargs="+", default=["approx"],
                        choices=["restricted", "approx", "exact"],
                        help="the refinement's assignments of those rows")
    parser.add_argument("--variance-floors", type=float, nargs="*", default=[],
                        help="also run spherical (refine=0) with these variance_floor values "
                             "(default floor: 1e-6)")
    parser.add_argument("--shared-m-steps", type=int, nargs="*", default=[],
                        help="spherical rows (no refinement) whose first k M-steps fit the "
                             "shared model (the authors' isoflex warm-up: 2)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    with _harness.thread_limits(args.threads):
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
