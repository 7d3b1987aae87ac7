"""vc-GMM's E-step and M-step with the coreset's rows in the coreset's order
and ordered by cell, from the same seeds.

``fit_vcgmm`` orders the coreset's rows by their nearest of ceil(sqrt(C))
evenly strided coreset rows when the C means take at least 32 MiB
(``coreset_locality_cells`` in cpp/src/detail/pipeline_stages.hpp): a point's
E-step and M-step read the rows of its nearby means, random rows of the (C, D)
means, and consecutive points of one cell share most of them. This benchmark
measures what that order changes: on an LWCS coreset of ``--coreset`` (log2)
rows, seeded by AFK-MC^2, a :class:`vcgmm.VariationalLoop` runs
``--iterations`` E-step / M-step pairs on the rows in LWCS order and on the
same rows ordered by cell (the same order as the pipeline's, computed here in
numpy), taking turns; per step the mean over the iterations after the first,
minimum over ``--repeats`` loops. The two loops start from the same seeds
and differ only in the rows' order (and so in the sums' order and the "+1"
draws).

Run from the repository root::

    python -m bench.coreset_order --dataset fashion-mnist --clusters 4000 16384
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from bench import _harness
from bench.datasets import load
from bench.em_threads import _steps

NAME = "coreset_order"


def cell_order(Y, C):
    """The pipeline's order: stable by nearest of ceil(sqrt(C)) strided rows."""
    n = Y.shape[0]
    m = math.ceil(math.sqrt(C))
    strided = Y[(np.arange(m) * n) // m].astype(np.float64)
    Y64 = Y.astype(np.float64)
    d2 = (Y64 ** 2).sum(1)[:, None] - 2.0 * Y64 @ strided.T + (strided ** 2).sum(1)[None, :]
    return np.argsort(d2.argmin(axis=1), kind="stable")


def run(args):
    import vcgmm

    X = load(args.dataset, dtype=np.dtype(args.dtype))
    print(f"{args.dataset}: {X.shape[0]:,} x {X.shape[1]} {X.dtype}", file=sys.stderr, flush=True)
    info = _harness.machine_info()
    idx, w = vcgmm.lwcs(X, min(2 ** args.coreset, X.shape[0]), random_state=args.seed)
    Y = np.ascontiguousarray(X[idx])
    w = np.asarray(w)
    rows = []
    for C in args.clusters:
        centers, _ = vcgmm.afkmc2(Y, C, sample_weight=w, random_state=args.seed)
        order = cell_order(Y, C)
        variants = {"coreset": (Y, w),
                    "cell": (np.ascontiguousarray(Y[order]), np.ascontiguousarray(w[order]))}
        best = {k: (np.inf, np.inf) for k in variants}
        for _rep in range(args.repeats):
            for k, (YY, ww) in variants.items():  # taking turns
                e, m, _ = _steps(YY, ww, centers, args.G, 2, args.iterations, args.seed, skip=1)
                best[k] = (min(best[k][0], e), min(best[k][1], m))
        mib = C * X.shape[1] * X.dtype.itemsize / 2 ** 20
        for k in variants:
            e, m = best[k]
            rows.append({"C": C, "mib": mib, "order": k, "e_ms": 1e3 * e, "m_ms": 1e3 * m,
                         "e_ratio": e / best["coreset"][0], "m_ratio": m / best["coreset"][1]})
            print(f"[C={C}] {k}: E {1e3 * e:.1f} ms, M {1e3 * m:.1f} ms", file=sys.stderr,
                  flush=True)
    columns = [("C", "C", None), ("mib", "means [MiB]", ".1f"), ("order", "rows", None),
               ("e_ms", "E-step [ms]", ".1f"), ("m_ms", "M-step [ms]", ".1f"),
               ("e_ratio", "E / coreset order", ".2f"), ("m_ratio", "M / coreset order", ".2f")]
    notes = [
        f"{args.dataset} ({args.dtype}), LWCS coreset of 2^{args.coreset} rows (seed "
        f"{args.seed}), AFK-MC^2 seeds, G = {args.G}, 2 threads; per order the mean over "
        f"{args.iterations} E-step / M-step pairs after the first, minimum over "
        f"{args.repeats} loops, the two orders taking turns.",
        "rows: coreset = LWCS order; cell = ordered by nearest of ceil(sqrt(C)) evenly "
        "strided coreset rows, stable (the pipeline's order at >= 32 MiB of means).",
    ]
    _harness.write_results(args.name, columns, rows,
                           title="vc-GMM's EM steps with the coreset ordered by cell",
                           params=dict(vars(args)), notes=notes, info=info)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="fashion-mnist")
    parser.add_argument("--clusters", type=int, nargs="+", default=[4000, 16384])
    parser.add_argument("--coreset", type=int, default=16, help="log2 of the coreset size N'")
    parser.add_argument("-G", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    with _harness.thread_limits(2):
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
