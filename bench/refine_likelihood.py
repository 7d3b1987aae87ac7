"""Held-out log-likelihood of vc-GMM with and without hard refinement.

The papers' vc-GMM (paper 000) returns EM's means and shared variance. The
library's default adds ``refine`` hard steps after EM, which move the means;
the variance returned with them is then re-estimated about the refined
means (the hard assignment's), so that means and variance are one model.
This benchmark measures, on a held-out part of each data set, the mean
log-likelihood per point (``VCGMM.score``) of:

- ``refine=0``: EM's means and variance (the papers' model);
- ``refine=k``, EM's variances: the refined means with the variances EM
  left (the library before the refit; the ``refine=0`` run's variances: the
  same seed shares coreset, seeding and EM);
- ``refine=k``: the refined means and the re-estimated variance (the library);

for each ``--covariance`` (shared; spherical: its variances and weights
alike). Also the
held-out quantization error per point, relative to ``refine=0``'s.

Run from the repository root::

    python -m bench.refine_likelihood --dataset patches-sklearn --clusters 1000 --seeds 3
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "refine_likelihood"


def _split(X, seed, test_fraction):
    order = np.random.default_rng(seed).permutation(X.shape[0])
    n_test = int(round(test_fraction * X.shape[0]))
    return X[np.sort(order[n_test:])], X[np.sort(order[:n_test])]


def _heldout_q(model, X):
    import vcgmm

    return float(vcgmm.quantization_error(X, model.cluster_centers_)) / X.shape[0]


def _with_variances_of(refined, em):
    """The refined means with EM's variances (and weights): the model the
    library returned before refitting them. (Private attributes: no public
    constructor takes a spherical model's parameters.)"""
    model = copy.deepcopy(refined)
    model.sigma2_ = em.sigma2_
    model._variances = copy.deepcopy(em._variances)
    model._mixing_weights = copy.deepcopy(em._mixing_weights)
    return model


def run(args):
    import vcgmm

    X = load(args.dataset, dtype=np.dtype(args.dtype))
    print(f"{args.dataset}: {X.shape[0]:,} x {X.shape[1]} {X.dtype}", file=sys.stderr, flush=True)
    info = _harness.machine_info()
    rows, raw = [], []
    k = args.refine
    for C in args.clusters:
        per = {}
        for seed in range(args.seeds):
            train, test = _split(X, 1000 + seed, args.test_fraction)
            kw = dict(G=args.G, coreset_size=args.coreset, random_state=seed,
                      n_threads=args.threads)
            for cov in args.covariance:
                em = vcgmm.VCGMM(C, refine=0, covariance_type=cov, **kw).fit(train)
                ref = vcgmm.VCGMM(C, refine=k, covariance_type=cov, **kw).fit(train)
                models = {f"{cov}, refine=0 (papers' model)": em,
                          f"{cov}, refine={k}": ref,
                          f"{cov}, refine={k}, EM's variances": _with_variances_of(ref, em)}
                q0 = _heldout_q(em, test)
                for label, m in models.items():
                    rec = {"C": C, "seed": seed, "model": label,
                           "loglik": float(m.score(test)), "q": _heldout_q(m, test),
                           "sigma2": float(np.mean(m.covariances_)), "q_em": q0}
                    raw.append(rec)
                    per.setdefault(label, []).append(rec)
            print(f"[C={C} seed {seed}] " + ", ".join(
                f"{label}: {recs[-1]['loglik']:.4f}" for label, recs in per.items()),
                file=sys.stderr, flush=True)
        base = {cov: per[f"{cov}, refine=0 (papers' model)"] for cov in args.covariance}
        for label, recs in per.items():
            b = base[label.split(",")[0]]
            gain = [r["loglik"] - e["loglik"] for r, e in zip(recs, b)]
            rel_q = [100.0 * (r["q"] / r["q_em"] - 1.0) for r in recs]
            rows.append({
                "C": C, "model": label, "seeds": len(recs),
                "loglik": statistics.fmean(r["loglik"] for r in recs),
                "gain": statistics.fmean(gain),
                "gain_sd": statistics.stdev(gain) if len(gain) > 1 else 0.0,
                "gain_text": f"{statistics.fmean(gain):+.3f} ± "
                             f"{statistics.stdev(gain) if len(gain) > 1 else 0.0:.3f}",
                "seeds_better": sum(g > 0 for g in gain),
                "rel_q": statistics.fmean(rel_q),
                "sigma2": statistics.fmean(r["sigma2"] for r in recs),
            })
        _write(args, rows, raw, info)
    return rows


def _write(args, rows, raw, info):
    columns = [
        ("C", "C", None), ("model", "model", None), ("seeds", "seeds", None),
        ("loglik", "held-out log-likelihood / point", ".4f"),
        ("gain_text", "vs refine=0 [nats / point]", None),
        ("seeds_better", "seeds above refine=0", None),
        ("rel_q", "held-out Q vs refine=0 [%]", "+.2f"),
        ("sigma2", "mean variance", ".5g"),
    ]
    notes = [
        f"Data {args.dataset} as {args.dtype}; per seed s a random {args.test_fraction:.0%} of "
        "the rows held out (permutation seed 1000 + s), the model fitted on the rest: "
        f"vcgmm.VCGMM(C, G={args.G}, coreset_size={args.coreset!r}, refine=k, "
        f"covariance_type=..., random_state=s), {args.threads} threads.",
        "held-out log-likelihood / point = VCGMM.score(held-out rows) (the exact mixture "
        "likelihood, all C components); 'vs refine=0' = mean over seeds of the difference "
        "to the same seed's refine=0 model (± sample sd).",
        "\"refine=k, EM's variances\" = the refine=k model with the refine=0 run's "
        "variances (spherical: and weights): the model the library returned before they "
        "were refitted after refinement (same seed: same coreset, seeding and EM).",
        "held-out Q = quantization error per held-out point of the model's means, relative "
        "to the refine=0 means' (negative: better); mean variance = mean of covariances_.",
    ]
    _harness.write_results(
        args.name, columns, rows,
        title=f"vc-GMM's held-out log-likelihood with and without refinement ({args.dataset})",
        params=dict(vars(args)), notes=notes, info=info, extra={"runs": raw})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="patches-sklearn")
    parser.add_argument("--clusters", type=int, nargs="+", default=[1000])
    parser.add_argument("--refine", type=int, default=3, help="refinement steps (k)")
    parser.add_argument("-G", type=int, default=5)
    parser.add_argument("--coreset", default="auto",
                        type=lambda s: s if s == "auto" else int(s))
    parser.add_argument("--covariance", nargs="+", default=["shared", "spherical"],
                        choices=["shared", "spherical"])
    parser.add_argument("--test-fraction", type=float, default=0.2)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    with _harness.thread_limits(args.threads):
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
