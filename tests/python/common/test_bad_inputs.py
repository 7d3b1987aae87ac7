"""Every public entry point against one table of bad input (``_bad_inputs.py``):
bad data, sample weights, centers and parameter values each raise the right
exception (TypeError: wrong type; ValueError: wrong value) with a message
naming the argument. Odd-but-valid input (other dtypes, views, Fortran order,
memory maps, alignment, degenerate data, C = 1, G > C) works and gives the
result of the plain C-contiguous float64 array or of a numpy reference.
"""

from __future__ import annotations

import gc
import inspect
import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import vcgmm
from _bad_inputs import (
    BAD_CENTERS,
    BAD_FIT_WEIGHTS,
    BAD_WEIGHTS,
    BAD_X,
    ENTRY_POINTS,
    FITTED_METHODS,
    N_CLUSTERS,
    N_SAMPLES,
    STOCHASTIC,
    bad_values,
    entry_points,
    fits_clusters,
    good_X,
    parameter_cases,
    valid_centers,
)
from vcgmm._base.validation import as_data
from vcgmm._kernel.kernel_kmeans import KERNEL_KMEANS_PARAMS
from vcgmm._kmeans.kmeans import KMEANS_PARAMS
from vcgmm._stochastic.minibatch import MBATCH_PARAMS
from vcgmm._stochastic.nmbatch import NMBATCH_PARAMS
from vcgmm._vcgmm.params import VCGMM_PARAMS
from vcgmm._stochastic.vrkm import VRKM_PARAMS


def _names(message, name):
    """Whether the message names the argument (as a word, not inside another)."""
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", message) is not None


# ----------------------------------------------------------------------------
# The table covers the public API
# ----------------------------------------------------------------------------


def test_every_public_entry_point_is_in_the_table():
    functions = {name for name in vcgmm.__all__
                 if inspect.isfunction(getattr(vcgmm, name))
                 # no data argument; load's bad files: test_persistence.py
                 and name not in ("cancel_all", "show_build", "default_coreset_size", "load")}
    classes = {"VariationalLoop"}
    assert functions | classes <= set(ENTRY_POINTS)
    for est in ("KMeans", "VCGMM", *STOCHASTIC, "KernelKMeans"):
        methods = {m for m in ("fit", "fit_predict", "partial_fit", "predict", "predict_proba",
                               "predict_proba_sparse", "transform", "score", "score_samples",
                               "bic", "aic") if hasattr(getattr(vcgmm, est), m)}
        assert {f"{est}.{m}" for m in methods} <= set(ENTRY_POINTS), est


def test_every_parameter_of_every_table_is_tested():
    cases = parameter_cases()
    tested = {(entry, name) for entry, name, _, _ in cases}
    for entry, table in (("KMeans.fit", KMEANS_PARAMS), ("VCGMM.fit", VCGMM_PARAMS),
                         ("fit_vcgmm", VCGMM_PARAMS), ("MiniBatchKMeans.fit", MBATCH_PARAMS),
                         ("NestedMiniBatchKMeans.fit", NMBATCH_PARAMS),
                         ("VRKMeans.fit", VRKM_PARAMS), ("fit_vrkm", VRKM_PARAMS),
                         ("KernelKMeans.fit", KERNEL_KMEANS_PARAMS),
                         ("fit_kernel_kmeans", KERNEL_KMEANS_PARAMS)):
        for p in table:
            if entry == "fit_vcgmm" and p.name in ("compute_labels", "labels"):
                continue  # refused whatever its value (return_labels instead): test_conventions,
                # test_approx_labels
            assert (entry, p.name) in tested, (entry, p.name)
            kinds = {exc for e, n, _, exc in cases if (e, n) == (entry, p.name)}
            assert TypeError in kinds, (entry, p.name)  # every parameter has a type


def test_bad_values_are_just_outside_the_constraints():
    # The generator itself (it decides what the parameter tests check).
    from vcgmm._base.params import AnyOf, Integer, NoneValue, Options, Real

    assert (0, ValueError) in bad_values(Integer(1, 10))
    assert (11, ValueError) in bad_values(Integer(1, 10))
    assert (1.5, TypeError) in bad_values(Integer(1, 10))
    low = [v for v, e in bad_values(Real(0.0)) if e is ValueError and np.isfinite(v)]
    assert low == [-5e-324]
    assert (0.0, ValueError) in bad_values(Real(0.0, low_open=True))
    # coreset_size: None and 1 are admissible (by NoneValue, Integer), "1" is
    # a string but not an option (ValueError), 1.5 and True no option's type.
    size = {repr(v): e for v, e in bad_values(AnyOf(Options(("auto",)), Integer(1, None),
                                                    NoneValue()))}
    assert "None" not in size and "1" not in size
    assert size["0"] is ValueError and size["'AUTO!'"] is ValueError
    assert size["'1'"] is ValueError
    assert size["1.5"] is TypeError and size["True"] is TypeError


