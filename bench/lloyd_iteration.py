"""One Lloyd iteration (assignment + center update): vcgmm vs scikit-learn vs faiss.

What is timed, per (dtype, C), from the same initial centers (C distinct rows
of the data drawn with a fixed seed), with the same number of threads:

- vcgmm: ``vcgmm.lloyd(X, centers, max_iter=1, n_threads=T)``: the whole
  public call (input checks, one blocked assignment, empty-cluster relocation,
  the weighted means; it also computes the exact quantization error).
- scikit-learn: ``sklearn.cluster._k_means_lloyd.lloyd_iter_chunked_dense``,
  the private Cython routine that is exactly one Lloyd iteration of
  ``KMeans`` (assignment, empty-cluster relocation, means, center shift),
  called with preallocated buffers, OpenMP ``n_threads=T`` and its BLAS
  limited to 1 thread, the way ``KMeans`` itself calls it.
- faiss: ``faiss.Kmeans(d, C, niter=1, max_points_per_centroid=n, ...)
  .train(X, init_centroids=centers)``: one iteration of faiss' k-means on ALL
  points (faiss subsamples to 256 C points unless max_points_per_centroid
  says otherwise; the verbose log and the objective are checked to prove it
  did not). On float64 data faiss gets the float64 array and converts it to
  float32 inside ``train`` (labelled "f64->f32"); the conversion is timed.

Optional extra columns: ``--assign`` times the assignment alone
(``vcgmm.assign``, scikit-learn's routine with ``update_centers=False``,
faiss ``IndexFlatL2.search(k=1)`` on float32); ``--kmeans-fit`` times
``sklearn.cluster.KMeans(max_iter=1, n_init=1, init=centers).fit``, which is
NOT one iteration: it adds input validation, a second assignment pass and the
inertia.

Correctness is checked on the same runs: the labels of the iteration (vcgmm's
``assign`` with the initial centers vs scikit-learn's labels) and the updated
centers of vcgmm vs scikit-learn vs faiss.

Run from the repository root::

    python -m bench.lloyd_iteration                    # 256, 1000, 4000; f64, f32
    python -m bench.lloyd_iteration --clusters 256 --repeats 5 --assign
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "lloyd_iteration"


def initial_center_indices(X, n_clusters, seed):
    """Indices of ``n_clusters`` rows with pairwise distinct values.

    Rows drawn in a seeded random order; a row equal to an earlier pick is
    skipped (photos have repeated patches), so no two initial centers
    coincide and, with every center a data point, no cluster starts empty.
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(X.shape[0])
    take = min(X.shape[0], 4 * n_clusters)
    while True:
        cand = order[:take]
        _, first = np.unique(X[cand], axis=0, return_index=True)
        keep = cand[np.sort(first)]
        if len(keep) >= n_clusters or take == X.shape[0]:
            break
        take = min(X.shape[0], 2 * take)
    if len(keep) < n_clusters:
        raise ValueError(f"the data has only {len(keep)} distinct rows, fewer than {n_clusters}.")
    return keep[:n_clusters]


def exact_sq_dist(X, centers, labels):
    """||x_i - c_{labels_i}||^2 in float64 by direct differences (no expansion)."""
    diff = X.astype(np.float64) - centers.astype(np.float64)[labels]
    return np.einsum("ij,ij->i", diff, diff)


def exact_labels(X64, init_idx, chunk=4096):
    """Exact nearest-center labels (ties: lowest index) for integer-valued data.

    With integer-valued X and centers taken from its rows, ||c||^2 - 2 x.c is
    a sum of integer products: float64 computes it exactly in any order while
    2 d max|x|^2 < 2^53, so one float64 product gives the exact argmin.

    Returns
    -------
    labels : ndarray of int32 or None
        None when the data do not qualify.
    float32_exact : bool
        Whether float32 is exact too (2 d max|x|^2 < 2^24, true for 0..255
        patches with d = 108): then every library computing the expansion in
        float32 must also return exactly these labels.
    """
    bound = 2.0 * X64.shape[1] * float(np.max(np.abs(X64))) ** 2
    if bound >= 2.0 ** 53 or not np.array_equal(X64, np.round(X64)):
        return None, False
    init = X64[init_idx]
    cn = np.einsum("ij,ij->i", init, init)
    labels = np.empty(X64.shape[0], dtype=np.int32)
    for s in range(0, X64.shape[0], chunk):
        part = cn[None, :] - 2.0 * (X64[s:s + chunk] @ init.T)
        labels[s:s + chunk] = np.argmin(part, axis=1)  # first minimum = lowest index
    return labels, bound < 2.0 ** 24


