"""The warning about fewer clusters than asked names the real cause.

When a fit ends with fewer distinct non-empty clusters than ``n_clusters``
(``n_components``), every estimator warns (``ConvergenceWarning``). The
message must name why: the data may have fewer distinct points than clusters
(situation a), or the algorithm itself may have left clusters empty or made
centers coincide on data with plenty of distinct points (situation b: no
relocation of empty clusters, a large learning rate, a mini-batch that moved
a center away from every point, coinciding initial means). Earlier messages
blamed the data in every case, which sent users to look for duplicate rows
that were not there. The tables below give, per estimator and situation, the
text the warning must contain and the text it must not; each case first
checks its own premise (the data really have few or many distinct rows, the
fitted model really has fewer distinct non-empty clusters than asked), so no
case can pass without the situation arising. The situation-(a) table is
checked against the family registry, so a new family's estimator fails here
until it is added; a well-posed fit (situation c) must not warn about
clusters at all.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Callable, Union

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from vcgmm._estimator.base import TOO_FEW_DISTINCT_POINTS
from vcgmm._registry import FAMILIES

ESTIMATORS = [cls for family in FAMILIES for cls in family.estimators]
C = 5


class WrongCause(AssertionError):
    """The warning came but names the wrong cause (or a forbidden one)."""


class MissingWarning(AssertionError):
    """Fewer clusters than asked, and no warning at all."""


@dataclass(frozen=True)
class Case:
    """An estimator in a situation: ``params`` (a dict, or a function of the
    data giving one), a regular expression the warning must match
    (``cause``) and literal texts it must not contain (``must_not``)."""

    estimator: str
    params: Union[dict, Callable]
    cause: str
    must_not: tuple = ()
    label: str = ""
    xfail: str = ""

    @property
    def id(self):
        return self.estimator + (f"-{self.label}" if self.label else "")

    def make(self, X):
        cls = next(c for c in ESTIMATORS if c.__name__ == self.estimator)
        params = self.params(X) if callable(self.params) else self.params
        return cls(C, **params)


def _param(case):
    marks = ()
    if case.xfail:  # only a wrong or missing cause may fail; a broken premise fails
        marks = pytest.mark.xfail(strict=True, raises=WrongCause, reason=case.xfail)
    return pytest.param(case, id=case.id, marks=marks)


# --------------------------------------------------------------- the data


def _few_distinct():
    # 200 rows, copies of 3 distinct points: C=5 clusters cannot all be filled
    pts = np.random.default_rng(0).normal(size=(3, 2)) * 5.0
    return pts[np.arange(200) % 3]


@pytest.fixture(scope="module")
def distinct_blobs(make_blobs):
    """2000 distinct 2-D points around 5 centers."""
    return make_blobs(2000, 5, 2, seed=0)[0]


def _far_init(X):
    # three rows of the data and two centers far from every point
    top = X.max(axis=0)
    return np.vstack([X[:3], top + [100.0, 0.0], top + [0.0, 150.0]])


def _duplicate_init(X):
    # five initial means, the last a copy of the first
    return np.vstack([X[:4], X[:1]])


# Initial rows of distinct_blobs: three in one blob (two of them close
# together), one each in two others; two blobs get no center. With the
# 'sklearn' learning rate the first batch drags the close pair towards an
# uncovered blob and one of them ends between blobs, nearest to no point.
_KERNEL_INIT = [686, 888, 1892, 1034, 1074]

# ------------------------------------------------------------- the tables

# the data named as the cause (alone, or as one of the possible causes)
DATA = r"the data have (too few|fewer than n_clusters) distinct points"

# (a): 3 distinct points, C=5: the warning names the data.
FEW_DISTINCT = (
    Case("KMeans", {"random_state": 0}, DATA),
    Case("KMeans", {"relocate_empty": False, "random_state": 0}, DATA,
         label="relocate_empty=False"),
    Case("VCGMM", {"random_state": 0}, "fewer distinct points than n_components"),
    Case("VCGMM", {"coreset_size": None, "random_state": 0},
         "fewer distinct points than n_components", label="var-GMM-S"),
    Case("MiniBatchKMeans", {"random_state": 0}, DATA,
         must_not=("reassignment_ratio=0,",)),
    Case("NestedMiniBatchKMeans", {"random_state": 0}, DATA),
    Case("VRKMeans", {"random_state": 0}, DATA,
         must_not=("relocate_empty=False keeps",)),
    Case("VRKMeans", {"relocate_empty": False, "random_state": 0}, DATA,
         must_not=("the last epoch's updates",), label="relocate_empty=False"),
    Case("KernelKMeans", {"random_state": 0}, DATA),
    Case("KernelKMeans", {"algorithm": "full", "gamma": 0.5, "random_state": 0},
         DATA + " in feature space", must_not=("mini-batch updates move centers",), label="full"),
)

# (b): 2000 distinct points, a setting that empties clusters or makes means
# coincide: the warning names that setting's cause, not only the data.
OTHER_CAUSE = (
    Case("KMeans", lambda X: {"init": _far_init(X), "relocate_empty": False,
                              "random_state": 0},
         "relocate_empty", must_not=(TOO_FEW_DISTINCT_POINTS,),
         label="relocate_empty=False-far-init"),
    Case("VCGMM", lambda X: {"init": _duplicate_init(X), "G": C, "refine": 0,
                             "data_steps": 0, "random_state": 0},
         "check the given init for repeated rows", must_not=(TOO_FEW_DISTINCT_POINTS,),
         label="duplicate-init"),
    Case("MiniBatchKMeans", lambda X: {"init": _far_init(X), "reassignment_ratio": 0.0,
                                       "batch_size": 100, "max_iter": 20, "random_state": 0},
         "reassignment_ratio=0, a larger value", must_not=(TOO_FEW_DISTINCT_POINTS,),
         label="no-reassignment-far-init"),
    Case("NestedMiniBatchKMeans", lambda X: {"init": _far_init(X), "random_state": 0},
         "a stochastic algorithm does not move empty clusters",
         must_not=(TOO_FEW_DISTINCT_POINTS,), label="far-init"),
    Case("VRKMeans", {"learning_rate": 1.0, "relocate_empty": False, "random_state": 0},
         "relocate_empty=False keeps the clusters an epoch empties",
         must_not=(TOO_FEW_DISTINCT_POINTS, "the last epoch's updates"),
         label="learning_rate=1-no-relocation"),
    Case("KernelKMeans", {"init": _KERNEL_INIT, "learning_rate": "sklearn", "max_iter": 5,
                          "random_state": 0},
         "mini-batch updates move centers",
         must_not=(TOO_FEW_DISTINCT_POINTS, "so some centers coincide or hold no points"),
         label="truncated-crowded-init"),
)

# (c): cheaper settings for the well-posed fits (defaults otherwise)
WELL_POSED_PARAMS = {"KernelKMeans": {"max_iter": 20}}

# ---------------------------------------------------------------- helpers


def _fit(est, X):
    """Fit; return the messages of the ConvergenceWarnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    return [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


def _n_clusters_found(est):
    """Distinct non-empty clusters of the fitted model (on its training data)."""
    used = np.unique(est.labels_)
    centers = getattr(est, "cluster_centers_", None)
    if centers is None:  # kernel k-means: clusters are labels
        return used.size
    return np.unique(centers[used], axis=0).shape[0]


def _check_message(case, messages):
    if not messages:
        raise MissingWarning(f"{case.id}: fewer clusters than asked, no ConvergenceWarning")
    text = "\n".join(messages)
    if not re.search(case.cause, text):
        raise WrongCause(f"{case.id}: the warning does not name {case.cause!r}: {text}")
    for bad in case.must_not:
        if bad in text:
            raise WrongCause(f"{case.id}: the warning says {bad!r}: {text}")


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_registered_estimator_is_in_the_few_distinct_table(cls):
    assert cls.__name__ in {case.estimator for case in FEW_DISTINCT}, (
        f"{cls.__name__} is registered but has no row in FEW_DISTINCT")


def test_the_tables_name_registered_estimators_only():
    names = {cls.__name__ for cls in ESTIMATORS}
    for case in FEW_DISTINCT + OTHER_CAUSE:
        assert case.estimator in names, case.id
    assert set(WELL_POSED_PARAMS) <= names


@pytest.mark.parametrize("case", [_param(c) for c in FEW_DISTINCT])
def test_too_few_distinct_points_is_named(case):
    X = _few_distinct()
    assert np.unique(X, axis=0).shape[0] == 3 < C  # premise: the data cannot fill C
    est = case.make(X)
    messages = _fit(est, X)
    assert _n_clusters_found(est) < C  # premise: the fit really found fewer
    _check_message(case, messages)


@pytest.mark.parametrize("case", [_param(c) for c in OTHER_CAUSE])
def test_another_cause_is_named_not_only_the_data(case, distinct_blobs):
    X = distinct_blobs
    assert np.unique(X, axis=0).shape[0] >= 1000  # premise: plenty of distinct points
    est = case.make(X)
    messages = _fit(est, X)
    assert _n_clusters_found(est) < C, case.id  # premise: the setting really bites
    _check_message(case, messages)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_a_well_posed_fit_does_not_warn(cls, distinct_blobs):
    X = distinct_blobs
    est = cls(C, random_state=0, **WELL_POSED_PARAMS.get(cls.__name__, {}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    assert _n_clusters_found(est) == C  # premise: every cluster found
    found = [str(w.message) for w in caught
             if issubclass(w.category, ConvergenceWarning)
             or any(word in str(w.message) for word in ("distinct", "coincide", "empty"))]
    assert not found, found