# ----------------------------------------------------------------------------
# Bad data, weights and centers at every entry point that takes them
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", list(BAD_X))
@pytest.mark.parametrize("entry", entry_points("X"))
def test_bad_X_raises(entry, case):
    X, exc, match, names_X = BAD_X[case]
    with pytest.raises(exc, match=match) as info:
        ENTRY_POINTS[entry].run(X=X)
    if names_X:
        assert _names(str(info.value), "X"), str(info.value)


#: Entry points that evaluate a kernel with parameters (found by their
#: ``degree`` parameter, so that a new one is covered).
KERNEL_ENTRIES = sorted(name for name, e in ENTRY_POINTS.items()
                        if "degree" in {param for param, _ in e.params})


@pytest.mark.parametrize("kernel, dtype, match", [
    # (gamma <x, y> + 1)^10 on pixel values reaches ~1e44: beyond float32
    (dict(kernel="poly", degree=10), np.float32, "polynomial kernel.*float32"),
    # degree 200: K(x, x) spans ~1e100, most distances would be rounding
    (dict(kernel="poly", degree=200, gamma=1.0), np.float64, "rounding noise"),
])
@pytest.mark.parametrize("entry", KERNEL_ENTRIES)
def test_kernel_values_beyond_the_data_type_raise(entry, kernel, dtype, match):
    X = np.random.default_rng(0).integers(0, 256, size=(N_SAMPLES, 64)).astype(dtype)
    if dtype == np.float64:
        X = np.random.default_rng(1).standard_normal((N_SAMPLES, 8))
    with pytest.raises(ValueError, match=match):
        ENTRY_POINTS[entry].run(X=X, **kernel)


def test_the_kernel_entry_points_are_found():
    # the table above is not empty by accident (a renamed parameter)
    assert {"KernelKMeans.fit", "fit_kernel_kmeans"} <= set(KERNEL_ENTRIES)


@pytest.mark.parametrize("case", list(BAD_WEIGHTS))
@pytest.mark.parametrize("entry", entry_points("sample_weight"))
def test_bad_sample_weight_raises(entry, case):
    make, exc, match = BAD_WEIGHTS[case]
    X = good_X()
    with pytest.raises(exc, match=match) as info:
        ENTRY_POINTS[entry].run(X=X, sample_weight=make(X.shape[0]))
    assert _names(str(info.value), "sample_weight"), str(info.value)


FIT_WEIGHT_CASES = [(entry, case) for entry in entry_points("sample_weight")
                    for case in BAD_FIT_WEIGHTS if fits_clusters(ENTRY_POINTS[entry])]


@pytest.mark.parametrize("entry,case", FIT_WEIGHT_CASES,
                         ids=[f"{e}-{c}" for e, c in FIT_WEIGHT_CASES])
def test_too_few_positive_sample_weights_raise(entry, case):
    make, exc, match = BAD_FIT_WEIGHTS[case]
    X = good_X()
    with pytest.raises(exc, match=match) as info:
        ENTRY_POINTS[entry].run(X=X, sample_weight=make(X.shape[0]))
    assert _names(str(info.value), "sample_weight"), str(info.value)


CENTER_CASES = [(entry, case) for entry in entry_points("centers") for case in BAD_CENTERS
                if BAD_CENTERS[case][3](ENTRY_POINTS[entry])]


@pytest.mark.parametrize("entry,case", CENTER_CASES, ids=[f"{e}-{c}" for e, c in CENTER_CASES])
def test_bad_centers_raise(entry, case):
    make, exc, match, _ = BAD_CENTERS[case]
    e = ENTRY_POINTS[entry]
    X = good_X()
    with pytest.raises(exc, match=match) as info:
        e.run(X=X, centers=make(X.shape[0], X.shape[1], N_CLUSTERS))
    if case != "object dicts":  # float() fails before any check of ours
        assert _names(str(info.value), e.centers_arg), str(info.value)


# ----------------------------------------------------------------------------
# Bad parameter values, from the parameter tables
# ----------------------------------------------------------------------------

PARAMETER_CASES = parameter_cases()


def _case_id(entry, name, value):
    shown = repr(value)
    if " at 0x" in shown:  # an object: its type (ids must not change between runs)
        shown = type(value).__name__
    return f"{entry} {name}={shown}"


@pytest.mark.parametrize(
    "entry,name,value,exc", PARAMETER_CASES,
    ids=[_case_id(e, n, v) for e, n, v, _ in PARAMETER_CASES])
