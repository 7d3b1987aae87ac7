"""Bad input to vc-GMM / var-GMM-S gets a clear exception naming the argument;
odd-but-valid input (degenerate data, C = 1, G > C, other dtypes, views)
works and gives the answer a numpy reference gives."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import vcgmm

N_FEATURES = 3


def _good_X(n=12, seed=0):
    return np.random.default_rng(seed).standard_normal((n, N_FEATURES))


def _means(X, C=2):
    """Valid initial means for X's column count, so only X itself is at fault."""
    d = np.shape(X)[-1] if np.ndim(X) >= 1 and np.shape(X)[-1] > 0 else N_FEATURES
    return np.arange(C * d, dtype=np.float64).reshape(C, d) / 7.0


def _with(value, where=(3, 1)):
    X = _good_X()
    X[where] = value
    return X


def _fitted(coreset_size="auto"):
    return vcgmm.VCGMM(2, coreset_size=coreset_size, random_state=0).fit(_good_X())


# Every public vc-GMM entry point that takes data, its other arguments valid.
CALLS = {
    "fit_vcgmm": lambda X: vcgmm.fit_vcgmm(X, 2, n_prime=10, random_state=0),
    "fit_vcgmm default n_prime": lambda X: vcgmm.fit_vcgmm(X, 2, random_state=0),
    "fit_vargmm": lambda X: vcgmm.fit_vargmm(X, 2, random_state=0),
    "VCGMM.fit": lambda X: vcgmm.VCGMM(2, random_state=0).fit(X),
    "VCGMM.fit var-GMM-S": lambda X: vcgmm.VCGMM(2, coreset_size=None, random_state=0).fit(X),
    "VCGMM.fit_predict": lambda X: vcgmm.VCGMM(2, random_state=0).fit_predict(X),
    "VariationalLoop": lambda X: vcgmm.VariationalLoop(X, _means(X), G=2),
}

BAD_X = {
    "nan": (_with(np.nan), ValueError, "NaN"),
    "inf": (_with(np.inf), ValueError, "infinity"),
    "-inf": (_with(-np.inf), ValueError, "infinity"),
    "no rows": (np.empty((0, N_FEATURES)), ValueError, "0 sample"),
    "no features": (np.empty((12, 0)), ValueError, "0 feature"),
    "1-D": (np.arange(12.0), ValueError, "2D array"),
    "3-D": (np.zeros((4, 3, 3)), ValueError, "dim"),
    "strings": (np.array([["1", "2", "3"]] * 12), TypeError, "string"),
    "complex": (_good_X() + 1j, TypeError, "complex"),
    "datetime": (np.zeros((12, 3), dtype="datetime64[s]"), TypeError, "datetime"),
    "sparse": (sp.random(12, 3, density=0.5, format="csr", random_state=0), TypeError, "sparse"),
}


@pytest.mark.parametrize("case", list(BAD_X))
@pytest.mark.parametrize("call", list(CALLS))
def test_bad_X_raises(call, case):
    X, exc, match = BAD_X[case]
    with pytest.raises(exc, match=match):
        CALLS[call](X)


@pytest.mark.parametrize("call", list(CALLS))
def test_error_names_X(call):
    with pytest.raises(ValueError, match="X"):
        CALLS[call](_with(np.nan))


PREDICT_METHODS = ["predict", "predict_proba", "score_samples", "score", "transform"]


@pytest.mark.parametrize("method", PREDICT_METHODS)
def test_methods_check_their_input(method):
    with pytest.raises(NotFittedError):
        getattr(vcgmm.VCGMM(2), method)(_good_X())
    gmm = _fitted()
    f = getattr(gmm, method)
    with pytest.raises(ValueError, match="NaN"):
        f(_with(np.nan))
    with pytest.raises(ValueError, match="features"):
        f(np.zeros((5, 4)))
    with pytest.raises(TypeError):
        f(np.array([["a", "b", "c"]]))


# ----------------------------------------------------------------------------
# Sample weights
# ----------------------------------------------------------------------------

