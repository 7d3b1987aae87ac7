"""Memory release, for every entry point of every registered family: a fitted
estimator or a function's result keeps no copy or view of X (only the model;
for kernel k-means the training points its centers are made of, within the
bound its docstring documents), and repeated fits and predictions do not grow
the resident memory, native allocations included. The failure caught is a
copy of the data kept or leaked per call: each bound is a fraction of what
that would add, and well above the allocator's noise."""

from __future__ import annotations

import dataclasses
import gc
import os

import numpy as np
import pytest

from vcgmm._registry import FAMILIES

from _bad_inputs import ENTRY_POINTS, FITTED_METHODS

#: clusters / components of every fit
COUNT = 8
#: parameters that keep each fit well under a second on two cores, applied
#: where the entry point takes them (kernel k-means: truncated centers of a
#: few hundred points, so that predict is cheap too)
FAST = {"max_iter": 30, "max_epochs": 5, "batch_size": 128, "tau": 50, "n_threads": 1,
        "random_state": 0}
#: calls measured after the warm-up call
REPEATS = 8

FIT_NAMES = ([f"{cls.__name__}.fit" for f in FAMILIES for cls in f.estimators]
             + [fn.__name__ for f in FAMILIES for fn in f.functions])
ESTIMATORS = {cls.__name__: cls for f in FAMILIES for cls in f.estimators}
#: (estimator, method) of every fitted method of a registered estimator
METHODS = sorted(kind_method for kind_method in FITTED_METHODS.values()
                 if kind_method[0] in ESTIMATORS)


def _data(n, d, seed):
    return np.random.default_rng(seed).normal(size=(n, d))


def _fit(name, X):
    """The fit of entry point ``name`` on X with COUNT clusters: the fitted
    estimator for ``<class>.fit``, else the function's result."""
    entry = ENTRY_POINTS[name]
    takes = {param for param, _ in entry.params}
    params = {k: v for k, v in dict(FAST, n_clusters=COUNT, n_components=COUNT).items()
              if k in takes}
    # a function fitting from given centers (lloyd) starts from COUNT rows of X
    centers = X[:COUNT].copy() if entry.centers_arg and not entry.centers_are_init else None
    return entry.run(X=X, centers=centers, **params)


def _arrays(obj, path="", depth=3):
    """(path, array) of every array held by obj: its attributes and, down to
    ``depth`` levels, the containers, vcgmm objects and dataclasses among them
    (bytes-like buffers as uint8 arrays)."""
    if isinstance(obj, np.ndarray):
        yield path, obj
        return
    if isinstance(obj, (bytes, bytearray, memoryview)):
        yield path, np.frombuffer(obj, np.uint8)
        return
    if depth == 0:
        return
    if isinstance(obj, dict):
        items = ((f"[{k!r}]", v) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = ((f"[{i}]", v) for i, v in enumerate(obj))
    elif type(obj).__module__.startswith("vcgmm") and hasattr(obj, "__dict__"):
        items = ((f".{k}", v) for k, v in vars(obj).items())
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        items = ((f".{f.name}", getattr(obj, f.name)) for f in dataclasses.fields(obj))
    else:
        return  # native objects: what they hold shows in the resident-memory tests
    for key, value in items:
        yield from _arrays(value, path + key, depth - 1)


def _support_vectors(est, X, array):
    """KernelKMeans.support_vectors_: the training points of support_, which
    the truncated algorithm bounds (each center keeps its most recent batches
    until they hold tau points: fewer than tau + batch_size)."""
    np.testing.assert_array_equal(array, X[est.support_])
    assert est.support_.size <= est.n_clusters * (est.tau + est.batch_size), est.support_.size


#: fitted attributes that are the model itself and documented as training
#: points: checked against their documented bound instead of X's size
MODEL_POINTS = {".support_vectors_": _support_vectors}


@pytest.mark.parametrize("name", FIT_NAMES)
def test_fitted_model_keeps_no_copy_of_X(name):
    # 20,000 x 16 float64 (2.56 MB): labels (80 kB) and a 4096-point coreset
    # (64 kB) are the largest arrays a model needs.
    X = _data(20_000, 16, seed=0)
    model = _fit(name, X)
    kept = {}
    for path, array in _arrays(model):
        assert array is not X and not np.shares_memory(array, X), f"{path} is X or a view of it"
        if path in MODEL_POINTS:
            MODEL_POINTS[path](model, X, array)
        else:
            kept[path] = array.nbytes
    total = sum(kept.values())
    assert total < X.nbytes / 4, (total, sorted(kept.items(), key=lambda kv: -kv[1])[:5])


def _rss():
    gc.collect()
    try:
        import psutil  # not a test requirement: /proc serves on Linux
    except ImportError:
        if not os.path.exists("/proc/self/statm"):
            pytest.skip("needs psutil or /proc")
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return psutil.Process().memory_info().rss


def _growth(call):
    """RSS growth over REPEATS calls after a warm-up call (first-call imports,
    caches and allocator pools), their results kept alive: a fitted model
    holding a native copy of X shows here as well as a leak."""
    call()
    before = _rss()
    kept = [call() for _ in range(REPEATS)]
    grown = _rss() - before
    del kept
    return grown


#: 40,000 x 32 float64 (10 MB): a copy of X per call adds 80 MB over REPEATS
#: calls, the bound is a quarter of that (noise stays below a few MB)
BIG = (40_000, 32)
BOUND = REPEATS * BIG[0] * BIG[1] * 8 // 4


@pytest.mark.parametrize("name", FIT_NAMES)
def test_repeated_fits_do_not_grow_the_process(name):
    X = _data(*BIG, seed=1)
    grown = _growth(lambda: _fit(name, X))
    assert grown < BOUND, f"{REPEATS} fits grew resident memory by {grown / 1e6:.1f} MB"


@pytest.mark.parametrize("kind, method", METHODS, ids=[".".join(m) for m in METHODS])
def test_repeated_predictions_do_not_grow_the_process(kind, method):
    X = _data(*BIG, seed=2)
    est = _fit(f"{kind}.fit", X)
    bound = getattr(est, method)

    def call():
        bound(X)  # the output is discarded (a transform's 2.5 MB each would add up)

    grown = _growth(call)
    assert grown < BOUND, f"{REPEATS} calls grew resident memory by {grown / 1e6:.1f} MB"
