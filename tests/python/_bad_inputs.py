"""The one table of bad input for the whole library (used by test_validation.py).

- ``BAD_X``, ``BAD_WEIGHTS``, ``BAD_CENTERS``: bad data, sample weights and
  centers (``centers`` / ``init`` / ``means``), each with the exception type
  and a pattern of its message;
- ``BAD_CHUNKS``: bad chunked data (lists of chunks), applied to every entry
  point of ``CHUNK_ENTRY_POINTS`` (those taking chunked data);
- ``ENTRY_POINTS``: every public entry point, what input it takes (data,
  weights, centers) and which parameters, so that every table is applied to
  every entry point that takes that input;
- ``bad_values(constraint)``: values just outside a parameter's constraint of
  the library's parameter tables (``vcgmm._kmeans.kmeans.KMEANS_PARAMS``,
  ``vcgmm._vcgmm.params.VCGMM_PARAMS``), so a new parameter is tested automatically.

A new entry point gets one :class:`EntryPoint` below; a new kind of
constraint gets its bad values in :func:`bad_values` (an unknown kind fails
the test suite instead of being skipped).
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
import scipy.sparse as sp

import vcgmm
from vcgmm._blocks.approximate import APPROXIMATE_PARAMS
from vcgmm._kernel.kernel_kmeans import KERNEL_KMEANS_PARAMS, IndexInit
from vcgmm._kmeans.kmeans import KMEANS_PARAMS
from vcgmm._stochastic.minibatch import MBATCH_PARAMS
from vcgmm._stochastic.nmbatch import NMBATCH_PARAMS
from vcgmm._base.params import (
    INT32_MAX,
    AnyOf,
    Boolean,
    Integer,
    NoneValue,
    Options,
    Real,
)
from vcgmm._base.run import Callback, RandomState, Threads
from vcgmm._blocks.seeding import InitConstraint
from vcgmm._vcgmm.params import VCGMM_PARAMS
from vcgmm._stochastic.vrkm import VRKM_PARAMS

N_SAMPLES = 12
N_FEATURES = 3
#: Clusters of the valid calls (C = 2 <= every coreset and sample count used).
N_CLUSTERS = 2


def good_X(n=N_SAMPLES, seed=0):
    """Valid data: n x N_FEATURES standard normal float64."""
    return np.random.default_rng(seed).standard_normal((n, N_FEATURES))


def _n_features(X):
    """X's column count when it has one (> 0), else N_FEATURES: valid centers
    for X, so that only X is at fault."""
    shape = np.shape(X)
    return shape[-1] if len(shape) >= 1 and shape[-1] > 0 else N_FEATURES


def valid_centers(X, n_rows=N_CLUSTERS):
    """n_rows valid centers with X's column count (distinct, finite)."""
    d = _n_features(X)
    return np.arange(n_rows * d, dtype=np.float64).reshape(n_rows, d) / 7.0


# ----------------------------------------------------------------------------
# Bad data X: (value, exception, message pattern)
# ----------------------------------------------------------------------------


def _with(value, where=(3, 1)):
    X = good_X()
    X[where] = value
    return X


def _string_object_array():
    X = good_X().astype(object)
    X[2, 2] = "7.5"
    return X


def _dict_object_array(shape=(N_SAMPLES, N_FEATURES)):
    X = np.empty(shape, dtype=object)
    for i in range(shape[0]):
        for j in range(shape[1]):
            X[i, j] = {"value": i + j}
    return X


#: The shape checks are scikit-learn's (check_array), whose messages do not
#: name the argument; an object array of non-numbers fails in float().
#: Every other message must name X (last element: True).
BAD_X = {
    "nan": (_with(np.nan), ValueError, "NaN", True),
    "inf": (_with(np.inf), ValueError, "infinity", True),
    "-inf": (_with(-np.inf), ValueError, "infinity", True),
    "overflowing squares": (_with(1e200), ValueError, "Rescale", True),
    "no rows": (np.empty((0, N_FEATURES)), ValueError, "0 sample", False),
    "no features": (np.empty((N_SAMPLES, 0)), ValueError, "0 feature", False),
    "1-D": (np.arange(12.0), ValueError, "2D array", False),
    "3-D": (np.zeros((4, 3, 3)), ValueError, "dim", False),
    "scalar": (np.float64(3.0), ValueError, "2D array", False),
    "strings": (np.array([["1", "2", "3"]] * N_SAMPLES), TypeError, "string", True),
    "object strings": (_string_object_array(), TypeError, "string", True),
    "complex": (good_X() + 1j, TypeError, "complex", True),
    "object dicts": (_dict_object_array(), (TypeError, ValueError), "dict", False),
    "datetime": (np.zeros((N_SAMPLES, 3), dtype="datetime64[s]"), TypeError, "datetime", True),
    "sparse": (sp.random(N_SAMPLES, 3, density=0.5, format="csr", random_state=0), TypeError,
               "sparse", True),
}

