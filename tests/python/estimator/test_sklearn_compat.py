"""scikit-learn compatibility of every estimator (KMeans, VCGMM, MiniBatchKMeans,
NestedMiniBatchKMeans, VRKMeans, KernelKMeans): scikit-learn's
own estimator checks, with the checks that fail by design and their reasons
in one table, and clone/pipeline use."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import vcgmm

# Every estimator in the configurations that run different code (with and
# without a coreset). G <= n_components: no clamping warning.
ESTIMATORS = [
    vcgmm.KMeans(n_clusters=3, random_state=0, n_threads=1),
    vcgmm.KMeans(n_clusters=3, init="afk-mc2", coreset_size="auto", random_state=0, n_threads=1),
    vcgmm.VCGMM(n_components=3, G=2, random_state=0, n_threads=1),
    vcgmm.VCGMM(n_components=3, G=2, coreset_size=None, random_state=0, n_threads=1),
    vcgmm.MiniBatchKMeans(n_clusters=3, random_state=0, n_threads=1),
    vcgmm.NestedMiniBatchKMeans(n_clusters=3, random_state=0, n_threads=1),
    vcgmm.NestedMiniBatchKMeans(n_clusters=3, bounds="yinyang", n_groups=2, random_state=0,
                                n_threads=1),
    vcgmm.VRKMeans(n_clusters=3, random_state=0, n_threads=1),
    vcgmm.VRKMeans(n_clusters=3, variant="vrkm", block_size=8, random_state=0, n_threads=1),
    vcgmm.KernelKMeans(n_clusters=3, batch_size=10, tau=20, max_iter=20, random_state=0,
                       n_threads=1),
    vcgmm.KernelKMeans(n_clusters=3, algorithm="minibatch", batch_size=10, max_iter=20,
                       random_state=0, n_threads=1),
    vcgmm.KernelKMeans(n_clusters=3, algorithm="full", random_state=0, n_threads=1),
]

# Checks that fail by design, each with the reason, for every estimator.
# Anything else failing is a bug.
EXPECTED_FAILED_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data": (
        "compares a seeded fit with integer weights to one on repeated and shuffled rows: "
        "the random draws (seeding, coreset, batches) depend on the rows, as for "
        "scikit-learn's own KMeans and MiniBatchKMeans, which fail this check too. Zero "
        "weights == removed rows (bit for bit, same seed) is tested in test_zero_weights.py; "
        "integer weights == repeated rows in distribution or where nothing is drawn in "
        "test_lloyd.py, test_samplers.py, test_assignment.py and test_vcgmm.py."
    ),
    "check_complex_data": (
        "expects ValueError for complex input; vcgmm raises TypeError (wrong type of "
        "data, not a wrong value), the documented rule of vcgmm._base.validation."
    ),
}


def test_every_estimator_is_checked():
    estimators = {name for name in vcgmm.__all__ if isinstance(getattr(vcgmm, name), type)
                  and issubclass(getattr(vcgmm, name), BaseEstimator)}
    assert estimators == {type(e).__name__ for e in ESTIMATORS}


# Some checks fit with n_components=1, where G=2 is clamped (with a warning).
@pytest.mark.filterwarnings("ignore:G=2 exceeds the number of components:UserWarning")
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_clone_and_pipeline(estimator, make_blobs):
    X = make_blobs(400, 6, 3, std=1.5, seed=1)[0] * [1.0, 10.0, 100.0]
    c = clone(estimator)
    assert c.get_params() == estimator.get_params() and not hasattr(c, "cluster_centers_")
    pipe = make_pipeline(StandardScaler(), clone(estimator)).fit(X)
    direct = clone(estimator).fit(StandardScaler().fit_transform(X))
    np.testing.assert_array_equal(pipe.predict(X), direct.labels_)
    # The model: centers in input space, or (kernel k-means) the centers'
    # coefficients over their support points.
    model = "cluster_centers_" if hasattr(direct, "cluster_centers_") else "center_coef_"
    np.testing.assert_array_equal(getattr(pipe[-1], model), getattr(direct, model))
