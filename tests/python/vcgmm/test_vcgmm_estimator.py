"""vcgmm.VCGMM, the scikit-learn estimator of vc-GMM / var-GMM-S: every method
and attribute against a numpy/scipy reference (scikit-learn's own checks:
test_sklearn_compat.py)."""

from __future__ import annotations

import logging
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from scipy.special import logsumexp

from sklearn.base import clone

import vcgmm


@pytest.fixture(scope="module")
def train(make_blobs):
    # Overlapping blobs so the posteriors are not all 0/1.
    return make_blobs(3000, 20, 3, std=1.5, seed=1)[0]


@pytest.fixture(scope="module")
def test_points(make_blobs):
    X = make_blobs(400, 20, 3, std=1.5, seed=2)[0] + 0.3
    # Points far from every mean: exp(-d^2 / (2 sigma^2)) underflows without
    # the log-sum-exp shift.
    far = np.array([[1e3, -1e3, 5e2], [-4e3, 0.0, 0.0]])
    return np.vstack([X, far])


CORESET_SIZES = ["auto", None, 800]


@pytest.fixture(scope="module", params=CORESET_SIZES, ids=lambda c: f"coreset={c}")
def fitted(request, train):
    return vcgmm.VCGMM(20, G=4, coreset_size=request.param, random_state=0, n_threads=1).fit(train)


# ----------------------------------------------------------------------------
# Methods
# ----------------------------------------------------------------------------


def test_score_samples_is_the_exact_log_likelihood(fitted, test_points, gmm_log_likelihood):
    ll = fitted.score_samples(test_points)
    ref = gmm_log_likelihood(test_points, fitted.means_, fitted.sigma2_)
    assert ll.shape == (test_points.shape[0],) and ll.dtype == np.float64
    assert np.all(np.isfinite(ll))
    np.testing.assert_allclose(ll, ref, rtol=1e-12, atol=1e-12)


def test_score_is_the_mean_log_likelihood(fitted, test_points):
    ll = fitted.score_samples(test_points)
    assert fitted.score(test_points) == pytest.approx(ll.mean(), rel=1e-14)
    w = np.random.default_rng(0).uniform(0.5, 2.0, test_points.shape[0])
    assert fitted.score(test_points, sample_weight=w) == pytest.approx(
        np.sum(w * ll) / np.sum(w), rel=1e-14
    )


def test_predict_proba_sparse_is_the_truncated_posterior(fitted, test_points):
    G = fitted.G_
    assert G == 4
    P = fitted.predict_proba_sparse(test_points)
    assert sp.issparse(P) and P.format == "csr"
    assert P.shape == (test_points.shape[0], 20)
    np.testing.assert_array_equal(np.diff(P.indptr), G)
    np.testing.assert_allclose(np.asarray(P.sum(axis=1)).ravel(), 1.0, rtol=0, atol=1e-12)
    # Far points may underflow to 0 away from their nearest mean, never below.
    assert np.all(P.data >= 0) and np.all(P.max(axis=1).toarray() >= 1.0 / G - 1e-12)

    d2 = cdist(test_points, fitted.means_, "sqeuclidean")
    nearest = np.argsort(d2, axis=1, kind="stable")[:, :G]
    for i in range(test_points.shape[0]):
        cols = P.indices[P.indptr[i] : P.indptr[i + 1]]
        assert set(cols) == set(nearest[i]), i
    # Exact responsibilities, renormalised over the G nearest means.
    logp = np.take_along_axis(-d2 / (2.0 * fitted.sigma2_), nearest, axis=1)
    resp = np.exp(logp - logsumexp(logp, axis=1, keepdims=True))
    ref = np.zeros_like(d2)
    np.put_along_axis(ref, nearest, resp, axis=1)
    np.testing.assert_allclose(P.toarray(), ref, rtol=0, atol=1e-12)


def test_predict_proba_with_G_equal_C_is_the_full_posterior(train):
    gmm = vcgmm.VCGMM(5, G=5, coreset_size=None, random_state=0, n_threads=1).fit(train[:500])
    P = gmm.predict_proba_sparse(train[:500]).toarray()
    logp = -cdist(train[:500], gmm.means_, "sqeuclidean") / (2.0 * gmm.sigma2_)
    np.testing.assert_allclose(P, np.exp(logp - logsumexp(logp, axis=1, keepdims=True)),
                               rtol=0, atol=1e-12)