def cluster_means(X, labels, n_clusters, fallback):
    """Means of the clusters of a partition in float64 (empty: fallback row)."""
    from scipy.sparse import csr_matrix

    n = X.shape[0]
    onehot = csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(n_clusters, n))
    sums = onehot @ X.astype(np.float64)
    counts = np.bincount(labels, minlength=n_clusters).astype(np.float64)
    return np.where(counts[:, None] > 0, sums / np.maximum(counts, 1.0)[:, None],
                    fallback.astype(np.float64))


class SklearnLloyd:
    """scikit-learn's one-iteration routine with buffers allocated once (as KMeans does)."""

    def __init__(self, X, init, n_threads):
        from sklearn.cluster._k_means_lloyd import lloyd_iter_chunked_dense

        self._iter = lloyd_iter_chunked_dense
        self.X = X
        self.sample_weight = np.ones(X.shape[0], dtype=X.dtype)
        self.centers_old = np.array(init, dtype=X.dtype, order="C")
        self.centers_new = np.zeros_like(self.centers_old)
        self.weight_in_clusters = np.zeros(init.shape[0], dtype=X.dtype)
        self.labels = np.full(X.shape[0], -1, dtype=np.int32)
        self.center_shift = np.zeros(init.shape[0], dtype=X.dtype)
        self.n_threads = n_threads

    def iteration(self):
        self._iter(self.X, self.sample_weight, self.centers_old, self.centers_new,
                   self.weight_in_clusters, self.labels, self.center_shift, self.n_threads)

    def assignment(self):
        self._iter(self.X, self.sample_weight, self.centers_old, None, None, self.labels,
                   self.center_shift, self.n_threads, update_centers=False)