def test_bad_parameter_values_raise(entry, name, value, exc):
    e = ENTRY_POINTS[entry]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning instead of the error is a failure too
        with pytest.raises(exc) as info:
            e.run(**{name: value})
    message = str(info.value)
    assert _names(message, e.arg_name(name)), message
    assert repr(value) in message, message


X12 = good_X()
M2 = valid_centers(X12)

# Checks that depend on the data or on other arguments (n_samples, C).
BAD_COMBINATIONS = [
    # (description, call, exception, message pattern: names the argument)
    ("KMeans n_clusters>n", lambda: vcgmm.KMeans(13).fit(X12), ValueError,
     r"n_clusters=13 must be <= n_samples=12"),
    ("kmeans_plusplus n_clusters>n", lambda: vcgmm.kmeans_plusplus(X12, 13), ValueError,
     r"n_clusters=13 must be <= n_samples=12"),
    ("afkmc2 n_clusters>n", lambda: vcgmm.afkmc2(X12, 13), ValueError,
     r"n_clusters=13 must be <= n_samples=12"),
    ("VCGMM n_components>n", lambda: vcgmm.VCGMM(13).fit(X12), ValueError,
     r"n_components=13 must be <= n_samples=12"),
    ("fit_vcgmm C>n", lambda: vcgmm.fit_vcgmm(X12, 13), ValueError, r"C=13 must be <= n_samples"),
    ("fit_vargmm C>n", lambda: vcgmm.fit_vargmm(X12, 13), ValueError,
     r"C=13 must be <= n_samples"),
    ("KMeans coreset<C", lambda: vcgmm.KMeans(4, coreset_size=3).fit(X12), ValueError,
     r"coreset_size=3 must be >= the number of clusters \(4\)"),
    ("KMeans coreset>4N", lambda: vcgmm.KMeans(2, coreset_size=49).fit(X12), ValueError,
     r"coreset_size=49 exceeds 4 \* n_samples = 48"),
    ("VCGMM coreset<C", lambda: vcgmm.VCGMM(4, coreset_size=3).fit(X12), ValueError,
     r"coreset_size=3 must be >= the number of clusters \(4\)"),
    ("VCGMM coreset>4N", lambda: vcgmm.VCGMM(2, coreset_size=49).fit(X12), ValueError,
     r"coreset_size=49 exceeds 4 \* n_samples = 48"),
    ("fit_vcgmm coreset<C", lambda: vcgmm.fit_vcgmm(X12, 4, 2, 3), ValueError,
     r"coreset_size=3 must be >= the number of clusters \(4\)"),
    ("fit_vcgmm coreset>4N", lambda: vcgmm.fit_vcgmm(X12, 2, 2, 49), ValueError,
     r"coreset_size=49 exceeds 4 \* n_samples"),
    # n_prime is an alias: the messages use the parameter's name, coreset_size.
    ("fit_vcgmm n_prime<C", lambda: vcgmm.fit_vcgmm(X12, 4, n_prime=3), ValueError,
     r"coreset_size=3 must be >="),
    ("fit_vcgmm n_prime=0", lambda: vcgmm.fit_vcgmm(X12, 2, n_prime=0), ValueError,
     r"coreset_size must be .*got 0"),
    ("fit_vcgmm n_prime=2.5", lambda: vcgmm.fit_vcgmm(X12, 2, n_prime=2.5), TypeError,
     r"coreset_size must be an integer, got 2.5"),
    ("fit_vcgmm n_prime and coreset_size",
     lambda: vcgmm.fit_vcgmm(X12, 2, coreset_size=5, n_prime=5), TypeError, r"n_prime"),
    ("fit_vcgmm unknown keyword", lambda: vcgmm.fit_vcgmm(X12, 2, n_clusters=2), TypeError,
     r"unexpected keyword argument\(s\) n_clusters"),
    ("fit_vcgmm n_components twice", lambda: vcgmm.fit_vcgmm(X12, 2, n_components=2), TypeError,
     r"'n_components' twice"),
    ("fit_vargmm coreset_size", lambda: vcgmm.fit_vargmm(X12, 2, coreset_size=5), TypeError,
     r"fit_vcgmm for a coreset"),
    ("fit_vargmm n_prime", lambda: vcgmm.fit_vargmm(X12, 2, n_prime=5), TypeError,
     r"fit_vcgmm for a coreset"),
    ("VariationalLoop coreset_size", lambda: vcgmm.VariationalLoop(X12, M2, coreset_size=5),
     TypeError, r"unexpected keyword argument\(s\) coreset_size"),
    ("VariationalLoop init", lambda: vcgmm.VariationalLoop(X12, M2, init="afk-mc2"),
     TypeError, r"unexpected keyword argument\(s\) init"),
    ("lwcs coreset_size='auto'", lambda: vcgmm.lwcs(X12, "auto"), TypeError,
     r"coreset_size must be an integer"),
    ("default_coreset_size n_samples=0", lambda: vcgmm.default_coreset_size(0, 2), ValueError,
     r"n_samples must be"),
    ("default_coreset_size n_clusters=2.5", lambda: vcgmm.default_coreset_size(10, 2.5),
     TypeError, r"n_clusters must be an integer"),
    # Kernel k-means: the data decide what is admissible.
    ("KernelKMeans n_clusters>n", lambda: vcgmm.KernelKMeans(13, batch_size=8).fit(X12),
     ValueError, r"n_clusters=13 must be <= n_samples=12"),
    ("KernelKMeans batch_size>n", lambda: vcgmm.KernelKMeans(2, batch_size=13).fit(X12),
     ValueError, r"batch_size=13 must be <= n_samples=12"),
    ("KernelKMeans gamma and kappa", lambda: vcgmm.KernelKMeans(
        2, gamma=1.0, kappa=2.0, batch_size=8).fit(X12), ValueError, r"gamma or kappa"),
    ("KernelKMeans precomputed not square", lambda: vcgmm.KernelKMeans(
        2, kernel="precomputed", batch_size=8).fit(X12), ValueError, r"X must be a square"),
    ("KernelKMeans precomputed not symmetric", lambda: vcgmm.KernelKMeans(
        2, kernel="precomputed", batch_size=8).fit(np.triu(np.ones((12, 12)))), ValueError,
     r"X must be a symmetric kernel matrix"),
    ("KernelKMeans precomputed NaN", lambda: vcgmm.KernelKMeans(
        2, kernel="precomputed", batch_size=8).fit(np.where(np.eye(12) > 0, np.nan, 0.5)),
     ValueError, r"X contains NaN"),
    ("KernelKMeans precomputed predict columns", lambda: vcgmm.KernelKMeans(
        2, kernel="precomputed", batch_size=8, random_state=0).fit(np.eye(12) + 1.0).predict(
        np.ones((3, 11))), ValueError, r"X has 11 features"),
    ("KernelKMeans n_neighbors>=n", lambda: vcgmm.KernelKMeans(
        2, kernel="knn", n_neighbors=12, batch_size=8).fit(X12), ValueError,
     r"n_neighbors=12 must be < n_samples=12"),
    ("KernelKMeans init wrong length", lambda: vcgmm.KernelKMeans(
        2, init=[0, 1, 2], batch_size=8).fit(X12), ValueError, r"init must have shape"),
    ("KernelKMeans init out of range", lambda: vcgmm.KernelKMeans(
        2, init=[0, 12], batch_size=8).fit(X12), ValueError, r"init must hold row indices"),
    ("KernelKMeans init negative", lambda: vcgmm.KernelKMeans(
        2, init=[-1, 3], batch_size=8).fit(X12), ValueError, r"init must hold row indices"),
    ("KernelKMeans init fractions", lambda: vcgmm.KernelKMeans(
        2, init=[0.5, 3.0], batch_size=8).fit(X12), TypeError, r"init must be an array of integer"),
    ("KernelKMeans init strings", lambda: vcgmm.KernelKMeans(
        2, init=["a", "b"], batch_size=8).fit(X12), TypeError, r"init must be an array of integer"),
    ("KernelKMeans graph kernel predict", lambda: vcgmm.KernelKMeans(
        2, kernel="knn", n_neighbors=3, batch_size=8, random_state=0).fit(X12).predict(X12),
     ValueError, r"kernel='knn' is defined on the training points only"),
    ("fit_kernel_kmeans n_clusters twice", lambda: vcgmm.fit_kernel_kmeans(
        X12, 2, n_clusters=2), TypeError, r"multiple values for argument 'n_clusters'"),
    ("fit_kernel_kmeans unknown keyword", lambda: vcgmm.fit_kernel_kmeans(
        X12, 2, n_components=2), TypeError, r"unexpected keyword argument\(s\) n_components"),
]