def test_predict_proba_is_the_dense_full_posterior(fitted, test_points):
    # Dense (GaussianMixture's type), exact over all components whatever G_.
    P = fitted.predict_proba(test_points)
    assert isinstance(P, np.ndarray) and P.dtype == np.float64
    assert P.shape == (test_points.shape[0], 20) and fitted.G_ < 20
    logp = -cdist(test_points, fitted.means_, "sqeuclidean") / (2.0 * fitted.sigma2_)
    np.testing.assert_allclose(P, np.exp(logp - logsumexp(logp, axis=1, keepdims=True)),
                               rtol=0, atol=1e-12)
    assert np.asarray(P).shape == P.shape  # no 0-d object array


def test_predict_is_the_nearest_mean(fitted, train, test_points):
    for X in (train, test_points):
        ref = np.argmin(cdist(X, fitted.cluster_centers_, "sqeuclidean"), axis=1)
        np.testing.assert_array_equal(fitted.predict(X), ref)
    np.testing.assert_array_equal(fitted.predict(train), fitted.labels_)
    assert fitted.labels_.dtype == np.int32 and fitted.labels_.shape == (train.shape[0],)


def test_fit_predict_is_labels(train):
    for coreset_size in CORESET_SIZES:
        a = vcgmm.VCGMM(20, coreset_size=coreset_size, random_state=3, n_threads=1)
        labels = a.fit_predict(train)
        b = vcgmm.VCGMM(20, coreset_size=coreset_size, random_state=3, n_threads=1).fit(train)
        np.testing.assert_array_equal(labels, a.labels_)
        np.testing.assert_array_equal(labels, b.labels_)
        np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)


def test_transform_is_euclidean_distances(fitted, test_points):
    np.testing.assert_allclose(
        fitted.transform(test_points), cdist(test_points, fitted.cluster_centers_),
        rtol=1e-7, atol=1e-7,
    )


def test_inertia_is_the_quantization_error(fitted, train):
    assert fitted.inertia_ == pytest.approx(
        vcgmm.quantization_error(train, fitted.cluster_centers_, n_threads=1), rel=1e-12
    )
    d2 = cdist(train, fitted.cluster_centers_, "sqeuclidean").min(axis=1)
    assert fitted.inertia_ == pytest.approx(d2.sum(), rel=1e-10)


def test_weighted_fit_attributes(train):
    w = np.random.default_rng(4).uniform(0.5, 3.0, train.shape[0])
    for coreset_size in CORESET_SIZES:
        gmm = vcgmm.VCGMM(20, coreset_size=coreset_size, refine=0, data_steps=0,
                          random_state=0, n_threads=1).fit(train, sample_weight=w)
        assert gmm.inertia_ == pytest.approx(
            vcgmm.quantization_error(train, gmm.cluster_centers_, w, n_threads=1), rel=1e-12
        )
        fit_weight = w.sum() if coreset_size is None else gmm.coreset_weights_.sum()
        assert gmm.lower_bound_ == pytest.approx(gmm.free_energy_[-1] / fit_weight, rel=1e-14)


def test_lower_bound_is_final_free_energy_per_fit_weight(fitted, train):
    if fitted.coreset_size is None:
        weight = train.shape[0]
    else:
        weight = fitted.coreset_weights_.sum()
    # without refinement: EM's last free energy; after refinement and data
    # steps (the default) F recomputed for the moved means, with the final K(n)
    papers = clone(fitted).set_params(refine=0, data_steps=0).fit(train)
    np.testing.assert_array_equal(papers.free_energy_, fitted.free_energy_)
    assert papers.lower_bound_ == pytest.approx(papers.free_energy_[-1] / weight, rel=1e-14)
    assert fitted.refine > 0 and fitted.lower_bound_ != papers.lower_bound_
    if fitted.coreset_size is None:  # a bound of the data's log-likelihood (with a coreset: its own)
        assert fitted.lower_bound_ <= fitted.score(train) + 1e-12 * abs(fitted.score(train))


@pytest.mark.parametrize("G", [2, 3, 20])
def test_free_energy_lower_bounds_the_log_likelihood(train, G):
    # var-GMM-S on all points: F(K, Theta) <= log-likelihood(Theta) for every
    # K (the truncated sum leaves out positive terms), and the final M-step
    # only raises F(K, .), so the last recorded F is at most the
    # log-likelihood of the returned model; with G = C they nearly coincide.
    gmm = vcgmm.VCGMM(20, G=G, coreset_size=None, refine=0, random_state=0,
                      n_threads=1).fit(train)
    ll = gmm.score_samples(train).sum()
    assert gmm.free_energy_[-1] <= ll + 1e-10 * abs(ll)
    assert gmm.lower_bound_ <= gmm.score(train) + 1e-10 * abs(ll)
    if G == 20:
        assert gmm.free_energy_[-1] == pytest.approx(ll, rel=1e-3)
    # after refinement steps (the default) the means have moved since EM's
    # last E-step: lower_bound_ is F recomputed for them, still a lower bound
    refined = vcgmm.VCGMM(20, G=G, coreset_size=None, random_state=0, n_threads=1).fit(train)
    ll = refined.score_samples(train).sum()
    assert refined.lower_bound_ * train.shape[0] <= ll + 1e-10 * abs(ll)


