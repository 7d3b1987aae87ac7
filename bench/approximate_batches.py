"""Labelling data that arrive in batches: an index kept between calls vs one
built per call vs the exact scan vs faiss.

Index reuse: ``vcgmm.assign_approximate`` builds its index over the centers
(coarse cells: a few Lloyd iterations over the centers) on every call;
``vcgmm.ApproximateIndex`` builds it once, and an estimator's ``predict(X,
exact=False)`` keeps one between calls. For data that arrive in batches of b
rows (a stream, a data loader, a service), this benchmark measures, in one run,
the wall time of labelling ONE batch against the centers of a vc-GMM fit on the
image patches (patches-sklearn, float32):

- exact: ``vcgmm.assign(batch, centers)`` (the blocked GEMM scan);
- rebuilt per call: ``vcgmm.assign_approximate(batch, centers)``;
- ApproximateIndex: ``index.assign(batch)``, the index built once before;
- predict(exact=False): ``KMeans.from_centers(centers).predict(batch,
  exact=False)`` (the estimator's validation plus its kept index);
- faiss ``IndexIVFFlat`` (nlist = ceil(2 sqrt(C)), nprobe 8) and
  ``IndexHNSWFlat`` (M 16, efSearch 16), built once before, if installed.

Every competitor labels the same consecutive batches (batch i of call i);
vcgmm's competitors take turns call by call (``_harness.timeit_interleaved``),
then faiss's the same way (its OpenMP threads spin after each call and would
slow the call after them); the table gives
the median over ``--calls`` calls, rows per second, the speed-up against the
exact scan, the one-off index build, and the fraction of labels equal to the
exact ones over the batches labelled.

Run from the repository root::

    python -m bench.approximate_batches --clusters 1000 4000 16384 --batch-sizes 100 1000 10000
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from bench import _harness
from bench.approximate_labels import fit_centers
from bench.datasets import load

NAME = "approximate_batches"
#: Seconds of rest before each group of competitors (OpenMP threads stop spinning).
_SETTLE = 1.0


def _stream(X, b):
    """A callable returning the next batch of b rows (wrapping around) and the
    list of batch starts it handed out."""
    starts = []
    n_batches = X.shape[0] // b

    def next_batch():
        i = len(starts) % n_batches
        starts.append(i * b)
        return X[i * b:(i + 1) * b]

    return next_batch, starts


def run(args):
    import vcgmm

    try:
        import faiss
    except ImportError:  # pragma: no cover - optional peer
        faiss = None
    X_all = load(args.dataset, dtype=np.float32)
    rng = np.random.default_rng(1)
    X = np.ascontiguousarray(X_all[rng.permutation(X_all.shape[0])[:args.n]])
    print(f"{args.dataset}: {X_all.shape[0]:,} x {X_all.shape[1]}, batches from {X.shape[0]:,} "
          "shuffled rows", file=sys.stderr, flush=True)
    info = _harness.machine_info()
    rows, extra = [], {"fits": {}, "builds": {}}
    with _harness.thread_limits(args.threads):
        for C in args.clusters:
            centers, extra["fits"][C] = fit_centers(X_all, C, args.coreset, args.threads)
            exact_all = vcgmm.assign(X, centers, n_threads=args.threads)
            builds = {}
            t0 = time.perf_counter()
            index = vcgmm.ApproximateIndex(centers, n_threads=args.threads)
            builds["ApproximateIndex"] = time.perf_counter() - t0
            model = vcgmm.KMeans.from_centers(centers, n_threads=args.threads)
            t0 = time.perf_counter()
            model.predict(X[:1], exact=False)  # builds and keeps its index
            builds["predict(exact=False)"] = time.perf_counter() - t0
            peers = {}
            if faiss is not None:
                t0 = time.perf_counter()
                ivf = faiss.IndexIVFFlat(faiss.IndexFlatL2(X.shape[1]), X.shape[1],
                                         int(np.ceil(2 * np.sqrt(C))))
                ivf.cp.seed = 0
                ivf.train(centers)
                ivf.add(centers)
                ivf.nprobe = 8
                builds["faiss IVFFlat nprobe=8"] = time.perf_counter() - t0
                t0 = time.perf_counter()
                hnsw = faiss.IndexHNSWFlat(X.shape[1], 16)
                hnsw.hnsw.efConstruction = 40
                hnsw.add(centers)
                hnsw.hnsw.efSearch = 16
                builds["faiss HNSW M=16 ef=16"] = time.perf_counter() - t0
                peers = {"faiss IVFFlat nprobe=8": ivf, "faiss HNSW M=16 ef=16": hnsw}
            extra["builds"][C] = builds
            for b in args.batch_sizes:
                labelled = {}
                fns = {}

                def competitor(name, label):
                    next_batch, starts = _stream(X, b)
                    out = []
                    labelled[name] = (out, starts)

                    def call():
                        out.append(np.asarray(label(next_batch())))
                    fns[name] = call

                competitor("exact", lambda B: vcgmm.assign(B, centers, n_threads=args.threads))
                competitor("rebuilt per call", lambda B: vcgmm.assign_approximate(
                    B, centers, n_threads=args.threads))
                competitor("ApproximateIndex", index.assign)
                competitor("predict(exact=False)", lambda B: model.predict(B, exact=False))
                ours = dict(fns)
                fns.clear()
                for name, peer in peers.items():
                    competitor(name, lambda B, peer=peer: peer.search(B, 1)[1][:, 0])
                # faiss brings its own OpenMP runtime, whose threads keep spinning
                # for a while after each call: interleaved with ours they slowed
                # the next vcgmm call (a 100-row exact batch 4x). Ours and faiss's
                # are timed as two groups, each interleaved within, after a pause.
                times = {}
                for group in (ours, fns):
                    time.sleep(_SETTLE)
                    times.update(_harness.timeit_interleaved(group, repeats=args.calls, warmup=1))
                t_exact = times["exact"]["median"]
                for name, t in times.items():
                    out, starts = labelled[name]
                    exact = np.concatenate([exact_all[s:s + b] for s in starts])
                    frac = float((np.concatenate(out) == exact).mean())
                    row = {"C": C, "b": b, "method": name, "ms": 1e3 * t["median"],
                           "rows_per_s": b / t["median"], "speedup": t_exact / t["median"],
                           "build_s": builds.get(name), "frac_exact": frac,
                           "all_seconds": t["all"]}
                    rows.append(row)
                    print(f"  C={C} b={b} {name}: {row['ms']:.2f} ms x{row['speedup']:.2f} "
                          f"exact {frac:.4f}", file=sys.stderr, flush=True)
            columns = [("C", "C", "d"), ("b", "batch rows", "d"), ("method", "method", "s"),
                       ("ms", "time per batch (ms)", ".2f"), ("rows_per_s", "rows / s", ".3g"),
                       ("speedup", "speed-up vs exact", ".2f"),
                       ("build_s", "one-off build (s)", ".3f"),
                       ("frac_exact", "labels exact", ".4f")]
            _harness.write_results(
                NAME, columns, rows,
                title=f"Labelling batches: kept index vs rebuilt vs exact vs faiss "
                      f"({args.dataset}, float32, {args.threads} threads)",
                params=vars(args), info=info, extra=extra,
                notes=[
                    "exact = vcgmm.assign(batch, centers); rebuilt per call = "
                    "vcgmm.assign_approximate(batch, centers) (builds the gemm index every call, "
                    "its time included); ApproximateIndex = vcgmm.ApproximateIndex(centers) built "
                    "once, then index.assign(batch); predict(exact=False) = "
                    "vcgmm.KMeans.from_centers(centers).predict(batch, exact=False), its index "
                    "built on a first call before the timing and kept. All at the library's "
                    "default approximate parameters.",
                    "faiss: IndexIVFFlat(IndexFlatL2, ceil(2 sqrt(C))) trained and filled with "
                    "the centers, nprobe 8; IndexHNSWFlat(d, 16), efConstruction 40, efSearch 16; "
                    "search k = 1. One-off builds of the kept indexes are in their column, not in "
                    "the per-batch time.",
                    f"Centers: bench.approximate_labels.fit_centers (vc-GMM, coreset max(2^"
                    f"{args.coreset}, 4 C), random_state 0) on all {X_all.shape[0]:,} rows; "
                    f"batches: consecutive slices of {X.shape[0]:,} shuffled rows (seed 1).",
                    f"Times: median of {args.calls} calls per competitor after one warm-up call, "
                    "vcgmm's four competitors taking turns call by call, then faiss's two the "
                    "same way (faiss's own OpenMP threads spin after each call and slowed the "
                    "vcgmm call that followed when all six took turns); labels exact over the "
                    "batches each labelled.",
                ])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="patches-sklearn")
    p.add_argument("--clusters", type=int, nargs="+", default=[1000, 4000, 16384])
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[100, 1000, 10000])
    p.add_argument("--n", type=int, default=200_000, help="rows the batches are cut from")
    p.add_argument("--coreset", type=int, default=14, help="log2 of the fit's coreset size")
    p.add_argument("--calls", type=int, default=15, help="timed calls per competitor")
    p.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    run(p.parse_args(argv))


if __name__ == "__main__":
    main()