# ----------------------------------------------------------------------------
# Bad sample weights: (make(n_samples), exception, message pattern)
# ----------------------------------------------------------------------------

BAD_WEIGHTS = {
    "negative": (lambda n: -np.ones(n), ValueError, "non-negative"),
    "one negative": (lambda n: np.r_[np.ones(n - 1), -1e-300], ValueError, "non-negative"),
    "all zero": (lambda n: np.zeros(n), ValueError, "no positive entry"),
    "scalar zero": (lambda n: 0.0, ValueError, "no positive entry"),
    "subnormal": (lambda n: np.r_[np.ones(n - 1), 1e-310], ValueError, "too small"),
    "nan": (lambda n: np.r_[np.ones(n - 1), np.nan], ValueError, "finite"),
    "inf": (lambda n: np.r_[np.ones(n - 1), np.inf], ValueError, "finite"),
    "overflowing sum": (lambda n: np.full(n, 1e308), ValueError, "too large"),
    "too short": (lambda n: np.ones(n - 1), ValueError, "shape"),
    "too long": (lambda n: np.ones(n + 1), ValueError, "shape"),
    "2-D": (lambda n: np.ones((n, 1)), ValueError, "shape"),
    "strings": (lambda n: np.array(["1"] * n), TypeError, "string"),
    "complex": (lambda n: np.ones(n) + 1j, TypeError, "complex"),
    "sparse": (lambda n: sp.csr_matrix(np.ones((1, n))), TypeError, "sparse"),
}

#: Weights bad only for an entry point that fits clusters (``fits_clusters``):
#: zero entries are allowed (those points are ignored), but fewer positive
#: entries than clusters (N_CLUSTERS = 2) leave too few points to fit.
#: VariationalLoop refuses every zero weight (it reports per-row state).
BAD_FIT_WEIGHTS = {
    "one positive": (lambda n: np.r_[np.zeros(n - 1), 1.0], ValueError,
                     r"1 positive entry|strictly positive in VariationalLoop"),
}

#: Entry points that take sample_weight but fit no clusters: they take
#: weights with a single positive entry.
NOT_FITTING_CLUSTERS = frozenset({"lwcs", "quantization_error", "assign_approximate",
                                  "ApproximateIndex.assign"})


def fits_clusters(entry):
    """Whether the entry point fits N_CLUSTERS clusters or centers to X."""
    return entry.name not in NOT_FITTING_CLUSTERS and not entry.name.endswith(".score")


# ----------------------------------------------------------------------------
# Bad centers: (make(n_samples, n_features, n_rows), exception, message
# pattern, applies(entry point)). Every message must also name the argument
# (centers, init or means), except for the object array of non-numbers.
# ----------------------------------------------------------------------------


def _centers_with(value):
    def make(n, d, k):
        c = valid_centers(np.empty((1, d)), k)
        c[-1, -1] = value
        return c
    return make


def _always(entry):
    return True


BAD_CENTERS = {
    "nan": (_centers_with(np.nan), ValueError, "NaN", _always),
    "inf": (_centers_with(np.inf), ValueError, "infinity", _always),
    "overflowing squares": (_centers_with(1e200), ValueError, "Rescale", _always),
    "wrong features": (lambda n, d, k: np.zeros((k, d + 1)), ValueError, "features", _always),
    "1-D": (lambda n, d, k: np.zeros(d), ValueError, "2D array", _always),
    "3-D": (lambda n, d, k: np.zeros((k, d, 2)), ValueError, "dim", _always),
    "no rows": (lambda n, d, k: np.zeros((0, d)), ValueError, "0 sample", _always),
    "strings": (lambda n, d, k: np.array([["a"] * d] * k), TypeError, "string", _always),
    "complex": (lambda n, d, k: np.zeros((k, d)) + 1j, TypeError, "complex", _always),
    "object dicts": (lambda n, d, k: _dict_object_array((k, d)), (TypeError, ValueError),
                     "dict", _always),
    "sparse": (lambda n, d, k: sp.csr_matrix(np.ones((k, d))), TypeError, "sparse", _always),
    # Initial centers of a pipeline: one per cluster.
    "rows != n_clusters": (lambda n, d, k: valid_centers(np.empty((1, d)), k + 1), ValueError,
                           "rows", lambda entry: entry.centers_are_init),
    # Centers a fit starts from: at most one per point.
    "more rows than points": (lambda n, d, k: valid_centers(np.empty((1, d)), n + 1),
                              ValueError, "rows", lambda entry: entry.centers_start_a_fit),
}

