"""VRKM++'s update rules, step sizes and starts (paper 004, Alg. 4), against Lloyd.

When a drawn point keeps its reference label, Alg. 3/4 as written (their
test compares center vectors, x{C_t} != x{C~new}) still pull its center
towards the corrected one: ``update_rule="svrg"``, also the authors' code.
``"label-change"`` steps only when the label changed (our earlier reading).
The paper starts from random instances and uses eta = K / n, noting that
larger steps help at large n. This benchmark runs, for every seed and from
the same start per seed, VRKM++ with each rule, each step size
``--eta-factors`` x K / n and each start (``--inits``), for a fixed number of
epochs (tol = 0), and reports the exact full-data loss relative to vcgmm's
Lloyd (KMeans, k-means++ start, run to convergence), and the time.

Run from the repository root::

    python -m bench.vrkm_rules --dataset patches-sklearn --clusters 100 --seeds 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "vrkm_rules"


def run(args):
    import vcgmm

    X = load(args.dataset, dtype=np.dtype(args.dtype))
    n = X.shape[0]
    print(f"{args.dataset}: {n:,} x {X.shape[1]} {X.dtype}", file=sys.stderr, flush=True)
    info = _harness.machine_info()
    rows, raw = [], []
    for C in args.clusters:
        per = {}
        for seed in range(args.seeds):
            t0 = time.perf_counter()
            km = vcgmm.KMeans(C, random_state=seed, n_threads=args.threads).fit(X)
            lloyd = {"seconds": time.perf_counter() - t0, "loss": float(km.inertia_) / n}
            per.setdefault(("Lloyd (KMeans)", "k-means++", None, None), []).append(
                dict(lloyd, rel=0.0, seed=seed))
            for init in args.inits:
                for rule in args.rules:
                    for f in args.eta_factors:
                        eta = min(1.0, f * C / n)
                        t0 = time.perf_counter()
                        v = vcgmm.VRKMeans(C, init=init, update_rule=rule, learning_rate=eta,
                                           max_epochs=args.epochs, tol=0, random_state=seed,
                                           n_threads=args.threads).fit(X)
                        rec = {"C": C, "seed": seed, "init": init, "rule": rule, "eta_factor": f,
                               "seconds": time.perf_counter() - t0,
                               "loss": float(v.inertia_) / n, "epochs": int(v.n_iter_)}
                        rec["rel"] = 100.0 * (rec["loss"] / lloyd["loss"] - 1.0)
                        raw.append(rec)
                        per.setdefault(("VRKM++", init, rule, f), []).append(rec)
            print(f"[C={C} seed {seed}] " + ", ".join(
                f"{k[1]} {k[2]} {k[3]}K/n: {recs[-1]['rel']:+.3f}%" for k, recs in per.items()
                if k[0] == "VRKM++"), file=sys.stderr, flush=True)
        for (algo, init, rule, f), recs in per.items():
            rel = [r["rel"] for r in recs]
            rows.append({
                "C": C, "algorithm": algo, "init": init, "rule": rule or "-",
                "eta": "-" if f is None else f"{f:g} K/n", "seeds": len(recs),
                "rel_text": f"{statistics.fmean(rel):+.3f} ± "
                            f"{statistics.stdev(rel) if len(rel) > 1 else 0.0:.3f}",
                "rel": statistics.fmean(rel), "below_lloyd": sum(v < 0 for v in rel),
                "seconds": statistics.fmean(r["seconds"] for r in recs),
            })
        _write(args, rows, raw, info)
    return rows


def _write(args, rows, raw, info):
    columns = [
        ("C", "C", None), ("algorithm", "algorithm", None), ("init", "start", None),
        ("rule", "update_rule", None), ("eta", "learning rate", None), ("seeds", "seeds", None),
        ("rel_text", "final loss vs Lloyd [%]", None), ("below_lloyd", "seeds below Lloyd", None),
        ("seconds", "time [s]", ".2f"),
    ]
    notes = [
        f"Data {args.dataset} as {args.dtype}; {args.threads} threads. Lloyd = "
        "vcgmm.KMeans(C, random_state=s) (k-means++ start, to convergence); VRKM++ = "
        f"vcgmm.VRKMeans(C, init=..., update_rule=..., learning_rate=min(1, f K / n), "
        f"max_epochs={args.epochs}, tol=0, random_state=s) (sequential inner loop, T = n).",
        "final loss = exact quantization error on all rows per point (the fit's "
        "evaluation); 'vs Lloyd' = mean over seeds of loss / Lloyd's loss (same seed) - 1 "
        "(± sample sd); negative = below Lloyd.",
        "time = the whole fit (seeding, epochs, evaluation), mean over seeds.",
    ]
    _harness.write_results(args.name, columns, rows,
                           title=f"VRKM++ update rules, step sizes and starts on {args.dataset}",
                           params=dict(vars(args)), notes=notes, info=info,
                           extra={"runs": raw})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="patches-sklearn")
    parser.add_argument("--clusters", type=int, nargs="+", default=[100])
    parser.add_argument("--rules", nargs="+", default=["svrg", "label-change"])
    parser.add_argument("--eta-factors", type=float, nargs="+", default=[1.0, 5.0, 10.0])
    parser.add_argument("--inits", nargs="+", default=["k-means++", "random"])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    with _harness.thread_limits(args.threads):
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
