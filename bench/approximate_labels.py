"""Approximate labelling (cells scored by matrix products, or a graph search
over the centers) vs the exact scan vs faiss.

Labelling all N points against C centers exactly is an O(N C D) scan (a fast
GEMM). ``vcgmm.assign_approximate`` has two methods: "gemm" (the default)
clusters the centers into coarse cells, sends every point to the cells of its
nearest coarse centers (within ``probe_ratio`` of the nearest, at most
``n_probe``), and scores each cell's points against the cell's centers with one
matrix product per block; "graph" builds a k-NN graph over the centers plus a
coarse level and walks it best-first from each point's nearest coarse centers.
This benchmark measures, in one run, on a subsample of the image patches
(patches-sklearn, float32) against the centers of a vc-GMM fit (coreset, so the
fit is quick):

- exact: ``vcgmm.assign(X, centers)`` (the blocked GEMM scan);
- vcgmm gemm: ``vcgmm.assign_approximate(method="gemm")`` at the defaults and
  at the settings of ``--gemm-settings`` (n_probe/probe_ratio/coarse_size
  and optionally screen_dims: with screening, the default, a probed center is
  measured only when its distance in the centers' leading principal subspace,
  an exact lower bound, does not rule it out; 0 scores every probed cell by
  matrix products),
  timed *including* building the index (the index time is also given on its
  own);
- vcgmm graph: ``method="graph"`` at its defaults and at the settings of
  ``--settings`` (graph_degree/beam_width/n_starts), timed the same way;
- faiss ``IndexHNSWFlat`` (each ``--hnsw-m``, efConstruction 40) on the same
  centers, search with k = 1 at each ``--ef``, and faiss ``IndexIVFFlat``
  (the same number of cells as vcgmm's default, trained on the centers) at
  each ``--ivf-nprobe``, if faiss is installed; their builds are timed
  separately and not included in "time".

Columns: wall time (median of ``--repeats`` interleaved calls, 2 threads),
speed-up = exact time / time, the fraction of labels equal to the exact ones,
the quantization error of the labels relative to the exact assignment's
(float64 recomputation), and distance evaluations per point (vcgmm only;
exact = C).

Run from the repository root::

    python -m bench.approximate_labels --clusters 1000 4000 16384 --n 200000
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "approximate_labels"


def _label_error(X, centers, labels, chunk=50_000):
    """sum_n ||x_n - c_{labels_n}||^2 in float64."""
    total = 0.0
    C = centers.astype(np.float64)
    for i in range(0, X.shape[0], chunk):
        x = X[i:i + chunk].astype(np.float64)
        total += float(((x - C[labels[i:i + chunk]]) ** 2).sum())
    return total


def fit_centers(X_all, C, coreset_log2, threads):
    """(centers as float32, fit info): vc-GMM on a coreset of max(2^coreset_log2,
    4 C rounded up to a power of 2) points (C = 16384 would otherwise fit C
    means to C coreset points), random_state 0."""
    import vcgmm

    t0 = time.perf_counter()
    coreset_size = max(2 ** coreset_log2, 1 << int(np.ceil(np.log2(4 * C))))
    est = vcgmm.VCGMM(C, coreset_size=coreset_size, random_state=0, n_threads=threads,
                      compute_labels=False).fit(X_all)
    centers = np.ascontiguousarray(est.cluster_centers_, dtype=np.float32)
    seconds = time.perf_counter() - t0
    print(f"C = {C}: fit {seconds:.1f} s", file=sys.stderr, flush=True)
    return centers, {"seconds": seconds, "coreset_size": coreset_size}


def _parse_setting(text):
    g, b, s = (int(v) for v in text.split("/"))
    return {"method": "graph", "graph_degree": g, "beam_width": b, "n_starts": s}


def _parse_gemm(text):
    p, r, m, *k = text.split("/")
    return {"method": "gemm", "n_probe": int(p), "probe_ratio": float(r), "coarse_size": int(m),
            "screen_dims": int(k[0]) if k else -1}


def _key(s):
    if s["method"] == "graph":
        return "vcgmm graph g{graph_degree}/b{beam_width}/s{n_starts}".format(**s)
    m = "auto" if s["coarse_size"] == 0 else s["coarse_size"]
    k = "auto" if s["screen_dims"] == -1 else s["screen_dims"]
    return f"vcgmm gemm p{s['n_probe']}/r{s['probe_ratio']:g}/m{m}/k{k}"


def run(args):
    import vcgmm

    try:
        import faiss
    except ImportError:  # pragma: no cover - optional peer
        faiss = None
    X_all = load(args.dataset, dtype=np.float32)
    rng = np.random.default_rng(0)
    idx = np.sort(rng.choice(X_all.shape[0], size=min(args.n, X_all.shape[0]), replace=False))
    X = np.ascontiguousarray(X_all[idx])
    print(f"{args.dataset}: {X_all.shape[0]:,} x {X_all.shape[1]}, labelling {X.shape[0]:,} rows",
          file=sys.stderr, flush=True)
    info = _harness.machine_info()
    from vcgmm._blocks.approximate import approximate_default

    assert approximate_default("method") == "gemm"
    gemm_default = {"method": "gemm", **{k: approximate_default(k) for k in (
        "n_probe", "probe_ratio", "coarse_size", "screen_dims")}}
    graph_default = {"method": "graph", **{k: approximate_default(k) for k in (
        "graph_degree", "beam_width", "n_starts")}}
    gemm = [s for s in (_parse_gemm(t) for t in args.gemm_settings) if s != gemm_default]
    graph = [s for s in (_parse_setting(t) for t in args.settings) if s != graph_default]
    settings = [gemm_default] + gemm + [graph_default] + graph
    rows = []
    extra = {"fits": {}}
    with _harness.thread_limits(args.threads):
        for C in args.clusters:
            centers, extra["fits"][C] = fit_centers(X_all, C, args.coreset, args.threads)

            exact = vcgmm.assign(X, centers, n_threads=args.threads)
            q_exact = _label_error(X, centers, exact)
            fns = {"exact": lambda: vcgmm.assign(X, centers, n_threads=args.threads)}
            results = {}
            for s in settings:
                key = _key(s)

                def call(s=s, key=key):
                    results[key] = vcgmm.assign_approximate(X, centers, return_stats=True,
                                                            n_threads=args.threads, **s)
                fns[key] = call
            hnsw = {}
            if faiss is not None:
                for M in args.hnsw_m:
                    t1 = time.perf_counter()
                    index = faiss.IndexHNSWFlat(X.shape[1], M)
                    index.hnsw.efConstruction = 40
                    index.add(centers)
                    build = time.perf_counter() - t1
                    for ef in args.ef:
                        key = f"faiss HNSW M={M} ef={ef}"
                        hnsw[key] = build

                        def search(index=index, ef=ef, key=key):
                            index.hnsw.efSearch = ef
                            results[key] = index.search(X, 1)[1][:, 0].astype(np.int32)
                        fns[key] = search
                n_cells = args.ivf_nlist or int(np.ceil(2 * np.sqrt(C)))
                t1 = time.perf_counter()
                quantizer = faiss.IndexFlatL2(X.shape[1])
                ivf = faiss.IndexIVFFlat(quantizer, X.shape[1], n_cells)
                ivf.cp.seed = 0
                ivf.train(centers)
                ivf.add(centers)
                build = time.perf_counter() - t1
                for nprobe in args.ivf_nprobe:
                    key = f"faiss IVFFlat nlist={n_cells} nprobe={nprobe}"
                    hnsw[key] = build

                    def search_ivf(ivf=ivf, nprobe=nprobe, key=key):
                        ivf.nprobe = nprobe
                        results[key] = ivf.search(X, 1)[1][:, 0].astype(np.int32)
                    fns[key] = search_ivf
            times = _harness.timeit_interleaved(fns, repeats=args.repeats, warmup=1)
            t_exact = times["exact"]["median"]
            for key, t in times.items():
                if key == "exact":
                    labels, evals, index_s = exact, C, None
                elif key.startswith("vcgmm"):
                    labels, st = results[key]
                    evals = st["n_distance_evals"] / X.shape[0]
                    index_s = st["index_seconds"]
                else:
                    labels, evals, index_s = results[key], None, hnsw[key]
                q = _label_error(X, centers, labels)
                row = {"C": C, "method": key, "seconds": t["median"],
                       "speedup": t_exact / t["median"], "index_seconds": index_s,
                       "frac_exact": float((labels == exact).mean()),
                       "q_rel": q / q_exact - 1.0, "evals_per_point": evals,
                       "all_seconds": t["all"]}
                if key.startswith("vcgmm"):
                    st = results[key][1]
                    row["search_evals_per_point"] = st["search_distance_evals"] / X.shape[0]
                rows.append(row)
                print(f"  {key}: {t['median']:.3f} s x{row['speedup']:.2f} "
                      f"exact {row['frac_exact']:.4f} dQ {row['q_rel']:+.5%} evals {evals}",
                      file=sys.stderr, flush=True)
            columns = [("C", "C", "d"), ("method", "method", "s"), ("seconds", "time (s)", ".3f"),
                       ("speedup", "speed-up vs exact", ".2f"),
                       ("index_seconds", "index build (s)", ".3f"),
                       ("frac_exact", "labels exact", ".4f"), ("q_rel", "Q vs exact", "+.4%"),
                       ("evals_per_point", "dist. evals / point", ".1f")]
            _harness.write_results(
                args.name, columns, rows,
                title=f"Approximate labelling vs exact scan vs faiss ({args.dataset}, "
                      f"{X.shape[0]:,} rows, float32, {args.threads} threads)",
                params=vars(args), info=info, extra=extra,
                notes=[
                    "exact = vcgmm.assign (blocked GEMM scan over all C centers); vcgmm gemm "
                    "pP/rR/mM/kK = vcgmm.assign_approximate(method='gemm', n_probe=P, "
                    "probe_ratio=R, coarse_size=M, screen_dims=K) (auto: the default; k0: no "
                    "principal-subspace screening, every probed cell scored by matrix "
                    "products); the first gemm row is the library default; vcgmm graph gD/bB/sS = "
                    "vcgmm.assign_approximate(method='graph', graph_degree=D, beam_width=B, "
                    "n_starts=S), its first row the method's defaults. vcgmm times INCLUDE "
                    "building the index (gemm: Lloyd over the centers for the coarse cells; "
                    "graph: the k-NN graph, C^2 evaluations), counted in dist. evals / point.",
                    "faiss HNSW: IndexHNSWFlat(d, M), efConstruction 40, search k = 1 with "
                    "efSearch = ef; faiss IVFFlat: IndexIVFFlat(IndexFlatL2, nlist) trained "
                    "and filled with the centers, search k = 1 with nprobe; faiss times EXCLUDE "
                    "the index build (given in its own column).",
                    f"Centers: vcgmm.VCGMM(C, coreset_size=max(2^{args.coreset}, 4 C rounded up "
                    f"to a power of 2), random_state=0) "
                    f"fitted on the full {args.dataset} ({X_all.shape[0]:,} rows); labelled rows: "
                    f"a fixed random subsample (seed 0).",
                    "labels exact = fraction equal to the exact labels; Q vs exact = "
                    "sum ||x - c_label||^2 (float64) / exact's - 1.",
                    f"Times: median of {args.repeats} interleaved calls after one warm-up; the "
                    "machine is shared (see load average).",
                ])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="patches-sklearn")
    p.add_argument("--clusters", type=int, nargs="+", default=[1000, 4000, 16384])
    p.add_argument("--n", type=int, default=200_000, help="rows labelled (a subsample)")
    p.add_argument("--coreset", type=int, default=14, help="log2 of the fit's coreset size")
    p.add_argument("--gemm-settings", nargs="*",
                   default=["12/2/0/0", "12/1.75/0", "12/3/0", "12/1.75/0/0"],
                   help="n_probe/probe_ratio/coarse_size[/screen_dims] of the extra vcgmm gemm "
                        "rows (screen_dims -1, the default: automatic; 0: no screening)")
    p.add_argument("--settings", nargs="*", default=["16/8/4"],
                   help="graph_degree/beam_width/n_starts of the extra vcgmm graph rows")
    p.add_argument("--ivf-nprobe", type=int, nargs="*", default=[4, 8])
    p.add_argument("--ivf-nlist", type=int, default=0, help="faiss IVF cells (0: ceil(2 sqrt(C)))")
    p.add_argument("--hnsw-m", type=int, nargs="*", default=[16])
    p.add_argument("--ef", type=int, nargs="*", default=[16, 64])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    p.add_argument("--name", default=NAME,
                   help="results file stem under bench/results/approximate_labels/")
    run(p.parse_args(argv))


if __name__ == "__main__":
    main()
