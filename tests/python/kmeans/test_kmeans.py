"""vcgmm.KMeans: the scikit-learn estimator around seeding + Lloyd."""

from __future__ import annotations

import logging
import pickle
import warnings

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from sklearn.exceptions import ConvergenceWarning

import vcgmm


@pytest.mark.parametrize("coreset_size", [None, 500])
@pytest.mark.parametrize("init", ["k-means++", "afk-mc2"])
def test_fit_predict_labels_agree(blobs, init, coreset_size):
    X = blobs
    km = vcgmm.KMeans(6, init=init, coreset_size=coreset_size, random_state=1, n_threads=1).fit(X)
    assert km.labels_.dtype == np.int32 and km.labels_.shape == (X.shape[0],)
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    fp = vcgmm.KMeans(6, init=init, coreset_size=coreset_size, random_state=1,
                      n_threads=1).fit_predict(X)
    np.testing.assert_array_equal(fp, km.labels_)
    np.testing.assert_array_equal(km.labels_, vcgmm.assign(X, km.cluster_centers_, n_threads=1))
    assert km.n_features_in_ == 4
    assert km.cluster_centers_.shape == (6, 4)


@pytest.mark.parametrize("coreset_size", [None, 300])
def test_inertia_is_full_data_quantization_error(blobs, brute_qe, coreset_size):
    X = blobs
    w = np.random.default_rng(2).uniform(0.5, 2.0, X.shape[0])
    for sample_weight in (None, w):
        km = vcgmm.KMeans(
            6, init="afk-mc2", coreset_size=coreset_size, random_state=3, n_threads=1
        ).fit(X, sample_weight=sample_weight)
        np.testing.assert_allclose(
            km.inertia_, brute_qe(X, km.cluster_centers_, sample_weight), rtol=1e-12
        )
        assert km.inertia_ == vcgmm.quantization_error(X, km.cluster_centers_, sample_weight,
                                                       n_threads=1)
        assert km.score(X, sample_weight=sample_weight) == -km.inertia_
        if coreset_size is not None:
            # The objective trace lives on the coreset, the inertia does not.
            assert km.coreset_indices_.shape == km.coreset_weights_.shape == (coreset_size,)
        else:
            assert km.coreset_indices_ is None and km.coreset_weights_ is None