WEIGHTED_CALLS = {
    "fit_vcgmm": lambda X, w: vcgmm.fit_vcgmm(X, 2, n_prime=10, sample_weight=w, random_state=0),
    "fit_vargmm": lambda X, w: vcgmm.fit_vargmm(X, 2, sample_weight=w, random_state=0),
    "VCGMM.fit": lambda X, w: vcgmm.VCGMM(2, random_state=0).fit(X, sample_weight=w),
    "VCGMM.fit var-GMM-S": lambda X, w: vcgmm.VCGMM(2, coreset_size=None, random_state=0).fit(
        X, sample_weight=w
    ),
    "VCGMM.score": lambda X, w: _fitted().score(X, sample_weight=w),
    "VariationalLoop": lambda X, w: vcgmm.VariationalLoop(X, _means(X), G=2, sample_weight=w),
}

BAD_WEIGHTS = {
    "negative": (lambda n: -np.ones(n), ValueError),
    "zero": (lambda n: np.r_[np.ones(n - 1), 0.0], ValueError),
    "nan": (lambda n: np.r_[np.ones(n - 1), np.nan], ValueError),
    "inf": (lambda n: np.r_[np.ones(n - 1), np.inf], ValueError),
    "too short": (lambda n: np.ones(n - 1), ValueError),
    "too long": (lambda n: np.ones(n + 1), ValueError),
    "2-D": (lambda n: np.ones((n, 1)), ValueError),
    "strings": (lambda n: np.array(["1"] * n), TypeError),
}


@pytest.mark.parametrize("case", list(BAD_WEIGHTS))
@pytest.mark.parametrize("call", list(WEIGHTED_CALLS))
def test_bad_sample_weight_raises(call, case):
    make, exc = BAD_WEIGHTS[case]
    X = _good_X()
    with pytest.raises(exc, match="sample_weight"):
        WEIGHTED_CALLS[call](X, make(X.shape[0]))


# ----------------------------------------------------------------------------
# Parameters
# ----------------------------------------------------------------------------

X12 = _good_X()
M2 = _means(X12)