# ----------------------------------------------------------------------------
# Bad parameter values, from the parameter tables' constraints
# ----------------------------------------------------------------------------


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _is_real(v):
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _type_ok(constraint, v):
    """Whether v is of a type the constraint takes (then a rejection of v is
    a ValueError, otherwise a TypeError): the rule the tests hold the library to."""
    if isinstance(constraint, Integer):
        return _is_int(v)
    if isinstance(constraint, Real):
        return _is_real(v)
    if isinstance(constraint, Boolean):
        return isinstance(v, (bool, np.bool_))
    if isinstance(constraint, Options):
        return isinstance(v, str)
    if isinstance(constraint, NoneValue):
        return v is None
    if isinstance(constraint, AnyOf):
        return any(_type_ok(c, v) for c in constraint.options)
    if isinstance(constraint, Threads):
        return v is None or _is_int(v)
    if isinstance(constraint, RandomState):
        return v is None or _is_int(v) or isinstance(v, np.random.RandomState)
    if isinstance(constraint, (InitConstraint, IndexInit)):
        return isinstance(v, str) or hasattr(v, "__len__") or hasattr(v, "__array__")
    if isinstance(constraint, Callback):
        return v is None or callable(v)
    raise AssertionError(f"unknown constraint {constraint!r}: teach _bad_inputs about it")


def _own_bad_values(constraint):
    """(value, exception type) just outside one (non-AnyOf) constraint."""
    c = constraint
    if isinstance(c, Integer):
        low = 0 if c.low is None else c.low
        out = [(low + 0.5, TypeError), (str(low), TypeError), (True, TypeError),
               (None, TypeError)]
        if c.low is not None:
            out.append((c.low - 1, ValueError))
        # beyond the core's 64-bit range where the constraint sets no bound
        out.append((c.high + 1 if c.high is not None else 2**63, ValueError))
        if c.low is None:
            out.append((-(2**63) - 1, ValueError))
        return out
    if isinstance(c, Real):
        out = [(math.nan, ValueError), (-math.inf, ValueError),
               ("0.5", TypeError), (True, TypeError), (None, TypeError)]
        if not (c.allow_inf and c.high is None):
            out.append((math.inf, ValueError))
        if c.low is not None:
            out.append((float(c.low if c.low_open else np.nextafter(c.low, -np.inf)),
                        ValueError))
        if c.high is not None:
            out.append((float(c.high if c.high_open else np.nextafter(c.high, np.inf)),
                        ValueError))
        return out
    if isinstance(c, Boolean):
        return [(1, TypeError), (0, TypeError), ("True", TypeError), (None, TypeError)]
    if isinstance(c, Options):
        return [(c.values[0].upper() + "!", ValueError), ("", ValueError), (1, TypeError),
                (None, TypeError)]
    if isinstance(c, NoneValue):
        return []
    if isinstance(c, Threads):
        return [(0, ValueError), (-2, ValueError), (INT32_MAX + 1, ValueError),
                (1.5, TypeError), ("2", TypeError), (True, TypeError)]
    if isinstance(c, RandomState):
        return [(-1, ValueError), (2**32, ValueError), ("x", TypeError), (1.5, TypeError),
                (True, TypeError), (np.random.default_rng(0), TypeError)]
    if isinstance(c, Callback):
        return [(3, TypeError), ("print", TypeError), ([print], TypeError)]
    if isinstance(c, (InitConstraint, IndexInit)):
        return [("uniform", ValueError), ("K-MEANS++", ValueError), (3, TypeError),
                (None, TypeError)]
    raise AssertionError(f"unknown constraint {c!r}: teach _bad_inputs about it")


def _in_range(constraint, v):
    """For v of a type the constraint takes: whether v is admissible."""
    c = constraint
    if isinstance(c, Integer):
        return c.accepts(v)
    if isinstance(c, Options):
        return v in c.values
    if isinstance(c, NoneValue):
        return True
    if isinstance(c, Real):
        return c.accepts(v)
    raise AssertionError(f"_in_range does not know {c!r} inside AnyOf")


