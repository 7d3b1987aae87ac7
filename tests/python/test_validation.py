"""Bad input gets a clear exception naming the argument; odd-but-valid input
(other dtypes, views, Fortran order, memory maps) gives the same result as
the plain C-contiguous float64 array."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import vcgmm

N_FEATURES = 3


def _centers(n_features=N_FEATURES):
    """Two valid centers with n_features columns."""
    return np.arange(2 * n_features, dtype=np.float64).reshape(2, n_features) / 7.0


def _n_features(X):
    # Valid centers for X's column count, so only X itself is at fault.
    return np.shape(X)[-1] if np.ndim(X) >= 1 else N_FEATURES


# Every public entry point that takes data, called with its other arguments valid.
CALLS = {
    "KMeans.fit": lambda X: vcgmm.KMeans(2, random_state=0).fit(X),
    "KMeans.fit_predict": lambda X: vcgmm.KMeans(2, random_state=0).fit_predict(X),
    "lwcs": lambda X: vcgmm.lwcs(X, 5, random_state=0),
    "kmeans_plusplus": lambda X: vcgmm.kmeans_plusplus(X, 2, random_state=0),
    "afkmc2": lambda X: vcgmm.afkmc2(X, 2, random_state=0),
    "quantization_error": lambda X: vcgmm.quantization_error(X, _centers(_n_features(X))),
    "assign": lambda X: vcgmm.assign(X, _centers(_n_features(X))),
    "lloyd": lambda X: vcgmm.lloyd(X, _centers(_n_features(X))),
}

# Entry points that take sample weights: f(X, w).
WEIGHTED_CALLS = {
    "KMeans.fit": lambda X, w: vcgmm.KMeans(2, random_state=0).fit(X, sample_weight=w),
    "KMeans.fit+coreset": lambda X, w: vcgmm.KMeans(
        2, coreset_size=10, init="afk-mc2", random_state=0
    ).fit(X, sample_weight=w),
    "KMeans.score": lambda X, w: vcgmm.KMeans(2, random_state=0).fit(X).score(X, sample_weight=w),
    "lwcs": lambda X, w: vcgmm.lwcs(X, 5, sample_weight=w, random_state=0),
    "kmeans_plusplus": lambda X, w: vcgmm.kmeans_plusplus(X, 2, sample_weight=w, random_state=0),
    "afkmc2": lambda X, w: vcgmm.afkmc2(X, 2, sample_weight=w, random_state=0),
    "quantization_error": lambda X, w: vcgmm.quantization_error(X, _centers(), w),
    "lloyd": lambda X, w: vcgmm.lloyd(X, _centers(), sample_weight=w),
}


def _good_X(n=12, seed=0):
    return np.random.default_rng(seed).standard_normal((n, N_FEATURES))


def _with(value, where=(3, 1)):
    X = _good_X()
    X[where] = value
    return X


def _string_object_array():
    X = _good_X().astype(object)
    X[2, 2] = "7.5"
    return X


def _dict_object_array():
    X = np.empty((12, N_FEATURES), dtype=object)
    for i in range(12):
        for j in range(N_FEATURES):
            X[i, j] = {"value": i + j}
    return X


BAD_X = {
    "nan": (_with(np.nan), ValueError, "NaN"),
    "inf": (_with(np.inf), ValueError, "infinity"),
    "-inf": (_with(-np.inf), ValueError, "infinity"),
    "no rows": (np.empty((0, N_FEATURES)), ValueError, "0 sample"),
    "no features": (np.empty((12, 0)), ValueError, "0 feature"),
    "1-D": (np.arange(12.0), ValueError, "2D array"),
    "3-D": (np.zeros((4, 3, 3)), ValueError, "dim"),
    "scalar": (np.float64(3.0), ValueError, "2D array"),
    "strings": (np.array([["1", "2", "3"]] * 12), TypeError, "string"),
    "object strings": (_string_object_array(), TypeError, "string"),
    "complex": (_good_X() + 1j, TypeError, "complex"),
    "object dicts": (_dict_object_array(), (TypeError, ValueError), "dict"),
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


def test_weights_as_list_and_scalar_are_accepted():
    X = _good_X()
    w = list(np.arange(1.0, 13.0))
    np.testing.assert_allclose(
        vcgmm.quantization_error(X, _centers(), w),
        vcgmm.quantization_error(X, _centers(), np.asarray(w)),
    )
    np.testing.assert_allclose(
        vcgmm.quantization_error(X, _centers(), 2.0), 2.0 * vcgmm.quantization_error(X, _centers())
    )


# ----------------------------------------------------------------------------
# Parameters
# ----------------------------------------------------------------------------

X12 = _good_X()

BAD_PARAMS = [
    # (description, call, exception, name in the message)
    ("n_clusters=0", lambda: vcgmm.KMeans(0).fit(X12), ValueError, "n_clusters"),
    ("n_clusters=-1", lambda: vcgmm.KMeans(-1).fit(X12), ValueError, "n_clusters"),
    ("n_clusters>n", lambda: vcgmm.KMeans(13).fit(X12), ValueError, "n_clusters"),
    ("n_clusters=2.5", lambda: vcgmm.KMeans(2.5).fit(X12), TypeError, "n_clusters"),
    ("n_clusters='2'", lambda: vcgmm.KMeans("2").fit(X12), TypeError, "n_clusters"),
    ("n_clusters=True", lambda: vcgmm.KMeans(True).fit(X12), TypeError, "n_clusters"),
    ("kmpp n_clusters=0", lambda: vcgmm.kmeans_plusplus(X12, 0), ValueError, "n_clusters"),
    ("kmpp n_clusters>n", lambda: vcgmm.kmeans_plusplus(X12, 13), ValueError, "n_clusters"),
    ("kmpp n_clusters=2.5", lambda: vcgmm.kmeans_plusplus(X12, 2.5), TypeError, "n_clusters"),
    ("afk n_clusters=0", lambda: vcgmm.afkmc2(X12, 0), ValueError, "n_clusters"),
    ("afk n_clusters>n", lambda: vcgmm.afkmc2(X12, 13), ValueError, "n_clusters"),
    ("afk n_clusters=2.5", lambda: vcgmm.afkmc2(X12, 2.5), TypeError, "n_clusters"),
    ("lwcs n_prime=0", lambda: vcgmm.lwcs(X12, 0), ValueError, "n_prime"),
    ("lwcs n_prime=-3", lambda: vcgmm.lwcs(X12, -3), ValueError, "n_prime"),
    ("lwcs n_prime=2.5", lambda: vcgmm.lwcs(X12, 2.5), TypeError, "n_prime"),
    ("coreset<C", lambda: vcgmm.KMeans(4, coreset_size=3).fit(X12), ValueError, "coreset_size"),
    ("coreset>4N", lambda: vcgmm.KMeans(2, coreset_size=49).fit(X12), ValueError, "coreset_size"),
    ("coreset=2.5", lambda: vcgmm.KMeans(2, coreset_size=2.5).fit(X12), TypeError, "coreset_size"),
    ("tol=-1", lambda: vcgmm.KMeans(2, tol=-1).fit(X12), ValueError, "tol"),
    ("tol=nan", lambda: vcgmm.KMeans(2, tol=np.nan).fit(X12), ValueError, "tol"),
    ("tol='a'", lambda: vcgmm.KMeans(2, tol="a").fit(X12), TypeError, "tol"),
    ("lloyd tol=-1", lambda: vcgmm.lloyd(X12, _centers(), tol=-1), ValueError, "tol"),
    ("max_iter=0", lambda: vcgmm.KMeans(2, max_iter=0).fit(X12), ValueError, "max_iter"),
    ("max_iter=1.5", lambda: vcgmm.KMeans(2, max_iter=1.5).fit(X12), TypeError, "max_iter"),
    ("lloyd max_iter=0", lambda: vcgmm.lloyd(X12, _centers(), max_iter=0), ValueError, "max_iter"),
    ("chain_length=0", lambda: vcgmm.KMeans(2, init="afk-mc2", chain_length=0).fit(X12),
     ValueError, "chain_length"),
    ("afk chain_length=0", lambda: vcgmm.afkmc2(X12, 2, chain_length=0), ValueError, "chain_length"),
    ("afk chain_length=2.5", lambda: vcgmm.afkmc2(X12, 2, chain_length=2.5), TypeError,
     "chain_length"),
    ("n_local_trials=0", lambda: vcgmm.kmeans_plusplus(X12, 2, n_local_trials=0), ValueError,
     "n_local_trials"),
    ("n_local_trials='best'", lambda: vcgmm.kmeans_plusplus(X12, 2, n_local_trials="best"),
     TypeError, "n_local_trials"),
    ("KMeans n_local_trials=0", lambda: vcgmm.KMeans(2, n_local_trials=0).fit(X12), ValueError,
     "n_local_trials"),
    ("n_threads=0", lambda: vcgmm.KMeans(2, n_threads=0).fit(X12), ValueError, "n_threads"),
    ("n_threads=-2", lambda: vcgmm.KMeans(2, n_threads=-2).fit(X12), ValueError, "n_threads"),
    ("n_threads=1.5", lambda: vcgmm.KMeans(2, n_threads=1.5).fit(X12), TypeError, "n_threads"),
    ("lwcs n_threads=0", lambda: vcgmm.lwcs(X12, 3, n_threads=0), ValueError, "n_threads"),
    ("assign n_threads=0", lambda: vcgmm.assign(X12, _centers(), n_threads=0), ValueError,
     "n_threads"),
    ("qe n_threads=0", lambda: vcgmm.quantization_error(X12, _centers(), n_threads=0), ValueError,
     "n_threads"),
    ("relocate_empty='yes'", lambda: vcgmm.KMeans(2, relocate_empty="yes").fit(X12), TypeError,
     "relocate_empty"),
    ("init='random'", lambda: vcgmm.KMeans(2, init="random").fit(X12), ValueError, "init"),
    ("init wrong rows", lambda: vcgmm.KMeans(3, init=_centers()).fit(X12), ValueError, "init"),
    ("init wrong features", lambda: vcgmm.KMeans(2, init=np.zeros((2, 4))).fit(X12), ValueError,
     "init"),
    ("init 1-D", lambda: vcgmm.KMeans(2, init=np.zeros(3)).fit(X12), ValueError, "init"),
    ("init nan", lambda: vcgmm.KMeans(2, init=np.full((2, 3), np.nan)).fit(X12), ValueError,
     "init"),
    ("centers nan", lambda: vcgmm.assign(X12, np.full((2, 3), np.nan)), ValueError, "centers"),
    ("centers wrong features", lambda: vcgmm.quantization_error(X12, np.zeros((2, 4))), ValueError,
     "centers"),
    ("centers 1-D", lambda: vcgmm.lloyd(X12, np.zeros(3)), ValueError, "centers"),
    ("centers empty", lambda: vcgmm.assign(X12, np.zeros((0, 3))), ValueError, "centers"),
    ("centers strings", lambda: vcgmm.assign(X12, np.array([["a", "b", "c"]])), TypeError,
     "centers"),
    ("lloyd more centers than points", lambda: vcgmm.lloyd(X12[:2], np.zeros((3, 3))), ValueError,
     "centers"),
    ("random_state='x'", lambda: vcgmm.lwcs(X12, 3, random_state="x"), ValueError, "random_state|seed"),
]


@pytest.mark.parametrize("desc,call,exc,name", BAD_PARAMS, ids=[p[0] for p in BAD_PARAMS])
def test_bad_parameters_raise(desc, call, exc, name):
    with pytest.raises(exc, match=name):
        call()


def test_predict_checks():
    km = vcgmm.KMeans(2, random_state=0)
    with pytest.raises(NotFittedError):
        km.predict(X12)
    km.fit(X12)
    with pytest.raises(ValueError, match="features"):
        km.predict(np.zeros((5, 4)))
    with pytest.raises(ValueError, match="NaN"):
        km.transform(_with(np.nan))
    with pytest.raises(TypeError):
        km.score(np.array([["a", "b", "c"]]))


# ----------------------------------------------------------------------------
# Valid input in other forms
# ----------------------------------------------------------------------------


def _results(X, w=None):
    """Outputs of every entry point on X (fixed seeds), for comparisons."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        km = vcgmm.KMeans(3, random_state=0).fit(X, sample_weight=w)
        kmc = vcgmm.KMeans(3, init="afk-mc2", coreset_size=40, random_state=0).fit(X, sample_weight=w)
        C = np.asarray(X, np.float64)[[0, 5, 9]]
        return {
            "KMeans.centers": km.cluster_centers_,
            "KMeans.labels": km.labels_,
            "KMeans.inertia": km.inertia_,
            "KMeans coreset.centers": kmc.cluster_centers_,
            "lwcs": vcgmm.lwcs(X, 30, sample_weight=w, random_state=0),
            "kmeans_plusplus": vcgmm.kmeans_plusplus(X, 3, sample_weight=w, random_state=0),
            "afkmc2": vcgmm.afkmc2(X, 3, sample_weight=w, random_state=0),
            "quantization_error": vcgmm.quantization_error(X, C, w),
            "assign": vcgmm.assign(X, C),
            "lloyd": vcgmm.lloyd(X, C, sample_weight=w)[0],
        }