BAD_PARAMS = [
    # (description, call, exception, name in the message)
    ("vc C=0", lambda: vcgmm.fit_vcgmm(X12, 0), ValueError, "C"),
    ("vc C=-1", lambda: vcgmm.fit_vcgmm(X12, -1), ValueError, "C"),
    ("vc C>N", lambda: vcgmm.fit_vcgmm(X12, 13), ValueError, "C=13"),
    ("vc C=2.5", lambda: vcgmm.fit_vcgmm(X12, 2.5), TypeError, "C"),
    ("vc C='2'", lambda: vcgmm.fit_vcgmm(X12, "2"), TypeError, "C"),
    ("var C=0", lambda: vcgmm.fit_vargmm(X12, 0), ValueError, "C"),
    ("var C>N", lambda: vcgmm.fit_vargmm(X12, 13), ValueError, "C=13"),
    ("var C=True", lambda: vcgmm.fit_vargmm(X12, True), TypeError, "C"),
    ("est n_components=0", lambda: vcgmm.VCGMM(0).fit(X12), ValueError, "n_components"),
    ("est n_components>N", lambda: vcgmm.VCGMM(13).fit(X12), ValueError, "n_components"),
    ("est n_components=2.5", lambda: vcgmm.VCGMM(2.5).fit(X12), TypeError, "n_components"),
    ("vc G=0", lambda: vcgmm.fit_vcgmm(X12, 2, G=0), ValueError, "G"),
    ("vc G=-3", lambda: vcgmm.fit_vcgmm(X12, 2, G=-3), ValueError, "G"),
    ("vc G=2.5", lambda: vcgmm.fit_vcgmm(X12, 2, G=2.5), TypeError, "G"),
    ("var G=0", lambda: vcgmm.fit_vargmm(X12, 2, G=0), ValueError, "G"),
    ("var G=2.5", lambda: vcgmm.fit_vargmm(X12, 2, G=2.5), TypeError, "G"),
    ("var G=None", lambda: vcgmm.fit_vargmm(X12, 2, G=None), TypeError, "G"),
    ("est G=0", lambda: vcgmm.VCGMM(2, G=0).fit(X12), ValueError, "G"),
    ("est G=2.5", lambda: vcgmm.VCGMM(2, G=2.5).fit(X12), TypeError, "G"),
    ("loop G=0", lambda: vcgmm.VariationalLoop(X12, M2, G=0), ValueError, "G"),
    ("loop G=2.5", lambda: vcgmm.VariationalLoop(X12, M2, G=2.5), TypeError, "G"),
    ("n_prime<C", lambda: vcgmm.fit_vcgmm(X12, 4, n_prime=3), ValueError, "n_prime"),
    ("n_prime=0", lambda: vcgmm.fit_vcgmm(X12, 2, n_prime=0), ValueError, "n_prime"),
    ("n_prime>4N", lambda: vcgmm.fit_vcgmm(X12, 2, n_prime=49), ValueError, "n_prime"),
    ("n_prime=2.5", lambda: vcgmm.fit_vcgmm(X12, 2, n_prime=2.5), TypeError, "n_prime"),
    ("coreset<C", lambda: vcgmm.VCGMM(4, coreset_size=3).fit(X12), ValueError, "coreset_size"),
    ("coreset>4N", lambda: vcgmm.VCGMM(2, coreset_size=49).fit(X12), ValueError, "coreset_size"),
    ("coreset=2.5", lambda: vcgmm.VCGMM(2, coreset_size=2.5).fit(X12), TypeError, "coreset_size"),
    ("coreset='big'", lambda: vcgmm.VCGMM(2, coreset_size="big").fit(X12), ValueError,
     "coreset_size"),
    ("vc chain_length=0", lambda: vcgmm.fit_vcgmm(X12, 2, chain_length=0), ValueError,
     "chain_length"),
    ("var chain_length=0", lambda: vcgmm.fit_vargmm(X12, 2, chain_length=0), ValueError,
     "chain_length"),
    ("est chain_length=0", lambda: vcgmm.VCGMM(2, chain_length=0).fit(X12), ValueError,
     "chain_length"),
    ("vc chain_length=2.5", lambda: vcgmm.fit_vcgmm(X12, 2, chain_length=2.5), TypeError,
     "chain_length"),
    ("vc tol=-1", lambda: vcgmm.fit_vcgmm(X12, 2, tol=-1e-3), ValueError, "tol"),
    ("vc tol=nan", lambda: vcgmm.fit_vcgmm(X12, 2, tol=np.nan), ValueError, "tol"),
    ("var tol=inf", lambda: vcgmm.fit_vargmm(X12, 2, tol=np.inf), ValueError, "tol"),
    ("est tol=-1", lambda: vcgmm.VCGMM(2, tol=-1.0).fit(X12), ValueError, "tol"),
    ("est tol='a'", lambda: vcgmm.VCGMM(2, tol="a").fit(X12), TypeError, "tol"),
    ("loop tol=-1", lambda: vcgmm.VariationalLoop(X12, M2, tol=-1.0), ValueError, "tol"),
    ("vc max_iter=0", lambda: vcgmm.fit_vcgmm(X12, 2, max_iter=0), ValueError, "max_iter"),
    ("var max_iter=0", lambda: vcgmm.fit_vargmm(X12, 2, max_iter=0), ValueError, "max_iter"),
    ("est max_iter=0", lambda: vcgmm.VCGMM(2, max_iter=0).fit(X12), ValueError, "max_iter"),
    ("est max_iter=1.5", lambda: vcgmm.VCGMM(2, max_iter=1.5).fit(X12), TypeError, "max_iter"),
    ("loop max_iter=0", lambda: vcgmm.VariationalLoop(X12, M2, max_iter=0), ValueError,
     "max_iter"),
    ("vc n_init_estep=-1", lambda: vcgmm.fit_vcgmm(X12, 2, n_init_estep=-1), ValueError,
     "n_init_estep"),
    ("var n_init_estep=-1", lambda: vcgmm.fit_vargmm(X12, 2, n_init_estep=-1), ValueError,
     "n_init_estep"),
    ("est n_init_estep=-1", lambda: vcgmm.VCGMM(2, n_init_estep=-1).fit(X12), ValueError,
     "n_init_estep"),
    ("est n_init_estep=1.5", lambda: vcgmm.VCGMM(2, n_init_estep=1.5).fit(X12), TypeError,
     "n_init_estep"),
    ("loop n_init_estep=-1", lambda: vcgmm.VariationalLoop(X12, M2, n_init_estep=-1), ValueError,
     "n_init_estep"),
    ("vc plus1=1", lambda: vcgmm.fit_vcgmm(X12, 2, plus1=1), TypeError, "plus1"),
    ("est plus1='yes'", lambda: vcgmm.VCGMM(2, plus1="yes").fit(X12), TypeError, "plus1"),
    ("loop plus1=1", lambda: vcgmm.VariationalLoop(X12, M2, plus1=1), TypeError, "plus1"),
    ("vc return_labels=1", lambda: vcgmm.fit_vcgmm(X12, 2, return_labels=1), TypeError,
     "return_labels"),
    ("vc verbose='x'", lambda: vcgmm.fit_vcgmm(X12, 2, verbose="x"), TypeError, "verbose"),
    ("est verbose=2", lambda: vcgmm.VCGMM(2, verbose=2).fit(X12), TypeError, "verbose"),
    ("vc n_threads=0", lambda: vcgmm.fit_vcgmm(X12, 2, n_threads=0), ValueError, "n_threads"),
    ("var n_threads=-2", lambda: vcgmm.fit_vargmm(X12, 2, n_threads=-2), ValueError, "n_threads"),
    ("est n_threads=1.5", lambda: vcgmm.VCGMM(2, n_threads=1.5).fit(X12), TypeError,
     "n_threads"),
    ("loop n_threads=0", lambda: vcgmm.VariationalLoop(X12, M2, n_threads=0), ValueError,
     "n_threads"),
    ("vc init='random'", lambda: vcgmm.fit_vcgmm(X12, 2, init="random"), ValueError, "init"),
    ("vc init wrong rows", lambda: vcgmm.fit_vcgmm(X12, 3, init=M2), ValueError, "init"),
    ("var init wrong features", lambda: vcgmm.fit_vargmm(X12, 2, init=np.zeros((2, 4))),
     ValueError, "init"),
    ("var init nan", lambda: vcgmm.fit_vargmm(X12, 2, init=np.full((2, 3), np.nan)), ValueError,
     "init"),
    ("est init 1-D", lambda: vcgmm.VCGMM(2, init=np.zeros(3)).fit(X12), ValueError, "init"),
    ("est init strings", lambda: vcgmm.VCGMM(1, init=np.array([["a", "b", "c"]])).fit(X12),
     TypeError, "init"),
    ("loop means wrong features", lambda: vcgmm.VariationalLoop(X12, np.zeros((2, 4))),
     ValueError, "means"),
    ("loop means nan", lambda: vcgmm.VariationalLoop(X12, np.full((2, 3), np.nan)), ValueError,
     "means"),
    ("loop means 1-D", lambda: vcgmm.VariationalLoop(X12, np.zeros(3)), ValueError, "means"),
    ("loop means empty", lambda: vcgmm.VariationalLoop(X12, np.zeros((0, 3))), ValueError,
     "means"),
    ("loop more means than points", lambda: vcgmm.VariationalLoop(X12[:2], np.zeros((3, 3))),
     ValueError, "means"),
    ("random_state='x'", lambda: vcgmm.fit_vcgmm(X12, 2, random_state="x"), ValueError,
     "random_state|seed"),
]