@pytest.mark.parametrize("desc,call,exc,match", BAD_COMBINATIONS,
                         ids=[c[0] for c in BAD_COMBINATIONS])
def test_bad_combinations_raise(desc, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("entry", sorted(FITTED_METHODS))
def test_methods_need_a_fit_and_the_fitted_features(entry):
    est, method = FITTED_METHODS[entry]
    with pytest.raises(NotFittedError):
        getattr(getattr(vcgmm, est)(N_CLUSTERS), method)(X12)
    with pytest.raises(ValueError, match="features"):
        ENTRY_POINTS[entry].run(X=np.zeros((5, 4)))


def test_weights_as_list_and_scalar_are_accepted():
    w = list(np.arange(1.0, 13.0))
    C = valid_centers(X12)
    assert vcgmm.quantization_error(X12, C, w) == vcgmm.quantization_error(X12, C, np.asarray(w))
    np.testing.assert_allclose(vcgmm.quantization_error(X12, C, 2.0),
                               2.0 * vcgmm.quantization_error(X12, C), rtol=1e-15)


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
# Valid input in other forms: the result of the C-contiguous array
# ----------------------------------------------------------------------------


def _results(X, w=None):
    """Outputs of every entry point on X (fixed seeds, one thread), for comparisons."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = vcgmm.KMeans(3, random_state=0, n_threads=1).fit(X, sample_weight=w)
        kmc = vcgmm.KMeans(3, init="afk-mc2", coreset_size=40, random_state=0,
                           n_threads=1).fit(X, sample_weight=w)
        C = np.asarray(X, np.float64)[[0, 5, 9]]
        out = {
            "KMeans.centers": km.cluster_centers_,
            "KMeans.labels": km.labels_,
            "KMeans.inertia": km.inertia_,
            "KMeans.transform": km.transform(X),
            "KMeans coreset.centers": kmc.cluster_centers_,
            "lwcs": vcgmm.lwcs(X, 30, sample_weight=w, random_state=0, n_threads=1),
            "kmeans_plusplus": vcgmm.kmeans_plusplus(X, 3, sample_weight=w, random_state=0,
                                                     n_threads=1),
            "afkmc2": vcgmm.afkmc2(X, 3, sample_weight=w, random_state=0, n_threads=1),
            "quantization_error": vcgmm.quantization_error(X, C, w, n_threads=1),
            "assign": vcgmm.assign(X, C, n_threads=1),
            "lloyd": vcgmm.lloyd(X, C, sample_weight=w, n_threads=1)[0],
        }
        r = vcgmm.fit_vcgmm(X, 3, G=2, coreset_size=40, sample_weight=w, random_state=0,
                            n_threads=1, return_labels=True)
        out.update({"vc.centers": r.centers, "vc.sigma2": r.sigma2, "vc.F": r.free_energy,
                    "vc.labels": r.labels, "vc.coreset": r.coreset_indices})
        r = vcgmm.fit_vargmm(X, 3, G=2, plus1=True, sample_weight=w, random_state=0,
                             n_threads=1, return_labels=True)
        out.update({"var.centers": r.centers, "var.sigma2": r.sigma2, "var.F": r.free_energy,
                    "var.labels": r.labels})
        gmm = vcgmm.VCGMM(3, G=2, random_state=0, n_threads=1).fit(X, sample_weight=w)
        out.update({"est.centers": gmm.cluster_centers_, "est.labels": gmm.labels_,
                    "est.score_samples": gmm.score_samples(X),
                    "est.predict_proba": gmm.predict_proba(X),
                    "est.predict_proba_sparse": gmm.predict_proba_sparse(X).toarray()})
        loop = vcgmm.VariationalLoop(X, C, G=2, sample_weight=w, random_state=0, n_threads=1)
        fit = loop.fit()
        out.update({"loop.means": loop.means, "loop.F": fit["free_energy"]})
        return out


def _assert_same(a, b, rtol=None):
    """Bit-identical outputs of the same dtype (or, with rtol, equal up to rounding)."""
    assert a.keys() == b.keys()
    for k in a:
        va, vb = a[k], b[k]
        pairs = zip(va, vb) if isinstance(va, tuple) else [(va, vb)]
        for x, y in pairs:
            x, y = np.asarray(x), np.asarray(y)
            if rtol is None or x.dtype.kind in "iu":
                assert x.dtype == y.dtype and np.array_equal(x, y), k
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


def _numeric(dtype):
    rng = np.random.default_rng(4)
    if dtype is np.bool_:
        return rng.integers(0, 2, size=(60, 8)).astype(bool)
    if dtype is np.float16:
        return rng.standard_normal((60, 8)).astype(np.float16)
    return rng.integers(0, 10, size=(60, 8)).astype(dtype)


# Small types float32 holds exactly are computed as float32 (half the memory of
# float64); every other numeric type as float64.
@pytest.mark.parametrize("dtype, computed", [
    *[(t, np.float64) for t in (np.int64, np.int32, object)],
    *[(t, np.float32) for t in (np.float16, np.uint8, np.int8, np.uint16, np.int16, np.bool_)],
])
def test_other_numeric_dtypes_are_computed_in_float32_or_float64(dtype, computed):
    X = _numeric(dtype)
    res = _results(X)
    _assert_same(res, _results(X.astype(computed)))
    for key in ("KMeans.centers", "KMeans.transform", "lloyd", "vc.centers", "est.centers",
                "loop.means"):
        assert res[key].dtype == computed, key
    assert res["kmeans_plusplus"][0].dtype == computed


def test_float16_input_is_copied_once_into_float32():
    # One float32 copy (twice X's bytes), never a float64 one (four times).
    import tracemalloc

    X = np.random.default_rng(5).standard_normal((200_000, 16)).astype(np.float16)
    tracemalloc.start()
    try:
        out = as_data(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, X.astype(np.float32))
    assert peak < 2.2 * X.nbytes, peak / X.nbytes


def test_lists_are_accepted(base_X):
    _assert_same(_results(base_X.tolist()), _results(base_X))


def test_float32_stays_float32(base_X):
    X = base_X.astype(np.float32)
    res = _results(X)
    for key in ("KMeans.centers", "KMeans coreset.centers", "lloyd", "vc.centers",
                "var.centers", "est.centers", "loop.means"):
        assert res[key].dtype == np.float32, key
    assert res["kmeans_plusplus"][0].dtype == np.float32
    assert res["afkmc2"][0].dtype == np.float32
    assert isinstance(res["vc.sigma2"], float)
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
    r = vcgmm.fit_vargmm(base_X, 4, G=2, init=C, sample_weight=w, random_state=0)
    assert r.centers.flags.writeable
    loop = vcgmm.VariationalLoop(base_X, C, G=2, sample_weight=w, random_state=0)
    loop.e_step()
    loop.m_step()


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


# ----------------------------------------------------------------------------
# Degenerate but valid input
# ----------------------------------------------------------------------------


def test_zero_variance_data_kmeans():
    X = np.full((50, 4), 3.25)
    w = np.random.default_rng(6).uniform(0.5, 2, 50)
    idx, gamma = vcgmm.lwcs(X, 200, sample_weight=w, random_state=0)
    np.testing.assert_allclose(gamma, w.sum() / 200)
    for seeding in (vcgmm.kmeans_plusplus, vcgmm.afkmc2):
        centers, _ = seeding(X, 1, random_state=0)
        np.testing.assert_array_equal(centers, X[:1])
        with pytest.warns(UserWarning, match="distinct"):
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
        km = vcgmm.KMeans(2, init="afk-mc2", coreset_size=10, random_state=0).fit(
            X, sample_weight=w)
    # A weighted mean of equal values is that value up to rounding.
    np.testing.assert_allclose(km.cluster_centers_, 3.25, rtol=1e-15, atol=0)
    assert 0.0 <= km.inertia_ < 1e-25
    km = vcgmm.KMeans(1, random_state=0).fit(X)
    np.testing.assert_array_equal(km.cluster_centers_, X[:1])


@pytest.mark.parametrize("value", [0.0, 3.25, -1e6])
def test_zero_variance_data_vcgmm(value):
    X = np.full((50, 4), value)
    for r in (
        vcgmm.fit_vcgmm(X, 3, G=3, coreset_size=40, random_state=0, return_labels=True),
        vcgmm.fit_vargmm(X, 3, G=2, random_state=0, return_labels=True),
        vcgmm.fit_vargmm(X, 1, G=1, random_state=0, return_labels=True),
    ):
        assert np.isfinite(r.sigma2) and r.sigma2 >= 0
        np.testing.assert_allclose(r.centers, value, rtol=1e-12, atol=0)
        assert np.all(np.isfinite(r.free_energy)) and np.all(np.isfinite(r.centers))
        assert np.isfinite(r.inertia) and r.inertia >= 0
        assert r.labels.min() >= 0 and r.labels.max() < r.centers.shape[0]
        # "Free energy non-decreasing up to rounding" survives degenerate data.
        # (A regression test: means once came back 1 ulp off constant data,
        # and with sigma^2 floored at 1e-300 that rounding turned into
        # F = -2e271.)
        F = r.free_energy
        assert np.all(np.diff(F) >= -1e-9 * np.abs(F[1:])), F
    with pytest.warns(ConvergenceWarning, match="distinct"):
        gmm = vcgmm.VCGMM(3, G=3, random_state=0).fit(X)
    assert np.isfinite(gmm.sigma2_) and gmm.sigma2_ >= 0
    assert not np.any(np.isnan(gmm.score_samples(X)))
    P = gmm.predict_proba(X)
    assert not np.any(np.isnan(P))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_single_sample_and_single_feature():
    X = np.array([[2.0, -1.0]])
    km = vcgmm.KMeans(1).fit(X)
    np.testing.assert_array_equal(km.cluster_centers_, X)
    assert km.inertia_ == 0.0
    gmm = vcgmm.VCGMM(1, G=1, random_state=0).fit(X)
    np.testing.assert_array_equal(gmm.cluster_centers_, X)
    assert np.isfinite(gmm.sigma2_) and np.all(np.isfinite(gmm.score_samples(X)))
    X1 = np.random.default_rng(7).standard_normal((40, 1))
    km = vcgmm.KMeans(3, random_state=0).fit(X1)
    assert km.cluster_centers_.shape == (3, 1)
    r = vcgmm.fit_vcgmm(X1, 3, G=2, random_state=0)
    assert r.centers.shape == (3, 1) and np.all(np.isfinite(r.centers))


def test_G_larger_than_C_is_clamped_with_a_warning_and_exact_em(reference_em):
    X = np.random.default_rng(3).standard_normal((200, 2)) * 2
    mu0 = X[:4] + 0.05
    _, ref_mu, ref_s2 = reference_em(X, mu0, 5)[-1]
    with pytest.warns(UserWarning, match=r"G=25 exceeds the number of components \(4\)"):
        big = vcgmm.fit_vargmm(X, 4, G=25, init=mu0, max_iter=5, tol=0, refine=0)
    exact = vcgmm.fit_vargmm(X, 4, G=4, init=mu0, max_iter=5, tol=0, refine=0)
    assert big.G == exact.G == 4
    np.testing.assert_array_equal(big.centers, exact.centers)
    np.testing.assert_allclose(big.centers, ref_mu, rtol=0, atol=1e-10)
    np.testing.assert_allclose(big.sigma2, ref_s2, rtol=1e-10)
    # 4 distances per point and E-step: every cluster, nothing more.
    np.testing.assert_array_equal(big.estep_distance_evals, 200 * 4)
    loop = vcgmm.VariationalLoop(X, mu0, G=25)
    assert loop.G == 4 and loop.truncation_sets.shape == (200, 4)
    assert loop.neighbourhoods.shape == (4, 4)
    with pytest.warns(UserWarning, match="clamped"):
        gmm = vcgmm.VCGMM(4, G=25, coreset_size=None, init=mu0, max_iter=5, tol=0,
                          refine=0).fit(X)
    assert gmm.G_ == 4 and gmm.get_params()["G"] == 25
    np.testing.assert_array_equal(gmm.cluster_centers_, exact.centers)
    # vc-GMM with G > C too (exact EM on the coreset; a G asked for, not the
    # default, which is clamped silently).
    assert vcgmm.VCGMM().G != 9
    with pytest.warns(UserWarning, match="clamped"):
        r = vcgmm.fit_vcgmm(X, 4, 9, 150, random_state=0)
    assert r.G == 4 and r.centers.shape == (4, 2) and np.all(np.isfinite(r.centers))
    # G == C is exact EM as asked for: no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vcgmm.fit_vargmm(X, 4, G=4, init=mu0, max_iter=2)


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
            assert r.inertia <= 1e-20
            assert np.unique(r.labels).size == 4
        with pytest.warns(ConvergenceWarning, match="distinct"):
            gmm = vcgmm.VCGMM(C, random_state=0).fit(X)
        assert np.all(np.isfinite(gmm.score_samples(X)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        vcgmm.VCGMM(4, G=4, random_state=0).fit(X)  # C == distinct points: no warning


def test_one_cluster_is_the_weighted_mean_and_variance():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 3)) * [1.0, 2.0, 3.0] + 5.0
    w = rng.integers(1, 5, 300).astype(np.float64)
    D = X.shape[1]

    def moments(Y, v):
        mean = np.average(Y, axis=0, weights=v)
        return mean, np.average(((Y - mean) ** 2).sum(axis=1), weights=v) / D

    mean, var = moments(X, w)
    r = vcgmm.fit_vargmm(X, 1, G=1, sample_weight=w, random_state=0)
    np.testing.assert_allclose(r.centers[0], mean, rtol=1e-13)
    np.testing.assert_allclose(r.sigma2, var, rtol=1e-12)
    # F of the last E-step is the exact Gaussian log-likelihood at the
    # fitted parameters (they no longer change after the first M-step).
    ll = np.sum(w * (-((X - mean) ** 2).sum(1) / (2 * var) - D / 2 * np.log(2 * np.pi * var)))
    np.testing.assert_allclose(r.free_energy[-1], ll, rtol=1e-12)
    # Iteration 1 starts from a data point, iteration 2 from the exact
    # moments, iteration 3 changes nothing: converged.
    assert r.n_iter == 3 and r.converged and r.free_energy[2] == r.free_energy[1]
    assert r.G == 1

    # vc-GMM: the same on its weighted coreset (the papers' loop) ...
    r = vcgmm.fit_vcgmm(X, 1, 1, 500, sample_weight=w, random_state=0, data_steps=0)
    cmean, cvar = moments(X[r.coreset_indices], r.coreset_weights)
    np.testing.assert_allclose(r.centers[0], cmean, rtol=1e-13)
    np.testing.assert_allclose(r.sigma2, cvar, rtol=1e-12)
    # ... and with the default data step the mean of all points, the
    # variance the coreset's spread about it
    r = vcgmm.fit_vcgmm(X, 1, 1, 500, sample_weight=w, random_state=0)
    Y, v = X[r.coreset_indices], r.coreset_weights
    np.testing.assert_allclose(r.centers[0], mean, rtol=1e-13)
    np.testing.assert_allclose(
        r.sigma2, np.average(((Y - mean) ** 2).sum(axis=1), weights=v) / D, rtol=1e-12)

    gmm = vcgmm.VCGMM(1, G=1, coreset_size=None, random_state=0).fit(X, sample_weight=w)
    np.testing.assert_allclose(gmm.cluster_centers_[0], mean, rtol=1e-13)
    np.testing.assert_array_equal(gmm.labels_, 0)
    np.testing.assert_allclose(gmm.predict_proba(X[:5]), 1.0)
    np.testing.assert_allclose(gmm.predict_proba_sparse(X[:5]).toarray(), 1.0)
    assert gmm.G_ == 1


# -- the value check (finite and within the overflow limit) -------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_count_outside_matches_numpy(dtype):
    from vcgmm._base.loader import core
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1000, 211)).astype(dtype)  # 211,000 values: four tasks
    flat = x.reshape(-1)
    for at, value in [(0, np.nan), (70_000, np.inf), (140_001, -np.inf), (210_999, 9.0)]:
        flat[at] = value
    for limit in (4.0, 2.5, 0.1):
        expected = int(np.count_nonzero(~(np.abs(flat) <= limit)))
        assert core.count_outside(flat, limit) == expected
        assert core.count_outside(x, limit) == expected  # any shape, C order
    assert core.count_outside(np.array([-4.0, 4.0], dtype=dtype), 4.0) == 0  # the limit is inside


def test_count_outside_takes_no_copies():
    from vcgmm._base.loader import core
    with pytest.raises(TypeError):
        core.count_outside(np.arange(6), 1.0)  # integers: no conversion
    with pytest.raises(TypeError):
        core.count_outside(np.ones((4, 6))[:, ::2], 1.0)  # not contiguous: no copy


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_value_check_without_blas(dtype, order, monkeypatch):
    # The check must not call BLAS: a BLAS call wakes the BLAS library's
    # thread pool, which then spins beside the core's threads (measured:
    # index builds 1.6x slower, spikes to 5x).
    from vcgmm._base import validation as _validation

    def no_blas(*args, **kwargs):
        raise AssertionError("the value check called np.dot")

    monkeypatch.setattr(_validation.np, "dot", no_blas)
    X = np.asarray(np.random.default_rng(0).normal(size=(300, 5)), dtype=dtype, order=order)
    assert _validation.check_finite_magnitude(X) is X
    X[17, 3] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN \(first at row 17, column 3\)"):
        _validation.check_finite_magnitude(X)
    X[17, 3] = np.inf
    with pytest.raises(ValueError, match=r"X contains infinity \(first at row 17, column 3\)"):
        _validation.check_finite_magnitude(X)
    limit = float(np.sqrt(float(np.finfo(dtype).max) / (_validation._OVERFLOW_MARGIN * 4.0 * 5)))
    X[17, 3] = np.nextafter(dtype(limit), dtype(0))  # just inside
    assert _validation.check_finite_magnitude(X) is X
    X[17, 3] = -2 * limit
    with pytest.raises(ValueError, match="Rescale"):
        _validation.check_finite_magnitude(X)


def test_float16_chunks_and_dask_blocks_are_computed_in_float32():
    X = np.random.default_rng(6).standard_normal((3000, 5)).astype(np.float16)
    parts16 = [X[:1000], X[1000:]]
    parts32 = [p.astype(np.float32) for p in parts16]
    a = vcgmm.fit_vcgmm(parts16, 4, 3, 500, random_state=0, n_threads=1)
    b = vcgmm.fit_vcgmm(parts32, 4, 3, 500, random_state=0, n_threads=1)
    assert a.centers.dtype == np.float32
    np.testing.assert_array_equal(a.centers, b.centers)
    da = pytest.importorskip("dask.array")
    from vcgmm._data.dask_source import as_dask_rows

    assert as_dask_rows(da.from_array(X, chunks=(1000, 5))).dtype == np.float32
