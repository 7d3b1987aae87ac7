"""Portable models: save/load to the documented .npz, from_centers, and the
vcgmm version carried by pickles.

- save then load gives the same class, parameters and fitted model: predict,
  transform and score equal bit for bit, the centers' dtype kept, for every
  center-based estimator; the file loads without pickle;
- a loaded MiniBatchKMeans continues with partial_fit exactly as the original;
- from_centers: predictions equal a numpy nearest-center reference; VCGMM's
  score_samples equals the closed-form log-likelihood of the given model;
- bad files, unfitted models and bad from_centers arguments raise errors
  naming the argument; a pickle from another vcgmm version warns;
- load reads only what the format defines, each entry checked (dtype, shape
  against the saved centers, finiteness, parameters the class accepts) before
  its data are read: a damaged or altered file, a pickle, a truncated archive
  raise one ValueError naming the path, and a member declaring more data than
  the file stores is refused without allocating it.
"""

import io
import json
import pickle
import re
import tracemalloc
import zipfile

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import vcgmm
from vcgmm._estimator.persistence import FORMAT_VERSION, SAVED_ATTRIBUTES, _attribute_rules
from vcgmm._registry import saved_classes

MAKERS = {
    "KMeans": lambda: vcgmm.KMeans(4, random_state=0, n_threads=1),
    "KMeans-lwcs": lambda: vcgmm.KMeans(4, init="afk-mc2", coreset_size=256, random_state=0,
                                        n_threads=1),
    "VCGMM": lambda: vcgmm.VCGMM(4, G=2, random_state=0, n_threads=1),
    "VCGMM-spherical": lambda: vcgmm.VCGMM(4, G=2, covariance_type="spherical",
                                           random_state=0, n_threads=1),
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
    if kind.startswith("VCGMM"):
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


def test_a_model_fitted_with_a_callback_saves_without_it(tmp_path):
    X = _data()
    seen = []
    est = vcgmm.KMeans(4, random_state=0, n_threads=1, callback=seen.append).fit(X)
    assert seen
    est.save(tmp_path / "m.npz")
    loaded = vcgmm.load(tmp_path / "m.npz")
    assert loaded.callback is None and est.callback is not None
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))


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


def test_every_saved_class_and_attribute_is_covered():
    assert {type(make()).__name__ for make in MAKERS.values()} == set(saved_classes())
    assert set(_attribute_rules(1, 1)) | {"cluster_centers_"} == set(SAVED_ATTRIBUTES)


def test_feature_names_roundtrip(tmp_path):
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(_data(), columns=["a", "b", "c"])
    est = vcgmm.KMeans(4, random_state=0, n_threads=1).fit(X)
    est.save(tmp_path / "m.npz")
    loaded = vcgmm.load(tmp_path / "m.npz")
    assert loaded.feature_names_in_.dtype == object
    assert loaded.feature_names_in_.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))


def _genuine(tmp_path, kind="KMeans"):
    """The entries of a model saved by ``save`` (4 centers, 3 features)."""
    MAKERS[kind]().fit(_data()).save(tmp_path / "genuine.npz")
    with np.load(tmp_path / "genuine.npz", allow_pickle=False) as f:
        return {key: f[key].copy() for key in f.files}


def _write(path, entries):
    with open(path, "wb") as f:
        np.savez(f, **entries)
    return path


def _refused(path, reason):
    """load(path) raises one ValueError naming the path and matching reason."""
    with pytest.raises(ValueError) as info:
        vcgmm.load(path)
    message = str(info.value)
    assert message.startswith(f"path: {str(path)!r}"), message
    assert re.search(reason, message), message
    return message


def _centers_with(value):
    def edit(e):
        centers = e["attr:cluster_centers_"].copy()
        centers[1, 2] = value
        e["attr:cluster_centers_"] = centers
    return edit


def _params_with(**changes):
    def edit(e):
        e["params"] = np.asarray(json.dumps({**json.loads(str(e["params"])), **changes}))
    return edit


def _set(key, value):
    return lambda e: e.__setitem__(key, np.asarray(value))


def _drop(key):
    return lambda e: e.pop(key)


