"""Property-based fuzz of every public function and estimator on small shapes
(hypothesis): no crash, finite outputs, labels in range, exactly C centers,
``quantization_error`` equal to a numpy reference, ``assign`` equal to a numpy
argmin up to ties, inputs unchanged, 1 thread == 2 threads.

The data mix what breaks numerical code: repeated rows (ties, fewer distinct
points than clusters), integers, constant columns, tiny and large magnitudes
(inside the documented overflow limit), float32 and float64, with and
without weights. Refusals are allowed only as ValueError for data the library
documents as unusable (here: none are generated, so any exception fails).

CI runs ``VCGMM_FUZZ_EXAMPLES`` examples per property (default 40, about 500
in all); set it higher for a campaign, e.g. ``VCGMM_FUZZ_EXAMPLES=2000``.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import vcgmm  # noqa: E402

EXAMPLES = int(os.environ.get("VCGMM_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def problems(draw, weighted=None):
    """(X, sample_weight or None, C): small data with the hard cases."""
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 5))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    kind = draw(st.sampled_from(["uniform", "integers", "repeated", "scaled", "constant_column"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "integers":
        X = rng.integers(-3, 4, size=(n, d)).astype(float)
    elif kind == "repeated":
        rows = rng.standard_normal((draw(st.integers(1, 4)), d))
        X = rows[rng.integers(0, len(rows), size=n)]
    elif kind == "scaled":
        limit = 1e15 if dtype == np.float32 else 1e140
        scale = 10.0 ** draw(st.floats(-30.0, np.log10(limit)))
        X = rng.standard_normal((n, d)) * scale
    else:
        X = rng.uniform(-100, 100, size=(n, d))
        if kind == "constant_column":
            X[:, 0] = 3.0
    X = np.ascontiguousarray(X, dtype=dtype)
    C = draw(st.integers(1, n))
    if weighted is None:
        weighted = draw(st.booleans())
    w = rng.uniform(0.1, 10.0, size=n) if weighted else None
    return X, w, C


def _numpy_sqdist(X, centers):
    X = X.astype(np.float64)
    centers = centers.astype(np.float64)
    return ((X[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)


def _check_centers(centers, X, C):
    assert centers.shape == (C, X.shape[1])
    assert centers.dtype == X.dtype
    assert np.all(np.isfinite(centers))


_THREADS = None  # conftest's assert_thread_independent, set by the autouse fixture


@pytest.fixture(autouse=True)
def _thread_check(assert_thread_independent):
    global _THREADS
    _THREADS = assert_thread_independent


def _run_twice(fn):
    """fn(n_threads) on 1 and 2 threads: bit-identical results (conftest's check)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes on tiny data are expected
        return _THREADS(fn, thread_counts=(1, 2))


def _unchanged(X, w):
    saved = (X.copy(), None if w is None else w.copy())
    return lambda: (np.testing.assert_array_equal(X, saved[0]),
                    w is None or np.testing.assert_array_equal(w, saved[1]))


@FUZZ
@given(problems(), st.integers(0, 2**31 - 1))
def test_quantization_error_and_assign_match_numpy(problem, seed):
    X, w, C = problem
    check = _unchanged(X, w)
    centers = X[np.random.default_rng(seed).choice(len(X), C, replace=False)].copy()
    D = _numpy_sqdist(X, centers)
    labels = _run_twice(lambda t: vcgmm.assign(X, centers, n_threads=t))
    assert labels.shape == (len(X),) and labels.min() >= 0 and labels.max() < C
    # Equal to the argmin up to ties (and rounding of near ties).
    chosen = D[np.arange(len(X)), labels]
    tolerance = 1e-4 if X.dtype == np.float32 else 1e-9
    np.testing.assert_allclose(chosen, D.min(axis=1), rtol=tolerance,
                               atol=tolerance * (D.max() + 1e-300))
    q = _run_twice(lambda t: vcgmm.quantization_error(X, centers, sample_weight=w, n_threads=t))
    weights = np.ones(len(X)) if w is None else w
    reference = float(weights @ D.min(axis=1))
    assert np.isfinite(q)
    assert q == pytest.approx(reference, rel=10 * tolerance, abs=tolerance * (D.max() + 1e-300))
    check()


@FUZZ
@given(problems(), st.integers(0, 2**31 - 1), st.sampled_from(["kmeans_plusplus", "afkmc2"]))
def test_seedings(problem, seed, which):
    X, w, C = problem
    check = _unchanged(X, w)
    fn = getattr(vcgmm, which)
    centers, indices = _run_twice(
        lambda t: fn(X, C, sample_weight=w, random_state=seed, n_threads=t))
    _check_centers(centers, X, C)
    assert indices.min() >= 0 and indices.max() < len(X)
    np.testing.assert_array_equal(centers, X[indices])
    check()


@FUZZ
@given(problems(), st.integers(0, 2**31 - 1), st.integers(1, 120))
def test_lwcs(problem, seed, size):
    X, w, C = problem
    size = min(size, 4 * len(X))
    check = _unchanged(X, w)
    indices, weights = _run_twice(
        lambda t: vcgmm.lwcs(X, size, sample_weight=w, random_state=seed, n_threads=t))
    assert indices.shape == weights.shape == (size,)
    assert indices.min() >= 0 and indices.max() < len(X)
    assert np.all(np.isfinite(weights)) and np.all(weights > 0)
    check()


@FUZZ
@given(problems(), st.integers(0, 2**31 - 1))
def test_lloyd(problem, seed):
    X, w, C = problem
    check = _unchanged(X, w)
    init = X[np.random.default_rng(seed).choice(len(X), C, replace=False)].copy()
    init_saved = init.copy()
    result = _run_twice(lambda t: vcgmm.lloyd(X, init, sample_weight=w, n_threads=t))
    centers = result[0] if isinstance(result, tuple) else result.centers
    _check_centers(centers, X, C)
    np.testing.assert_array_equal(init, init_saved)
    check()


@FUZZ
@given(problems(), st.integers(0, 2**31 - 1),
       st.sampled_from(["k-means++", "lwcs", "afk-mc2"]))
def test_kmeans_estimator(problem, seed, init):
    X, w, C = problem
    check = _unchanged(X, w)
    coreset = "auto" if init == "lwcs" else None
    kw = dict(random_state=seed, coreset_size=coreset,
              init="k-means++" if init == "lwcs" else init)

    def fit(t):
        km = vcgmm.KMeans(C, n_threads=t, **kw).fit(X, sample_weight=w)
        return km.cluster_centers_, km.labels_, km.inertia_, km.predict(X)

    centers, labels, inertia, predicted = _run_twice(fit)
    _check_centers(centers, X, C)
    assert labels.min() >= 0 and labels.max() < C
    np.testing.assert_array_equal(labels, predicted)
    q = vcgmm.quantization_error(X, centers, sample_weight=w)
    assert np.isfinite(inertia) and inertia == pytest.approx(q, rel=1e-5, abs=1e-300)
    check()


@FUZZ
@given(problems(), st.integers(0, 2**31 - 1), st.integers(1, 6),
       st.sampled_from([None, "auto", 64]))
def test_vcgmm(problem, seed, G, coreset):
    X, w, C = problem
    check = _unchanged(X, w)
    if coreset == 64:  # documented range: C <= coreset_size <= 4 n_samples
        coreset = max(C, min(64, 4 * len(X)))

    def fit(t):
        r = vcgmm.fit_vcgmm(X, C, G=G, coreset_size=coreset, sample_weight=w,
                            random_state=seed, n_threads=t, return_labels=True)
        return r.centers, r.labels, r.inertia, r.sigma2, r.free_energy

    centers, labels, inertia, sigma2, F = _run_twice(fit)
    _check_centers(centers, X, C)
    assert labels.min() >= 0 and labels.max() < C
    assert np.isfinite(inertia) and np.isfinite(sigma2) and sigma2 > 0
    assert np.all(np.isfinite(F))
    check()


@FUZZ
@given(problems(weighted=False), st.integers(0, 2**31 - 1), st.integers(1, 6))
def test_vcgmm_estimator_and_vargmm(problem, seed, G):
    X, _, C = problem
    check = _unchanged(X, None)

    def fit(t):
        est = vcgmm.VCGMM(C, G=G, coreset_size=None, random_state=seed, n_threads=t).fit(X)
        proba = est.predict_proba(X)
        # The truncated posterior is the exact one renormalised over its G_
        # components (not equal to it: with G_ < C the others' mass is dropped).
        sparse = est.predict_proba_sparse(X).toarray()
        kept = np.where(sparse > 0, proba, 0.0)
        np.testing.assert_allclose(sparse, kept / kept.sum(axis=1, keepdims=True),
                                   rtol=1e-5, atol=1e-12)
        return est.means_, est.predict(X), est.score_samples(X), proba

    means, labels, scores, proba = _run_twice(fit)
    _check_centers(means, X, C)
    assert labels.min() >= 0 and labels.max() < C
    assert np.all(np.isfinite(scores))
    assert isinstance(proba, np.ndarray) and proba.shape == (X.shape[0], C)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-5)
    r = vcgmm.fit_vargmm(X, C, G=G, random_state=seed)
    _check_centers(r.centers, X, C)
    check()