def _assert_same(a, b, rtol=None):
    """Bit-identical outputs (or, with rtol, equal up to rounding)."""
    assert a.keys() == b.keys()
    for k in a:
        va, vb = a[k], b[k]
        pairs = zip(va, vb) if isinstance(va, tuple) else [(va, vb)]
        for x, y in pairs:
            if rtol is None or np.asarray(x).dtype.kind in "iu":
                assert np.array_equal(x, y), k
            else:
                np.testing.assert_allclose(x, y, rtol=rtol, atol=0, err_msg=k)


@pytest.fixture(scope="module")
def base_X():
    return np.random.default_rng(1).standard_normal((60, 8))


@pytest.mark.parametrize(
    "view",
    ["columns ::2", "rows ::2", "fortran", "transposed view", "negative stride"],
)
def test_views_and_fortran_order_give_same_result(base_X, view):
    big = np.random.default_rng(2).standard_normal((120, 16))
    X = {
        "columns ::2": big[:60, ::2],
        "rows ::2": big[::2, :8],
        "fortran": np.asfortranarray(base_X),
        "transposed view": np.ascontiguousarray(base_X.T).T,
        "negative stride": base_X[::-1],
    }[view]
    assert not X.flags.c_contiguous
    w = np.random.default_rng(3).uniform(0.5, 2, X.shape[0])
    w_view = np.repeat(w, 2)[::2]
    _assert_same(_results(X), _results(np.ascontiguousarray(X)))
    # Weighted: equal up to rounding here; bit-identity of weighted results
    # is the subject of test_results_do_not_depend_on_memory_alignment.
    _assert_same(_results(X, w_view), _results(np.ascontiguousarray(X), w), rtol=1e-12)


