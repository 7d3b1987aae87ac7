"""vc-GMM with hard refinement after EM vs the papers' vc-GMM vs LWCS.

At C >= 2000 on the image patches the papers' vc-GMM (G = 5) ends 0.7-1.4
points above LWCS (Lloyd on the same coreset): EM's fixed point (soft means,
one shared variance) is not a k-means fixed point. ``refine=k`` adds k hard
steps after EM, each assigning the coreset points within the truncated search
spaces (``refine_search="restricted"``) or over all means (``"approx"``: the
approximate cell index; ``"exact"``: the exact scan). This benchmark measures,
in one run and on the same coreset size N':

- vc-GMM with ``refine=0`` (the papers' algorithm), and with each of
  ``--refine`` (default 1 3 10) and ``--refine-search`` -- the same seed, so
  the same coreset, seeding and EM: the rows of one G differ only by the
  refinement; each of ``-G`` (default 5);
- with ``--tol`` (default: the library's default only), each EM stopping
  threshold of the ``"gain"`` rule for every refinement setting (rows
  "tol=..."; a smaller threshold runs more EM iterations before the same
  refinement);
- LWCS = ``vcgmm.KMeans(C, init="afk-mc2", coreset_size=N')``;

and reports the full-data quantization error (exact: the fits' evaluation phase)
relative to LWCS's of the same seed, and the algorithm time (coreset +
seeding + iterations + refinement; the evaluation pass is not counted).

Run from the repository root::

    python -m bench.refine_patches --clusters 1000 2000 --coreset 14 16 --seeds 3 \
        --refine 1 3 --refine-search restricted approx exact
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "refine_patches"


def _stats(values):
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, sd


def run(args):
    import vcgmm

    X = load(args.dataset, dtype=np.dtype(args.dtype))
    print(f"{args.dataset}: {X.shape[0]:,} x {X.shape[1]} {X.dtype}", file=sys.stderr, flush=True)
    # (G, refine steps, refine_search, tol): the papers' vc-GMM (refine=0,
    # default tol) for each G, then every refinement setting with every tol.
    default_tol = _default_tol()
    tols = args.tol or [default_tol]
    variants = []
    for G in args.G:
        variants.append((G, 0, "restricted", default_tol))
        variants += [(G, k, search, tol) for tol in tols for search in args.refine_search
                     for k in args.refine if k != 0]
    raw = []
    rows = []
    info = _harness.machine_info()
    for C in args.clusters:
        for e in args.coreset:
            n_prime = 2 ** e
            per = {("vc",) + v: [] for v in variants}
            per[("lwcs", None, 0, None, None)] = []
            for seed in range(args.seeds):
                t0 = time.perf_counter()
                lw = vcgmm.KMeans(C, init="afk-mc2", coreset_size=n_prime, random_state=seed,
                                  n_threads=args.threads)
                lw.fit(X)  # inertia_: exact on all rows (the evaluation phase, not timed)
                t = lw.timings_
                q_lw = float(lw.inertia_)
                rec = {"C": C, "n_prime": n_prime, "seed": seed, "algo": "LWCS", "refine": None,
                       "Q": q_lw, "seconds": t["coreset"] + t["seeding"] + t["iterations"],
                       "n_iter": int(lw.n_iter_)}
                raw.append(rec)
                per[("lwcs", None, 0, None, None)].append(rec)
                for G, k, search, tol in variants:
                    r = vcgmm.fit_vcgmm(X, C, G, n_prime, random_state=seed, refine=k,
                                        refine_search=search, tol=tol, n_threads=args.threads,
                                        return_labels=True)
                    q = float(r.inertia)  # exact on all rows (evaluation phase, not timed)
                    rec = {"C": C, "n_prime": n_prime, "seed": seed, "algo": "vc-GMM", "G": G,
                           "refine": k, "refine_search": search, "tol": tol,
                           "Q": q, "seconds": r.algorithm_seconds, "n_iter": int(r.n_iter),
                           "refine_seconds": r.timings["refinement"],
                           "refine_evals": int(r.n_distance_evals["refinement"]),
                           "estep_evals": int(r.n_distance_evals["iterations"]),
                           "refine_objective": [float(v) for v in r.refine_objective]}
                    raw.append(rec)
                    per[("vc", G, k, search, tol)].append(rec)
                print(f"[C={C} N'=2^{e} seed {seed}] {time.perf_counter() - t0:.1f} s: "
                      + ", ".join(f"{_label(*v, default_tol)} "
                                  f"{100 * (per[('vc',) + v][-1]['Q'] / q_lw - 1):+.2f}%"
                                  for v in variants), file=sys.stderr, flush=True)
            lw_recs = per[("lwcs", None, 0, None, None)]
            for key, recs in per.items():
                rel = [100.0 * (r["Q"] / l["Q"] - 1.0) for r, l in zip(recs, lw_recs)]
                speed = [l["seconds"] / r["seconds"] for r, l in zip(recs, lw_recs)]
                m_rel, sd_rel = _stats(rel)
                m_t, _ = _stats([r["seconds"] for r in recs])
                m_sp, _ = _stats(speed)
                rows.append({
                    "C": C, "n_prime": f"2^{e}",
                    "algorithm": "LWCS" if key[0] == "lwcs" else _label(*key[1:], default_tol),
                    "G": "-" if key[0] == "lwcs" else key[1], "seeds": len(recs),
                    "Q_mean": statistics.fmean(r["Q"] for r in recs),
                    "rel_vs_lwcs": m_rel, "rel_vs_lwcs_sd": sd_rel,
                    "rel_text": f"{m_rel:+.2f}% ± {sd_rel:.2f}",
                    "worse_than_lwcs": sum(v > 0 for v in rel),
                    "seconds": m_t, "speedup_vs_lwcs": m_sp,
                    "n_iter": statistics.fmean(r["n_iter"] for r in recs),
                })
        # results after every C, so a cut-off run keeps what it measured
        _write(args, rows, raw, info)
    return rows


def _default_tol():
    import vcgmm

    return vcgmm.VCGMM().tol


def _label(G, k, search, tol, default_tol):
    if k == 0:
        return "vc-GMM (papers)"
    return f"vc-GMM refine={k} {search}" + ("" if tol == default_tol else f" tol={tol:g}")


def _write(args, rows, raw, info):
    columns = [
        ("C", "C", None), ("n_prime", "N'", None), ("algorithm", "algorithm", None),
        ("G", "G", None), ("seeds", "seeds", None),
        ("rel_text", "Q vs LWCS (same seed)", None),
        ("worse_than_lwcs", "seeds worse than LWCS", None),
        ("seconds", "time [s]", ".2f"), ("speedup_vs_lwcs", "speedup vs LWCS", lambda v: f"{v:.2f}x"),
        ("n_iter", "iterations", ".1f"),
    ]
    notes = [
        "Q = exact quantization error on all rows of the data set (the fits' evaluation phase); 'Q vs LWCS' = "
        "mean over seeds of Q / Q_LWCS(same seed) - 1 (± sample sd); negative = better than LWCS.",
        "vc-GMM rows of one seed share the coreset, the seeding and EM (same random_state): "
        "they differ only by the refinement steps after EM (and 'tol=t' rows by where EM stops).",
        "time = algorithm time (coreset + seeding + iterations + refinement), the final "
        "full-data evaluation excluded; 'speedup vs LWCS' = mean of LWCS time / row time per seed.",
        "LWCS = vcgmm.KMeans(C, init='afk-mc2', coreset_size=N'); vc-GMM = "
        "vcgmm.fit_vcgmm(X, C, G, N', refine=k, refine_search=search) ('refine=k search' "
        "rows; 'restricted': the truncated search spaces S(n), 'approx': all means by the "
        "approximate cell index, 'exact': all means, exact scan); 'tol=t': EM stopped by "
        f"the 'gain' rule at tol=t instead of the default {_default_tol():g}; "
        f"{args.threads} threads; data as {args.dtype}.",
    ]
    _harness.write_results(args.name, columns, rows,
                           title=f"Hard refinement after EM on {args.dataset}: vc-GMM vs LWCS",
                           params=dict(vars(args)), notes=notes, info=info,
                           extra={"runs": raw})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="patches-sklearn")
    parser.add_argument("--clusters", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--coreset", type=int, nargs="+", default=[14, 16],
                        help="log2 of the coreset sizes N'")
    parser.add_argument("--refine", type=int, nargs="+", default=[1, 3, 10],
                        help="refinement steps to compare with refine=0")
    parser.add_argument("--refine-search", nargs="+", default=["restricted"],
                        choices=["restricted", "approx", "exact"],
                        help="the refinement's assignments to compare")
    parser.add_argument("--tol", type=float, nargs="+", default=None,
                        help="EM stopping thresholds to compare (default: the library's)")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("-G", type=int, nargs="+", default=[5],
                        help="neighbourhood sizes of vc-GMM (each with every refinement)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    with _harness.thread_limits(args.threads):
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
