"""``labels="approx"`` on KMeans and VCGMM: the fit's own
``labels_`` and ``inertia_`` from :func:`vcgmm.assign_approximate` instead of
the exact scan. Checked: the fit (centers) does not change; the labels are
assign_approximate's; ``inertia_`` is the weighted quantization error of those
labels (numpy reference), never below the exact one; fewer distance
evaluations than the exact scan (vc-GMM's exact labels after a data step
start from the step's labels where that pays); ``compute_labels=False``, zero weights,
``metric="cosine"``, ``n_init > 1`` and pickling; bad values and chunked data
refused with errors naming ``labels``."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import vcgmm

CONFIGS = [
    ("KMeans", dict()),
    ("KMeans", dict(init="afk-mc2", coreset_size=2000)),
    ("VCGMM", dict(G=3)),
    ("VCGMM", dict(G=3, coreset_size=None)),
]
IDS = ["KMeans", "KMeans-coreset", "VCGMM", "VCGMM-nocoreset"]


def _make(kind, n, **params):
    cls = getattr(vcgmm, kind)
    count = "n_clusters" if kind == "KMeans" else "n_components"
    return cls(**{count: n, "random_state": 0, "n_threads": 1, **params})


@pytest.fixture(scope="module")
def many_clusters():
    """Overlapping blobs, many centers: the approximate labels differ from
    the exact ones somewhere (so the tests below can tell them apart)."""
    X, _ = make_blobs(6000, n_features=6, centers=200, cluster_std=2.0, random_state=1)
    return X


def _quantization(X, centers, labels, w=None):
    d2 = ((X - centers[labels]) ** 2).sum(axis=1)
    return float(d2.sum() if w is None else (w * d2).sum())


@pytest.mark.parametrize("kind,params", CONFIGS, ids=IDS)
def test_fit_unchanged_labels_are_assign_approximate(kind, params, many_clusters):
    X = many_clusters
    exact = _make(kind, 150, **params).fit(X)
    approx = _make(kind, 150, labels="approx", **params).fit(X)
    np.testing.assert_array_equal(approx.cluster_centers_, exact.cluster_centers_)
    np.testing.assert_array_equal(
        approx.labels_, vcgmm.assign_approximate(X, approx.cluster_centers_, n_threads=1))
    # inertia_: the quantization error of those labels (numpy reference), an
    # upper bound of the exact one; the labels differ in a few places only.
    assert approx.inertia_ == pytest.approx(
        _quantization(X, approx.cluster_centers_, approx.labels_), rel=1e-9)
    assert approx.inertia_ >= exact.inertia_ * (1 - 1e-12)
    # on these overlapping low-dimensional blobs the approximate labels cost
    # 1.0-2.0% (measured for the four configurations; 0.1% on the patches)
    assert approx.inertia_ <= exact.inertia_ * 1.03
    agree = np.mean(approx.labels_ == exact.labels_)
    assert 0.97 <= agree < 1.0
    # the labelling pass: fewer than n C distance evaluations
    n, C = X.shape[0], 150
    assert approx.n_distance_evals_["evaluation"] < n * C
    # after a data step (VCGMM with a coreset) or Lloyd on all points (KMeans
    # without one) the exact labels start from the fit's last labels where
    # that pays, else scan: either way the scan's labels, for at most n C
    default_coreset = "auto" if kind == "VCGMM" else None
    if (kind == "VCGMM") == (params.get("coreset_size", default_coreset) is not None):
        np.testing.assert_array_equal(exact.labels_, vcgmm.assign(X, exact.cluster_centers_))
        assert exact.n_distance_evals_["evaluation"] <= n * C
    else:
        assert approx.n_distance_evals_["evaluation"] < exact.n_distance_evals_["evaluation"]
        assert exact.n_distance_evals_["evaluation"] >= n * C


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_separated_blobs_labelled_exactly(kind):
    X, _ = make_blobs(3000, n_features=4, centers=12, cluster_std=0.3, center_box=(-50, 50),
                      random_state=3)
    exact = _make(kind, 12).fit(X)
    approx = _make(kind, 12, labels="approx").fit(X)
    np.testing.assert_array_equal(approx.labels_, exact.labels_)
    assert approx.inertia_ == pytest.approx(exact.inertia_, rel=1e-12)


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_compute_labels_false_gives_the_same_on_first_access(kind, many_clusters):
    X = many_clusters
    now = _make(kind, 150, labels="approx").fit(X)
    later = _make(kind, 150, labels="approx", compute_labels=False).fit(X)
    assert "labels_" not in later.__dict__  # not computed yet
    np.testing.assert_array_equal(later.labels_, now.labels_)
    assert later.inertia_ == now.inertia_
    assert later.n_distance_evals_["evaluation"] == now.n_distance_evals_["evaluation"]


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_n_init_ranked_then_labelled_approximately(kind, many_clusters):
    X = many_clusters
    exact = _make(kind, 150, n_init=2).fit(X)
    approx = _make(kind, 150, n_init=2, labels="approx").fit(X)
    np.testing.assert_array_equal(approx.cluster_centers_, exact.cluster_centers_)
    np.testing.assert_array_equal(
        approx.labels_, vcgmm.assign_approximate(X, approx.cluster_centers_, n_threads=1))
    # inertia_ is that of the approximate labels, not the exact ranking value
    assert approx.inertia_ == pytest.approx(
        _quantization(X, approx.cluster_centers_, approx.labels_), rel=1e-9)


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_zero_weights(kind, many_clusters):
    X = many_clusters
    w = np.ones(X.shape[0])
    w[::7] = 0.0
    est = _make(kind, 150, labels="approx").fit(X, sample_weight=w)
    assert est.labels_.shape == (X.shape[0],)
    np.testing.assert_array_equal(
        est.labels_, vcgmm.assign_approximate(X, est.cluster_centers_, w, n_threads=1))
    # zero-weight rows are labelled but do not count in inertia_
    assert est.inertia_ == pytest.approx(
        _quantization(X, est.cluster_centers_, est.labels_, w), rel=1e-9)


def test_cosine_labels_normalised_rows(many_clusters):
    X = many_clusters + 30.0  # away from the origin: directions differ
    est = vcgmm.KMeans(100, metric="cosine", labels="approx", random_state=0,
                       n_threads=1).fit(X)
    rows = X / np.linalg.norm(X, axis=1, keepdims=True)
    expected = vcgmm.assign_approximate(rows, est.cluster_centers_, n_threads=1)
    np.testing.assert_array_equal(est.labels_, expected)


def test_threads_and_pickle(many_clusters):
    X = many_clusters
    one = _make("VCGMM", 150, labels="approx").fit(X)
    two = _make("VCGMM", 150, labels="approx", n_threads=2).fit(X)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert one.inertia_ == two.inertia_
    back = pickle.loads(pickle.dumps(one))
    np.testing.assert_array_equal(back.labels_, one.labels_)
    assert back.labels == "approx" and back.inertia_ == one.inertia_


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_bad_values_and_chunked_data_refused(kind, many_clusters):
    X = many_clusters
    with pytest.raises(ValueError, match="labels"):
        _make(kind, 10, labels="fast").fit(X)
    with pytest.raises(TypeError, match="labels"):
        _make(kind, 10, labels=True).fit(X)
    chunks = [X[:3000], X[3000:]]
    with pytest.raises(ValueError, match="labels='approx'"):
        _make(kind, 10, labels="approx", coreset_size=1000).fit(chunks)
    # exact labels on chunks still work
    est = _make(kind, 10, coreset_size=1000).fit(chunks)
    assert est.labels_.shape == (X.shape[0],)


def test_fit_vcgmm_refuses_labels(many_clusters):
    with pytest.raises(TypeError, match="return_labels"):
        vcgmm.fit_vcgmm(many_clusters, 10, labels="approx")
    with pytest.raises(TypeError, match="return_labels"):
        vcgmm.fit_vargmm(many_clusters, 10, labels="approx")