def _at_offset(a, offset, keep):
    """A C-contiguous copy of `a` starting `offset` bytes after a 64-byte
    boundary (numpy itself only guarantees 16-byte alignment)."""
    buf = np.empty(a.nbytes + 128, np.uint8)
    keep.append(buf)
    start = (-buf.ctypes.data) % 64 + offset
    out = buf[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    assert out.ctypes.data % 64 == offset
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_results_do_not_depend_on_memory_alignment(dtype):
    # Equal inputs must give bit-identical outputs wherever numpy happened to
    # allocate them; a vectorised reduction that peels to the first aligned
    # element sums in an address-dependent order and breaks this.
    rng = np.random.default_rng(8)
    X = rng.standard_normal((3000, 13)).astype(dtype)
    w = rng.uniform(0.5, 2.0, 3000)
    keep = []
    ref = _results(_at_offset(X, 0, keep), _at_offset(w, 0, keep))
    for x_off, w_off in [(0, 8), (0, 16), (0, 32), (16, 0), (32, 0), (16, 48)]:
        res = _results(_at_offset(X, x_off, keep), _at_offset(w, w_off, keep))
        _assert_same(res, ref)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_, np.float16, object])
def test_other_numeric_dtypes_become_float64(dtype):
    rng = np.random.default_rng(4)
    if dtype is np.bool_:
        X = rng.integers(0, 2, size=(60, 8)).astype(bool)
    elif dtype is object:
        X = rng.integers(0, 10, size=(60, 8)).astype(object)
    else:
        X = rng.integers(0, 10, size=(60, 8)).astype(dtype)
    res = _results(X)
    ref = _results(X.astype(np.float64))
    _assert_same(res, ref)
    assert res["KMeans.centers"].dtype == np.float64
    assert res["kmeans_plusplus"][0].dtype == np.float64
    assert res["lloyd"].dtype == np.float64
    km = vcgmm.KMeans(3, random_state=0).fit(X)
    assert km.transform(X).dtype == np.float64