def bad_values(constraint):
    """(value, exception type): values just outside ``constraint``, each
    with the exception it must raise (TypeError: no admissible value has its
    type; ValueError: the type is right, the value is not)."""
    if not isinstance(constraint, AnyOf):
        return _own_bad_values(constraint)
    out, seen = [], set()
    for option in constraint.options:
        for value, _ in _own_bad_values(option):
            key = (type(value), repr(value))
            if key in seen:
                continue
            admissible = [c for c in constraint.options if _type_ok(c, value)]
            if any(_in_range(c, value) for c in admissible):
                continue  # bad for one option, fine for another
            seen.add(key)
            out.append((value, ValueError if admissible else TypeError))
    return out


# ----------------------------------------------------------------------------
# Entry points
# ----------------------------------------------------------------------------


def _run_kw(params, **defaults):
    """The keyword arguments of a call: valid defaults, overridden by params."""
    return {**defaults, **params}


#: The k-means estimators of the stochastic family (their first argument: n_clusters).
STOCHASTIC = ("MiniBatchKMeans", "NestedMiniBatchKMeans", "VRKMeans")


#: Mini-batch size of the valid kernel k-means calls (<= N_SAMPLES).
KERNEL_BATCH = 8


@functools.lru_cache(maxsize=None)
def fitted(kind):
    """A fitted estimator on good_X() (cached: methods do not change it)."""
    if kind == "KMeans" or kind in STOCHASTIC:
        return getattr(vcgmm, kind)(N_CLUSTERS, random_state=0, n_threads=1).fit(good_X())
    if kind == "KernelKMeans":
        return vcgmm.KernelKMeans(N_CLUSTERS, batch_size=KERNEL_BATCH, max_iter=5,
                                  random_state=0, n_threads=1).fit(good_X())
    return vcgmm.VCGMM(N_CLUSTERS, G=N_CLUSTERS, random_state=0, n_threads=1).fit(good_X())


@dataclass(frozen=True)
class EntryPoint:
    """A public entry point called with valid arguments except those given.

    ``run(X=None, sample_weight=None, centers=None, **params)``: X None means
    ``good_X()``; centers None means valid centers (or the default seeding
    for a pipeline's ``init``); params are keyword parameters, by their
    name in the parameter tables (``n_components`` for ``fit_vcgmm``'s ``C``).
    """

    name: str
    call: Callable
    inputs: frozenset
    centers_arg: Optional[str] = None
    centers_are_init: bool = False
    centers_start_a_fit: bool = False
    #: (name, constraint) of every parameter it validates.
    params: tuple = ()
    #: Names the user writes for table names (e.g. {"n_components": "C"}).
    arg_names: dict = field(default_factory=dict)

    def run(self, X=None, sample_weight=None, centers=None, **params):
        X = good_X() if X is None else X
        if centers is None and self.centers_arg is not None and not self.centers_are_init:
            centers = valid_centers(X)
        return self.call(X, sample_weight, centers, params)

    def arg_name(self, name):
        return self.arg_names.get(name, name)

    def __repr__(self):  # pytest ids
        return self.name


def _table_params(table, exclude=()):
    return tuple((p.name, p.constraint) for p in table if p.name not in exclude)


def _signature_params(function, overrides=()):
    """(name, constraint) of every keyword of function that a table knows,
    the constraint from KMEANS_PARAMS (else VCGMM_PARAMS), or overridden."""
    overrides = dict(overrides)
    out = []
    for name in inspect.signature(function).parameters:
        if name in overrides:
            out.append((name, overrides[name]))
        elif name in KMEANS_PARAMS:
            out.append((name, KMEANS_PARAMS[name].constraint))
        elif name in VCGMM_PARAMS:
            out.append((name, VCGMM_PARAMS[name].constraint))
    return tuple(out)


RETURN_LABELS = (("return_labels", Boolean()),)
#: The variational loop takes the EM parameters of VCGMM (their core target
#: is in ``em``) and the run parameters.
LOOP_PARAMS = tuple(
    (p.name, p.constraint) for p in VCGMM_PARAMS
    if (p.target or "").startswith("em.") or p.name in ("n_threads", "random_state", "verbose"))


def _init_kw(centers):
    return {} if centers is None else {"init": centers}