def test_transform_is_euclidean_distance(blobs, sqdist):
    km = vcgmm.KMeans(6, random_state=0, n_threads=1).fit(blobs)
    Y = blobs[:100] + 0.5
    T = km.transform(Y)
    assert T.shape == (100, 6)
    np.testing.assert_allclose(T, np.sqrt(sqdist(Y, km.cluster_centers_)), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(km.fit_transform(blobs),
                               np.sqrt(sqdist(blobs, km.cluster_centers_)),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(km.predict(Y), np.argmin(T, axis=1))


def test_score_on_new_data(blobs, brute_qe):
    km = vcgmm.KMeans(6, random_state=0, n_threads=1).fit(blobs)
    Y = blobs[::3] * 1.1
    np.testing.assert_allclose(km.score(Y), -brute_qe(Y, km.cluster_centers_), rtol=1e-12)


def test_lwcs_baseline_recovers_blob_centers():
    # Well separated blobs (distance >> spread): D^2-type seeding puts one
    # center per blob with overwhelming probability, and Lloyd on a coreset
    # of 2000 points then finds each blob mean to within a few standard errors.
    rng = np.random.default_rng(4)
    true = rng.uniform(-100, 100, size=(10, 5))
    labels = rng.integers(0, 10, 30000)
    X = true[labels] + rng.standard_normal((30000, 5))
    km = vcgmm.KMeans(10, init="afk-mc2", coreset_size=2000, chain_length=20, random_state=0,
                      n_threads=1).fit(X)
    dist = np.sqrt(((km.cluster_centers_[:, None] - true[None]) ** 2).sum(-1))
    rows, cols = linear_sum_assignment(dist)
    assert dist[rows, cols].max() < 0.3, dist[rows, cols]
    # The partition is the true one up to a relabelling.
    mapping = dict(zip(rows, cols))
    np.testing.assert_array_equal(np.vectorize(mapping.get)(km.labels_), labels)
    # And the LWCS inertia is close to that of the k-means++ baseline.
    full = vcgmm.KMeans(10, random_state=0, n_threads=1).fit(X)
    assert abs(km.inertia_ - full.inertia_) / full.inertia_ < 0.01


def test_distance_evals_without_coreset(blobs):
    N, C = blobs.shape[0], 6
    km = vcgmm.KMeans(C, n_local_trials=1, random_state=0, n_threads=1).fit(blobs)
    ev = km.n_distance_evals_
    assert set(ev) == {"coreset", "seeding", "iterations", "refinement", "evaluation"}
    assert set(km.timings_) == set(ev) and all(t >= 0 for t in km.timings_.values())
    assert ev["coreset"] == 0 and ev["refinement"] == 0  # refinement: vc-GMM's phase
    assert ev["seeding"] == (C - 1) * N
    # The first iteration scans; later ones, and the evaluation, start from
    # the last labels.
    assert N * C <= ev["iterations"] <= km.n_iter_ * N * C
    assert 0 < ev["evaluation"] <= N * C
    # Greedy k-means++ evaluates every candidate as well.
    km = vcgmm.KMeans(C, n_local_trials=3, random_state=0, n_threads=1).fit(blobs)
    assert km.n_distance_evals_["seeding"] == (C - 1) * N + (C - 1) * 3 * N
    # Given centers: no seeding.
    km = vcgmm.KMeans(C, init=blobs[:C], n_threads=1).fit(blobs)
    assert km.n_distance_evals_["seeding"] == 0


@pytest.mark.parametrize("chain_length", [1, 7])
def test_distance_evals_with_coreset(blobs, chain_length):
    N, C, m = blobs.shape[0], 6, 400
    km = vcgmm.KMeans(C, init="afk-mc2", coreset_size=m, chain_length=chain_length,
                      random_state=0, n_threads=1).fit(blobs)
    ev = km.n_distance_evals_
    assert ev["coreset"] == N
    # One pass over the coreset for the proposal, then chain_length * k
    # distances for the k-th further center.
    assert ev["seeding"] == m + chain_length * C * (C - 1) // 2
    assert m * C <= ev["iterations"] <= km.n_iter_ * m * C
    assert ev["evaluation"] == N * C
    km = vcgmm.KMeans(C, coreset_size=m, n_local_trials=1, random_state=0, n_threads=1).fit(blobs)
    assert km.n_distance_evals_["seeding"] == (C - 1) * m
    assert m * C <= km.n_distance_evals_["iterations"] <= km.n_iter_ * m * C


def test_pickle_round_trip(blobs):
    km = vcgmm.KMeans(6, init="afk-mc2", coreset_size=800, random_state=0, n_threads=1).fit(blobs)
    clone = pickle.loads(pickle.dumps(km))
    Y = blobs[::5] + 0.3
    np.testing.assert_array_equal(clone.predict(Y), km.predict(Y))
    np.testing.assert_array_equal(clone.transform(Y), km.transform(Y))
    np.testing.assert_array_equal(clone.cluster_centers_, km.cluster_centers_)
    assert clone.score(Y) == km.score(Y)
    assert clone.get_params() == km.get_params()


def test_same_random_state_same_result_and_different_seeds_differ(blobs):
    a = vcgmm.KMeans(6, init="afk-mc2", coreset_size=500, random_state=5, n_threads=1).fit(blobs)
    b = vcgmm.KMeans(6, init="afk-mc2", coreset_size=500, random_state=5, n_threads=1).fit(blobs)
    c = vcgmm.KMeans(6, init="afk-mc2", coreset_size=500, random_state=6, n_threads=1).fit(blobs)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    np.testing.assert_array_equal(a.coreset_indices_, b.coreset_indices_)
    assert not np.array_equal(a.coreset_indices_, c.coreset_indices_)


def test_verbose_logs_and_silent_otherwise(blobs, caplog):
    caplog.set_level(logging.INFO, logger="vcgmm")
    vcgmm.KMeans(6, random_state=0, verbose=False, n_threads=1).fit(blobs)
    vcgmm.lloyd(blobs, blobs[:6], verbose=False, n_threads=1)
    assert [r for r in caplog.records if r.name.startswith("vcgmm")] == []

    vcgmm.KMeans(6, init="afk-mc2", coreset_size=500, random_state=0, verbose=True,
                 n_threads=1).fit(blobs)
    records = [r for r in caplog.records if r.name.startswith("vcgmm")]
    text = "\n".join(r.getMessage() for r in records)
    assert records and all(r.levelno == logging.INFO for r in records)
    assert "coreset" in text and "seeding" in text and "lloyd iter" in text
    assert "evaluation" in text
    caplog.clear()
    vcgmm.lloyd(blobs, blobs[:6], max_iter=3, tol=0, verbose=True, n_threads=1)
    assert sum("lloyd iter" in r.getMessage() for r in caplog.records) == 3


def test_duplicate_points_more_clusters_than_distinct_points():
    X = np.repeat(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 5.0]]), 10, axis=0)
    with pytest.warns(ConvergenceWarning):
        km = vcgmm.KMeans(5, random_state=0, n_threads=1).fit(X)
    assert km.cluster_centers_.shape == (5, 2)
    assert np.all(np.isfinite(km.cluster_centers_))
    assert np.unique(km.labels_).size == 3
    assert km.inertia_ == 0.0
    with pytest.warns(ConvergenceWarning):
        vcgmm.KMeans(5, init="afk-mc2", coreset_size=20, random_state=0, n_threads=1).fit(X)
    for seeding in (vcgmm.kmeans_plusplus, vcgmm.afkmc2):
        with pytest.warns(UserWarning, match="distinct"):
            centers, idx = seeding(X, 5, random_state=0)
        assert np.unique(centers, axis=0).shape[0] == 3  # all distinct points found
        np.testing.assert_array_equal(centers, X[idx])


