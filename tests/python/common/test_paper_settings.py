"""``Estimator.paper(n)``: every registered estimator has its paper's
settings one call away, they are valid constructor parameters, and the
estimator they give fits as those settings say."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import vcgmm
from vcgmm._registry import FAMILIES

ESTIMATORS = [cls for family in FAMILIES for cls in family.estimators]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_estimator_has_its_papers_settings(cls):
    assert cls.paper_params, f"{cls.__name__} has no paper settings"
    names = set(inspect.signature(cls).parameters)
    assert set(cls.paper_params) <= names, set(cls.paper_params) - names
    est = cls.paper(6)
    params = est.get_params()
    assert params[next(iter(inspect.signature(cls).parameters))] == 6
    for name, value in cls.paper_params.items():
        assert params[name] == value, name
    # every setting passes the parameter table (a fit validates them all)
    X = np.random.default_rng(0).normal(size=(400, 3))
    est.set_params(random_state=0, n_threads=1).fit(X)
    # later arguments override the paper's settings (get_params keeps them as given)
    name = next(iter(cls.paper_params))
    assert cls.paper(6, **{name: "given"}).get_params()[name] == "given"


def test_vrkm_paper_is_the_papers_loop():
    # random starts, eta = C / n, Alg. 3/4's rule, no relocation, one draw at a time
    X = np.random.default_rng(1).normal(size=(500, 2))
    est = vcgmm.VRKMeans.paper(4, max_epochs=3, tol=0.0, random_state=2, n_threads=1).fit(X)
    r = vcgmm.fit_vrkm(X, 4, init="random", learning_rate=4 / 500, update_rule="svrg",
                       relocate_empty=False, block_size=1, max_epochs=3, tol=0.0,
                       random_state=2, n_threads=1)
    np.testing.assert_array_equal(est.cluster_centers_, r.centers)


def test_vcgmm_paper_runs_no_refinement_and_the_relative_stop():
    X = np.random.default_rng(2).normal(size=(2000, 3))
    est = vcgmm.VCGMM.paper(8, random_state=0, n_threads=1).fit(X)
    r = vcgmm.fit_vcgmm(X, 8, 5, "auto", init="afk-mc2", refine=0, data_steps=0,
                        stop_rule="relative", tol=1e-4, random_state=0, n_threads=1)
    np.testing.assert_array_equal(est.cluster_centers_, r.centers)
    assert est.n_distance_evals_["refinement"] == 0