def _kmeans(X, w, c, p, method="fit", **extra):
    est = vcgmm.KMeans(**_run_kw(p, n_clusters=N_CLUSTERS, random_state=0, n_threads=1,
                                 **extra, **_init_kw(c)))
    return getattr(est, method)(X, sample_weight=w)


def _vcgmm_est(X, w, c, p, method="fit", **extra):
    est = vcgmm.VCGMM(**_run_kw(p, n_components=N_CLUSTERS, G=N_CLUSTERS, random_state=0,
                                n_threads=1,
                                **extra, **_init_kw(c)))
    return getattr(est, method)(X, sample_weight=w)


def _fit_vcgmm(X, w, c, p, **extra):
    p = _run_kw(p, **extra)
    C = p.pop("n_components", N_CLUSTERS)
    return vcgmm.fit_vcgmm(X, C, sample_weight=w,
                           **_run_kw(p, G=N_CLUSTERS, random_state=0, n_threads=1),
                           **_init_kw(c))


def _fit_vargmm(X, w, c, p):
    p = dict(p)
    C = p.pop("n_components", N_CLUSTERS)
    return vcgmm.fit_vargmm(X, C, sample_weight=w,
                            **_run_kw(p, G=N_CLUSTERS, random_state=0, n_threads=1),
                            **_init_kw(c))


def _stochastic(kind, method="fit"):
    def call(X, w, c, p):
        est = getattr(vcgmm, kind)(**_run_kw(p, n_clusters=N_CLUSTERS, random_state=0,
                                             n_threads=1, **_init_kw(c)))
        return getattr(est, method)(X, sample_weight=w)
    return call


def _stochastic_function(name):
    def call(X, w, c, p):
        p = dict(p)
        C = p.pop("n_clusters", N_CLUSTERS)
        return getattr(vcgmm, name)(X, C, sample_weight=w,
                                    **_run_kw(p, random_state=0, n_threads=1), **_init_kw(c))
    return call


def _stochastic_entries():
    """The entry points of MiniBatchKMeans, NestedMiniBatchKMeans, VRKMeans and
    fit_mbatch, fit_nmbatch, fit_vrkm."""
    tables = {"MiniBatchKMeans": (MBATCH_PARAMS, "fit_mbatch"),
              "NestedMiniBatchKMeans": (NMBATCH_PARAMS, "fit_nmbatch"),
              "VRKMeans": (VRKM_PARAMS, "fit_vrkm")}
    out = []
    for kind, (table, function) in tables.items():
        out += [
            EntryPoint(f"{kind}.fit", _stochastic(kind), frozenset({_X, _W, _C}),
                       centers_arg="init", centers_are_init=True, params=_table_params(table)),
            EntryPoint(function, _stochastic_function(function), frozenset({_X, _W, _C}),
                       centers_arg="init", centers_are_init=True,
                       params=_table_params(table) + RETURN_LABELS,
                       arg_names={"n_clusters": "C"}),
            EntryPoint(f"{kind}.fit_predict", _stochastic(kind, "fit_predict"),
                       frozenset({_X, _W})),
            EntryPoint(f"{kind}.predict", _method(kind, "predict"), frozenset({_X})),
            EntryPoint(f"{kind}.transform", _method(kind, "transform"), frozenset({_X})),
            EntryPoint(f"{kind}.score", _method(kind, "score", weighted=True),
                       frozenset({_X, _W})),
        ]
    out.append(EntryPoint("MiniBatchKMeans.partial_fit",
                          _stochastic("MiniBatchKMeans", "partial_fit"),
                          frozenset({_X, _W, _C}), centers_arg="init", centers_are_init=True,
                          params=_table_params(MBATCH_PARAMS, exclude=("coreset_size",))))
    return out


def _kernel_kmeans(X, w, c, p, method="fit"):
    est = vcgmm.KernelKMeans(**_run_kw(p, n_clusters=N_CLUSTERS, batch_size=KERNEL_BATCH,
                                       max_iter=5, random_state=0, n_threads=1))
    return getattr(est, method)(X)


def _fit_kernel_kmeans(X, w, c, p):
    p = dict(p)
    n_clusters = p.pop("n_clusters", N_CLUSTERS)
    return vcgmm.fit_kernel_kmeans(X, n_clusters, **_run_kw(p, batch_size=KERNEL_BATCH,
                                                            max_iter=5, random_state=0,
                                                            n_threads=1))


def _method(kind, name, weighted=False):
    def call(X, w, c, p):
        f = getattr(fitted(kind), name)
        return f(X, sample_weight=w) if weighted else f(X)
    return call


