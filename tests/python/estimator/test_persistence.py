"""Portable models (issue 12): save/load to the documented .npz, from_centers,
and the vcgmm version carried by pickles.

- save then load gives the same class, parameters and fitted model: predict,
  transform and score equal bit for bit, the centers' dtype kept, for every
  center-based estimator; the file loads without pickle;
- a loaded MiniBatchKMeans continues with partial_fit exactly as the original;
- from_centers: predictions equal a numpy nearest-center reference; VCGMM's
  score_samples equals the closed-form log-likelihood of the given model;
- bad files, unfitted models and bad from_centers arguments raise errors
  naming the argument; a pickle from another vcgmm version warns.
"""

import pickle

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import vcgmm
from vcgmm._estimator.persistence import FORMAT_VERSION

MAKERS = {
    "KMeans": lambda: vcgmm.KMeans(4, random_state=0, n_threads=1),
    "KMeans-lwcs": lambda: vcgmm.KMeans(4, init="afk-mc2", coreset_size=256, random_state=0,
                                        n_threads=1),
    "VCGMM": lambda: vcgmm.VCGMM(4, G=2, random_state=0, n_threads=1),
    "MiniBatchKMeans": lambda: vcgmm.MiniBatchKMeans(4, batch_size=64, random_state=0,
                                                     n_threads=1),
    "NestedMiniBatchKMeans": lambda: vcgmm.NestedMiniBatchKMeans(4, batch_size=64,
                                                                 random_state=0, n_threads=1),
    "VRKMeans": lambda: vcgmm.VRKMeans(4, random_state=0, n_threads=1),
}


def _data(dtype=np.float64, n=600):
    rng = np.random.default_rng(0)
    return (rng.normal(size=(n, 3)) + rng.integers(0, 4, size=(n, 1)) * 3).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_save_load_roundtrip(kind, dtype, tmp_path):
    X = _data(dtype)
    est = MAKERS[kind]().fit(X)
    path = tmp_path / "model.npz"
    est.save(path)
    with np.load(path, allow_pickle=False) as f:  # numbers and strings only
        assert str(f["format"]) == "vcgmm-model" and int(f["format_version"]) == FORMAT_VERSION
    loaded = vcgmm.load(path)
    assert type(loaded) is type(est)
    assert loaded.get_params() == est.get_params()
    assert loaded.cluster_centers_.dtype == est.cluster_centers_.dtype == dtype
    np.testing.assert_array_equal(loaded.cluster_centers_, est.cluster_centers_)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    np.testing.assert_array_equal(loaded.transform(X), est.transform(X))
    assert loaded.score(X) == est.score(X)
    assert loaded.n_features_in_ == est.n_features_in_ and loaded.n_iter_ == est.n_iter_
    if kind == "VCGMM":
        assert loaded.sigma2_ == est.sigma2_ and loaded.G_ == est.G_
        np.testing.assert_array_equal(loaded.score_samples(X), est.score_samples(X))
        np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))
        np.testing.assert_array_equal(loaded.free_energy_, est.free_energy_)


def test_loaded_minibatch_continues_partial_fit_exactly(tmp_path):
    X = _data()
    a = vcgmm.MiniBatchKMeans(4, random_state=0, n_threads=1)
    for chunk in np.array_split(X[:300], 3):
        a.partial_fit(chunk)
    a.save(tmp_path / "mb.npz")
    b = vcgmm.load(tmp_path / "mb.npz")
    for chunk in np.array_split(X[300:], 3):
        a.partial_fit(chunk)
        b.partial_fit(chunk)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    np.testing.assert_array_equal(a.counts_, b.counts_)
    assert a.n_steps_ == b.n_steps_


def test_init_array_and_random_state_instance(tmp_path):
    X = _data()
    init = X[:4].copy()
    est = vcgmm.KMeans(4, init=init, random_state=np.random.RandomState(0), n_threads=1).fit(X)
    est.save(tmp_path / "m.npz")
    loaded = vcgmm.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(loaded.init, init)
    assert loaded.random_state is None  # a RandomState instance has no portable form
    np.testing.assert_array_equal(loaded.fit(X).cluster_centers_,
                                  vcgmm.KMeans(4, init=init, n_threads=1).fit(X).cluster_centers_)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_from_centers_predicts_the_nearest_center(dtype):
    X = _data(dtype)
    centers = X[[0, 10, 20, 30]].astype(np.float64) + 0.5
    km = vcgmm.KMeans.from_centers(centers.astype(dtype))
    d2 = ((X[:, None, :].astype(np.float64) - centers[None].astype(dtype)) ** 2).sum(-1)
    np.testing.assert_array_equal(km.predict(X), d2.argmin(1))
    assert km.n_clusters == 4 and km.n_features_in_ == 3
    assert km.cluster_centers_.dtype == dtype
    np.testing.assert_allclose(-km.score(X), d2.min(1).sum(), rtol=1e-5)
    nm = vcgmm.NestedMiniBatchKMeans.from_centers(centers, batch_size=64)
    np.testing.assert_array_equal(nm.predict(X.astype(np.float64)), d2.argmin(1))