def test_attributes(fitted, train):
    C, D = 20, train.shape[1]
    assert fitted.cluster_centers_.shape == (C, D)
    assert fitted.means_ is fitted.cluster_centers_
    assert fitted.n_features_in_ == D
    assert fitted.sigma2_ > 0 and np.isfinite(fitted.sigma2_)
    assert fitted.free_energy_.shape == (fitted.n_iter_,)
    assert np.all(np.diff(fitted.free_energy_) >= -1e-9 * np.abs(fitted.free_energy_[1:]))
    assert isinstance(fitted.converged_, bool) and fitted.converged_
    assert set(fitted.n_distance_evals_) == {"coreset", "seeding", "iterations", "refinement", "evaluation"}
    assert set(fitted.timings_) == set(fitted.n_distance_evals_)
    if fitted.coreset_size is None:  # no data step: the scan over all C means
        assert fitted.n_distance_evals_["evaluation"] == train.shape[0] * C
    else:  # from the data step's labels (test_data_steps.py): at most the scan's
        assert 0 < fitted.n_distance_evals_["evaluation"] <= train.shape[0] * C
    if fitted.coreset_size is None:
        assert fitted.coreset_indices_ is None and fitted.coreset_weights_ is None
        assert fitted.n_distance_evals_["coreset"] == 0
    else:
        n_prime = (vcgmm.default_coreset_size(train.shape[0], C)
                   if fitted.coreset_size == "auto" else fitted.coreset_size)
        assert fitted.coreset_indices_.shape == (n_prime,)
        assert fitted.coreset_weights_.shape == (n_prime,)
        assert np.all(fitted.coreset_weights_ > 0)
        assert np.all(np.diff(fitted.coreset_indices_) >= 0)
        assert fitted.n_distance_evals_["coreset"] == train.shape[0]


def test_estimator_equals_the_functional_api(train):
    a = vcgmm.VCGMM(20, G=3, random_state=5, n_threads=1).fit(train)
    r = vcgmm.fit_vcgmm(train, 20, G=3, random_state=5, return_labels=True, n_threads=1)
    np.testing.assert_array_equal(a.cluster_centers_, r.centers)
    np.testing.assert_array_equal(a.coreset_indices_, r.coreset_indices)
    np.testing.assert_array_equal(a.free_energy_, r.free_energy)
    np.testing.assert_array_equal(a.labels_, r.labels)
    assert a.sigma2_ == r.sigma2 and a.inertia_ == r.inertia and a.G_ == r.G == 3
    b = vcgmm.VCGMM(20, G=3, coreset_size=None, plus1=True, random_state=5, n_threads=1).fit(train)
    r = vcgmm.fit_vargmm(train, 20, G=3, plus1=True, random_state=5, n_threads=1)
    np.testing.assert_array_equal(b.cluster_centers_, r.centers)
    assert b.sigma2_ == r.sigma2


def test_float32_model(train, gmm_log_likelihood):
    X = train.astype(np.float32)
    gmm = vcgmm.VCGMM(20, random_state=0, n_threads=1).fit(X)
    assert gmm.cluster_centers_.dtype == np.float32
    # float64 input to predict / score_samples uses the float32 means' values.
    np.testing.assert_array_equal(gmm.predict(X.astype(np.float64)), gmm.labels_)
    ll = gmm.score_samples(X)
    ref = gmm_log_likelihood(X, gmm.means_, gmm.sigma2_)
    np.testing.assert_allclose(ll, ref, rtol=1e-6, atol=1e-6)


def test_pickle_round_trip(fitted, test_points):
    other = pickle.loads(pickle.dumps(fitted))
    for name in ("cluster_centers_", "labels_", "free_energy_"):
        np.testing.assert_array_equal(getattr(other, name), getattr(fitted, name))
    assert other.sigma2_ == fitted.sigma2_
    np.testing.assert_array_equal(other.score_samples(test_points),
                                  fitted.score_samples(test_points))
    np.testing.assert_array_equal(other.predict_proba(test_points),
                                  fitted.predict_proba(test_points))
    assert (other.predict_proba_sparse(test_points)
            != fitted.predict_proba_sparse(test_points)).nnz == 0
    assert other.get_params() == fitted.get_params()