_X, _W, _C = "X", "sample_weight", "centers"
_LWCS_SIZE = Integer(1, 4 * N_SAMPLES)  # lwcs: N' draws, at most 4 n_samples

ENTRY_POINTS = {e.name: e for e in [
    EntryPoint("lwcs", lambda X, w, c, p: vcgmm.lwcs(
        X, **_run_kw(p, coreset_size=5, sample_weight=w, random_state=0, n_threads=1)),
        frozenset({_X, _W}), params=_signature_params(vcgmm.lwcs, {"coreset_size": _LWCS_SIZE})),
    EntryPoint("kmeans_plusplus", lambda X, w, c, p: vcgmm.kmeans_plusplus(
        X, **_run_kw(p, n_clusters=N_CLUSTERS, sample_weight=w, random_state=0, n_threads=1)),
        frozenset({_X, _W}), params=_signature_params(vcgmm.kmeans_plusplus)),
    EntryPoint("afkmc2", lambda X, w, c, p: vcgmm.afkmc2(
        X, **_run_kw(p, n_clusters=N_CLUSTERS, sample_weight=w, random_state=0, n_threads=1)),
        frozenset({_X, _W}), params=_signature_params(vcgmm.afkmc2)),
    EntryPoint("quantization_error", lambda X, w, c, p: vcgmm.quantization_error(
        X, c, w, **_run_kw(p, n_threads=1)),
        frozenset({_X, _W, _C}), centers_arg="centers",
        params=_signature_params(vcgmm.quantization_error)),
    EntryPoint("assign", lambda X, w, c, p: vcgmm.assign(X, c, **_run_kw(p, n_threads=1)),
               frozenset({_X, _C}), centers_arg="centers",
               params=_signature_params(vcgmm.assign, {"exact": Boolean()})),
    EntryPoint("assign(exact=False)",
               lambda X, w, c, p: vcgmm.assign(X, c, exact=False, **_run_kw(p, n_threads=1)),
               frozenset({_X, _C}), centers_arg="centers"),
    EntryPoint("assign_approximate", lambda X, w, c, p: vcgmm.assign_approximate(
        X, c, w, **_run_kw(p, n_threads=1)),
        frozenset({_X, _W, _C}), centers_arg="centers",
        params=_signature_params(vcgmm.assign_approximate,
                                 dict(APPROXIMATE_PARAMS, return_stats=Boolean()))),
    EntryPoint("ApproximateIndex.assign", lambda X, w, c, p: vcgmm.ApproximateIndex(
        c, **_run_kw(p, n_threads=1)).assign(X, w),
        frozenset({_X, _W, _C}), centers_arg="centers",
        params=_signature_params(vcgmm.ApproximateIndex, APPROXIMATE_PARAMS)),
    EntryPoint("lloyd", lambda X, w, c, p: vcgmm.lloyd(
        X, c, **_run_kw(p, sample_weight=w, n_threads=1)),
        frozenset({_X, _W, _C}), centers_arg="centers", centers_start_a_fit=True,
        params=_signature_params(vcgmm.lloyd)),
    EntryPoint("fit_vcgmm", lambda X, w, c, p: _fit_vcgmm(X, w, c, p),
               frozenset({_X, _W, _C}), centers_arg="init", centers_are_init=True,
               params=_table_params(VCGMM_PARAMS, exclude=("compute_labels", "labels")) + RETURN_LABELS,
               arg_names={"n_components": "C"}),
    EntryPoint("fit_vcgmm(coreset_size=10)",
               lambda X, w, c, p: _fit_vcgmm(X, w, c, p, coreset_size=10),
               frozenset({_X, _W})),
    EntryPoint("fit_vargmm", _fit_vargmm,
               frozenset({_X, _W, _C}), centers_arg="init", centers_are_init=True,
               params=_table_params(VCGMM_PARAMS, exclude=("coreset_size", "compute_labels", "labels"))
               + RETURN_LABELS,
               arg_names={"n_components": "C"}),
    EntryPoint("VariationalLoop", lambda X, w, c, p: vcgmm.VariationalLoop(
        X, c, sample_weight=w, **_run_kw(p, G=N_CLUSTERS, random_state=0, n_threads=1)),
        frozenset({_X, _W, _C}), centers_arg="means", centers_start_a_fit=True,
        params=LOOP_PARAMS),
    EntryPoint("KMeans.fit", _kmeans, frozenset({_X, _W, _C}), centers_arg="init",
               centers_are_init=True, params=_table_params(KMEANS_PARAMS)),
    EntryPoint("KMeans.fit(coreset)",
               lambda X, w, c, p: _kmeans(X, w, c, p, coreset_size=10, init="afk-mc2"),
               frozenset({_X, _W})),
    EntryPoint("KMeans.fit_predict", lambda X, w, c, p: _kmeans(X, w, c, p, "fit_predict"),
               frozenset({_X, _W})),
    EntryPoint("KMeans.predict", _method("KMeans", "predict"), frozenset({_X})),
    EntryPoint("KMeans.predict(exact=False)",
               lambda X, w, c, p: fitted("KMeans").predict(X, exact=False), frozenset({_X})),
    EntryPoint("KMeans.transform", _method("KMeans", "transform"), frozenset({_X})),
    EntryPoint("KMeans.score", _method("KMeans", "score", weighted=True), frozenset({_X, _W})),
    EntryPoint("VCGMM.fit", _vcgmm_est, frozenset({_X, _W, _C}), centers_arg="init",
               centers_are_init=True, params=_table_params(VCGMM_PARAMS)),
    EntryPoint("VCGMM.fit(coreset_size=None)",
               lambda X, w, c, p: _vcgmm_est(X, w, c, p, coreset_size=None),
               frozenset({_X, _W})),
    EntryPoint("VCGMM.fit_predict", lambda X, w, c, p: _vcgmm_est(X, w, c, p, "fit_predict"),
               frozenset({_X, _W})),
    EntryPoint("VCGMM.predict", _method("VCGMM", "predict"), frozenset({_X})),
    EntryPoint("VCGMM.predict(exact=False)",
               lambda X, w, c, p: fitted("VCGMM").predict(X, exact=False), frozenset({_X})),
    EntryPoint("VCGMM.predict_proba", _method("VCGMM", "predict_proba"), frozenset({_X})),
    EntryPoint("VCGMM.predict_proba_sparse", _method("VCGMM", "predict_proba_sparse"),
               frozenset({_X})),
    EntryPoint("VCGMM.bic", _method("VCGMM", "bic"), frozenset({_X})),
    EntryPoint("VCGMM.aic", _method("VCGMM", "aic"), frozenset({_X})),
    EntryPoint("VCGMM.score_samples", _method("VCGMM", "score_samples"), frozenset({_X})),
    EntryPoint("VCGMM.score", _method("VCGMM", "score", weighted=True), frozenset({_X, _W})),
    EntryPoint("VCGMM.transform", _method("VCGMM", "transform"), frozenset({_X})),
    *_stochastic_entries(),
    EntryPoint("KernelKMeans.fit", _kernel_kmeans, frozenset({_X}),
               params=_table_params(KERNEL_KMEANS_PARAMS)),
    EntryPoint("KernelKMeans.fit(full)",
               lambda X, w, c, p: _kernel_kmeans(X, w, c, {"algorithm": "full", **p}),
               frozenset({_X})),
    EntryPoint("KernelKMeans.fit_predict",
               lambda X, w, c, p: _kernel_kmeans(X, w, c, p, "fit_predict"), frozenset({_X})),
    EntryPoint("KernelKMeans.predict", _method("KernelKMeans", "predict"), frozenset({_X})),
    EntryPoint("fit_kernel_kmeans", _fit_kernel_kmeans, frozenset({_X}),
               params=_table_params(KERNEL_KMEANS_PARAMS)),
]}

