"""Cosine (spherical) k-means: vcgmm against faiss and scikit-learn, error vs time.

Embeddings are clustered by cosine similarity. The rows are scaled to unit
length once; every method then gets the same unit rows:

- ``vcgmm KMeans(metric="cosine")``: spherical Lloyd (Dhillon & Modha; centers
  rescaled to unit length after every update), k-means++ seeding;
- ``vcgmm KMeans(metric="cosine", coreset_size="auto", init="afk-mc2")``: the
  same on a lightweight coreset;
- ``faiss.Kmeans(spherical=True)``: faiss's spherical k-means (its defaults:
  25 iterations, random init, at most 256 points per center sampled);
- ``sklearn.cluster.KMeans`` (Lloyd, k-means++, n_init=1) on the unit rows, its
  centers rescaled to unit length afterwards (what users do today).

Error = sum_n (1 - max_c cos(x_n, c)) on all rows with each method's centers
scaled to unit length, computed afterwards in numpy (untimed), reported
relative to the best run of the table. Time = wall time of the fit call.
Every method runs with the same threads and seeds, seeds interleaved.

Usage (from the repository root)::

    python -m bench.cosine                        # Fashion-MNIST rows, C = 100, 1000
    python -m bench.cosine --clusters 100 --seeds 2 --dataset digits   # quick
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from bench import _harness, datasets

NAME = "cosine"


def unit_rows(X):
    X = np.ascontiguousarray(X, dtype=np.float32)
    norms = np.linalg.norm(X, axis=1)
    keep = norms > 0
    return np.ascontiguousarray(X[keep] / norms[keep, None])


def cosine_error(Xn, centers, block=8192):
    """sum_n (1 - max_c cos(x_n, c)), centers rescaled to unit length (numpy)."""
    C = np.asarray(centers, dtype=np.float64)
    C = C / np.maximum(np.linalg.norm(C, axis=1, keepdims=True), 1e-300)
    C = C.astype(np.float32)
    total = 0.0
    for start in range(0, Xn.shape[0], block):
        sims = Xn[start:start + block] @ C.T
        total += float(np.sum(1.0 - sims.max(axis=1).astype(np.float64)))
    return total


def methods(threads):
    import vcgmm

    def vcgmm_lloyd(X, C, seed):
        return vcgmm.KMeans(C, metric="cosine", random_state=seed,
                            n_threads=threads).fit(X).cluster_centers_

    def vcgmm_lwcs(X, C, seed):
        return vcgmm.KMeans(C, metric="cosine", coreset_size="auto", init="afk-mc2",
                            random_state=seed, n_threads=threads).fit(X).cluster_centers_

    def faiss_spherical(X, C, seed):
        import faiss

        km = faiss.Kmeans(X.shape[1], C, spherical=True, seed=seed, verbose=False)
        km.train(X)
        return km.centroids

    def sklearn_unit_rows(X, C, seed):
        from sklearn.cluster import KMeans

        return KMeans(C, n_init=1, random_state=seed).fit(X).cluster_centers_

    out = {"vcgmm KMeans(metric='cosine')": vcgmm_lloyd,
           "vcgmm KMeans(metric='cosine', LWCS)": vcgmm_lwcs,
           "sklearn KMeans on unit rows": sklearn_unit_rows}
    try:
        import faiss  # noqa: F401
        out["faiss Kmeans(spherical=True)"] = faiss_spherical
    except ImportError:
        pass
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="fashion-mnist")
    parser.add_argument("--clusters", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)

    info = _harness.machine_info()
    Xn = unit_rows(datasets.load(args.dataset, np.float32))
    fns = methods(args.threads)
    raw = []
    with _harness.thread_limits(args.threads):
        for C in args.clusters:
            for seed in range(args.seeds):
                for name, fit in fns.items():
                    t0 = time.perf_counter()
                    centers = fit(Xn, C, seed)
                    seconds = time.perf_counter() - t0
                    err = cosine_error(Xn, centers)
                    raw.append({"C": C, "seed": seed, "method": name, "seconds": seconds,
                                "error": err})
                    print(f"C={C} seed={seed} {name}: {seconds:.2f} s, error {err:.2f}",
                          flush=True)
    rows = []
    for C in args.clusters:
        best = min(r["error"] for r in raw if r["C"] == C)
        ref = statistics.mean(r["seconds"] for r in raw
                              if r["C"] == C and r["method"] == "vcgmm KMeans(metric='cosine')")
        for name in fns:
            runs = [r for r in raw if r["C"] == C and r["method"] == name]
            t = statistics.mean(r["seconds"] for r in runs)
            rows.append({
                "C": C, "method": name, "seeds": len(runs), "seconds": t,
                "seconds_sd": statistics.stdev([r["seconds"] for r in runs]) if len(runs) > 1
                else 0.0,
                "error": statistics.mean(r["error"] for r in runs),
                "error_vs_best": statistics.mean(r["error"] / best - 1 for r in runs),
                "time_vs_vcgmm": t / ref,
            })
    columns = [("C", "C", ""), ("method", "method", ""), ("seeds", "seeds", ""),
               ("seconds", "fit [s]", ".2f"), ("seconds_sd", "sd [s]", ".2f"),
               ("error", "sum(1 - cos)", ".1f"),
               ("error_vs_best", "error vs best run", "+.2%"),
               ("time_vs_vcgmm", "time / vcgmm Lloyd", ".2f")]
    notes = [
        f"Data: {args.dataset} rows scaled to unit length ({Xn.shape[0]:,} x {Xn.shape[1]}, "
        "float32), the stand-in for embeddings; every method gets the same unit rows.",
        "Error: sum over all rows of 1 - max_c cos(x, c), centers scaled to unit length "
        "(numpy, untimed); 'error vs best run' = mean over seeds of error / lowest error of "
        "any run at that C - 1.",
        "Time: wall time of the fit call, mean over seeds; one run per method and seed, seeds "
        f"interleaved; {args.threads} threads for every library.",
        "faiss runs its defaults (25 iterations, random init, <= 256 points per center "
        "sampled); vcgmm and scikit-learn run Lloyd to their own tolerance with k-means++ "
        "(vcgmm's LWCS row: AFK-MC^2 on a coreset of min(n, max(4096, 64 C)) points).",
    ]
    _harness.write_results(args.name, columns, rows, title="Cosine k-means: vcgmm vs faiss "
                           "spherical vs scikit-learn on unit rows", params=vars(args),
                           notes=notes, info=info, extra={"runs": raw})


if __name__ == "__main__":
    main()