def run_config(X, dtype_name, init_idx, args, faiss, ref_labels=None):
    import vcgmm

    T = args.threads
    n, d = X.shape
    C = len(init_idx)
    init = np.ascontiguousarray(X[init_idx])
    init32 = init.astype(np.float32)
    # the machine is shared: keep the 1-minute load average next to each timing
    row = {"dtype": dtype_name, "C": C, "n": n, "d": d, "load_avg_1min": os.getloadavg()[0]}
    out = {}

    def run_vcgmm():
        out["vcgmm"] = vcgmm.lloyd(X, init, max_iter=1, n_threads=T)

    sk = SklearnLloyd(X, init, T)
    fns = {"vcgmm": run_vcgmm, "sklearn": sk.iteration}

    def make_faiss(verbose=False):
        return faiss.Kmeans(d, C, niter=1, nredo=1, seed=args.seed, verbose=verbose,
                            # >= n / C: faiss would otherwise train on a random
                            # subset of 256 C points
                            max_points_per_centroid=n,
                            min_points_per_centroid=1)

    if faiss is not None:
        def run_faiss():
            km = make_faiss()
            km.train(X, init_centroids=init32)
            out["faiss"] = km

        fns["faiss"] = run_faiss

    if args.assign:
        fns["vcgmm_assign"] = lambda: vcgmm.assign(X, init, n_threads=T)
        fns["sklearn_assign"] = sk.assignment
        if faiss is not None and X.dtype == np.float32:
            index = faiss.IndexFlatL2(d)
            index.add(init32)
            fns["faiss_assign"] = lambda: index.search(X, 1)

    if args.kmeans_fit:
        from sklearn.cluster import KMeans

        fns["sklearn_fit"] = lambda: KMeans(C, init=init, n_init=1, max_iter=1,
                                            algorithm="lloyd").fit(X)

    # Warm-up calls (untimed): the faiss one is verbose, its log proves that
    # all n points went into the iteration.
    faiss_log = None
    for name, fn in fns.items():
        if name == "faiss":
            with _harness.capture_fd_output() as captured:
                km = make_faiss(verbose=True)
                km.train(X, init_centroids=init32)
            faiss_log = captured[0]
        else:
            fn()

    with _harness.OtherCpu() as other:
        timings = _harness.timeit_interleaved(fns, repeats=args.repeats, warmup=0)
    row["other_cpu_cores"] = other.cores
    for name, t in timings.items():
        row[f"{name}_s"] = t["median"]
        row[f"{name}_min_s"] = t["min"]
        row[f"{name}_all_s"] = t["all"]

    # ---- correctness (on the outputs of the last timed calls)
    centers_v, info = out["vcgmm"]
    assert info["n_iter"] == 1, info
    row["vcgmm_n_relocated"] = info["n_relocated"]
    row["objective_init"] = info["objective"][0]
    labels_v = vcgmm.assign(X, init, n_threads=T)
    sk.iteration()  # leaves the labels and new centers of one iteration in sk
    labels_s = sk.labels
    disagree = np.flatnonzero(labels_v != labels_s)
    row["label_agreement"] = 1.0 - len(disagree) / n
    row["label_disagreements"] = int(len(disagree))
    if len(disagree):
        # a disagreement is harmless when both centers are (nearly) equally
        # close: report the largest exact gap between the two distances
        dv = exact_sq_dist(X[disagree], init, labels_v[disagree])
        ds = exact_sq_dist(X[disagree], init, labels_s[disagree])
        row["disagreement_max_gap"] = float(np.max(np.abs(dv - ds)))
        row["disagreement_max_rel_gap"] = float(np.max(np.abs(dv - ds) / np.maximum(dv, ds)))
    if ref_labels is not None:
        # wrong = not the exact nearest center (or a tie not broken to the lowest index)
        row["vcgmm_wrong_labels"] = int(np.sum(labels_v != ref_labels))
        row["sklearn_wrong_labels"] = int(np.sum(labels_s != ref_labels))
        # the update step alone: vcgmm's centers vs the means of the exact partition
        means = cluster_means(X, ref_labels, C, init)
        row["max_center_diff_exact"] = float(np.max(np.abs(centers_v - means)))
    row["sklearn_empty_clusters"] = int(np.sum(sk.weight_in_clusters == 0))
    diff = np.abs(centers_v.astype(np.float64) - sk.centers_new.astype(np.float64))
    row["max_center_diff_sklearn"] = float(diff.max())
    rtol, atol = (1e-4, 1e-3) if X.dtype == np.float32 else (1e-9, 1e-9)
    close = np.all(np.abs(centers_v - sk.centers_new) <= atol + rtol * np.abs(sk.centers_new),
                   axis=1)
    row["centers_close_sklearn"] = float(np.mean(close))

    if faiss is not None:
        km = out["faiss"]
        fobj = float(km.obj[0])
        row["faiss_objective_rel_diff"] = abs(fobj - info["objective"][0]) / info["objective"][0]
        fdiff = np.abs(km.centroids.astype(np.float64) - centers_v.astype(np.float64))
        row["max_center_diff_faiss"] = float(fdiff.max())
        fclose = np.all(np.abs(km.centroids - centers_v.astype(np.float32))
                        <= 1e-3 + 1e-4 * np.abs(centers_v), axis=1)
        row["centers_close_faiss"] = float(np.mean(fclose))
        row["faiss_log_sampling"] = "Sampling" in faiss_log
        row["faiss_log_points"] = f"{n} points" in faiss_log

    # ---- ratios (> 1 means vcgmm is faster)
    row["sklearn_over_vcgmm"] = row["sklearn_s"] / row["vcgmm_s"]
    if "faiss_s" in row:
        row["faiss_over_vcgmm"] = row["faiss_s"] / row["vcgmm_s"]
    row["vcgmm_gflops"] = 2.0 * n * C * d / row["vcgmm_s"] / 1e9
    row["target_sklearn"] = row["sklearn_over_vcgmm"] >= 1.0
    if "faiss_over_vcgmm" in row:
        row["target_faiss"] = row["faiss_over_vcgmm"] >= 1 / 1.5
    if args.assign:
        row["sklearn_assign_over_vcgmm"] = row["sklearn_assign_s"] / row["vcgmm_assign_s"]
        if "faiss_assign_s" in row:
            row["faiss_assign_over_vcgmm"] = row["faiss_assign_s"] / row["vcgmm_assign_s"]
    return row, faiss_log