def test_G_larger_than_C_is_clamped(train):
    with pytest.warns(UserWarning, match="G=9 exceeds the number of components"):
        gmm = vcgmm.VCGMM(4, G=9, coreset_size=None, random_state=0, n_threads=1).fit(train[:300])
    assert gmm.G_ == 4 and gmm.get_params()["G"] == 9
    exact = vcgmm.VCGMM(4, G=4, coreset_size=None, random_state=0, n_threads=1).fit(train[:300])
    np.testing.assert_array_equal(gmm.cluster_centers_, exact.cluster_centers_)
    assert gmm.predict_proba_sparse(train[:10]).nnz == 40


def test_verbose_logs_and_silent_otherwise(train, caplog):
    caplog.set_level(logging.INFO, logger="vcgmm")
    vcgmm.VCGMM(6, random_state=0, verbose=False, n_threads=1).fit(train)
    vcgmm.fit_vcgmm(train, 6, random_state=0, verbose=False, n_threads=1)
    vcgmm.fit_vargmm(train, 6, random_state=0, verbose=False, n_threads=1)
    assert [r for r in caplog.records if r.name.startswith("vcgmm")] == []

    gmm = vcgmm.VCGMM(6, coreset_size=500, random_state=0, verbose=True, n_threads=1).fit(train)
    records = [r for r in caplog.records if r.name.startswith("vcgmm")]
    text = "\n".join(r.getMessage() for r in records)
    assert records and all(r.levelno == logging.INFO for r in records)
    assert "coreset" in text and "seeding" in text and "evaluation" in text
    # One line per EM iteration.
    assert sum("vc-gmm iter" in r.getMessage() for r in records) == gmm.n_iter_

    caplog.clear()
    vcgmm.fit_vargmm(train, 6, max_iter=3, tol=0, random_state=0, verbose=True, n_threads=1)
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("vcgmm")]
    assert sum("vc-gmm iter" in m for m in messages) == 3
    assert not any("coreset" in m for m in messages)  # var-GMM-S has no coreset phase


@pytest.mark.parametrize("case", ["exact ties", "float32 with a far mean"])
def test_predict_proba_top_component_is_predict(case):
    # The column of the largest posterior must be the nearest mean that
    # predict returns (ties: lowest index, as documented for both).
    # (A regression test: the G components were once selected from the
    # expanded distances without resolving near-ties exactly.)
    rng = np.random.default_rng(0)
    if case == "exact ties":
        x = np.zeros((1, 2))
        centers = np.array([[3.0, 0], [1, 0], [0, -1], [-1, 0], [0, 1], [1, 0]])
    else:
        x = np.array([[2.44914, -0.0816566, 8.37655, 2.41779, 10.99]], np.float32)
        centers = np.vstack([x + [0.03, 0, 0, 0, 0],  # d^2 = 9e-4
                             x + [0, 0.02, 0, 0, 0],  # d^2 = 4e-4: the nearest
                             np.full((1, 5), 3000.0)]).astype(np.float32)
    C, D = centers.shape
    gmm = vcgmm.VCGMM(C, G=1, coreset_size=None, random_state=0, n_threads=1)
    gmm.fit(rng.standard_normal((50, D)).astype(x.dtype))
    gmm.cluster_centers_ = centers  # the situation to score, set directly
    d2 = cdist(x.astype(np.float64), centers.astype(np.float64), "sqeuclidean")[0]
    nearest = int(np.flatnonzero(d2 == d2.min())[0])
    assert gmm.predict(x)[0] == nearest
    assert gmm.predict_proba_sparse(x).indices.tolist() == [nearest]
    assert int(np.argmax(gmm.predict_proba(x)[0])) == nearest