#: Entry points of fitted estimators, with their unfitted counterpart.
FITTED_METHODS = {name: (name.split(".")[0], name.split(".")[1]) for name in ENTRY_POINTS
                  if name.split(".")[-1] in ("predict", "predict_proba", "predict_proba_sparse",
                                             "bic", "aic", "score_samples",
                                             "score", "transform")}


def entry_points(takes):
    """Names of the entry points taking the input ``takes`` ("X",
    "sample_weight" or "centers")."""
    return [name for name, e in ENTRY_POINTS.items() if takes in e.inputs]


def parameter_cases():
    """(entry point, parameter, bad value, exception) for every parameter of
    every entry point, from the constraints."""
    cases = []
    for entry in ENTRY_POINTS.values():
        for name, constraint in entry.params:
            for value, exc in bad_values(constraint):
                cases.append((entry.name, name, value, exc))
    return cases


__all__ = [
    "BAD_CENTERS",
    "BAD_WEIGHTS",
    "BAD_X",
    "ENTRY_POINTS",
    "FITTED_METHODS",
    "N_CLUSTERS",
    "N_FEATURES",
    "N_SAMPLES",
    "STOCHASTIC",
    "bad_values",
    "entry_points",
    "fitted",
    "good_X",
    "parameter_cases",
    "valid_centers",
]


