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