@pytest.mark.parametrize("desc,call,exc,name", BAD_PARAMS, ids=[p[0] for p in BAD_PARAMS])
def test_bad_parameters_raise(desc, call, exc, name):
    with pytest.raises(exc, match=name):
        call()


def test_loop_steps_in_the_wrong_order_raise():
    loop = vcgmm.VariationalLoop(X12, M2, G=2)
    with pytest.raises(ValueError, match="e_step"):
        loop.free_energy()  # needs sigma^2, known only after the first E-step
    with pytest.raises(ValueError, match="e_step"):
        loop.m_step()  # needs responsibilities
    assert loop.sigma2 == 0.0
    loop.e_step()
    assert np.isfinite(loop.free_energy())
    loop.m_step()
    assert np.isfinite(loop.free_energy())


# ----------------------------------------------------------------------------
# Degenerate but valid input
# ----------------------------------------------------------------------------


def _em_reference(X, mu, n_iter):
    """Exact EM for the isotropic equal-weight GMM (eq. 12 start), float64."""
    N, D = X.shape
    sigma2 = cdist(X, mu, "sqeuclidean").min(axis=1).sum() / (N * D)
    for _ in range(n_iter):
        logp = -cdist(X, mu, "sqeuclidean") / (2 * sigma2)
        s = np.exp(logp - logsumexp(logp, axis=1, keepdims=True))
        mu = (s.T @ X) / s.sum(axis=0)[:, None]
        sigma2 = np.sum(s * cdist(X, mu, "sqeuclidean")) / (N * D)
    return mu, sigma2


