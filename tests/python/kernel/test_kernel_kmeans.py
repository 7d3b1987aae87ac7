"""Kernel k-means (paper 003): the truncated mini-batch algorithm, its
untruncated and full-batch baselines, kernels, seeding and graph kernels,
against brute-force numpy references on small data (``_kernel_reference.py``:
dense coefficient vectors over the full kernel matrix, the core's random
streams ported, so a reference run sees the same batches)."""

from __future__ import annotations

import gc
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans as SkKMeans
from sklearn.datasets import make_circles, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.neighbors import NearestNeighbors

import _kernel_reference as ref
import vcgmm
from vcgmm import cli
from vcgmm._estimator import cost
from vcgmm._base.loader import core
from vcgmm._base.run import seed_from

SEED = 12345


def small(n=60, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def core_params(**kw):
    p = core.KernelKMeansParams()
    p.run.seed = SEED
    p.run.n_threads = 1
    for name, value in kw.items():
        if name in ("gamma", "degree", "coef0", "type"):
            setattr(p.kernel, name, value)
        else:
            setattr(p, name, value)
    return p


def dense(r, n):
    return ref.dense_coef((r.support, r.indptr, r.index, r.coef), n)


def sk_kernel(X, kernel, gamma=None, degree=3, coef0=1.0):
    kw = {} if kernel == "linear" else {"gamma": gamma}
    if kernel == "poly":
        kw.update(degree=degree, coef0=coef0)
    return pairwise_kernels(X, metric="polynomial" if kernel == "poly" else kernel, **kw)


# ----------------------------------------------------------------------------
# The algorithms against the numpy reference (same draws)
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("rate", ["beta", "sklearn"])
@pytest.mark.parametrize("algorithm,tau", [("truncated", 20), ("truncated", 45),
                                           ("minibatch", None)])
def test_minibatch_algorithms_match_the_reference(algorithm, tau, rate):
    X = small()
    K = sk_kernel(X, "rbf", gamma=0.3)
    init = np.array([0, 1, 2], dtype=np.int64)
    p = core_params(n_clusters=3, gamma=0.3, batch_size=16, tau=tau or 200, max_iter=15,
                    algorithm=algorithm, learning_rate=rate)
    r, labels = core.fit_kernel_kmeans(X, None, p, init, True)
    want = ref.minibatch(K, init, SEED, 16, 15, tau=tau, rate=rate)
    np.testing.assert_array_equal(labels, want["labels"])
    np.testing.assert_allclose(dense(r, 60), want["coef"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(r.sqnorm, want["sqnorm"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.objective, want["objective"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.inertia, want["inertia"], rtol=1e-12)
    assert r.n_iter == 15 and not r.converged


@pytest.mark.parametrize("rate", ["beta", "sklearn"])
def test_eq1_windows_match_the_reference(rate):
    # renormalize=False: the window keeps the weights of the paper's Eq. (1);
    # the dropped weight is lost, so the coefficients sum to less than 1.
    X = small()
    K = sk_kernel(X, "rbf", gamma=0.3)
    init = np.array([0, 1, 2], dtype=np.int64)
    p = core_params(n_clusters=3, gamma=0.3, batch_size=16, tau=20, max_iter=15,
                    algorithm="truncated", learning_rate=rate)
    p.renormalize = False
    r, labels = core.fit_kernel_kmeans(X, None, p, init, True)
    want = ref.minibatch(K, init, SEED, 16, 15, tau=20, rate=rate, renormalize=False)
    np.testing.assert_array_equal(labels, want["labels"])
    np.testing.assert_allclose(dense(r, 60), want["coef"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(r.sqnorm, want["sqnorm"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.objective, want["objective"], rtol=1e-12, atol=1e-14)
    assert dense(r, 60).sum(1).max() < 1 - 1e-3
    renormalised = ref.minibatch(K, init, SEED, 16, 15, tau=20, rate=rate)
    assert np.abs(renormalised["coef"] - want["coef"]).max() > 1e-3


def test_truncation_happens_and_keeps_about_tau_points():
    # With tau small the windows must forget: the truncated centers differ
    # from the untruncated ones and hold at most tau + b points each.
    X = small(200, seed=1)
    init = np.array([0, 1, 2], dtype=np.int64)
    kw = dict(n_clusters=3, gamma=0.3, batch_size=16, max_iter=30)
    rt, _ = core.fit_kernel_kmeans(X, None, core_params(tau=20, algorithm="truncated", **kw), init, True)
    ru, _ = core.fit_kernel_kmeans(X, None, core_params(algorithm="minibatch", **kw), init, True)
    per_center = np.diff(rt.indptr)
    assert per_center.max() <= 20 + 16
    assert rt.support.size < ru.support.size
    assert np.abs(dense(rt, 200) - dense(ru, 200)).max() > 1e-3


@pytest.mark.parametrize("rate", ["beta", "sklearn"])
def test_truncated_with_tau_beyond_all_points_is_untruncated(rate):
    X = small(80, d=4, seed=2)
    kw = dict(n_clusters=4, gamma=0.2, batch_size=24, max_iter=25, learning_rate=rate)
    init = np.array([3, 10, 20, 40], dtype=np.int64)
    rt, lt = core.fit_kernel_kmeans(X, None, core_params(algorithm="truncated", tau=25 * 24, **kw),
                                    init, True)
    ru, lu = core.fit_kernel_kmeans(X, None, core_params(algorithm="minibatch", **kw), init, True)
    np.testing.assert_array_equal(lt, lu)
    np.testing.assert_allclose(dense(rt, 80), dense(ru, 80), rtol=0, atol=1e-13)
    np.testing.assert_allclose(rt.sqnorm, ru.sqnorm, rtol=1e-12)
    np.testing.assert_allclose(rt.objective, ru.objective, rtol=1e-12)


@pytest.mark.parametrize("rate", ["beta", "sklearn"])
@pytest.mark.parametrize("tau", [1, 7, 30, 100])
def test_centers_stay_convex_and_incremental_norms_match_the_window(tau, rate):
    # After every iteration (fits of 1..T iterations see the same batches):
    # coefficients > 0 summing to 1, and <C_j, C_j> kept incrementally equal to
    # the quadratic form of the window's coefficients.
    X = small(150, d=5, seed=3)
    K = sk_kernel(X, "rbf", gamma=0.1)
    init = np.array([5, 50, 100], dtype=np.int64)
    for T in range(1, 21):
        p = core_params(n_clusters=3, gamma=0.1, batch_size=32, tau=tau, max_iter=T,
                        learning_rate=rate)
        r, _ = core.fit_kernel_kmeans(X, None, p, init, False)
        assert np.all(r.coef > 0)
        sums = np.add.reduceat(r.coef, r.indptr[:-1])
        np.testing.assert_allclose(sums, 1.0, rtol=0, atol=1e-13)
        c = dense(r, 150)
        np.testing.assert_allclose(r.sqnorm, np.einsum("jn,nm,jm->j", c, K, c), rtol=1e-11)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly", "linear"])
def test_full_batch_matches_the_reference_and_precomputed(kernel):
    X = small(70, d=3, seed=4)
    gamma = {"rbf": 0.5, "laplacian": 0.4, "poly": 0.3, "linear": None}[kernel]
    K = sk_kernel(X, kernel, gamma=gamma, degree=2, coef0=1.5)
    init = np.array([1, 2, 3, 4], dtype=np.int64)
    want = ref.full(K, init, 50)
    est = dict(algorithm="full", init=init, max_iter=50, degree=2, coef0=1.5, n_threads=1)
    if gamma is not None:
        est["gamma"] = gamma
    km = vcgmm.KernelKMeans(4, kernel=kernel, **est).fit(X)
    np.testing.assert_array_equal(km.labels_, want["labels"])
    np.testing.assert_allclose(km.objective_, want["objective"], rtol=1e-9)
    np.testing.assert_allclose(dense_model(km, 70), want["coef"], rtol=1e-12)
    assert km.converged_
    # The same fit on the kernel matrix.
    est.pop("gamma", None)
    kp = vcgmm.KernelKMeans(4, kernel="precomputed", **est).fit(K)
    np.testing.assert_array_equal(kp.labels_, want["labels"])
    np.testing.assert_allclose(kp.inertia_, km.inertia_, rtol=1e-9)


def dense_model(km, n):
    return ref.dense_coef((km.support_, km.center_indptr_, km.center_indices_,
                           km.center_coef_), n)


def test_full_batch_with_linear_kernel_is_lloyd(make_blobs):
    X, _, _ = make_blobs(600, 6, 4, spread=6.0, std=1.5, seed=5)
    init = np.array([0, 7, 50, 99, 300, 451], dtype=np.int64)
    km = vcgmm.KMeans(6, init=X[init], tol=0.0, max_iter=300, n_threads=1).fit(X)
    kk = vcgmm.KernelKMeans(6, kernel="linear", algorithm="full", init=init, max_iter=300,
                            n_threads=1).fit(X)
    assert kk.converged_ and km.converged_
    np.testing.assert_array_equal(kk.labels_, km.labels_)
    np.testing.assert_allclose(kk.inertia_, km.inertia_, rtol=1e-9)
    # Its centers are the k-means centers: sum_p a_jp x_p.
    centers = dense_model(kk, 600) @ X
    np.testing.assert_allclose(centers, km.cluster_centers_, rtol=1e-10, atol=1e-12)


def test_linear_kernel_minibatch_is_minibatch_kmeans():
    # With the linear kernel the feature space is the input space: the
    # centers sum_p a_jp x_p must follow ordinary mini-batch k-means
    # (Sculley's update with either rate) on the same batches, computed here
    # with explicit center vectors.
    X = small(120, d=3, seed=6) * [1.0, 3.0, 0.5]
    b, T, init = 20, 25, np.array([0, 1, 2, 3], dtype=np.int64)
    for rate in ("beta", "sklearn"):
        C = X[init].copy()
        counts = np.zeros(4)
        for it in range(1, T + 1):
            B = ref.batch(SEED, it, 120, b)
            lab = np.argmin(((X[B][:, None, :] - C[None]) ** 2).sum(-1), axis=1)
            for j in range(4):
                pts = X[B][lab == j]
                if len(pts) == 0:
                    continue
                counts[j] += len(pts)
                a = np.sqrt(len(pts) / b) if rate == "beta" else len(pts) / counts[j]
                C[j] = (1 - a) * C[j] + a * pts.mean(0)
        p = core_params(n_clusters=4, type="linear", batch_size=b, max_iter=T,
                        algorithm="minibatch", learning_rate=rate)
        r, labels = core.fit_kernel_kmeans(X, None, p, init, True)
        np.testing.assert_allclose(dense(r, 120) @ X, C, rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(labels, np.argmin(((X[:, None] - C[None]) ** 2).sum(-1), 1))


# ----------------------------------------------------------------------------
# Kernels, gamma, seeding, graph kernels
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly", "linear"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_predict_distances_match_sklearn_kernels(kernel, dtype):
    X = small(90, d=7, seed=7).astype(dtype)
    km = vcgmm.KernelKMeans(3, kernel=kernel, batch_size=30, tau=40, max_iter=10,
                            random_state=0, n_threads=1).fit(X)
    Xn = small(25, d=7, seed=8).astype(dtype)
    labels, dist, _ = km._predict_core(Xn, True)
    gamma = km.gamma_
    X64 = np.asarray(km.support_vectors_, np.float64)
    Kns = sk_kernel(np.vstack([Xn.astype(np.float64), X64]), kernel, gamma=gamma)
    Kxs = Kns[:25, 25:]
    kxx = np.diag(Kns)[:25]
    coef = np.zeros((3, km.support_.size))
    for j in range(3):
        t = slice(km.center_indptr_[j], km.center_indptr_[j + 1])
        coef[j, km.center_indices_[t]] = km.center_coef_[t]
    want = kxx[:, None] - 2 * Kxs @ coef.T + km.center_sqnorms_[None, :]
    tol = 1e-9 if dtype == np.float64 else 2e-4
    np.testing.assert_allclose(dist, np.maximum(want, 0), rtol=tol, atol=tol * np.abs(want).max())
    np.testing.assert_array_equal(labels, km.predict(Xn))
    np.testing.assert_array_equal(km.predict(X), km.labels_)


def test_gamma_auto_is_the_median_heuristic():
    X = small(300, d=4, seed=9)
    for kernel, metric in (("rbf", "sqeuclidean"), ("laplacian", "cityblock")):
        km = vcgmm.KernelKMeans(2, kernel=kernel, batch_size=64, max_iter=2,
                                random_state=0).fit(X)
        from scipy.spatial.distance import pdist
        assert km.gamma_ == pytest.approx(1.0 / np.median(pdist(X, metric)), rel=1e-12)
        assert km.n_kernel_evals_["seeding"] == 300 * 299 // 2 + 300  # pairs + k-means++
    # More than 1000 points: a sample of 1000 of them, seeded.
    Xl = small(3000, d=4, seed=10)
    g = [vcgmm.KernelKMeans(2, batch_size=64, max_iter=1, random_state=s).fit(Xl).gamma_
         for s in (0, 0, 1)]
    assert g[0] == g[1] and g[0] != g[2]
    from scipy.spatial.distance import pdist
    assert g[0] == pytest.approx(1.0 / np.median(pdist(Xl, "sqeuclidean")), rel=0.1)
    assert vcgmm.KernelKMeans(2, kernel="poly", batch_size=64, max_iter=1).fit(X).gamma_ == 0.25


def test_kappa_too_small_for_gamma_is_named():
    X = np.random.default_rng(0).normal(size=(50, 2))
    with pytest.raises(ValueError, match=r"kappa=5e-324 is too small"):
        vcgmm.KernelKMeans(2, kappa=5e-324, batch_size=10).fit(X)


def test_kappa_is_one_over_gamma():
    X = small(100, seed=11)
    a = vcgmm.KernelKMeans(3, kappa=4.0, batch_size=32, random_state=0).fit(X)
    b = vcgmm.KernelKMeans(3, gamma=0.25, batch_size=32, random_state=0).fit(X)
    assert a.gamma_ == 0.25
    np.testing.assert_array_equal(a.center_coef_, b.center_coef_)


def _pair_counts(X, gamma, draws, w=None):
    kp = core.KernelParams()
    kp.type = "rbf"
    kp.gamma = gamma
    n = X.shape[0]
    counts = np.zeros((n, n))
    for s in range(draws):
        run = core.RunOptions()
        run.seed = s
        run.n_threads = 1
        idx, stats = core.kernel_kmeans_plusplus(X, w, kp, 2, run)
        counts[idx[0], idx[1]] += 1
        assert stats.n_distance_evals["seeding"] == n
    return counts


def _d2_joint(D):
    n = D.shape[0]
    cond = D / D.sum(1, keepdims=True)
    return cond / n


def test_kernel_kmeans_plusplus_matches_exact_distribution(small_weighted, chisquare_exact,
                                                           alpha, power_alpha):
    X, _ = small_weighted
    gamma = 0.5
    K = sk_kernel(X, "rbf", gamma=gamma)
    D = np.diag(K)[:, None] - 2 * K + np.diag(K)[None, :]  # feature-space squared distances
    counts = _pair_counts(X, gamma, 20000)
    assert np.all(np.diag(counts) == 0)
    assert chisquare_exact(counts, _d2_joint(D)) > alpha
    # Power: the same draws reject D^2 in input space (what a k-means++ on X draws).
    E = ((X[:, None] - X[None]) ** 2).sum(-1)
    assert chisquare_exact(counts, _d2_joint(E), null=False) < power_alpha


def test_seeding_starts_every_center_at_a_distinct_point_of_the_data(make_blobs):
    X, _, _ = make_blobs(500, 12, 3, seed=12)
    km = vcgmm.KernelKMeans(12, gamma=0.05, batch_size=100, max_iter=1, random_state=0).fit(X)
    assert np.unique(km.init_indices_).size == 12


def _knn_adjacency(X, k):
    nn = NearestNeighbors(n_neighbors=k + 1).fit(X)
    _, idx = nn.kneighbors(X)
    n = X.shape[0]
    A = np.zeros((n, n))
    for i in range(n):
        others = [j for j in idx[i] if j != i][:k]
        A[i, others] = 1.0
    return np.maximum(A, A.T)


# 40 and 100 neighbours take the many-neighbours path of the scan's candidate
# lists (the k-th nearest found once per k candidates; 40: lists compacted
# while scanning, 100: only at the end).
@pytest.mark.parametrize("n_neighbors", [6, 40, 100])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_graph_kernels_match_a_dense_reference(dtype, n_neighbors):
    X = small(120, d=2, seed=13).astype(dtype)
    A = _knn_adjacency(X.astype(np.float64), n_neighbors)
    deg = A.sum(1)
    run = core.RunOptions()
    g = core.GraphKernelParams()
    g.n_neighbors = n_neighbors
    g.type = "knn"
    K, costs = core.graph_kernel(X, g, run)
    assert K.dtype == dtype and costs.n_distance_evals["seeding"] == 120 * 120
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_allclose(K, A / np.outer(deg, deg), rtol=1e-6)
    if n_neighbors != 6:
        return
    g.type = "heat"
    g.t = 3.0
    K, _ = core.graph_kernel(X, g, run)
    np.testing.assert_array_equal(K, K.T)
    L = np.eye(120) - A / np.sqrt(np.outer(deg, deg))
    lam, V = np.linalg.eigh(L)
    want = (V * np.exp(-3.0 * lam)) @ V.T
    np.testing.assert_allclose(K, want, rtol=0, atol=1e-5 if dtype == np.float32 else 1e-12)
    assert np.all(np.linalg.eigvalsh(want) > 0)


@pytest.mark.parametrize("t", [30.0, 300.0, 1000.0, 1e5])
def test_heat_kernel_from_the_slowest_modes_matches_a_dense_reference(t):
    # From t = 30 on, the kernel keeps only the modes weighted >= 1e-12 (found
    # by filtered subspace iteration); two rings make the top eigenvalue 1
    # double (one per component), which a block method must find twice.
    X, _ = make_circles(400, factor=0.4, noise=0.05, random_state=0)
    A = _knn_adjacency(X, 10)
    deg = A.sum(1)
    L = np.eye(400) - A / np.sqrt(np.outer(deg, deg))
    lam, V = np.linalg.eigh(L)
    assert np.sum(lam < 1e-9) == 2  # the premise: two components
    want = (V * np.exp(-t * lam)) @ V.T
    g = core.GraphKernelParams()
    g.n_neighbors, g.type, g.t = 10, "heat", t
    K, _ = core.graph_kernel(X, g, core.RunOptions())
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_allclose(K, want, rtol=0, atol=1e-10 * np.abs(want).max())


def _modes_reference(X, n_neighbors, m):
    """Z Z^T of the knn kernel's m slowest modes, from a dense eigendecomposition."""
    A = _knn_adjacency(X, n_neighbors)
    deg = A.sum(1)
    lam, V = np.linalg.eigh(A / np.sqrt(np.outer(deg, deg)))
    lam, V = lam[::-1][:m], V[:, ::-1][:, :m]
    Z = V * np.sqrt(np.maximum(lam, 0.0)) / np.sqrt(deg)[:, None]
    return Z @ Z.T, lam, deg, A


@pytest.mark.parametrize("n, m", [(400, 2), (400, 5), (60, 3)])
def test_knn_kernel_modes_match_a_dense_reference(n, m):
    # Filtered subspace iteration (n = 400: two rings, the top eigenvalue 1 is
    # double, the next ones lie within 1e-3 of it); n = 60 with every mode:
    # the dense path.
    X, _ = make_circles(n, factor=0.4, noise=0.05, random_state=0)
    want, lam, deg, A = _modes_reference(X, 8, m)
    assert n == 60 or np.sum(lam > 1 - 1e-9) == 2  # the premise: two components
    g = core.GraphKernelParams()
    g.n_neighbors = 8
    run = core.RunOptions()
    Z, costs = core.graph_modes(X, g, m, run)
    assert Z.shape == (n, m) and Z.dtype == np.float64
    assert costs.n_distance_evals["seeding"] == n * n
    np.testing.assert_allclose(Z @ Z.T, want, rtol=0, atol=1e-9 * np.abs(want).max())
    # With every mode, Z Z^T is the whole knn kernel D^-1 A D^-1 (here PSD
    # part only: the negative eigenvalues are clamped).
    if n == 60:
        Zall, _ = core.graph_modes(X, g, n, run)
        full = A / np.outer(deg, deg)
        lam_all = np.linalg.eigvalsh(A / np.sqrt(np.outer(deg, deg)))
        if lam_all.min() >= 0:
            np.testing.assert_allclose(Zall @ Zall.T, full, atol=1e-12)
        # float32 input gives float32 features of the same kernel.
        Z32, _ = core.graph_modes(X.astype(np.float32), g, m, run)
        assert Z32.dtype == np.float32
        np.testing.assert_allclose(Z32 @ Z32.T, want, atol=1e-5 * np.abs(want).max())
    run.n_threads = 3
    Z3, _ = core.graph_modes(X, g, m, run)
    np.testing.assert_array_equal(Z, Z3)


@pytest.mark.parametrize("algorithm", ["truncated", "minibatch", "full"])
def test_knn_modes_separate_the_rings_the_full_knn_kernel_cannot(algorithm):
    # The paper's k-nn kernel is zero between non-neighbours: from point
    # seeds kernel k-means stays near them (ARI ~ 0 on two rings). Its two
    # slowest modes (the normalized-cut relaxation) separate the rings with
    # every algorithm, as spectral clustering does.
    X, y = make_circles(3000, factor=0.4, noise=0.05, random_state=0)
    kw = dict(algorithm=algorithm, batch_size=256, tau=50, max_iter=50, random_state=0)
    paper = vcgmm.KernelKMeans(2, kernel="knn", **kw).fit(X)
    modes = vcgmm.KernelKMeans(2, kernel="knn", n_modes=2, **kw).fit(X)
    assert adjusted_rand_score(y, paper.labels_) < 0.1
    assert adjusted_rand_score(y, modes.labels_) == 1.0
    assert modes.support_vectors_ is None and modes.n_kernel_evals_["graph"] == 3000 ** 2
    with pytest.raises(ValueError, match="training points only"):
        modes.predict(X)
    # The same clustering as kernel k-means with the linear kernel on the modes.
    g = core.GraphKernelParams()
    Z, _ = core.graph_modes(X, g, 2, core.RunOptions())
    lin = vcgmm.KernelKMeans(2, kernel="linear", **kw).fit(Z)
    np.testing.assert_array_equal(lin.labels_, modes.labels_)


def test_knn_modes_argument_checks():
    X, _ = make_circles(50, factor=0.4, noise=0.05, random_state=0)
    with pytest.raises(ValueError, match="n_modes=51 must be <= n_samples=50"):
        vcgmm.KernelKMeans(2, kernel="knn", n_modes=51).fit(X)
    with pytest.raises(ValueError, match="n_modes"):
        vcgmm.KernelKMeans(2, kernel="knn", n_modes=0).fit(X)
    with pytest.raises(TypeError, match="n_modes"):
        vcgmm.KernelKMeans(2, kernel="knn", n_modes=2.5).fit(X)
    g = core.GraphKernelParams()
    with pytest.raises(ValueError, match="n_modes"):
        core.graph_modes(X, g, 0, core.RunOptions())
    # Other kernels ignore it (as rbf ignores degree).
    a = vcgmm.KernelKMeans(2, gamma=1.0, random_state=0, n_modes=3, max_iter=5).fit(X)
    b = vcgmm.KernelKMeans(2, gamma=1.0, random_state=0, max_iter=5).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_truncation_with_the_sklearn_rate_warns():
    # The sklearn rate leaves a window of recent batches almost no weight; the
    # renormalised truncated center then lags (the simulation: newest
    # segment weight 0.013 vs 0.23 with beta). Other combinations stay silent.
    X, _ = make_moons(300, noise=0.05, random_state=0)
    common = dict(max_iter=5, batch_size=64, random_state=0)
    with pytest.warns(UserWarning, match="learning_rate='beta'"):
        vcgmm.KernelKMeans(2, learning_rate="sklearn", **common).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vcgmm.KernelKMeans(2, learning_rate="sklearn", algorithm="minibatch", **common).fit(X)
        vcgmm.KernelKMeans(2, **common).fit(X)


def test_knn_kernel_objective_is_not_clamped():
    # D^-1 A D^-1 has a zero diagonal and is not positive semidefinite: the
    # distance formula K(x,x) - 2 <phi(x), C_j> + <C_j, C_j> is mostly
    # negative. inertia_ is that formula summed (the kernel k-means
    # objective), not a sum of terms clamped at 0 (which read 0 and left tol
    # nothing to act on).
    Xm, _ = make_moons(400, noise=0.05, random_state=0)
    A = _knn_adjacency(Xm, 10)
    deg = A.sum(1)
    K = A / np.outer(deg, deg)
    assert np.linalg.eigvalsh(K).min() < -1e-3  # the premise: not PSD
    km = vcgmm.KernelKMeans(2, kernel="knn", n_neighbors=10, algorithm="full",
                            random_state=0).fit(Xm)
    assert km.converged_
    # Converged full batch: the centers are the means of the final clusters.
    want = 0.0
    for j in range(2):
        m = km.labels_ == j
        want += np.diag(K)[m].sum() - K[np.ix_(m, m)].sum() / m.sum()
    assert want < 0
    np.testing.assert_allclose(km.inertia_, want, rtol=1e-9)
    np.testing.assert_allclose(km.objective_[-1], want / 400, rtol=1e-9)
    # The objective falls over the full-batch iterations and tol can act.
    assert km.objective_[0] > km.objective_[-1]
    fast = vcgmm.KernelKMeans(2, kernel="knn", n_neighbors=10, batch_size=100, tau=50,
                              tol=1e-6, max_iter=200, random_state=0).fit(Xm)
    assert fast.converged_ and fast.n_iter_ < 200 and fast.inertia_ < 0


# ----------------------------------------------------------------------------
# Clustering quality where k-means fails
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def moons_heat():
    """Two moons and their heat kernel (built once)."""
    Xm, ym = make_moons(800, noise=0.05, random_state=0)
    g = core.GraphKernelParams()
    g.type, g.n_neighbors, g.t = "heat", 10, 2000.0
    K, _ = core.graph_kernel(Xm, g, core.RunOptions())
    return Xm, ym, K


@pytest.mark.parametrize("algorithm", ["truncated", "minibatch", "full"])
def test_rings_and_moons_are_found_where_kmeans_fails(algorithm, moons_heat):
    X, y = make_circles(1000, factor=0.3, noise=0.05, random_state=0)
    Xm, ym, K = moons_heat
    kw = dict(algorithm=algorithm, batch_size=256, tau=100, max_iter=60)
    # The rings: some seedings end in a local minimum (two half-ring
    # clusters); the fit of lowest inertia among a few separates the rings.
    fits = [vcgmm.KernelKMeans(2, gamma=10.0, random_state=seed, **kw).fit(X)
            for seed in range(5)]
    best = min(fits, key=lambda km: km.inertia_)
    assert adjusted_rand_score(y, best.labels_) > 0.9
    for seed in range(3):
        mm = vcgmm.KernelKMeans(2, kernel="precomputed", random_state=seed, **kw).fit(K)
        assert adjusted_rand_score(ym, mm.labels_) > 0.9
    # kernel="heat" builds that kernel from the points.
    heat = vcgmm.KernelKMeans(2, kernel="heat", n_neighbors=10, t=2000.0, random_state=2,
                              **kw).fit(Xm)
    np.testing.assert_array_equal(heat.labels_, mm.labels_)
    assert adjusted_rand_score(y, SkKMeans(2, n_init=3, random_state=0).fit_predict(X)) < 0.1
    assert adjusted_rand_score(ym, SkKMeans(2, n_init=3, random_state=0).fit_predict(Xm)) < 0.6


# ----------------------------------------------------------------------------
# Costs, stopping, determinism, model
# ----------------------------------------------------------------------------


def test_kernel_evaluation_counts():
    X = small(300, d=3, seed=14)
    k, b = 3, 40
    full = vcgmm.KernelKMeans(k, gamma=0.3, algorithm="full", random_state=0).fit(X)
    assert full.n_kernel_evals_["iterations"] == 300 * k + full.n_iter_ * 300 * 300
    assert full.n_kernel_evals_["evaluation"] == 0
    mb = vcgmm.KernelKMeans(k, gamma=0.3, algorithm="minibatch", batch_size=b, max_iter=10,
                            random_state=0).fit(X)
    seed = seed_from(0)
    distinct = sum(np.unique(ref.batch(seed, it, 300, b)).size for it in range(1, 11))
    assert mb.n_kernel_evals_["iterations"] == 300 * k + 300 * distinct
    tr = vcgmm.KernelKMeans(k, gamma=0.3, batch_size=b, tau=30, max_iter=10,
                            random_state=0).fit(X)
    assert tr.n_kernel_evals_["evaluation"] == 300 * tr.center_coef_.size  # one column per term
    # Per iteration at most b (k (tau + b)) for the assignment plus, per
    # center, b_j^2 + (tau + b_j + b_j)(b_j) <= 3 (tau + b) b overall.
    bound = 10 * (b * k * (30 + b) + 3 * (30 + b) * b)
    assert 10 * b * k <= tr.n_kernel_evals_["iterations"] <= bound


def test_truncated_iteration_cost_does_not_grow_with_n(make_blobs):
    evals = []
    for n in (2000, 40000):
        X, _, _ = make_blobs(n, 5, 4, spread=5.0, seed=15)
        km = vcgmm.KernelKMeans(5, gamma=0.05, batch_size=128, tau=100, max_iter=20,
                                random_state=0).fit(X)
        evals.append(km.n_kernel_evals_["iterations"])
    assert evals[1] < 1.3 * evals[0]
    assert evals[1] < 20 * 128 * 40000 / 50  # far below the untruncated n b per iteration


def test_early_stopping_on_the_batch_objective():
    # With the beta rate the gain on a batch stays at the batch's noise level
    # (here ~0.02; the paper's batch size makes it < epsilon): tol above it.
    X, _ = make_circles(2000, factor=0.3, noise=0.05, random_state=0)
    for algorithm in ("truncated", "minibatch"):
        km = vcgmm.KernelKMeans(2, gamma=10.0, algorithm=algorithm, batch_size=128, tau=100,
                                tol=0.03, max_iter=200, random_state=0).fit(X)
        assert km.converged_ and km.n_iter_ < 200 and km.objective_.size == km.n_iter_
        off = vcgmm.KernelKMeans(2, gamma=10.0, algorithm=algorithm, batch_size=128, tau=100,
                                 max_iter=30, random_state=0).fit(X)
        assert not off.converged_ and off.n_iter_ == 30
    full = vcgmm.KernelKMeans(2, gamma=10.0, algorithm="full", tol=0.5, random_state=0).fit(X)
    assert full.converged_ and full.n_iter_ == 2


@pytest.mark.parametrize("algorithm", ["truncated", "minibatch", "full"])
@pytest.mark.parametrize("kernel", ["rbf", "poly", "precomputed"])
def test_results_do_not_depend_on_the_thread_count(algorithm, kernel, assert_thread_independent):
    X = small(1500, d=6, seed=16).astype(np.float32)
    if kernel == "precomputed":
        X = sk_kernel(X.astype(np.float64), "rbf", gamma=0.2)

    def fit(n_threads):
        return vcgmm.KernelKMeans(4, kernel=kernel, algorithm=algorithm, batch_size=300,
                                  tau=150, max_iter=8 if algorithm != "full" else 4,
                                  random_state=3, n_threads=n_threads).fit(X)

    assert_thread_independent(fit)


def test_pickled_model_keeps_only_its_support_and_predicts_the_same():
    X, _ = make_circles(3000, factor=0.3, noise=0.05, random_state=1)
    km = vcgmm.KernelKMeans(2, gamma=10.0, batch_size=256, tau=100, random_state=0).fit(X)
    assert km.support_.size < 600 and km.support_vectors_.shape == (km.support_.size, 2)
    clone = pickle.loads(pickle.dumps(km))
    Xn, _ = make_circles(500, factor=0.3, noise=0.05, random_state=2)
    np.testing.assert_array_equal(clone.predict(Xn), km.predict(Xn))
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    assert "support_vectors_" in vars(clone) and not any(
        isinstance(v, np.ndarray) and v.shape[0] == 3000 and v.ndim == 2 for v in vars(clone).values())


def test_precomputed_predict_takes_kernel_rows():
    X = small(200, d=3, seed=17)
    K = sk_kernel(X, "rbf", gamma=0.4)
    km = vcgmm.KernelKMeans(3, kernel="precomputed", batch_size=50, random_state=0).fit(K)
    assert km.gamma_ is None and km.support_vectors_ is None
    np.testing.assert_array_equal(km.predict(K), km.labels_)
    kr = vcgmm.KernelKMeans(3, gamma=0.4, batch_size=50, random_state=0).fit(X)
    # Same draws and kernel values up to rounding: the same clustering.
    assert adjusted_rand_score(kr.labels_, km.labels_) == 1.0
    Xn = small(30, d=3, seed=18)
    np.testing.assert_array_equal(km.predict(sk_kernel(np.vstack([Xn, X]), "rbf", 0.4)[:30, 30:]),
                                  kr.predict(Xn))


def test_graph_kernels_have_no_predict():
    Xm, _ = make_moons(300, noise=0.05, random_state=0)
    km = vcgmm.KernelKMeans(2, kernel="knn", algorithm="full", random_state=0).fit(Xm)
    assert set(km.n_kernel_evals_) == {"graph", "seeding", "iterations", "refinement", "evaluation"}
    with pytest.raises(ValueError, match="training points only"):
        km.predict(Xm)


def test_function_equals_estimator():
    X = small(200, seed=19)
    r = vcgmm.fit_kernel_kmeans(X, 3, gamma=0.5, batch_size=64, random_state=4)
    km = vcgmm.KernelKMeans(3, gamma=0.5, batch_size=64, random_state=4).fit(X)
    np.testing.assert_array_equal(r.labels, km.labels_)
    np.testing.assert_array_equal(r.center_coef, km.center_coef_)
    assert r.inertia == km.inertia_ and r.gamma == km.gamma_


# ----------------------------------------------------------------------------
# n_init and compute_labels
# ----------------------------------------------------------------------------


def test_n_init_keeps_the_run_of_lowest_inertia(monkeypatch):
    import vcgmm._kernel.kernel_kmeans as kkm
    from vcgmm._estimator.base import run_seeds
    X = small(1500, d=3, seed=31)
    params = dict(batch_size=64, max_iter=30, random_state=5, n_threads=1)
    best = vcgmm.KernelKMeans(4, n_init=4, **params).fit(X)
    runs = []
    gamma = None
    for seed in run_seeds(5, 4):
        with monkeypatch.context() as m:
            m.setattr(kkm, "run_seeds", lambda rs, n, s=seed: [s])
            # Every run uses run 0's gamma (the heuristic's draws depend on the seed).
            runs.append(vcgmm.KernelKMeans(4, gamma=gamma or "auto", **params).fit(X))
            gamma = gamma or runs[0].gamma_
    inertias = [r.inertia_ for r in runs]
    assert len(set(inertias)) > 1, "the runs should differ"
    k = int(np.argmin(inertias))
    assert best.gamma_ == runs[0].gamma_
    np.testing.assert_array_equal(best.labels_, runs[k].labels_)
    np.testing.assert_array_equal(best.center_coef_, runs[k].center_coef_)
    assert best.inertia_ == runs[k].inertia_
    single = vcgmm.KernelKMeans(4, **params).fit(X)  # run 0 is the n_init=1 fit
    np.testing.assert_array_equal(single.center_coef_, runs[0].center_coef_)
    assert best.n_kernel_evals_["iterations"] == sum(r.n_kernel_evals_["iterations"]
                                                     for r in runs)
    assert best.n_kernel_evals_["evaluation"] == sum(r.n_kernel_evals_["evaluation"]
                                                     for r in runs)


def test_n_init_with_given_init_and_full_batch_runs_once():
    X = small(300, d=3, seed=32)
    with pytest.warns(RuntimeWarning, match="only one is performed"):
        km = vcgmm.KernelKMeans(3, gamma=0.5, algorithm="full", init=[0, 100, 200], n_init=3,
                                n_threads=1).fit(X)
    one = vcgmm.KernelKMeans(3, gamma=0.5, algorithm="full", init=[0, 100, 200],
                             n_threads=1).fit(X)
    np.testing.assert_array_equal(km.labels_, one.labels_)
    assert km.n_kernel_evals_ == one.n_kernel_evals_


def test_compute_labels_false_skips_the_labelling_pass():
    X = small(800, d=3, seed=33)
    eager = vcgmm.KernelKMeans(3, gamma=0.5, batch_size=64, random_state=0, n_threads=1).fit(X)
    lazy = vcgmm.KernelKMeans(3, gamma=0.5, batch_size=64, compute_labels=False,
                              random_state=0, n_threads=1).fit(X)
    np.testing.assert_array_equal(lazy.center_coef_, eager.center_coef_)
    assert lazy.labels_ is None and lazy.inertia_ is None
    assert lazy.n_kernel_evals_["evaluation"] == 0 < eager.n_kernel_evals_["evaluation"]
    np.testing.assert_array_equal(lazy.predict(X), eager.labels_)


def test_n_init_is_thread_independent(assert_thread_independent):
    X = small(600, d=3, seed=34)
    assert_thread_independent(lambda t: vcgmm.KernelKMeans(
        3, batch_size=64, n_init=3, random_state=0, n_threads=t).fit(X))


@pytest.mark.parametrize("bad", [0, -2, 1.5])
def test_bad_n_init_is_named(bad):
    with pytest.raises((ValueError, TypeError), match="n_init"):
        vcgmm.KernelKMeans(2, n_init=bad).fit(small(50, d=2, seed=35))


# ----------------------------------------------------------------------------
# Input kinds, defaults on small data, the fitted kernel, what the model keeps
# ----------------------------------------------------------------------------


def _uncomputable_dask(n=100, d=3):
    """A lazy dask array whose blocks raise when computed."""
    da = pytest.importorskip("dask.array")

    def boom(block):
        raise AssertionError("the dask array was computed")

    return da.zeros((n, d), chunks=(n // 2, d)).map_blocks(boom, dtype=np.float64,
                                                            meta=np.empty((0, 0)))


_CHUNKED_INPUTS = {
    "dask": _uncomputable_dask,
    "list of arrays": lambda: np.array_split(small(100), 2),
}
_FITS = {
    "KernelKMeans.fit": lambda X: vcgmm.KernelKMeans(2, batch_size=32).fit(X),
    "KernelKMeans.fit_predict": lambda X: vcgmm.KernelKMeans(2, batch_size=32).fit_predict(X),
    "fit_kernel_kmeans": lambda X: vcgmm.fit_kernel_kmeans(X, 2, batch_size=32),
}


@pytest.mark.parametrize("kind", list(_CHUNKED_INPUTS))
@pytest.mark.parametrize("entry", list(_FITS))
def test_fit_refuses_chunked_and_dask_data_without_reading_them(entry, kind):
    # The model keeps training points, so X must be in memory; a Dask array
    # is refused before anything is computed (its blocks raise if computed).
    with pytest.raises(TypeError) as exc:
        _FITS[entry](_CHUNKED_INPUTS[kind]())
    message = str(exc.value)
    name = "KernelKMeans.fit" if entry.startswith("KernelKMeans") else entry
    assert message.startswith(f"{name} does not take chunked or Dask data as X: ")
    assert "keeps training points" in message and "np.asarray(X)" in message
    assert "MiniBatchKMeans" in message and "KMeans(coreset_size='auto')" in message


@pytest.mark.parametrize("kind", list(_CHUNKED_INPUTS))
def test_predict_refuses_chunked_and_dask_data_without_reading_them(kind):
    X = small(100)
    km = vcgmm.KernelKMeans(2, batch_size=32, random_state=0).fit(X)
    with pytest.raises(TypeError) as exc:
        km.predict(_CHUNKED_INPUTS[kind]())
    message = str(exc.value)
    assert message.startswith("KernelKMeans.predict does not take chunked or Dask data as X: ")
    assert "np.asarray(X)" in message and "map_blocks" in message


def test_predict_block_by_block_on_dask_as_the_message_says():
    da = pytest.importorskip("dask.array")
    X = small(100)
    km = vcgmm.KernelKMeans(2, batch_size=32, random_state=0).fit(X)
    lazy = da.from_array(X, chunks=(30, 3)).map_blocks(km.predict, drop_axis=1,
                                                        dtype=np.int32)
    np.testing.assert_array_equal(lazy.compute(), km.labels_)


@pytest.mark.parametrize("algorithm", ["truncated", "minibatch"])
def test_default_batch_size_is_clipped_to_small_data(algorithm):
    # 100 rows < the default batch of 1024 (and the default tau of 200): the
    # default fit is the fit with a batch of all rows, bit for bit.
    X = small(100, seed=40)
    default = vcgmm.KernelKMeans(3, algorithm=algorithm, random_state=0, n_threads=1).fit(X)
    clipped = vcgmm.KernelKMeans(3, algorithm=algorithm, batch_size=100, random_state=0,
                                 n_threads=1).fit(X)
    assert default.batch_size == "auto" and default.tau > 100  # parameters left as given
    np.testing.assert_array_equal(default.labels_, clipped.labels_)
    np.testing.assert_array_equal(default.objective_, clipped.objective_)
    np.testing.assert_array_equal(default.center_coef_, clipped.center_coef_)
    assert default.inertia_ == clipped.inertia_
    r = vcgmm.fit_kernel_kmeans(X, 3, algorithm=algorithm, random_state=0, n_threads=1)
    np.testing.assert_array_equal(r.labels, clipped.labels_)
    np.testing.assert_array_equal(r.objective, clipped.objective_)
    # A batch size set above the data is still refused.
    with pytest.raises(ValueError, match="batch_size=101 must be <= n_samples=100"):
        vcgmm.KernelKMeans(3, algorithm=algorithm, batch_size=101).fit(X)


def test_command_line_defaults_fit_small_data(tmp_path, capsys):
    X = small(100, seed=41)
    data, labels_path = tmp_path / "x.npy", tmp_path / "labels.npy"
    np.save(data, X)
    status = cli.main(["fit", str(data), "-C", "3", "--algo", "kernel-kmeans", "--seed", "7",
                       "--threads", "1", "--labels-out", str(labels_path)])
    err = capsys.readouterr().err
    assert status == 0, err
    ref_fit = vcgmm.KernelKMeans(3, batch_size=100, random_state=7, n_threads=1).fit(X)
    np.testing.assert_array_equal(np.load(labels_path), ref_fit.labels_)


@pytest.mark.parametrize("kernel, changes", [
    ("rbf", dict(gamma=100.0)),
    ("rbf", dict(kernel="laplacian")),
    ("poly", dict(degree=5, coef0=3.0, gamma=2.0)),
    ("rbf", dict(kernel="knn")),
    ("linear", dict(kernel="precomputed")),
])
def test_predict_uses_the_kernel_of_the_fit(kernel, changes):
    X, Xn = small(200, seed=42), small(40, seed=43)
    km = vcgmm.KernelKMeans(3, kernel=kernel, gamma=0.5, batch_size=50, tau=40, max_iter=20,
                            random_state=0, n_threads=1).fit(X)
    labels, dist, _ = km._predict_core(Xn, True)
    km.set_params(**changes)
    after_labels, after_dist, _ = km._predict_core(Xn, True)
    np.testing.assert_array_equal(after_labels, labels)
    np.testing.assert_array_equal(after_dist, dist)
    np.testing.assert_array_equal(km.predict(X), km.labels_)


def test_fitted_model_keeps_only_the_windows_of_training_points():
    # What predict needs: the training points of the centers' windows (about
    # n_clusters * tau rows, not n_samples) and their coefficients; no array
    # of n_samples rows but labels_, and no hidden copy of X.
    n, d, k, tau, b = 20000, 16, 4, 50, 64
    X = np.random.default_rng(44).normal(size=(n, d))
    params = dict(gamma=0.05, batch_size=b, tau=tau, max_iter=30, random_state=0, n_threads=1)
    vcgmm.KernelKMeans(k, **params).fit(X[:500])  # first-call imports and caches
    gc.collect()
    tracemalloc.start()
    try:
        km = vcgmm.KernelKMeans(k, **params).fit(X)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    big = [name for name, v in vars(km).items()
           if isinstance(v, np.ndarray) and v.ndim and v.shape[0] >= n]
    assert big == ["labels_"]
    assert km.support_vectors_.shape == (km.support_.size, d)
    assert km.support_.size <= k * (tau + b)
    arrays = sum(v.nbytes for v in vars(km).values() if isinstance(v, np.ndarray))
    assert arrays < X.nbytes / 10
    assert held < arrays + 256 * 1024, (held, arrays)


@pytest.mark.parametrize("algorithm, cause", [
    ("truncated", "mini-batch updates move centers"),
    ("minibatch", "mini-batch updates move centers"),
    ("full", "fewer than n_clusters distinct points in feature space")])
def test_the_empty_cluster_warning_names_the_algorithms_cause(algorithm, cause):
    # A mini-batch fit can leave a center where no point is nearest: the
    # warning must not blame the data alone (it said "too few distinct points").
    km = vcgmm.KernelKMeans(3, algorithm=algorithm)
    km.labels_ = np.array([0, 0, 1, 1], np.int32)
    with pytest.warns(ConvergenceWarning, match=cause):
        km._warn_distinct_clusters()


def test_full_batch_cluster_left_empty_is_documented_and_never_nearest():
    # 3 distinct points, 5 clusters: two clusters stay empty after relocation
    X = np.repeat(np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]]), 10, axis=0)
    with pytest.warns(ConvergenceWarning, match="fewer than n_clusters distinct points"):
        km = vcgmm.KernelKMeans(5, algorithm="full", gamma=0.5, random_state=0).fit(X)
    sizes = np.diff(km.center_indptr_)
    empty = sizes == 0
    assert empty.sum() == 2
    assert np.all(np.isinf(km.center_sqnorms_[empty]))
    assert np.all(np.isfinite(km.center_sqnorms_[~empty]))
    assert not np.isin(np.flatnonzero(empty), km.predict(X)).any()
    for j in np.flatnonzero(~empty):  # the others: positive coefficients summing to 1
        c = km.center_coef_[km.center_indptr_[j]:km.center_indptr_[j + 1]]
        assert np.all(c > 0) and c.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("kernel, t", [("knn", 1000.0), ("heat", 1000.0), ("heat", 10.0)])
def test_the_graph_kernels_cost_is_warned_before_it_is_paid(monkeypatch, kernel, t):
    # The hour-long warning used to come after the graph was built, and
    # counted neither the n^2 scan nor heat's O(n^3) eigendecomposition (only
    # at small t, where every mode weighs and the core decomposes densely).
    X = np.random.default_rng(0).normal(size=(300, 3))
    monkeypatch.setattr(cost, "FLOPS_PER_THREAD", 1.0)  # every fit "takes hours"
    monkeypatch.setattr(core, "graph_kernel", _refuse_to_build)
    with pytest.warns(UserWarning, match="dense n x n matrix") as record:
        with pytest.raises(RuntimeError, match="graph kernel built"):
            vcgmm.KernelKMeans(3, kernel=kernel, n_neighbors=10, t=t, algorithm="full").fit(X)
    graph = [str(w.message) for w in record if "dense n x n" in str(w.message)]
    assert ("eigendecomposition" in graph[0]) == (kernel == "heat" and t < 18)


def _refuse_to_build(*args, **kwargs):
    raise RuntimeError("graph kernel built before the warning")