def test_vcgmm_from_centers_is_the_given_mixture():
    X = _data()
    means = np.array([[0.0, 0.0, 0.0], [3.0, 3.0, 3.0], [6.0, 6.0, 6.0]])
    sigma2 = 1.7
    gmm = vcgmm.VCGMM.from_centers(means, sigma2=sigma2, G=2)
    d2 = ((X[:, None, :] - means[None]) ** 2).sum(-1)
    D = X.shape[1]
    log_joint = -0.5 * d2 / sigma2 - 0.5 * D * np.log(2 * np.pi * sigma2) - np.log(3)
    ref = np.logaddexp.reduce(log_joint, axis=1)
    np.testing.assert_allclose(gmm.score_samples(X), ref, rtol=1e-12)
    assert gmm.G_ == 2 and gmm.sigma2_ == sigma2
    np.testing.assert_array_equal(gmm.predict(X), d2.argmin(1))


@pytest.mark.parametrize("centers, exc, match", [
    ([[0.0, np.nan]], ValueError, "centers"),
    (np.zeros((0, 2)), ValueError, "centers"),
    ([0.0, 1.0], ValueError, "centers"),
    ([["a", "b"]], TypeError, "centers"),
])
def test_from_centers_bad_centers(centers, exc, match):
    with pytest.raises(exc, match=match):
        vcgmm.KMeans.from_centers(centers)


@pytest.mark.parametrize("sigma2, exc", [(None, ValueError), (0.0, ValueError),
                                         (-1.0, ValueError), (np.inf, ValueError),
                                         (np.nan, ValueError), ("1", TypeError),
                                         (True, TypeError)])
def test_vcgmm_from_centers_bad_sigma2(sigma2, exc):
    with pytest.raises(exc, match="sigma2"):
        vcgmm.VCGMM.from_centers([[0.0], [1.0]], sigma2=sigma2)


def test_save_unfitted_raises():
    with pytest.raises(NotFittedError):
        vcgmm.KMeans(3).save("never-written.npz")


def test_load_bad_files(tmp_path):
    text = tmp_path / "x.npz"
    text.write_text("not a model")
    with pytest.raises(ValueError, match="path: .* is not a saved vcgmm model"):
        vcgmm.load(text)
    other = tmp_path / "other.npz"
    np.savez(other, a=np.arange(3))
    with pytest.raises(ValueError, match="not a saved vcgmm model"):
        vcgmm.load(other)
    est = vcgmm.KMeans(2, random_state=0, n_threads=1).fit(_data())
    est.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as f:
        entries = dict(f)
    entries["format_version"] = np.asarray(FORMAT_VERSION + 1)
    with open(tmp_path / "future.npz", "wb") as f:
        np.savez(f, **entries)
    with pytest.raises(ValueError, match="newer than this"):
        vcgmm.load(tmp_path / "future.npz")
    with pytest.raises(ValueError, match="path"):
        vcgmm.load(tmp_path / "missing.npz")


def test_pickle_carries_the_version_and_warns_on_mismatch():
    est = vcgmm.KMeans(2, random_state=0, n_threads=1).fit(_data())
    state = est.__getstate__()
    assert state["_vcgmm_version"] == vcgmm.__version__
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = pickle.loads(pickle.dumps(est))  # same version: silent
    assert "_vcgmm_version" not in same.__dict__
    old = vcgmm.KMeans.__new__(vcgmm.KMeans)
    with pytest.warns(vcgmm.VersionMismatchWarning, match="from vcgmm 0.0.1"):
        old.__setstate__({**state, "_vcgmm_version": "0.0.1"})
    np.testing.assert_array_equal(old.cluster_centers_, est.cluster_centers_)