def test_G_larger_than_C_is_clamped_and_exact_em():
    X = np.random.default_rng(3).standard_normal((200, 2)) * 2
    mu0 = X[:4] + 0.05
    ref_mu, ref_s2 = _em_reference(X, mu0, 5)
    big = vcgmm.fit_vargmm(X, 4, G=25, init=mu0, max_iter=5, tol=0)
    exact = vcgmm.fit_vargmm(X, 4, G=4, init=mu0, max_iter=5, tol=0)
    np.testing.assert_array_equal(big.centers, exact.centers)
    np.testing.assert_allclose(big.centers, ref_mu, rtol=0, atol=1e-10)
    np.testing.assert_allclose(big.sigma2, ref_s2, rtol=1e-10)
    # 4 distances per point and E-step: every cluster, nothing more.
    np.testing.assert_array_equal(big.estep_distance_evals, 200 * 4)
    loop = vcgmm.VariationalLoop(X, mu0, G=25)
    assert loop.G == 4 and loop.truncation_sets.shape == (200, 4)
    assert loop.neighbourhoods.shape == (4, 4)
    gmm = vcgmm.VCGMM(4, G=25, coreset_size=None, init=mu0, max_iter=5, tol=0).fit(X)
    assert gmm.G_ == 4
    np.testing.assert_array_equal(gmm.cluster_centers_, exact.centers)
    # vc-GMM with G > C too (exact EM on the coreset).
    r = vcgmm.fit_vcgmm(X, 4, G=7, n_prime=150, random_state=0)
    assert r.centers.shape == (4, 2) and np.all(np.isfinite(r.centers))


@pytest.mark.parametrize("value", [0.0, 3.25, -1e6])
def test_zero_variance_data_works(value):
    X = np.full((50, 4), value)
    for r in (
        vcgmm.fit_vcgmm(X, 3, n_prime=40, random_state=0, return_labels=True),
        vcgmm.fit_vargmm(X, 3, random_state=0, return_labels=True),
        vcgmm.fit_vargmm(X, 1, random_state=0, return_labels=True),
    ):
        assert np.isfinite(r.sigma2) and r.sigma2 >= 0
        np.testing.assert_allclose(r.centers, value, rtol=1e-12, atol=0)
        assert np.all(np.isfinite(r.free_energy)) and np.all(np.isfinite(r.centers))
        assert np.isfinite(r.quantization_error) and r.quantization_error >= 0
        assert r.labels.min() >= 0 and r.labels.max() < r.centers.shape[0]
    with pytest.warns(ConvergenceWarning, match="distinct"):
        gmm = vcgmm.VCGMM(3, random_state=0).fit(X)
    assert np.isfinite(gmm.sigma2_) and gmm.sigma2_ >= 0
    assert not np.any(np.isnan(gmm.score_samples(X)))
    P = gmm.predict_proba(X).toarray()
    assert not np.any(np.isnan(P))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


@pytest.mark.parametrize("value", [0.0, 3.25, -1e6])
def test_zero_variance_data_free_energy_is_non_decreasing(value):
    # The documented property "free energy non-decreasing up to rounding"
    # must survive degenerate data. (A regression test: means once came back
    # 1 ulp off constant data, and with sigma^2 floored at 1e-300 that
    # rounding turned into F = -2e271.)
    X = np.full((50, 4), value)
    for r in (
        vcgmm.fit_vcgmm(X, 3, n_prime=40, random_state=0),
        vcgmm.fit_vargmm(X, 3, random_state=0),
    ):
        F = r.free_energy
        assert np.all(np.diff(F) >= -1e-9 * np.abs(F[1:])), F


