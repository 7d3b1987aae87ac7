"""metric="cosine": spherical k-means (Dhillon & Modha) and the mixture on
normalised rows, against numpy references."""

from __future__ import annotations

import numpy as np
import pytest

import vcgmm


def _unit(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _spherical_kmeans(X, centers, n_iter):
    """numpy spherical k-means: argmax cos, mean, rescale to unit length."""
    X, C = _unit(X), _unit(centers)
    objective = []
    for _ in range(n_iter):
        cos = X @ C.T
        labels = cos.argmax(axis=1)
        objective.append(float(np.sum(1.0 - cos.max(axis=1))))
        for c in range(len(C)):
            members = X[labels == c]
            if len(members):
                mean = members.mean(axis=0)
                C[c] = mean / np.linalg.norm(mean)
    return C, np.array(objective)


@pytest.fixture(scope="module")
def directions():
    # Three groups of directions in 8-D with different norms (cosine ignores them).
    rng = np.random.default_rng(0)
    axes = _unit(rng.standard_normal((3, 8)))
    X = np.concatenate([axes[k] + 0.3 * rng.standard_normal((200, 8)) for k in range(3)])
    return X * rng.uniform(0.1, 50.0, size=(len(X), 1))


def test_lloyd_cosine_is_spherical_kmeans(directions):
    init = directions[[0, 250, 500, 10]].copy()
    centers, info = vcgmm.lloyd(directions, init, metric="cosine", tol=0, max_iter=5,
                                relocate_empty=False)
    ref_centers, ref_objective = _spherical_kmeans(directions, init, info["n_iter"])
    np.testing.assert_allclose(centers, ref_centers, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(info["objective"], ref_objective, rtol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(centers, axis=1), 1.0, rtol=1e-12)


def test_kmeans_cosine_objective_predict_transform(directions):
    X_before = directions.copy()
    km = vcgmm.KMeans(3, metric="cosine", random_state=0).fit(directions)
    np.testing.assert_array_equal(directions, X_before)  # the caller's array is untouched
    C = km.cluster_centers_
    np.testing.assert_allclose(np.linalg.norm(C, axis=1), 1.0, rtol=1e-12)
    cos = _unit(directions) @ C.T
    np.testing.assert_array_equal(km.labels_, cos.argmax(axis=1))
    np.testing.assert_array_equal(km.predict(directions), km.labels_)
    assert km.inertia_ == pytest.approx(np.sum(1.0 - cos.max(axis=1)), rel=1e-9)
    assert km.score(directions) == pytest.approx(-km.inertia_, rel=1e-9)
    np.testing.assert_allclose(km.transform(directions), 1.0 - cos, atol=1e-12)
    # Scaling rows changes nothing: cosine only sees directions.
    scaled = vcgmm.KMeans(3, metric="cosine", random_state=0).fit(directions * 7.0)
    np.testing.assert_allclose(scaled.cluster_centers_, C, rtol=1e-12, atol=1e-14)


def test_lwcs_cosine_runs_on_unit_rows(directions):
    km = vcgmm.KMeans(3, metric="cosine", init="afk-mc2", coreset_size=256,
                      random_state=0).fit(directions)
    np.testing.assert_allclose(np.linalg.norm(km.cluster_centers_, axis=1), 1.0, rtol=1e-12)
    full = vcgmm.KMeans(3, metric="cosine", random_state=0).fit(directions)
    assert km.inertia_ <= 1.05 * full.inertia_  # the coreset's fit is as good on all data
    cos = _unit(directions) @ km.cluster_centers_.T
    assert km.inertia_ == pytest.approx(np.sum(1.0 - cos.max(axis=1)), rel=1e-9)


def test_vcgmm_cosine_is_vcgmm_on_normalised_rows(directions):
    a = vcgmm.fit_vcgmm(directions, 3, 2, 256, metric="cosine", random_state=0)
    b = vcgmm.fit_vcgmm(_unit(directions), 3, 2, 256, random_state=0)
    np.testing.assert_allclose(a.centers, b.centers, rtol=1e-12, atol=1e-14)
    est = vcgmm.VCGMM(3, G=2, coreset_size=256, metric="cosine", random_state=0).fit(directions)
    np.testing.assert_array_equal(est.predict(directions * 3.0), est.predict(directions))


@pytest.mark.parametrize("call", [
    lambda X: vcgmm.KMeans(2, metric="cosine").fit(X),
    lambda X: vcgmm.VCGMM(2, metric="cosine", coreset_size=None).fit(X),
    lambda X: vcgmm.lloyd(X, X[:2], metric="cosine"),
])
def test_zero_rows_are_refused(call):
    X = np.random.default_rng(0).random((10, 3))
    X[4] = 0.0
    with pytest.raises(ValueError, match=r"metric.*|norm zero \(first: row 4\)"):
        call(X)


def test_float32_stays_float32(directions):
    X = directions.astype(np.float32)
    km = vcgmm.KMeans(3, metric="cosine", random_state=0).fit(X)
    assert km.cluster_centers_.dtype == np.float32
    assert km.transform(X).dtype == np.float32


def test_thread_independent(directions, assert_thread_independent):
    assert_thread_independent(lambda t: vcgmm.KMeans(3, metric="cosine", random_state=0,
                                                     n_threads=t).fit(directions))


# ----------------------------------------------------------------------------
# The mini-batch family: mbatch and nmbatch with metric="cosine"
# ----------------------------------------------------------------------------


def _spherical_sculley(X, centers, b, T, seed):
    """numpy mbatch on unit rows (Sculley's c = S / v for the batches
    fit_mbatch draws), every updated center rescaled to unit length."""
    from vcgmm._base.loader import core
    X, c = _unit(X), np.array(centers, np.float64)
    v = np.ones(len(c))
    for t in range(1, T + 1):
        xb = X[core.mbatch_batch_rows(X.shape[0], b, seed, t)]
        lab = (xb @ c.T).argmax(axis=1)
        for j in np.unique(lab):
            m = lab == j
            c[j] = (v[j] * c[j] + xb[m].sum(0)) / (v[j] + m.sum())
            c[j] /= np.linalg.norm(c[j])
            v[j] += m.sum()
    return c


def test_mbatch_cosine_is_spherical_sculley(directions):
    from vcgmm._base.run import seed_from
    init = _unit(directions[[0, 250, 500, 10]])
    r = vcgmm.fit_mbatch(directions, 4, init=init, metric="cosine", batch_size=50, max_iter=8,
                         random_state=3, n_threads=1, return_labels=True)
    np.testing.assert_allclose(r.centers, _spherical_sculley(directions, init, 50, 8,
                                                             seed_from(3)),
                               rtol=1e-10, atol=1e-12)
    cos = _unit(directions) @ r.centers.T
    np.testing.assert_array_equal(r.labels, cos.argmax(axis=1))
    assert r.inertia == pytest.approx(np.sum(1.0 - cos.max(axis=1)), rel=1e-9)


def test_nmbatch_cosine_ends_at_a_spherical_kmeans_fixed_point(directions):
    km = vcgmm.NestedMiniBatchKMeans(3, metric="cosine", batch_size=100, random_state=0,
                                     n_threads=1).fit(directions)
    assert km.converged_
    X = _unit(directions)
    cos = X @ km.cluster_centers_.T
    np.testing.assert_array_equal(km.labels_, cos.argmax(axis=1))
    for j in range(3):  # each center: the unit mean direction of its cluster
        mean = X[km.labels_ == j].mean(axis=0)
        np.testing.assert_allclose(km.cluster_centers_[j], mean / np.linalg.norm(mean),
                                   rtol=1e-9, atol=1e-12)
    assert km.inertia_ == pytest.approx(np.sum(1.0 - cos.max(axis=1)), rel=1e-9)
    assert km.objective_[-1] == pytest.approx(km.inertia_, rel=1e-9)


@pytest.mark.parametrize("cls", [vcgmm.MiniBatchKMeans, vcgmm.NestedMiniBatchKMeans])
def test_minibatch_cosine_sees_only_directions(directions, cls):
    X_before = directions.copy()
    km = cls(3, metric="cosine", random_state=0, batch_size=100, n_threads=1).fit(directions)
    np.testing.assert_array_equal(directions, X_before)
    np.testing.assert_allclose(np.linalg.norm(km.cluster_centers_, axis=1), 1.0, rtol=1e-12)
    cos = _unit(directions) @ km.cluster_centers_.T
    np.testing.assert_allclose(km.transform(directions), 1.0 - cos, atol=1e-12)
    assert km.score(directions) == pytest.approx(-np.sum(1.0 - cos.max(axis=1)), rel=1e-9)
    scaled = cls(3, metric="cosine", random_state=0, batch_size=100,
                 n_threads=1).fit(directions * 7.0)
    np.testing.assert_allclose(scaled.cluster_centers_, km.cluster_centers_, rtol=1e-12,
                               atol=1e-14)
    X = np.array(directions)
    X[4] = 0.0
    with pytest.raises(ValueError, match=r"norm zero \(first: row 4\)"):
        cls(3, metric="cosine", batch_size=100).fit(X)


def test_partial_fit_cosine_equals_fit_on_the_same_batches(directions):
    from vcgmm._base.loader import core
    from vcgmm._base.run import seed_from
    init = _unit(directions[[0, 250, 500]])
    fit = vcgmm.MiniBatchKMeans(3, init=init, metric="cosine", batch_size=40, max_iter=5,
                                random_state=7, n_threads=1).fit(directions)
    part = vcgmm.MiniBatchKMeans(3, init=init, metric="cosine", random_state=7, n_threads=1)
    for t in range(1, 6):
        part.partial_fit(directions[core.mbatch_batch_rows(len(directions), 40, seed_from(7), t)])
    np.testing.assert_allclose(part.cluster_centers_, fit.cluster_centers_, rtol=1e-12,
                               atol=1e-14)
    batch = _unit(directions[core.mbatch_batch_rows(len(directions), 40, seed_from(7), 5)])
    cos = batch @ part.cluster_centers_.T
    assert part.inertia_ == pytest.approx(np.sum(1.0 - cos.max(axis=1)), rel=1e-9)


@pytest.mark.parametrize("cls", [vcgmm.MiniBatchKMeans, vcgmm.NestedMiniBatchKMeans])
def test_minibatch_cosine_thread_independent(directions, cls, assert_thread_independent):
    assert_thread_independent(lambda t: cls(3, metric="cosine", batch_size=100, random_state=0,
                                            n_threads=t).fit(directions))
