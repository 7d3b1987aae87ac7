"""``n_init`` and ``compute_labels`` on the stochastic k-means estimators
(MiniBatchKMeans, NestedMiniBatchKMeans, VRKMeans): the best of n_init runs
by the full-data inertia, run 0 == the n_init=1 fit, costs summed over the
runs; compute_labels=False leaves labels_/inertia_ None and the fit as it is."""

from __future__ import annotations

import numpy as np
import pytest

import vcgmm
import vcgmm._estimator.base as estimator_base

KINDS = {
    "MiniBatchKMeans": dict(batch_size=300, max_iter=30),
    "NestedMiniBatchKMeans": dict(batch_size=300, max_iter=30),
    "VRKMeans": dict(max_epochs=5),
}
FUNCTIONS = {"MiniBatchKMeans": "fit_mbatch", "NestedMiniBatchKMeans": "fit_nmbatch",
             "VRKMeans": "fit_vrkm"}


def _make(kind, **params):
    return getattr(vcgmm, kind)(8, **{"random_state": 0, "n_threads": 1, **KINDS[kind],
                                      **params})


@pytest.fixture(scope="module")
def data(make_blobs):
    X = make_blobs(2500, 8, 5, std=1.5, seed=3)[0]
    w = np.random.default_rng(4).uniform(0.5, 2.0, X.shape[0])
    return X, w


@pytest.mark.parametrize("kind", KINDS)
def test_n_init_keeps_the_run_of_lowest_inertia(monkeypatch, data, kind, brute_qe):
    X, w = data
    n_init = 4
    best = _make(kind, n_init=n_init, random_state=7).fit(X, sample_weight=w)
    runs = []
    for seed in estimator_base.run_seeds(7, n_init):
        with monkeypatch.context() as m:
            m.setattr(estimator_base, "run_seeds", lambda rs, n, s=seed: [s])
            runs.append(_make(kind, random_state=7).fit(X, sample_weight=w))
    inertias = [r.inertia_ for r in runs]
    assert len(set(inertias)) > 1, "the runs should differ"
    k = int(np.argmin(inertias))
    np.testing.assert_array_equal(best.cluster_centers_, runs[k].cluster_centers_)
    np.testing.assert_array_equal(best.labels_, runs[k].labels_)
    assert best.inertia_ == runs[k].inertia_
    np.testing.assert_allclose(best.inertia_, brute_qe(X, best.cluster_centers_, w), rtol=1e-9)
    # Run 0 is the n_init=1 fit.
    single = _make(kind, random_state=7).fit(X, sample_weight=w)
    np.testing.assert_array_equal(single.cluster_centers_, runs[0].cluster_centers_)
    # Costs: every run's, and one exact evaluation pass per run.
    for phase in ("coreset", "seeding", "iterations"):
        assert best.n_distance_evals_[phase] == sum(r.n_distance_evals_[phase] for r in runs)
    assert best.n_distance_evals_["evaluation"] == n_init * X.shape[0] * 8


@pytest.mark.parametrize("kind", KINDS)
def test_n_init_runs_differ_from_given_initial_centers(data, kind):
    X, _ = data
    init = X[:8].copy()
    one = _make(kind, init=init).fit(X)
    several = _make(kind, init=init, n_init=5).fit(X)
    assert several.inertia_ <= one.inertia_
    assert several.n_distance_evals_["evaluation"] == 5 * X.shape[0] * 8


@pytest.mark.parametrize("kind", KINDS)
def test_compute_labels_false(data, kind):
    X, w = data
    eager = _make(kind).fit(X, sample_weight=w)
    lazy = _make(kind, compute_labels=False).fit(X, sample_weight=w)
    np.testing.assert_array_equal(lazy.cluster_centers_, eager.cluster_centers_)
    assert lazy.labels_ is None and lazy.inertia_ is None
    assert lazy.n_distance_evals_["evaluation"] == 0
    assert eager.n_distance_evals_["evaluation"] == X.shape[0] * 8
    np.testing.assert_array_equal(lazy.predict(X), eager.labels_)
    # With n_init > 1 the runs are still ranked by their full-data inertia.
    ranked = _make(kind, compute_labels=False, n_init=3).fit(X, sample_weight=w)
    full = _make(kind, n_init=3).fit(X, sample_weight=w)
    np.testing.assert_array_equal(ranked.cluster_centers_, full.cluster_centers_)
    assert ranked.labels_ is None


@pytest.mark.parametrize("kind", KINDS)
def test_n_init_in_the_function(data, kind):
    X, _ = data
    fit = getattr(vcgmm, FUNCTIONS[kind])
    r = fit(X, 8, n_init=3, random_state=2, n_threads=1, return_labels=True, **KINDS[kind])
    est = _make(kind, n_init=3, random_state=2).fit(X)
    np.testing.assert_array_equal(r.centers, est.cluster_centers_)
    np.testing.assert_array_equal(r.labels, est.labels_)
    assert r.inertia == est.inertia_


@pytest.mark.parametrize("kind", KINDS)
def test_n_init_is_thread_independent(kind, data, assert_thread_independent):
    X, _ = data
    assert_thread_independent(lambda t: _make(kind, n_init=3, n_threads=t).fit(X))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bad", [0, -1, 1.5, "2"])
def test_bad_n_init_is_named(data, kind, bad):
    with pytest.raises((ValueError, TypeError), match="n_init"):
        _make(kind, n_init=bad).fit(data[0])


@pytest.mark.parametrize("kind", ["NestedMiniBatchKMeans", "VRKMeans"])
def test_fit_on_chunks_says_what_to_do_instead(data, kind):
    """nmbatch and VRKM sample rows from the whole data set: chunked data
    without coreset_size get a TypeError that names the estimator and what
    takes chunks (coreset_size; MiniBatchKMeans streams them:
    test_minibatch_stream.py)."""
    X, _ = data
    with pytest.raises(TypeError) as exc:
        _make(kind).fit(np.array_split(X, 3))
    message = str(exc.value)
    assert message.startswith(f"{kind}.fit needs X in memory as one array, or coreset_size: ")
    assert "coreset_size set" in message and "np.asarray(X)" in message


@pytest.mark.parametrize("kind", KINDS)
def test_fit_on_chunks_with_a_coreset_is_the_fit_on_that_coreset(data, kind):
    # With coreset_size, chunked data are fitted on the coreset drawn from the
    # chunks: the same centers as the fit of that coreset in memory.
    X, _ = data
    chunks = np.array_split(X, 3)
    est = _make(kind, coreset_size=400, random_state=0).fit(chunks)
    idx, w = vcgmm.lwcs(chunks, 400, random_state=0)
    direct = _make(kind, random_state=0).fit(X[idx], sample_weight=w)
    np.testing.assert_array_equal(est.cluster_centers_, direct.cluster_centers_)
    assert est.labels_.shape == (X.shape[0],) and est.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(est.labels_, est.predict(X))