def test_duplicate_points_more_clusters_than_distinct_points():
    rng = np.random.default_rng(0)
    distinct = rng.standard_normal((4, 3)) + 10
    X = distinct[rng.integers(0, 4, 60)]
    for C in (6, 10):
        for r in (
            vcgmm.fit_vcgmm(X, C, random_state=0, return_labels=True),
            vcgmm.fit_vargmm(X, C, random_state=0, return_labels=True),
            vcgmm.fit_vargmm(X, C, G=2, plus1=True, random_state=1, return_labels=True),
        ):
            assert r.centers.shape == (C, 3)
            assert np.all(np.isfinite(r.centers)) and np.all(np.isfinite(r.free_energy))
            assert np.isfinite(r.sigma2) and r.sigma2 > 0
            # Every distinct point got a mean on it.
            assert r.quantization_error <= 1e-20
            assert np.unique(r.labels).size == 4
        with pytest.warns(ConvergenceWarning, match="distinct"):
            gmm = vcgmm.VCGMM(C, random_state=0).fit(X)
        assert np.all(np.isfinite(gmm.score_samples(X)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        vcgmm.VCGMM(4, random_state=0).fit(X)  # C == distinct points: no warning


def test_one_cluster_is_the_weighted_mean_and_variance():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 3)) * [1.0, 2.0, 3.0] + 5.0
    w = rng.integers(1, 5, 300).astype(np.float64)
    D = X.shape[1]

    def moments(Y, v):
        mean = np.average(Y, axis=0, weights=v)
        return mean, np.average(((Y - mean) ** 2).sum(axis=1), weights=v) / D

    mean, var = moments(X, w)
    r = vcgmm.fit_vargmm(X, 1, sample_weight=w, random_state=0)
    np.testing.assert_allclose(r.centers[0], mean, rtol=1e-13)
    np.testing.assert_allclose(r.sigma2, var, rtol=1e-12)
    # F of the last E-step is the exact Gaussian log-likelihood at the
    # fitted parameters (they no longer change after the first M-step).
    ll = np.sum(w * (-((X - mean) ** 2).sum(1) / (2 * var) - D / 2 * np.log(2 * np.pi * var)))
    np.testing.assert_allclose(r.free_energy[-1], ll, rtol=1e-12)
    # Iteration 1 starts from a data point, iteration 2 from the exact
    # moments, iteration 3 changes nothing: converged.
    assert r.n_iter == 3 and r.converged and r.free_energy[2] == r.free_energy[1]

    # vc-GMM: the same on its weighted coreset.
    r = vcgmm.fit_vcgmm(X, 1, n_prime=500, sample_weight=w, random_state=0)
    cmean, cvar = moments(X[r.coreset_indices], r.coreset_weights)
    np.testing.assert_allclose(r.centers[0], cmean, rtol=1e-13)
    np.testing.assert_allclose(r.sigma2, cvar, rtol=1e-12)

    gmm = vcgmm.VCGMM(1, coreset_size=None, random_state=0).fit(X, sample_weight=w)
    np.testing.assert_allclose(gmm.cluster_centers_[0], mean, rtol=1e-13)
    np.testing.assert_array_equal(gmm.labels_, 0)
    np.testing.assert_allclose(gmm.predict_proba(X[:5]).toarray(), 1.0)
    assert gmm.G_ == 1


# ----------------------------------------------------------------------------
# Valid input in other forms
# ----------------------------------------------------------------------------