# ----------------------------------------------------------------------------
# Bad chunked data: (make(), exception, message pattern naming the chunk)
# ----------------------------------------------------------------------------


def _chunks(*shapes, dtype=np.float64):
    rng = np.random.default_rng(7)
    return [rng.standard_normal(shape).astype(dtype) for shape in shapes]


def _chunks_with(value, chunk=2, where=(3, 1)):
    def make():
        chunks = _chunks((10, 3), (0, 3), (12, 3), (1, 3))
        chunks[chunk][where] = value
        return chunks
    return make


def _mixed_dtypes():
    chunks = _chunks((10, 3), (12, 3))
    chunks[1] = chunks[1].astype(np.float32)
    return chunks


def _generator():
    return (c for c in _chunks((10, 3), (12, 3)))


#: Entry points of CHUNK_ENTRY_POINTS that compare the chunks with given
#: centers or a fitted model (the others learn the width from chunk 0).
_CENTER_BASED = ("quantization_error", "assign", "KMeans.predict", "VCGMM.transform")


def _all_entries(entry):
    return True


#: (make(), exception, message pattern, applies(entry name))
BAD_CHUNKS = {
    "nan": (_chunks_with(np.nan), ValueError, r"X chunk 2 contains NaN \(first at row 3",
            _all_entries),
    "inf": (_chunks_with(np.inf, chunk=3, where=(0, 2)), ValueError,
            r"X chunk 3 contains infinity \(first at row 0, column 2", _all_entries),
    "overflowing squares": (_chunks_with(1e200), ValueError, "X chunk 2 has values up to",
                            _all_entries),
    "other width": (lambda: _chunks((10, 3), (12, 4)), ValueError,
                    r"X chunk 1 has 4 features but (chunk 0 has|the centers have|\w+ was "
                    r"fitted on) 3", _all_entries),
    "width != model": (lambda: _chunks((10, 4)), ValueError,
                       r"X chunk 0 has 4 features but (the centers have|\w+ was fitted on) 3",
                       lambda entry: entry in _CENTER_BASED),
    "other dtype": (_mixed_dtypes, ValueError,
                    "X chunk 1 has dtype float32 but chunk 0 has float64", _all_entries),
    "1-D chunk": (lambda: _chunks((10, 3)) + [np.zeros(3)], ValueError,
                  r"X chunk 1 must be a 2-D array \(rows, features\), got shape \(3,\)",
                  _all_entries),
    "no features": (lambda: _chunks((10, 0), (5, 0)), ValueError, "X chunk 0 has no features",
                    _all_entries),
    "all empty": (lambda: _chunks((0, 3), (0, 3)), ValueError, "empty", _all_entries),
    "complex": (lambda: [c + 1j for c in _chunks((10, 3), (12, 3))], TypeError, "complex",
                _all_entries),
    "strings": (lambda: _chunks((10, 3)) + [np.array([["a"] * 3] * 4)], TypeError, "string",
                _all_entries),
    "generator": (_generator, TypeError, "read only once", _all_entries),
}


def _centers3():
    return valid_centers(np.empty((1, 3)))


#: The entry points that take chunked data, called with valid arguments but X.
CHUNK_ENTRY_POINTS = {
    "lwcs": lambda X: vcgmm.lwcs(X, 5, random_state=0),
    "fit_vcgmm": lambda X: vcgmm.fit_vcgmm(X, 2, coreset_size=8, random_state=0),
    "VCGMM.fit": lambda X: vcgmm.VCGMM(2, coreset_size=8, random_state=0).fit(X),
    "KMeans.fit": lambda X: vcgmm.KMeans(2, init="afk-mc2", coreset_size=8,
                                         random_state=0).fit(X),
    "quantization_error": lambda X: vcgmm.quantization_error(X, _centers3()),
    "assign": lambda X: vcgmm.assign(X, _centers3()),
    "MiniBatchKMeans.fit": lambda X: vcgmm.MiniBatchKMeans(2, batch_size=4,
                                                           random_state=0).fit(X),
    "KMeans.predict": lambda X: fitted("KMeans").predict(X),
    "VCGMM.transform": lambda X: fitted("VCGMM").transform(X),
}