DAMAGES = {
    # predict would silently give one label for every sample
    "nan-centers": (_centers_with(np.nan), r"'attr:cluster_centers_' contains NaN or infinity"),
    "1e200-centers": (_centers_with(1e200), r"1e\+200 in magnitude"),
    "1e20-float32-centers": (_set("attr:cluster_centers_", np.full((4, 3), 1e20, np.float32)),
                             r"1e\+20 in magnitude.*float32's overflow"),
    "inf-centers": (_centers_with(-np.inf), r"'attr:cluster_centers_' contains NaN or infinity"),
    "1-d-centers": (lambda e: e.__setitem__("attr:cluster_centers_",
                                            e["attr:cluster_centers_"].ravel()),
                    r"'attr:cluster_centers_' is a float64 array of shape \(12,\)"),
    "empty-centers": (_set("attr:cluster_centers_", np.zeros((0, 3))), r"non-empty"),
    "string-centers": (lambda e: e.__setitem__("attr:cluster_centers_",
                                               e["attr:cluster_centers_"].astype(str)),
                       r"'attr:cluster_centers_' is a <U\d+ array"),
    "int-centers": (_set("attr:cluster_centers_", np.ones((4, 3), dtype=np.int64)),
                    r"'attr:cluster_centers_' is a int64 array"),
    "no-centers": (_drop("attr:cluster_centers_"), r"'attr:cluster_centers_' is missing"),
    # a member named like a method would replace it
    "attr:predict": (_set("attr:predict", 0), r"unknown entry 'attr:predict'"),
    "unknown-param-array": (_set("param:other", np.ones((4, 3))),
                            r"unknown entry 'param:other'"),
    "n_features_in_": (_set("attr:n_features_in_", 5),
                       r"'attr:n_features_in_' is 5, not equal to the 3 columns"),
    "n_features_in_-string": (_set("attr:n_features_in_", "3"),
                              r"'attr:n_features_in_' is a <U1 array"),
    "no-n_features_in_": (_drop("attr:n_features_in_"), r"'attr:n_features_in_' is missing"),
    "feature-names-length": (_set("attr:feature_names_in_", ["a", "b"]),
                             r"'attr:feature_names_in_'.*not a string array of shape \(3,\)"),
    "nan-inertia": (_set("attr:inertia_", np.nan), r"'attr:inertia_' is nan, not finite"),
    "vector-n_iter_": (_set("attr:n_iter_", [1, 2]),
                       r"'attr:n_iter_' is a int64 array of shape \(2,\), not an integer scalar"),
    "negative-n_iter_": (_set("attr:n_iter_", -1), r"'attr:n_iter_' is -1, not >= 0"),
    "2-d-objective_": (_set("attr:objective_", np.ones((2, 2))),
                       r"'attr:objective_' is a float64 array of shape \(2, 2\), not a "
                       r"floating-point array of shape \(n,\)"),
    "no-format-version": (_drop("format_version"), r"'format_version' is missing"),
    "old-format-version": (_set("format_version", 0), r"format_version 0 does not exist"),
    "unknown-class": (_set("class", "Pipeline"), r"holds a 'Pipeline', not one of"),
    "bad-json": (_set("params", "{not json"), r"'params' is not valid JSON \(JSONDecodeError"),
    "deep-json": (_set("params", "[" * 100_000 + "]" * 100_000),
                  r"'params' is not valid JSON \(RecursionError"),
    "json-list": (_set("params", "[1, 2]"), r"'params' is JSON of a list"),
    "params-array": (_set("params", ["{}", "{}"]), r"'params' is a <U2 array"),
    "unknown-param": (_params_with(bogus=1), r"not parameters KMeans accepts.*bogus"),
    "invalid-param": (_params_with(max_iter="many"), r"not parameters KMeans accepts.*max_iter"),
    "count-mismatch": (_params_with(n_clusters=5), r"n_clusters=5 in 'params' but "
                                                   r"cluster_centers_ has 4 rows"),
    "init-reference": (_params_with(init={"array": "attr:cluster_centers_"}),
                       r"init=.*attr:cluster_centers_"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_load_refuses_damaged_entries(damage, tmp_path):
    entries = _genuine(tmp_path)
    edit, reason = DAMAGES[damage]
    edit(entries)
    _refused(_write(tmp_path / "damaged.npz", entries), reason)


@pytest.mark.parametrize("kind, key, value, reason", [
    ("MiniBatchKMeans", "attr:counts_", np.ones(5), r"'attr:counts_'.*shape \(4,\)"),
    ("MiniBatchKMeans", "attr:counts_", -np.ones(4), r"'attr:counts_'.*finite and >= 0"),
    ("VCGMM", "attr:sigma2_", -1.0, r"'attr:sigma2_' is -1.0, not finite and > 0"),
    ("VCGMM", "attr:G_", 9, r"'attr:G_' is 9, not between 1 and 4"),
    ("VCGMM", "attr:free_energy_", np.ones(3, dtype=object), r"'attr:free_energy_' has dtype "
                                                             r"object"),
    ("VCGMM-spherical", "attr:_variances", np.zeros(4), r"'attr:_variances'.*finite and > 0"),
    ("VCGMM-spherical", "attr:_mixing_weights", np.ones(3), r"'attr:_mixing_weights'.*\(4,\)"),
    ("VCGMM-spherical", "attr:_mixing_weights", None, r"come together"),
], ids=["counts-length", "counts-negative", "sigma2-negative", "G-above-C", "free-energy-object",
        "variances-zero", "weights-length", "weights-missing"])
def test_load_refuses_damaged_family_entries(kind, key, value, reason, tmp_path):
    entries = _genuine(tmp_path, kind)
    if value is None:
        del entries[key]
    else:
        entries[key] = value
    _refused(_write(tmp_path / "damaged.npz", entries), reason)  # savez pickles object arrays


def _npy_declaring(shape, stored):
    """A .npy member whose header declares ``shape`` of float64 but which
    holds only ``stored`` values."""
    f = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        f, {"descr": "<f8", "fortran_order": False, "shape": shape})
    f.write(np.zeros(stored).tobytes())
    return f.getvalue()


@pytest.mark.parametrize("key, reason", [
    ("attr:objective_", r"'attr:objective_' declares 800000000 bytes of data but the file "
                        r"stores \d+"),
    ("attr:huge", r"unknown entry 'attr:huge'"),
], ids=["known", "unknown"])
def test_load_does_not_allocate_what_a_member_only_declares(key, reason, tmp_path):
    entries = _genuine(tmp_path)
    entries.pop(key, None)
    path = _write(tmp_path / "damaged.npz", entries)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(key + ".npy", _npy_declaring((10**8,), 2))
    tracemalloc.start()
    try:
        _refused(path, reason)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10**7  # the declared 800 MB were never allocated


def test_load_refuses_damaged_archives(tmp_path):
    est = vcgmm.KMeans(2, random_state=0, n_threads=1).fit(_data())
    est.save(tmp_path / "m.npz")
    whole = (tmp_path / "m.npz").read_bytes()
    for size in (0, 3, len(whole) // 2, len(whole) - 10):
        (tmp_path / "cut.npz").write_bytes(whole[:size])
        _refused(tmp_path / "cut.npz", r"not a .*vcgmm model")
    # a zip archive without the members, and one with a member that is no array
    with zipfile.ZipFile(tmp_path / "empty.npz", "w"):
        pass
    _refused(tmp_path / "empty.npz", r"not a saved vcgmm model")
    with zipfile.ZipFile(tmp_path / "text.npz", "w") as archive:
        archive.writestr("format.txt", "vcgmm-model")
    _refused(tmp_path / "text.npz", r"member 'format.txt' is not a .npy array")
    _refused(_write(tmp_path / "format-only.npz", {"format": np.asarray("vcgmm-model")}),
             r"'format_version' is missing")


def test_load_refuses_a_pickle_without_advising_to_unpickle(tmp_path):
    est = vcgmm.KMeans(2, random_state=0, n_threads=1).fit(_data())
    (tmp_path / "model.pkl").write_bytes(pickle.dumps(est))
    message = _refused(tmp_path / "model.pkl", r"is not a saved vcgmm model: not a .npz "
                                               r"archive written by save")
    assert "pickle.load" not in message and "allow_pickle" not in message