def test_lists_are_accepted(base_X):
    _assert_same(_results(base_X.tolist()), _results(base_X))


def test_float32_stays_float32(base_X):
    X = base_X.astype(np.float32)
    res = _results(X)
    assert res["KMeans.centers"].dtype == np.float32
    assert res["KMeans coreset.centers"].dtype == np.float32
    assert res["kmeans_plusplus"][0].dtype == np.float32
    assert res["afkmc2"][0].dtype == np.float32
    assert res["lloyd"].dtype == np.float32
    km = vcgmm.KMeans(3, random_state=0).fit(X)
    # float64 input to predict uses the float32 centers' values.
    np.testing.assert_array_equal(km.predict(X.astype(np.float64)), km.labels_)


def test_readonly_memmap_is_accepted(base_X, tmp_path):
    path = tmp_path / "X.dat"
    mm = np.memmap(path, dtype=np.float64, mode="w+", shape=base_X.shape)
    mm[:] = base_X
    mm.flush()
    del mm
    ro = np.memmap(path, dtype=np.float64, mode="r", shape=base_X.shape)
    assert not ro.flags.writeable
    _assert_same(_results(ro), _results(base_X))
    ro32 = np.memmap(tmp_path / "X32.dat", dtype=np.float32, mode="w+", shape=base_X.shape)
    ro32[:] = base_X
    ro32.flush()
    ro32 = np.memmap(tmp_path / "X32.dat", dtype=np.float32, mode="r", shape=base_X.shape)
    _assert_same(_results(ro32), _results(base_X.astype(np.float32)))