def _yes_no(ok):
    return "yes" if ok else "**NO**"


def main(argv=None):
    parser = argparse.ArgumentParser(description="One Lloyd iteration: vcgmm vs scikit-learn "
                                     "vs faiss (see the module docstring).")
    parser.add_argument("--dataset", default="patches-sklearn")
    parser.add_argument("--clusters", type=int, nargs="+", default=[256, 1000, 4000])
    parser.add_argument("--dtypes", nargs="+", default=["float64", "float32"],
                        choices=["float64", "float32"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-faiss", action="store_true", help="leave faiss out")
    parser.add_argument("--assign", action="store_true",
                        help="also time the assignment step alone")
    parser.add_argument("--kmeans-fit", action="store_true",
                        help="also time sklearn KMeans(max_iter=1).fit (not one iteration)")
    parser.add_argument("--name", default=NAME,
                        help="results file stem in bench/results/lloyd_iteration/")
    args = parser.parse_args(argv)

    info = _harness.machine_info()
    faiss = None
    if not args.no_faiss:
        try:
            import faiss
        except ImportError:
            print("faiss not installed: its columns are left out (pip install faiss-cpu)",
                  file=sys.stderr)
    import sklearn

    X64 = load(args.dataset, np.float64)
    init_sets = {C: initial_center_indices(X64, C, args.seed) for C in args.clusters}
    # exact labels once per C (the same for both dtypes), before the thread
    # limits so numpy's BLAS uses every core
    print("exact reference labels ...", file=sys.stderr, flush=True)
    refs = {C: exact_labels(X64, init_sets[C]) for C in args.clusters}
    f32_exact = all(e for _, e in refs.values())
    rows, logs = [], {}
    with _harness.thread_limits(args.threads) as pools:
        from threadpoolctl import threadpool_limits

        # scikit-learn's KMeans runs its Lloyd routine with BLAS limited to
        # one thread (the GEMMs are called from inside its OpenMP loop); the
        # scipy BLAS it uses is "libscipy_openblas", faiss' is "libopenblas"
        # and keeps T threads.
        with threadpool_limits(limits={"libscipy_openblas": 1}):
            for dtype_name in args.dtypes:
                X = X64 if dtype_name == "float64" else X64.astype(np.float32)
                for C in args.clusters:
                    print(f"[{dtype_name} C={C}] timing ...", file=sys.stderr, flush=True)
                    ref = refs[C][0] if dtype_name == "float64" or f32_exact else None
                    row, log = run_config(X, dtype_name, init_sets[C], args, faiss, ref)
                    logs[f"{dtype_name}-{C}"] = log
                    rows.append(row)
                del X

    faiss_label = {"float64": "f64->f32", "float32": "f32"}
    for r in rows:
        r["faiss_input"] = faiss_label[r["dtype"]] if faiss is not None else None
    columns = [
        ("dtype", "dtype", ""),
        ("C", "C", "d"),
        ("vcgmm_s", "vcgmm s", ".3f"),
        ("sklearn_s", "sklearn s", ".3f"),
        ("faiss_s", "faiss s", ".3f"),
        ("faiss_input", "faiss input", ""),
        ("sklearn_over_vcgmm", "sklearn/vcgmm", ".2f"),
        ("faiss_over_vcgmm", "faiss/vcgmm", ".2f"),
        ("target_sklearn", "<= sklearn", _yes_no),
        ("target_faiss", "<= 1.5x faiss", _yes_no),
        ("vcgmm_gflops", "vcgmm GFLOP/s", ".1f"),
        ("label_agreement", "labels = sklearn", lambda v: f"{100 * v:.4f}%"),
        ("vcgmm_wrong_labels", "wrong labels vcgmm", "d"),
        ("sklearn_wrong_labels", "wrong labels sklearn", "d"),
        ("max_center_diff_exact", "max abs dcenter exact", ".2e"),
        ("max_center_diff_sklearn", "max abs dcenter sklearn", ".2e"),
        ("max_center_diff_faiss", "max abs dcenter faiss", ".2e"),
        ("faiss_objective_rel_diff", "faiss obj rel diff", ".1e"),
        ("other_cpu_cores", "other procs' CPU (cores)", ".2f"),
    ]
    if args.assign:
        columns += [
            ("vcgmm_assign_s", "assign: vcgmm s", ".3f"),
            ("sklearn_assign_s", "assign: sklearn s", ".3f"),
            ("faiss_assign_s", "assign: faiss s", ".3f"),
        ]
    if args.kmeans_fit:
        columns += [("sklearn_fit_s", "sklearn KMeans.fit(max_iter=1) s", ".3f")]

    n, d = X64.shape
    notes = [
        f"Data: {args.dataset}, {n:,} x {d}. Initial centers: C distinct rows "
        f"(seed {args.seed}), identical for every library and both dtypes.",
        f"Times: median of {args.repeats} timed calls after one untimed warm-up, "
        f"libraries taking turns; {args.threads} threads for everyone.",
        "vcgmm: `vcgmm.lloyd(X, centers, max_iter=1)` (whole public call). "
        f"sklearn: `lloyd_iter_chunked_dense` (scikit-learn {sklearn.__version__}, "
        "private API, exactly one assignment + update; buffers preallocated; BLAS 1 thread "
        "as inside KMeans). faiss: `faiss.Kmeans(d, C, niter=1, max_points_per_centroid=n)"
        ".train(X, init_centroids=...)`, all points (faiss input f64->f32: the float64 "
        "array is handed to faiss, which converts it inside train; timed).",
        "Ratios are other/vcgmm (> 1: vcgmm faster). Targets: vcgmm no slower than "
        "scikit-learn; vcgmm within 1.5x of faiss (faiss/vcgmm >= 0.67).",
        "GFLOP/s counts only the 2 n C d flops of the distance product. \"other procs' "
        "CPU\": cores kept busy by other processes during the timed calls (from /proc/stat "
        "minus our own CPU time); well above 0 means the row was measured on a shared, "
        "busy machine.",
        "Correctness: labels of the iteration (vcgmm.assign vs sklearn) and updated centers "
        "(vcgmm vs sklearn, vcgmm vs faiss); faiss obj rel diff compares faiss' objective of "
        "the iteration with vcgmm's exact one: faiss' search distances are exact on these "
        "integer data, the ~1e-3 comes from how faiss sums its objective; a subsample "
        "would be off by ~50% or more.",
        "Wrong labels: labels that are not the exact nearest center (ties to the lowest "
        "index) of an exact float64 reference, computed when the data are integers with "
        "2 d max|x|^2 < 2^53 (and used for float32 only when < 2^24): then the distance "
        "expansion is exact and both libraries must get 0 (the 0..255 patches qualify "
        "for both dtypes). max abs dcenter exact: vcgmm's new centers vs the means of the exact "
        "partition.",
    ]
    if args.kmeans_fit:
        notes.append("`KMeans(max_iter=1).fit` is NOT one iteration: it adds validation, a "
                     "second assignment pass and the inertia; shown for reference only.")
    for r in rows:
        if faiss is not None and (r.get("faiss_log_sampling") or not r.get("faiss_log_points")):
            notes.append(f"WARNING {r['dtype']} C={r['C']}: the faiss log does not show a "
                         "run on all points.")
        if r["label_disagreements"]:
            notes.append(f"{r['dtype']} C={r['C']}: {r['label_disagreements']} labels differ "
                         f"from sklearn; largest exact gap between the squared distances to "
                         f"the two chosen centers {r['disagreement_max_gap']:.3g} (relative "
                         f"{r['disagreement_max_rel_gap']:.2g}; 0 = exact ties).")
        for lib in ("vcgmm", "sklearn"):
            if r.get(f"{lib}_wrong_labels"):
                notes.append(f"**WARNING {r['dtype']} C={r['C']}: {lib} returned "
                             f"{r[f'{lib}_wrong_labels']} labels that are not the exact "
                             "nearest center (lowest index on ties).**")
    params = dict(vars(args))
    params["threadpool_info"] = pools
    _harness.write_results(NAME if args.name is None else args.name, columns, rows,
                           title="One Lloyd iteration: vcgmm vs scikit-learn vs faiss",
                           params=params, notes=notes, info=info,
                           extra={"faiss_verbose_logs": logs})
    return 0


if __name__ == "__main__":
    sys.exit(main())
