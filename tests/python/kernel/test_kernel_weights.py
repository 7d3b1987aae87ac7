"""Kernel k-means with sample weights: every algorithm against the weighted
numpy references (``_kernel_reference.py``, same batches), integer weights
against repeated rows, weights of 0 against the fit without those rows,
weighted kernel k-means++ against its exact distribution, and bad weights."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import pairwise_kernels

import _kernel_reference as ref
import vcgmm
from vcgmm._base.loader import core

SEED = 12345


def small(n=60, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def weights(n, seed=1):
    return np.random.default_rng(seed).uniform(0.2, 3.0, size=n)


def rbf(X, gamma):
    return pairwise_kernels(X, metric="rbf", gamma=gamma)


def core_params(**kw):
    p = core.KernelKMeansParams()
    p.run.seed = SEED
    p.run.n_threads = 1
    p.kernel.gamma = kw.pop("gamma")
    for name, value in kw.items():
        setattr(p, name, value)
    return p


def dense(r, n):
    return ref.dense_coef((r.support, r.indptr, r.index, r.coef), n)


@pytest.mark.parametrize("rate", ["beta", "sklearn"])
@pytest.mark.parametrize("algorithm,tau,renormalize", [("truncated", 20, True),
                                                       ("truncated", 20, False),
                                                       ("minibatch", None, True)])
def test_weighted_minibatch_algorithms_match_the_reference(algorithm, tau, renormalize, rate):
    X, w = small(), weights(60)
    K = rbf(X, 0.3)
    init = np.array([0, 1, 2], dtype=np.int64)
    p = core_params(n_clusters=3, gamma=0.3, batch_size=16, tau=tau or 200, max_iter=15,
                    algorithm=algorithm, learning_rate=rate, renormalize=renormalize)
    r, labels = core.fit_kernel_kmeans(X, w, p, init, True)
    want = ref.minibatch(K, init, SEED, 16, 15, tau=tau, rate=rate, renormalize=renormalize,
                         w=w)
    np.testing.assert_array_equal(labels, want["labels"])
    np.testing.assert_allclose(dense(r, 60), want["coef"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(r.sqnorm, want["sqnorm"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.objective, want["objective"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.inertia, want["inertia"], rtol=1e-12)
    # The weights matter: the unweighted run ends elsewhere.
    unweighted = ref.minibatch(K, init, SEED, 16, 15, tau=tau, rate=rate,
                               renormalize=renormalize)
    assert np.abs(unweighted["coef"] - want["coef"]).max() > 1e-3


@pytest.mark.parametrize("kernel", ["rbf", "precomputed"])
def test_weighted_full_batch_matches_the_reference(kernel):
    X, w = small(80, seed=5), weights(80, seed=6)
    K = rbf(X, 0.5)
    init = np.array([1, 2, 3, 4], dtype=np.int64)
    want = ref.full(K, init, 50, w=w)
    params = dict(algorithm="full", init=init, max_iter=50, n_threads=1)
    if kernel == "rbf":
        km = vcgmm.KernelKMeans(4, gamma=0.5, **params).fit(X, sample_weight=w)
    else:
        km = vcgmm.KernelKMeans(4, kernel="precomputed", **params).fit(K, sample_weight=w)
    np.testing.assert_array_equal(km.labels_, want["labels"])
    np.testing.assert_allclose(km.objective_, want["objective"], rtol=1e-10)
    coef = ref.dense_coef((km.support_, km.center_indptr_, km.center_indices_,
                           km.center_coef_), 80)
    np.testing.assert_allclose(coef, want["coef"], rtol=1e-12, atol=1e-15)
    d, _ = ref.distances(K, want["coef"])
    np.testing.assert_allclose(km.inertia_, (w * d[np.arange(80), want["labels"]]).sum(),
                               rtol=1e-10)
    assert km.converged_


def test_integer_weights_equal_repeated_rows():
    # Full batch is deterministic given the start: weight m is m copies.
    X = small(50, seed=7)
    m = np.random.default_rng(8).integers(1, 4, size=50)
    rep = np.repeat(np.arange(50), m)
    init = np.array([0, 5, 9], dtype=np.int64)
    first_copy = np.searchsorted(rep, init)
    params = dict(gamma=0.4, algorithm="full", max_iter=50, n_threads=1)
    a = vcgmm.KernelKMeans(3, init=init, **params).fit(X, sample_weight=m.astype(float))
    b = vcgmm.KernelKMeans(3, init=first_copy, **params).fit(X[rep])
    np.testing.assert_array_equal(a.labels_[rep], b.labels_)
    np.testing.assert_allclose(a.inertia_, b.inertia_, rtol=1e-10)
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-10)


@pytest.mark.parametrize("algorithm", ["truncated", "minibatch", "full"])
def test_unit_weights_equal_no_weights_from_the_same_start(algorithm):
    X = small(300, seed=9)
    init = np.array([3, 30, 300 - 1], dtype=np.int64)
    est = vcgmm.KernelKMeans(3, gamma=0.3, init=init, algorithm=algorithm, batch_size=64,
                             tau=80, max_iter=20, random_state=0, n_threads=1)
    a = est.fit(X, sample_weight=np.ones(300)).labels_.copy()
    ia = est.inertia_
    b = est.fit(X).labels_
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(ia, est.inertia_, rtol=1e-12)


@pytest.mark.parametrize("kernel,algorithm", [("rbf", "truncated"), ("rbf", "minibatch"),
                                              ("precomputed", "full")])
def test_zero_weights_are_the_fit_without_those_rows(kernel, algorithm):
    X, w = small(200, seed=10), weights(200, seed=11)
    w[::7] = 0.0
    keep = np.flatnonzero(w > 0)
    data = X if kernel == "rbf" else rbf(X, 0.3)
    sub = X[keep] if kernel == "rbf" else data[np.ix_(keep, keep)]
    params = dict(kernel=kernel, algorithm=algorithm, batch_size=48, tau=60, max_iter=12,
                  random_state=4, n_threads=1)
    if kernel == "rbf":
        params["gamma"] = 0.3
    a = vcgmm.KernelKMeans(3, **params).fit(data, sample_weight=w)
    b = vcgmm.KernelKMeans(3, **params).fit(sub, sample_weight=w[keep])
    np.testing.assert_array_equal(a.labels_[keep], b.labels_)
    np.testing.assert_array_equal(a.support_, keep[b.support_])
    np.testing.assert_array_equal(a.init_indices_, keep[b.init_indices_])
    np.testing.assert_array_equal(a.center_coef_, b.center_coef_)
    assert a.inertia_ == b.inertia_
    # The rows of weight 0 get their nearest center.
    dropped = np.flatnonzero(w == 0)
    rows = X[dropped] if kernel == "rbf" else data[np.ix_(dropped, keep)]
    np.testing.assert_array_equal(a.labels_[dropped], b.predict(rows))
    if kernel == "rbf":
        np.testing.assert_array_equal(a.predict(X), a.labels_)


def test_weighted_kernel_kmeans_plusplus_matches_exact_distribution(
        small_weighted, chisquare_exact, alpha, power_alpha):
    # First draw proportional to w, the second to w D^2 (feature space).
    X, w = small_weighted
    K = rbf(X, 0.5)
    D = np.diag(K)[:, None] - 2 * K + np.diag(K)[None, :]
    kp = core.KernelParams()
    kp.type = "rbf"
    kp.gamma = 0.5
    n = X.shape[0]
    counts = np.zeros((n, n))
    for s in range(20000):
        run = core.RunOptions()
        run.seed = s
        run.n_threads = 1
        idx, _ = core.kernel_kmeans_plusplus(X, w, kp, 2, run)
        counts[idx[0], idx[1]] += 1

    def joint(first, second):
        cond = second / second.sum(1, keepdims=True)
        return (first / first.sum())[:, None] * cond

    assert chisquare_exact(counts, joint(w, D * w[None, :])) > alpha
    # Power: the same draws reject the unweighted D^2 distribution.
    assert chisquare_exact(counts, joint(np.ones(n), D), null=False) < power_alpha


def test_weighted_results_do_not_depend_on_the_thread_count(assert_thread_independent):
    X = small(1500, d=6, seed=16).astype(np.float32)
    w = weights(1500, seed=17)
    for algorithm in ("truncated", "minibatch", "full"):
        def fit(n_threads):
            return vcgmm.KernelKMeans(4, algorithm=algorithm, batch_size=300, tau=150,
                                      max_iter=8 if algorithm != "full" else 4, random_state=3,
                                      n_threads=n_threads).fit(X, sample_weight=w)

        assert_thread_independent(fit)


def test_function_and_fit_predict_take_weights():
    X, w = small(120, seed=18), weights(120, seed=19)
    est = vcgmm.KernelKMeans(3, gamma=0.3, batch_size=32, max_iter=10, random_state=0)
    labels = est.fit_predict(X, sample_weight=w)
    r = vcgmm.fit_kernel_kmeans(X, 3, sample_weight=w, gamma=0.3, batch_size=32, max_iter=10,
                                random_state=0)
    np.testing.assert_array_equal(labels, r.labels)
    assert r.inertia == est.inertia_


@pytest.mark.parametrize("bad,match", [
    (-np.ones(40), "non-negative"),
    (np.full(40, np.nan), "finite"),
    (np.ones(39), r"shape \(40,\)"),
    (np.zeros(40), "no positive entry"),
])
def test_bad_weights_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        vcgmm.KernelKMeans(2, gamma=0.3, batch_size=8).fit(small(40), sample_weight=bad)


def test_too_few_positive_weights_and_zero_weight_starts_are_refused():
    X = small(40)
    w = np.zeros(40)
    w[:2] = 1.0
    with pytest.raises(ValueError, match="sample_weight"):
        vcgmm.KernelKMeans(3, gamma=0.3, batch_size=2).fit(X, sample_weight=w)
    w[:10] = 1.0
    with pytest.raises(ValueError, match="init row 20 has sample_weight 0"):
        vcgmm.KernelKMeans(2, gamma=0.3, batch_size=8, init=[0, 20]).fit(X, sample_weight=w)


@pytest.mark.parametrize("kernel", ["knn", "heat"])
def test_graph_kernels_refuse_zero_weights_and_take_positive_ones(kernel):
    X = small(80, d=2, seed=20)
    w = weights(80, seed=21)
    est = vcgmm.KernelKMeans(2, kernel=kernel, n_neighbors=8, algorithm="full", random_state=0)
    est.fit(X, sample_weight=w)
    assert est.labels_.shape == (80,)
    w[3] = 0.0
    with pytest.raises(ValueError, match="graph kernel has no value"):
        est.fit(X, sample_weight=w)
