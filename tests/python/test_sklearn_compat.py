"""scikit-learn's own estimator checks on vcgmm.KMeans."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import vcgmm

# Checks that fail by design, each with the reason. Anything else failing is a bug.
EXPECTED_FAILED_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data": (
        "feeds zero sample weights; vcgmm rejects weights <= 0 by design (ValueError "
        "asking to drop those points). Integer weights == repeated rows, the property "
        "behind this check, is tested in test_lloyd.py, test_samplers.py and "
        "test_assignment.py."
    ),
    "check_complex_data": (
        "expects ValueError for complex input; vcgmm raises TypeError (wrong type of "
        "data, not a wrong value), the documented rule of vcgmm._validation."
    ),
}


@parametrize_with_checks(
    [vcgmm.KMeans(n_clusters=3, random_state=0, n_threads=1)],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_clone_and_pipeline():
    X = np.random.default_rng(0).normal(size=(200, 3)) * [1.0, 10.0, 100.0]
    km = vcgmm.KMeans(4, init="afk-mc2", coreset_size=100, random_state=0)
    c = clone(km)
    assert c.get_params() == km.get_params() and not hasattr(c, "cluster_centers_")
    pipe = make_pipeline(StandardScaler(), vcgmm.KMeans(4, random_state=0)).fit(X)
    labels = pipe.predict(X)
    direct = vcgmm.KMeans(4, random_state=0).fit(StandardScaler().fit_transform(X))
    np.testing.assert_array_equal(labels, direct.labels_)