def test_n_local_trials_reaches_the_seeding(train):
    # k-means++ seeding with greedy candidates: the same means as fit_vcgmm
    # (tested against kmeans_plusplus on the coreset in test_vcgmm.py), and
    # different ones from the classic seeding.
    kw = dict(G=3, coreset_size=800, init="k-means++", random_state=2, n_threads=1)
    greedy = vcgmm.VCGMM(20, n_local_trials=4, **kw).fit(train)
    r = vcgmm.fit_vcgmm(train, 20, n_local_trials=4, **kw)
    np.testing.assert_array_equal(greedy.cluster_centers_, r.centers)
    assert greedy.n_distance_evals_["seeding"] == 19 * 800 * (1 + 4)
    auto = vcgmm.VCGMM(20, n_local_trials="auto", **kw).fit(train)
    given = vcgmm.VCGMM(20, n_local_trials=2 + int(np.log(20)), **kw).fit(train)
    np.testing.assert_array_equal(auto.cluster_centers_, given.cluster_centers_)
    classic = vcgmm.VCGMM(20, n_local_trials=1, **kw).fit(train)
    assert not np.array_equal(classic.cluster_centers_, greedy.cluster_centers_)


@pytest.mark.parametrize("coreset_size", ["auto", None])
def test_results_do_not_depend_on_the_thread_count(coreset_size, patches,
                                                   assert_thread_independent):
    # The fit and every method that computes (blocked scans over 256-row
    # blocks and 512-center tiles): 40,000 x 108 points, 100 components.
    X = patches[:40000]
    Y = patches[-5000:]
    w = np.random.default_rng(0).uniform(0.5, 2.0, Y.shape[0])

    def run(n_threads):
        gmm = vcgmm.VCGMM(100, G=3, coreset_size=coreset_size, max_iter=4, tol=0,
                          random_state=1, n_threads=n_threads).fit(X)
        return {"fit": gmm, "predict": gmm.predict(Y), "predict_proba": gmm.predict_proba(Y),
                "predict_proba_sparse": gmm.predict_proba_sparse(Y),
                "bic": gmm.bic(Y), "sample": gmm.sample(50),
                "score_samples": gmm.score_samples(Y), "score": gmm.score(Y, sample_weight=w),
                "transform": gmm.transform(Y)}

    out = assert_thread_independent(run)
    assert out["fit"].n_iter_ == 4


def test_default_init_is_kmeanspp_up_to_the_threshold_then_afkmc2(make_blobs):
    """init="auto" (the default) fits exactly as the method it names: greedy
    k-means++ up to AUTO_SEEDING_MAX_CLUSTERS components, AFK-MC^2 above."""
    from vcgmm._base.loader import core
    limit = core.AUTO_SEEDING_MAX_CLUSTERS
    assert vcgmm.VCGMM().init == "auto"
    assert core.resolve_seeding("auto", limit) == "k-means++"
    assert core.resolve_seeding("auto", limit + 1) == "afk-mc2"
    assert core.resolve_seeding("random", limit + 1) == "random"
    X = make_blobs(2 * limit + 2, 40, 2, seed=3)[0]
    for C in (30, limit + 1):
        named, other = ("k-means++", "afk-mc2") if C <= limit else ("afk-mc2", "k-means++")
        fits = {init: vcgmm.VCGMM(C, init=init, max_iter=3, refine=0, random_state=4,
                                  compute_labels=False).fit(X)
                for init in ("auto", named, other)}
        np.testing.assert_array_equal(fits["auto"].means_, fits[named].means_)
        assert fits["auto"].n_distance_evals_["seeding"] == fits[named].n_distance_evals_["seeding"]
        assert not np.array_equal(fits["auto"].means_, fits[other].means_)


def test_init_auto_is_accepted_by_the_other_seeded_estimators(make_blobs):
    X = make_blobs(2000, 5, 4, seed=5)[0]
    for cls in (vcgmm.KMeans, vcgmm.MiniBatchKMeans):
        a = cls(5, init="auto", random_state=0).fit(X)
        b = cls(5, init="k-means++", random_state=0).fit(X)
        np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    a = vcgmm.MiniBatchKMeans(5, init="auto", random_state=0).partial_fit(X)
    b = vcgmm.MiniBatchKMeans(5, init="k-means++", random_state=0).partial_fit(X)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)


def test_the_documented_auto_threshold_is_the_cores():
    # The docstrings and the demo's text state the threshold from the core's
    # constant: they cannot drift from what "auto" does.
    from vcgmm._base.loader import core
    from vcgmm.cli import demo
    stated = f"k-means++ up to {core.AUTO_SEEDING_MAX_CLUSTERS} clusters, AFK-MC^2 above"
    for cls in (vcgmm.VCGMM, vcgmm.KMeans, vcgmm.MiniBatchKMeans,
                vcgmm.NestedMiniBatchKMeans, vcgmm.VRKMeans):
        assert stated in " ".join(cls.__doc__.split()), cls.__name__
    assert f"seeding up to {{auto_max}} clusters" in demo.EXPLANATION