def test_no_warning_when_enough_distinct_points(blobs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vcgmm.KMeans(6, random_state=0, n_threads=1).fit(blobs)
        vcgmm.kmeans_plusplus(blobs, 6, random_state=0, n_threads=1)
        vcgmm.afkmc2(blobs, 6, random_state=0, n_threads=1)


def test_more_clusters_lower_inertia(blobs):
    inertia = [vcgmm.KMeans(C, n_local_trials=3, random_state=0, n_threads=1).fit(blobs).inertia_
               for C in (1, 2, 6, 20)]
    assert np.all(np.diff(inertia) < 0)
    # One cluster: the center is the mean, the inertia the total scatter.
    km = vcgmm.KMeans(1, n_threads=1).fit(blobs)
    np.testing.assert_allclose(km.cluster_centers_[0], blobs.mean(0), rtol=1e-12)
    np.testing.assert_allclose(km.inertia_, ((blobs - blobs.mean(0)) ** 2).sum(), rtol=1e-12)


def test_permutation_invariance_with_given_init(blobs):
    init = blobs[[5, 700, 1400, 2100, 2800, 2999]]
    perm = np.random.default_rng(0).permutation(blobs.shape[0])
    a = vcgmm.KMeans(6, init=init, tol=0, n_threads=1).fit(blobs)
    b = vcgmm.KMeans(6, init=init, tol=0, n_threads=1).fit(blobs[perm])
    np.testing.assert_allclose(a.cluster_centers_, b.cluster_centers_, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(a.labels_[perm], b.labels_)


@pytest.mark.parametrize("coreset_size", [None, 20000])
@pytest.mark.parametrize("init", ["k-means++", "afk-mc2"])
def test_results_do_not_depend_on_the_thread_count(init, coreset_size, patches,
                                                   assert_thread_independent):
    # 40,000 x 108: several tasks in every phase (coreset and AFK-MC^2
    # proposal chunks of 16,384 rows, k-means++ chunks of 4,096, Lloyd's
    # 256-row assignment blocks and center-update tasks of 16 clusters).
    X = patches[:40000]
    w = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0])

    def fit(n_threads):
        km = vcgmm.KMeans(40, init=init, coreset_size=coreset_size, n_local_trials=2,
                          max_iter=10, random_state=7, n_threads=n_threads).fit(X, sample_weight=w)
        Y = X[::7]
        return {"fit": km, "predict": km.predict(Y), "transform": km.transform(Y),
                "score": km.score(Y, sample_weight=w[::7])}

    km = assert_thread_independent(fit)["fit"]
    assert km.n_iter_ > 1


def test_coreset_size_auto_is_the_default_size(blobs):
    N, C = blobs.shape[0], 6
    auto = vcgmm.KMeans(C, init="afk-mc2", coreset_size="auto", random_state=3,
                        n_threads=1).fit(blobs)
    size = vcgmm.default_coreset_size(N, C)
    assert size == min(N, 4096) == auto.coreset_indices_.shape[0]
    given = vcgmm.KMeans(C, init="afk-mc2", coreset_size=size, random_state=3,
                         n_threads=1).fit(blobs)
    np.testing.assert_array_equal(auto.coreset_indices_, given.coreset_indices_)
    np.testing.assert_array_equal(auto.cluster_centers_, given.cluster_centers_)
    assert auto.n_distance_evals_ == given.n_distance_evals_


def test_n_local_trials_auto_is_two_plus_log_c(blobs):
    for C in (2, 6, 20):
        auto = vcgmm.KMeans(C, n_local_trials="auto", random_state=4, n_threads=1).fit(blobs)
        given = vcgmm.KMeans(C, n_local_trials=2 + int(np.log(C)), random_state=4,
                             n_threads=1).fit(blobs)
        np.testing.assert_array_equal(auto.cluster_centers_, given.cluster_centers_)
        # Every candidate costs a pass over the data.
        N = blobs.shape[0]
        assert auto.n_distance_evals_["seeding"] == (C - 1) * N * (1 + 2 + int(np.log(C)))