def test_readonly_weights_and_centers_are_accepted(base_X):
    w = np.random.default_rng(5).uniform(0.5, 2, 60)
    C = base_X[:4].copy()
    w.flags.writeable = False
    C.flags.writeable = False
    c, _ = vcgmm.lloyd(base_X, C, sample_weight=w)
    assert c.flags.writeable
    assert vcgmm.quantization_error(base_X, C, w) > 0


def test_zero_variance_data():
    X = np.full((50, 4), 3.25)
    w = np.random.default_rng(6).uniform(0.5, 2, 50)
    idx, gamma = vcgmm.lwcs(X, 200, sample_weight=w, random_state=0)
    np.testing.assert_allclose(gamma, w.sum() / 200)
    for seeding in (vcgmm.kmeans_plusplus, vcgmm.afkmc2):
        centers, _ = seeding(X, 1, random_state=0)
        np.testing.assert_array_equal(centers, X[:1])
        with pytest.warns(UserWarning):
            centers, _ = seeding(X, 3, sample_weight=w, random_state=0)
        np.testing.assert_array_equal(centers, X[:3])
    assert vcgmm.quantization_error(X, X[:2]) == 0.0
    np.testing.assert_array_equal(vcgmm.assign(X, X[:3]), np.zeros(50))
    c, info = vcgmm.lloyd(X, X[:3] + 1.0)
    assert np.all(np.isfinite(c))
    assert info["objective"][-1] == 0.0
    with pytest.warns(ConvergenceWarning):
        km = vcgmm.KMeans(3, random_state=0).fit(X)
    assert km.inertia_ == 0.0 and np.all(np.isfinite(km.cluster_centers_))
    with pytest.warns(ConvergenceWarning):
        km = vcgmm.KMeans(2, init="afk-mc2", coreset_size=10, random_state=0).fit(X, sample_weight=w)
    # A weighted mean of equal values is that value up to rounding.
    np.testing.assert_allclose(km.cluster_centers_, 3.25, rtol=1e-15, atol=0)
    assert 0.0 <= km.inertia_ < 1e-25
    km = vcgmm.KMeans(1, random_state=0).fit(X)
    np.testing.assert_array_equal(km.cluster_centers_, X[:1])


def test_single_sample_and_single_feature():
    X = np.array([[2.0, -1.0]])
    km = vcgmm.KMeans(1).fit(X)
    np.testing.assert_array_equal(km.cluster_centers_, X)
    assert km.inertia_ == 0.0
    X1 = np.random.default_rng(7).standard_normal((40, 1))
    km = vcgmm.KMeans(3, random_state=0).fit(X1)
    assert km.cluster_centers_.shape == (3, 1)