def _results(X, w=None):
    """Outputs of every vc-GMM entry point on X (fixed seeds), for comparisons."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        out = {}
        r = vcgmm.fit_vcgmm(X, 3, G=2, n_prime=40, sample_weight=w, random_state=0,
                            return_labels=True)
        out.update({"vc.centers": r.centers, "vc.sigma2": r.sigma2, "vc.F": r.free_energy,
                    "vc.labels": r.labels, "vc.coreset": r.coreset_indices})
        r = vcgmm.fit_vargmm(X, 3, G=2, plus1=True, sample_weight=w, random_state=0,
                             return_labels=True)
        out.update({"var.centers": r.centers, "var.sigma2": r.sigma2, "var.F": r.free_energy,
                    "var.labels": r.labels})
        gmm = vcgmm.VCGMM(3, G=2, random_state=0).fit(X, sample_weight=w)
        out.update({"est.centers": gmm.cluster_centers_, "est.labels": gmm.labels_,
                    "est.score": gmm.score_samples(X)})
        loop = vcgmm.VariationalLoop(X, np.asarray(X, np.float64)[[0, 5, 9]], G=2,
                                     sample_weight=w, random_state=0)
        fit = loop.fit()
        out.update({"loop.means": loop.means, "loop.F": fit["free_energy"]})
        return out


def _assert_same(a, b, rtol=None):
    assert a.keys() == b.keys()
    for k in a:
        x, y = np.asarray(a[k]), np.asarray(b[k])
        if rtol is None or x.dtype.kind in "iu":
            assert x.dtype == y.dtype and np.array_equal(x, y), k
        else:
            np.testing.assert_allclose(x, y, rtol=rtol, atol=0, err_msg=k)


@pytest.fixture(scope="module")
def base_X():
    return np.random.default_rng(1).standard_normal((60, 8))


@pytest.mark.parametrize("view", ["columns ::2", "rows ::2", "fortran", "negative stride"])
def test_views_and_fortran_order_give_same_result(base_X, view):
    big = np.random.default_rng(2).standard_normal((120, 16))
    X = {
        "columns ::2": big[:60, ::2],
        "rows ::2": big[::2, :8],
        "fortran": np.asfortranarray(base_X),
        "negative stride": base_X[::-1],
    }[view]
    assert not X.flags.c_contiguous
    w = np.random.default_rng(3).uniform(0.5, 2, X.shape[0])
    w_view = np.repeat(w, 2)[::2]
    _assert_same(_results(X), _results(np.ascontiguousarray(X)))
    _assert_same(_results(X, w_view), _results(np.ascontiguousarray(X), w), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.int64, np.int32, np.uint8, np.bool_])
def test_other_numeric_dtypes_become_float64(dtype):
    rng = np.random.default_rng(4)
    if dtype is np.bool_:
        X = rng.integers(0, 2, size=(60, 8)).astype(bool)
    elif dtype is np.float16:
        X = rng.standard_normal((60, 8)).astype(np.float16)
    else:
        X = rng.integers(0, 10, size=(60, 8)).astype(dtype)
    res = _results(X)
    _assert_same(res, _results(X.astype(np.float64)))
    assert res["vc.centers"].dtype == np.float64
    assert res["est.centers"].dtype == np.float64
    assert res["loop.means"].dtype == np.float64


def test_float32_stays_float32(base_X):
    X = base_X.astype(np.float32)
    res = _results(X)
    for key in ("vc.centers", "var.centers", "est.centers", "loop.means"):
        assert res[key].dtype == np.float32, key
    assert isinstance(res["vc.sigma2"], float)


def test_lists_are_accepted(base_X):
    _assert_same(_results(base_X.tolist()), _results(base_X))


def test_loop_keeps_its_data_alive():
    # The loop references X (a temporary C-contiguous copy of a strided view
    # here) and the weights; they must live as long as the loop does.
    big = np.random.default_rng(6).standard_normal((400, 6))
    loop = vcgmm.VariationalLoop(big[::2, ::2], big[:5, ::2], G=2,
                                 sample_weight=np.linspace(1, 2, 400)[::2], random_state=0)
    ref = vcgmm.VariationalLoop(np.ascontiguousarray(big[::2, ::2]), big[:5, ::2], G=2,
                                sample_weight=np.linspace(1, 2, 400)[::2].copy(), random_state=0)
    gc.collect()
    np.full((200, 3), 1e6)  # reuse freed memory, should anything have been freed
    for lp in (loop, ref):
        lp.e_step()
        lp.m_step()
    np.testing.assert_array_equal(loop.means, ref.means)
    assert loop.free_energy() == ref.free_energy()
