"""scikit-learn conventions of the estimators: ``compute_labels``, ``n_init``,
the mixture attributes and methods of ``GaussianMixture`` on ``VCGMM``, zero
sample weights, feature names and ``set_output``."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import vcgmm
import vcgmm._estimator.base as estimator_base

# Every estimator in both configurations (with and without a coreset).
CONFIGS = [
    ("KMeans", dict()),
    ("KMeans", dict(init="afk-mc2", coreset_size=400)),
    ("VCGMM", dict(G=3)),
    ("VCGMM", dict(G=3, coreset_size=None)),
]
CONFIG_IDS = ["KMeans", "KMeans-coreset", "VCGMM", "VCGMM-nocoreset"]


def _make(kind, n, **params):
    cls = getattr(vcgmm, kind)
    count = "n_clusters" if kind == "KMeans" else "n_components"
    return cls(**{count: n, "random_state": 0, "n_threads": 1, **params})


@pytest.fixture(scope="module")
def data(make_blobs):
    X = make_blobs(2500, 8, 5, std=1.5, seed=3)[0]
    w = np.random.default_rng(4).uniform(0.5, 2.0, X.shape[0])
    return X, w


# ----------------------------------------------------------------------------
# compute_labels
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kind,params", CONFIGS, ids=CONFIG_IDS)
def test_compute_labels_false_skips_the_pass_and_computes_on_access(data, kind, params,
                                                                   weighted, brute_qe):
    X, w = data
    w = w if weighted else None
    eager = _make(kind, 8, **params).fit(X, sample_weight=w)
    lazy = _make(kind, 8, compute_labels=False, **params).fit(X, sample_weight=w)
    # The fit itself is the same.
    np.testing.assert_array_equal(lazy.cluster_centers_, eager.cluster_centers_)
    for name in ("n_iter_", "converged_", "coreset_indices_"):
        np.testing.assert_array_equal(getattr(lazy, name), getattr(eager, name))
    # No evaluation pass was run ...
    assert "labels_" not in vars(lazy) and "inertia_" not in vars(lazy)
    assert lazy.n_distance_evals_["evaluation"] == 0 and lazy.timings_["evaluation"] == 0.0
    scan = X.shape[0] * 8
    if "coreset_size" not in params:
        # after vc-GMM's data step, or Lloyd on all points, the fit's pass
        # starts from the fit's last labels: the same labels, at most the
        # scan's evaluations
        assert 0 < eager.n_distance_evals_["evaluation"] <= scan
    else:
        assert eager.n_distance_evals_["evaluation"] == scan
    # ... until the first access (a scan), which gives exactly the eager values.
    np.testing.assert_array_equal(lazy.labels_, eager.labels_)
    assert lazy.inertia_ == eager.inertia_
    np.testing.assert_allclose(lazy.inertia_, brute_qe(X, lazy.cluster_centers_, w), rtol=1e-12)
    assert lazy.n_distance_evals_["evaluation"] == scan
    assert ({k: v for k, v in lazy.n_distance_evals_.items() if k != "evaluation"} ==
            {k: v for k, v in eager.n_distance_evals_.items() if k != "evaluation"})
    assert lazy.timings_["evaluation"] > 0.0
    assert "labels_" in vars(lazy) and "_training_data" not in vars(lazy) or \
        lazy.__dict__.get("_training_data") is None  # the reference is dropped


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_compute_labels_false_inertia_first(data, kind):
    X, _ = data
    lazy = _make(kind, 8, compute_labels=False).fit(X)
    inertia = lazy.inertia_  # computes both
    assert "labels_" in vars(lazy)
    eager = _make(kind, 8).fit(X)
    assert inertia == eager.inertia_
    np.testing.assert_array_equal(lazy.labels_, eager.labels_)


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_compute_labels_false_fit_predict_and_refits(data, kind):
    X, _ = data
    est = _make(kind, 8, compute_labels=False)
    labels = est.fit_predict(X)
    np.testing.assert_array_equal(labels, est.predict(X))
    # Refit on other data: nothing stale survives.
    Y = X[::2] + 1.0
    est.fit(Y)
    assert "labels_" not in vars(est)
    assert est.labels_.shape == (Y.shape[0],)
    np.testing.assert_array_equal(est.labels_, est.predict(Y))
    # Refit with compute_labels=True after a lazy fit that was never read.
    est.set_params(compute_labels=False).fit(X)
    est.set_params(compute_labels=True).fit(Y)
    assert "labels_" in vars(est) and est.__dict__.get("_training_data") is None
    np.testing.assert_array_equal(est.labels_, est.predict(Y))


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_compute_labels_false_pickle_drops_the_training_data(data, kind):
    X, _ = data
    X = np.repeat(X, 8, axis=0)  # 1.6 MB: a pickled copy would show in the size
    lazy = _make(kind, 8, compute_labels=False).fit(X)
    blob = pickle.dumps(lazy)
    assert len(blob) < X.nbytes / 4
    restored = pickle.loads(blob)
    np.testing.assert_array_equal(restored.predict(X[:50]), lazy.predict(X[:50]))
    assert not hasattr(restored, "labels_")
    with pytest.raises(AttributeError, match="compute_labels=False"):
        restored.inertia_
    # The original still has its data and computes them.
    assert lazy.labels_.shape == (X.shape[0],)


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_unfitted_has_no_labels(kind):
    est = _make(kind, 3)
    assert not hasattr(est, "labels_") and not hasattr(est, "inertia_")


def test_compute_labels_false_still_warns_about_coinciding_clusters():
    X = np.repeat(np.arange(3.0)[:, None], 20, axis=0)  # 3 distinct points
    km = vcgmm.KMeans(5, random_state=0, n_threads=1, compute_labels=False).fit(X)
    with pytest.warns(Warning, match="distinct clusters"):
        km.labels_


def test_fit_vcgmm_takes_return_labels_not_compute_labels(data):
    with pytest.raises(TypeError, match="return_labels"):
        vcgmm.fit_vcgmm(data[0], 5, compute_labels=False)


# ----------------------------------------------------------------------------
# n_init
# ----------------------------------------------------------------------------


def _single_runs(monkeypatch, kind, params, X, w, n_init, random_state):
    """Each of the n_init runs as a separate n_init=1 fit (its seed forced)."""
    seeds = estimator_base.run_seeds(random_state, n_init)
    fits = []
    for seed in seeds:
        with monkeypatch.context() as m:
            m.setattr(estimator_base, "run_seeds", lambda rs, n, s=seed: [s])
            fits.append(_make(kind, 8, **{**params, "random_state": random_state})
                        .fit(X, sample_weight=w))
    return fits


@pytest.mark.parametrize("kind,params", CONFIGS, ids=CONFIG_IDS)
def test_n_init_keeps_the_best_run(monkeypatch, data, kind, params):
    X, w = data
    n_init = 4
    best = _make(kind, 8, n_init=n_init, random_state=7, **params).fit(X, sample_weight=w)
    runs = _single_runs(monkeypatch, kind, params, X, w, n_init, 7)
    if kind == "KMeans":
        objectives = [r.inertia_ for r in runs]  # lower is better
        k = int(np.argmin(objectives))
    else:
        objectives = [r.score(X, sample_weight=w) for r in runs]  # higher is better
        k = int(np.argmax(objectives))
    assert len(set(objectives)) > 1, "the runs should differ"
    np.testing.assert_array_equal(best.cluster_centers_, runs[k].cluster_centers_)
    np.testing.assert_array_equal(best.labels_, runs[k].labels_)
    assert best.inertia_ == runs[k].inertia_
    # Run 0 is the n_init=1 fit.
    single = _make(kind, 8, random_state=7, **params).fit(X, sample_weight=w)
    np.testing.assert_array_equal(single.cluster_centers_, runs[0].cluster_centers_)
    # Costs: all runs, plus the ranking passes for VCGMM.
    for phase in ("coreset", "seeding", "iterations", "refinement"):
        assert best.n_distance_evals_[phase] == sum(r.n_distance_evals_[phase] for r in runs)
    ranking = n_init * X.shape[0] * 8
    if kind == "KMeans":  # each run's evaluation ranks it (from Lloyd's labels or a scan)
        assert best.n_distance_evals_["evaluation"] == sum(
            r.n_distance_evals_["evaluation"] for r in runs)
        assert best.n_distance_evals_["evaluation"] <= ranking
    else:
        assert best.n_distance_evals_["evaluation"] == ranking + X.shape[0] * 8


def test_n_init_1_is_the_default_and_changes_nothing(data):
    X, _ = data
    for kind in ("KMeans", "VCGMM"):
        a = _make(kind, 8).fit(X)
        b = _make(kind, 8, n_init=1).fit(X)
        np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
        assert _make(kind, 8).n_init == 1


def test_n_init_with_random_state_instance_is_reproducible(data):
    X, _ = data
    a = vcgmm.VCGMM(8, n_init=3, random_state=np.random.RandomState(5), n_threads=1).fit(X)
    b = vcgmm.VCGMM(8, n_init=3, random_state=np.random.RandomState(5), n_threads=1).fit(X)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)


def test_n_init_with_explicit_init_and_no_coreset_runs_once(data):
    X, _ = data
    init = X[:8].copy()
    with pytest.warns(RuntimeWarning, match="only one is performed"):
        km = vcgmm.KMeans(8, init=init, n_init=3, n_threads=1).fit(X)
    once = vcgmm.KMeans(8, init=init, n_threads=1).fit(X)
    assert km.n_distance_evals_ == once.n_distance_evals_  # one run, no ranking
    # With a coreset every run draws its own: no warning, n_init runs.
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        km = vcgmm.KMeans(8, init=init, n_init=3, coreset_size=500, random_state=0,
                          n_threads=1).fit(X)
    assert km.n_distance_evals_["coreset"] == 3 * X.shape[0]


def test_n_init_in_fit_vcgmm(data):
    X, _ = data
    r = vcgmm.fit_vcgmm(X, 8, 3, n_init=3, random_state=2, return_labels=True, n_threads=1)
    est = vcgmm.VCGMM(8, G=3, n_init=3, random_state=2, n_threads=1).fit(X)
    np.testing.assert_array_equal(r.centers, est.cluster_centers_)
    np.testing.assert_array_equal(r.labels, est.labels_)
    assert r.inertia == est.inertia_


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_n_init_is_thread_independent(kind, data, assert_thread_independent):
    X, _ = data
    assert_thread_independent(
        lambda t: _make(kind, 8, n_init=3, coreset_size=600, n_threads=t,
                        **({"init": "afk-mc2"} if kind == "KMeans" else {})).fit(X))


# ----------------------------------------------------------------------------
# compute_labels and n_init with chunked and Dask data, metric="cosine" and
# VCGMM's refine
# ----------------------------------------------------------------------------


def _coreset_params(kind):
    return {"coreset_size": 600, **({"init": "afk-mc2"} if kind == "KMeans" else {})}


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_chunked_compute_labels_false_reads_the_chunks_on_first_access(data, kind):
    X, w = data
    chunks = np.array_split(X, 3)
    params = _coreset_params(kind)
    eager = _make(kind, 8, **params).fit(chunks, sample_weight=w)
    lazy = _make(kind, 8, compute_labels=False, **params).fit(chunks, sample_weight=w)
    np.testing.assert_array_equal(lazy.cluster_centers_, eager.cluster_centers_)
    assert "labels_" not in vars(lazy) and "inertia_" not in vars(lazy)
    assert lazy.n_distance_evals_["evaluation"] == 0
    assert eager.n_distance_evals_["evaluation"] == X.shape[0] * 8
    # The first access reads the chunks once more: the eager values and costs.
    np.testing.assert_array_equal(lazy.labels_, eager.labels_)
    assert lazy.inertia_ == eager.inertia_
    assert lazy.n_distance_evals_ == eager.n_distance_evals_
    np.testing.assert_array_equal(eager.labels_, eager.predict(X))
    if kind == "KMeans":
        assert eager.score(chunks, sample_weight=w) == pytest.approx(-eager.inertia_, rel=1e-12)
    assert eager.inertia_ == pytest.approx(
        vcgmm.quantization_error(X, eager.cluster_centers_, sample_weight=w), rel=1e-12)


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_chunked_data_take_n_init_1_only(data, kind):
    chunks = np.array_split(data[0], 3)
    with pytest.raises(ValueError, match="n_init=2"):
        _make(kind, 8, n_init=2, **_coreset_params(kind)).fit(chunks)
    if kind == "VCGMM":
        with pytest.raises(ValueError, match="n_init=3"):
            vcgmm.fit_vcgmm(chunks, 8, 3, 600, n_init=3)


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_dask_compute_labels_false_gives_lazy_labels_on_first_access(data, kind):
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    X, w = data
    Xd = da.from_array(X, chunks=(900, X.shape[1]))
    params = _coreset_params(kind)
    with dask.config.set(scheduler="sync"):
        eager = _make(kind, 8, **params).fit(Xd, sample_weight=w)
        lazy = _make(kind, 8, compute_labels=False, **params).fit(Xd, sample_weight=w)
        np.testing.assert_array_equal(lazy.cluster_centers_, eager.cluster_centers_)
        assert "labels_" not in vars(lazy) and "inertia_" not in vars(lazy)
        labels, inertia = lazy.labels_, lazy.inertia_
        assert isinstance(labels, da.Array)  # still lazy; inertia_ a float, as scikit-learn's
        assert type(inertia) is float and inertia == eager.inertia_
        np.testing.assert_array_equal(labels.compute(), eager.labels_.compute())
        np.testing.assert_array_equal(labels.compute(), eager.predict(X))


@pytest.mark.parametrize("n_init", [1, 3])
@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_cosine_with_compute_labels_false_and_n_init(data, kind, n_init, brute_qe):
    X, w = data
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    eager = _make(kind, 8, metric="cosine", n_init=n_init).fit(X, sample_weight=w)
    lazy = _make(kind, 8, metric="cosine", n_init=n_init, compute_labels=False).fit(
        X, sample_weight=w)
    np.testing.assert_array_equal(lazy.cluster_centers_, eager.cluster_centers_)
    # The lazy values are those of the normalised rows, in the family's
    # objective: sum w (1 - cos) = half the squared distance for k-means.
    np.testing.assert_array_equal(lazy.labels_, eager.labels_)
    assert lazy.inertia_ == eager.inertia_
    np.testing.assert_array_equal(eager.labels_, eager.predict(X))
    scale = 0.5 if kind == "KMeans" else 1.0
    np.testing.assert_allclose(eager.inertia_, scale * brute_qe(U, eager.cluster_centers_, w),
                               rtol=1e-9)
    if kind == "KMeans":
        assert eager.score(X, sample_weight=w) == pytest.approx(-eager.inertia_, rel=1e-12)
    else:  # the function ranks and labels the same normalised rows
        r = vcgmm.fit_vcgmm(X, 8, metric="cosine", n_init=n_init, sample_weight=w,
                            random_state=0, n_threads=1, return_labels=True)
        np.testing.assert_array_equal(r.centers, eager.cluster_centers_)
        np.testing.assert_array_equal(r.labels, eager.labels_)
        assert r.inertia == eager.inertia_


@pytest.mark.parametrize("kind", ["KMeans", "VCGMM"])
def test_cosine_on_chunked_and_dask_data_normalises_each_chunk(data, kind, brute_qe):
    """metric="cosine" with chunks (and Dask blocks): every chunk is scaled to
    unit rows as it is read, so the fit is the Euclidean fit of the
    normalised chunks (VCGMM, bitwise) or a spherical k-means on them (unit
    centers, inertia_ = sum w (1 - cos))."""
    X, w = data
    from vcgmm._base.metric import normalize_rows
    chunks = np.array_split(X, 3)
    U = normalize_rows(X)
    params = _coreset_params(kind)
    est = _make(kind, 8, metric="cosine", **params).fit(chunks, sample_weight=w)
    scale = 0.5 if kind == "KMeans" else 1.0
    np.testing.assert_allclose(est.inertia_, scale * brute_qe(U, est.cluster_centers_, w),
                               rtol=1e-9)
    np.testing.assert_array_equal(est.predict(chunks), est.predict(X))
    np.testing.assert_array_equal(est.labels_, est.predict(X))
    if kind == "VCGMM":
        ref = _make(kind, 8, **params).fit([normalize_rows(c) for c in chunks], sample_weight=w)
        np.testing.assert_array_equal(est.cluster_centers_, ref.cluster_centers_)
        assert est.inertia_ == ref.inertia_
    else:
        np.testing.assert_allclose(np.linalg.norm(est.cluster_centers_, axis=1), 1.0, rtol=1e-12)
    bad = [c.copy() for c in chunks]
    bad[1][4] = 0.0
    with pytest.raises(ValueError, match="X chunk 1 has 1 row.s. of norm zero"):
        _make(kind, 8, metric="cosine", **params).fit(bad)
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    with dask.config.set(scheduler="sync"):
        Xd = da.from_array(X, chunks=(900, X.shape[1]))
        lazy = _make(kind, 8, metric="cosine", **params).fit(Xd, sample_weight=w)
        np.testing.assert_allclose(lazy.inertia_, scale * brute_qe(U, lazy.cluster_centers_, w),
                                   rtol=1e-9)
        np.testing.assert_array_equal(lazy.labels_.compute(), lazy.predict(X))
        np.testing.assert_array_equal(lazy.predict(Xd).compute(), lazy.predict(X))
        if kind == "VCGMM":
            Ud = da.from_array(X, chunks=(900, X.shape[1])).map_blocks(normalize_rows,
                                                                       dtype=X.dtype)
            ref = _make(kind, 8, **params).fit(Ud, sample_weight=w)
            np.testing.assert_array_equal(lazy.cluster_centers_, ref.cluster_centers_)
        Xbad = da.from_array(np.vstack(bad), chunks=(900, X.shape[1]))
        with pytest.raises(ValueError, match="norm zero"):
            _make(kind, 8, metric="cosine", **params).fit(Xbad)


def test_n_init_keeps_the_refine_objective_of_the_run_kept(monkeypatch, data):
    X, _ = data
    kw = dict(refine=2, random_state=1, n_threads=1)
    best = vcgmm.fit_vcgmm(X, 8, 3, 600, n_init=3, **kw)
    singles = []
    for seed in estimator_base.run_seeds(1, 3):
        with monkeypatch.context() as m:
            m.setattr(estimator_base, "run_seeds", lambda rs, n, s=seed: [s])
            singles.append(vcgmm.fit_vcgmm(X, 8, 3, 600, **kw))
    kept = [s for s in singles if np.array_equal(s.centers, best.centers)]
    assert len(kept) == 1
    assert best.refine_objective.shape == (2,)
    np.testing.assert_array_equal(best.refine_objective, kept[0].refine_objective)
    assert best.n_distance_evals["refinement"] == sum(
        s.n_distance_evals["refinement"] for s in singles) > 0


# ----------------------------------------------------------------------------
# get_feature_names_out / set_output (scikit-learn's ClassNamePrefixFeaturesOutMixin)
# ----------------------------------------------------------------------------

_TRANSFORMERS = [
    lambda: vcgmm.KMeans(4, random_state=0, n_threads=1),
    lambda: vcgmm.VCGMM(4, G=2, random_state=0, n_threads=1),
    lambda: vcgmm.MiniBatchKMeans(4, batch_size=64, random_state=0, n_threads=1),
    lambda: vcgmm.NestedMiniBatchKMeans(4, batch_size=64, random_state=0, n_threads=1),
    lambda: vcgmm.VRKMeans(4, random_state=0, n_threads=1),
]


@pytest.mark.parametrize("make", _TRANSFORMERS)
def test_feature_names_out_and_pandas_output(make):
    pd = pytest.importorskip("pandas")
    X = np.random.default_rng(0).normal(size=(300, 3))
    est = make().fit(X)
    prefix = type(est).__name__.lower()
    names = est.get_feature_names_out()
    assert list(names) == [f"{prefix}{j}" for j in range(4)]
    dense = est.transform(X)
    est.set_output(transform="pandas")
    frame = est.transform(pd.DataFrame(X, columns=["a", "b", "c"]))
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == list(names)
    np.testing.assert_array_equal(frame.to_numpy(), dense)
    assert isinstance(est.fit_transform(X), pd.DataFrame)
    est.set_output(transform="default")
    assert isinstance(est.transform(X), np.ndarray)
