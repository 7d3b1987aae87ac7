"""A sample weight of 0 means "this point does not exist" (as in scikit-learn).

Every estimator and fit_* function that takes ``sample_weight``, fitted on
(X, w) with some zero weights, gives bit for bit the result of a fit on
(X[w > 0], w[w > 0]) with the same seed (random draws included: the rows of
weight 0 are dropped before the core runs), except that ``labels_`` also
covers the zero-weight rows (their nearest center) and drawn rows are indices
into X. The samplers never return a zero-weight row and draw from the
distribution without those rows (chi-square test with a power check, in the
style of test_samplers.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import _leaves
from test_samplers import afkmc2_joint, d2_joint, lwcs_q, pair_counts

import vcgmm

C = 3


@pytest.fixture(scope="module")
def data():
    """(X, w): 240 blob points in 4-D, positive weights with 61 zeros among
    them (the first and last row, a run of 20 consecutive rows and 39
    scattered rows, so that the rows' blocks and chunks change)."""
    rng = np.random.default_rng(7)
    centers = rng.uniform(-8, 8, size=(C, 4))
    X = centers[rng.integers(0, C, 240)] + rng.standard_normal((240, 4))
    w = rng.uniform(0.5, 3.0, 240)
    zero = np.zeros(240, bool)
    zero[[0, 239]] = True
    zero[100:120] = True
    zero[rng.choice(240, 39, replace=False)] = True
    w[zero] = 0.0
    return np.ascontiguousarray(X), w


def _init(X):
    """Explicit initial centers (the same array for both fits)."""
    return np.array([[-5.0, 0.0, 0.0, 1.0], [0.0, 5.0, 0.0, 0.0], [5.0, 0.0, -5.0, 0.0]])


def _est(cls, **kw):
    return lambda X, w: cls(**{"random_state": 0, "n_threads": 1, **kw}).fit(X, sample_weight=w)


def _partial_fit(X, w):
    est = vcgmm.MiniBatchKMeans(C, random_state=0, n_threads=1)
    return est.partial_fit(X, sample_weight=w).partial_fit(X, sample_weight=w)


def _fn(name, *args, **kw):
    f = getattr(vcgmm, name)
    return lambda X, w: f(X, C, *args, sample_weight=w, return_labels=True, random_state=0,
                          n_threads=1, **kw)


#: name -> fit(X, w): every estimator and fit_* function taking sample_weight,
#: with random seeding, given centers, a coreset or not, several runs.
FITS = {
    "KMeans": _est(vcgmm.KMeans, n_clusters=C),
    "KMeans(init=array, coreset_size=None)": lambda X, w: vcgmm.KMeans(
        C, init=_init(X), coreset_size=None, n_threads=1).fit(X, sample_weight=w),
    "KMeans(coreset_size=None, n_init=3)": _est(vcgmm.KMeans, n_clusters=C, coreset_size=None,
                                                n_init=3),
    "KMeans(afk-mc2, coreset 60)": _est(vcgmm.KMeans, n_clusters=C, init="afk-mc2",
                                        coreset_size=60),
    "KMeans(metric=cosine)": _est(vcgmm.KMeans, n_clusters=C, metric="cosine"),
    "KMeans(compute_labels=False)": _est(vcgmm.KMeans, n_clusters=C, compute_labels=False),
    "VCGMM": _est(vcgmm.VCGMM, n_components=C, G=2),
    "VCGMM(coreset_size=None, n_init=2)": _est(vcgmm.VCGMM, n_components=C, G=2,
                                               coreset_size=None, n_init=2),
    "VCGMM(init=array, coreset_size=None)": _est(vcgmm.VCGMM, n_components=C, G=2,
                                                 coreset_size=None, init=_init(None)),
    "MiniBatchKMeans": _est(vcgmm.MiniBatchKMeans, n_clusters=C, batch_size=40),
    "MiniBatchKMeans.partial_fit": _partial_fit,
    "NestedMiniBatchKMeans": _est(vcgmm.NestedMiniBatchKMeans, n_clusters=C, batch_size=20),
    "VRKMeans": _est(vcgmm.VRKMeans, n_clusters=C),
    "VRKMeans(vrkm)": _est(vcgmm.VRKMeans, n_clusters=C, variant="vrkm", block_size=16),
    "fit_vcgmm": _fn("fit_vcgmm", 2, 80),
    "fit_vargmm": _fn("fit_vargmm", 2),
    "fit_mbatch": _fn("fit_mbatch", batch_size=40),
    "fit_nmbatch": _fn("fit_nmbatch"),
    "fit_vrkm": _fn("fit_vrkm"),
    "lloyd": lambda X, w: vcgmm.lloyd(X, _init(X), sample_weight=w, n_threads=1),
    "kmeans_plusplus": lambda X, w: vcgmm.kmeans_plusplus(X, C, sample_weight=w,
                                                          random_state=0, n_threads=1),
    "afkmc2": lambda X, w: vcgmm.afkmc2(X, C, sample_weight=w, random_state=0, n_threads=1),
    "lwcs": lambda X, w: vcgmm.lwcs(X, 50, sample_weight=w, random_state=0, n_threads=1),
}

#: Outputs that are row indices into X (mapped through the kept rows).
ROW_INDICES = {"coreset_indices", "coreset_indices_"}
#: Fits whose inertia_ is one pass over all rows of X (the zero-weight rows
#: included, adding 0), not the core's sum over the fitted rows: equal up to
#: the grouping of the blocked sum. (VCGMM's n_init runs are ranked without
#: labels; the best run's labels and inertia come from such a pass.)
ONE_PASS_INERTIA = {"KMeans(compute_labels=False)", "MiniBatchKMeans.partial_fit",
                    "VCGMM(coreset_size=None, n_init=2)"}
#: Samplers: the result position holding row indices.
SAMPLER_INDICES = {"kmeans_plusplus": 1, "afkmc2": 1, "lwcs": 0}


def _key(path):
    """The last name (or tuple position) of a _leaves path."""
    last = path.rsplit("[", 1)[-1].rstrip("]")
    return last.strip("'")


def _nearest(X, centers, cosine):
    if cosine:
        X = X / np.linalg.norm(X, axis=1, keepdims=True)
        centers = centers / np.linalg.norm(centers, axis=1, keepdims=True)
    d2 = ((X[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
    return d2.argmin(1)


@pytest.mark.parametrize("name", list(FITS))
def test_zero_weight_rows_do_not_exist(data, name):
    X, w = data
    keep = np.flatnonzero(w > 0)
    zero = np.flatnonzero(w == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. a ConvergenceWarning, the same for both
        full = FITS[name](X, w)
        part = FITS[name](X[keep], w[keep])
    if hasattr(full, "fit"):  # an estimator: labels_ and inertia_ (maybe computed now)
        assert hasattr(full, "labels_") and hasattr(full, "inertia_")
        assert hasattr(part, "labels_") and hasattr(part, "inertia_")
    lf, lp = list(_leaves(full)), list(_leaves(part))
    assert [p for p, _ in lf] == [p for p, _ in lp]
    centers = dict(lf).get("result['cluster_centers_']", dict(lf).get("result['centers']"))
    n_compared = 0
    for (path, a), (_, b) in zip(lf, lp):
        key = _key(path)
        if "n_distance_evals" in path:  # labelling the zero rows costs distance evaluations
            continue
        if key in ("labels", "labels_") and a is not None:
            np.testing.assert_array_equal(a[keep], b, err_msg=path)
            # Zero-weight rows are labelled with their nearest center (scikit-learn does so).
            cosine = "cosine" in name
            np.testing.assert_array_equal(a[zero], _nearest(X[zero], centers, cosine),
                                          err_msg=path)
        elif key in ROW_INDICES and a is not None or (
                name in SAMPLER_INDICES and path == f"result[{SAMPLER_INDICES[name]}]"):
            np.testing.assert_array_equal(a, keep[b], err_msg=path)
            assert not np.isin(a, zero).any()
        elif key in ("inertia", "inertia_") and name in ONE_PASS_INERTIA:
            # One pass over all rows (zero weights add 0): the same sum up to rounding.
            np.testing.assert_allclose(a, b, rtol=1e-12, err_msg=path)
        elif isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, path
            assert a.tobytes() == b.tobytes(), f"{path} differs"
        elif isinstance(a, float):
            assert np.float64(a).tobytes() == np.float64(b).tobytes(), f"{path}: {a} != {b}"
        else:
            assert a == b, f"{path}: {a!r} != {b!r}"
        n_compared += 1
    assert n_compared >= 2


def test_inertia_excludes_zero_weight_rows_and_labels_cover_them(data):
    X, w = data
    est = vcgmm.KMeans(C, random_state=0, n_threads=1).fit(X, sample_weight=w)
    d2 = ((X[:, None, :] - est.cluster_centers_[None]) ** 2).sum(-1)
    assert est.labels_.shape == (X.shape[0],)
    np.testing.assert_array_equal(est.labels_, d2.argmin(1))
    np.testing.assert_allclose(est.inertia_, np.dot(w, d2.min(1)), rtol=1e-10)
    # The zero rows, moved far away, change neither the centers nor the inertia.
    X2 = X.copy()
    X2[w == 0] += 1e3
    est2 = vcgmm.KMeans(C, random_state=0, n_threads=1).fit(X2, sample_weight=w)
    np.testing.assert_array_equal(est2.cluster_centers_, est.cluster_centers_)
    assert est2.inertia_ == est.inertia_
    # Evaluation entry points take zero weights as they are.
    np.testing.assert_allclose(vcgmm.quantization_error(X2, est.cluster_centers_, w),
                               est.inertia_, rtol=1e-12)
    np.testing.assert_allclose(est2.score(X2, sample_weight=w), -est.inertia_, rtol=1e-12)
    gmm = vcgmm.VCGMM(C, G=2, random_state=0, n_threads=1).fit(X, sample_weight=w)
    ll = gmm.score_samples(X)
    np.testing.assert_allclose(gmm.score(X, sample_weight=w), np.average(ll, weights=w),
                               rtol=1e-12)


def test_too_few_positive_weights_are_refused(data):
    X, w = data
    w2 = np.zeros_like(w)
    w2[[3, 5]] = 1.0  # two points of positive weight, three clusters
    with pytest.raises(ValueError, match="sample_weight has 2 positive entries but n_clusters=3"):
        vcgmm.KMeans(C, random_state=0).fit(X, sample_weight=w2)
    with pytest.raises(ValueError, match="sample_weight has 2 positive entries"):
        vcgmm.kmeans_plusplus(X, C, sample_weight=w2)
    with pytest.raises(ValueError, match="sample_weight has 2 positive entries but n_components"):
        vcgmm.VCGMM(C, random_state=0).fit(X, sample_weight=w2)
    # The functions name their own argument (C), not the estimator's.
    with pytest.raises(ValueError, match="sample_weight has 2 positive entries but C=3"):
        vcgmm.fit_vcgmm(X, C, 2, 8, sample_weight=w2, random_state=0)
    with pytest.raises(ValueError, match="sample_weight has 2 positive entries but C=3"):
        vcgmm.fit_vargmm(X, C, 2, sample_weight=w2, random_state=0)
    for fit in (vcgmm.fit_mbatch, vcgmm.fit_nmbatch, vcgmm.fit_vrkm):
        with pytest.raises(ValueError, match="sample_weight has 2 positive entries but C=3"):
            fit(X, C, sample_weight=w2, random_state=0)
    # A coreset of two distinct points is fine (no clusters).
    idx, _ = vcgmm.lwcs(X, 8, sample_weight=w2, random_state=0)
    assert set(idx.tolist()) <= {3, 5}


# ----------------------------------------------------------------------------
# Samplers: never a zero-weight row; the distribution without those rows
# ----------------------------------------------------------------------------


def _with_zero_rows(X, w):
    """The 7-point weighted set with 3 zero-weight rows inserted (first, middle,
    last), and the positions of the original rows."""
    extra = np.array([[2.0, 1.0], [0.5, 3.0], [5.0, 0.0]])
    Xz = np.vstack([extra[:1], X[:3], extra[1:2], X[3:], extra[2:]])
    wz = np.r_[0.0, w[:3], 0.0, w[3:], 0.0]
    keep = np.flatnonzero(wz > 0)
    return Xz, wz, keep


def _ones_on_zero_rows(wz):
    """The plausible mistake: zero-weight rows treated as present (weight 1)."""
    return np.where(wz > 0, wz, 1.0)


def test_samplers_never_draw_a_zero_weight_row(data):
    X, w = data
    zero = np.flatnonzero(w == 0)
    rs = np.random.RandomState(0)
    for _ in range(100):
        seed = rs.randint(2**31)
        for sampler in (vcgmm.kmeans_plusplus, vcgmm.afkmc2):
            _, idx = sampler(X, 10, sample_weight=w, random_state=seed, n_threads=1)
            assert not np.isin(idx, zero).any()
        idx, _ = vcgmm.lwcs(X, 500, sample_weight=w, random_state=seed, n_threads=1)
        assert not np.isin(idx, zero).any()


def test_d2_sampling_ignores_zero_weight_rows(small_weighted, chisquare_exact, alpha,
                                              power_alpha):
    X, w = small_weighted
    Xz, wz, keep = _with_zero_rows(X, w)
    counts = pair_counts(vcgmm.kmeans_plusplus, Xz, 10000, seed=31, sample_weight=wz,
                         n_local_trials=1)  # classic D^2 sampling: the law tested
    assert counts.sum() == counts[np.ix_(keep, keep)].sum(), "a zero-weight row was drawn"
    assert chisquare_exact(counts[np.ix_(keep, keep)], d2_joint(X, w)) > alpha
    # Power: the same draws reject the zero-weight rows treated as present.
    assert chisquare_exact(counts, d2_joint(Xz, _ones_on_zero_rows(wz)),
                           null=False) < power_alpha


def test_afkmc2_ignores_zero_weight_rows(small_weighted, chisquare_exact, alpha, power_alpha):
    X, w = small_weighted
    Xz, wz, keep = _with_zero_rows(X, w)
    counts = pair_counts(vcgmm.afkmc2, Xz, 10000, seed=32, sample_weight=wz, chain_length=2)
    assert counts.sum() == counts[np.ix_(keep, keep)].sum(), "a zero-weight row was drawn"
    assert chisquare_exact(counts[np.ix_(keep, keep)], afkmc2_joint(X, w, 2)) > alpha
    assert chisquare_exact(counts, afkmc2_joint(Xz, _ones_on_zero_rows(wz), 2),
                           null=False) < power_alpha


def test_lwcs_ignores_zero_weight_rows(small_weighted, chisquare_exact, alpha, power_alpha):
    X, w = small_weighted
    Xz, wz, keep = _with_zero_rows(X, w)
    rs = np.random.RandomState(33)
    idx, gamma = [], []
    for _ in range(1000):  # 28,000 draws
        i, g = vcgmm.lwcs(Xz, 4 * X.shape[0], sample_weight=wz, random_state=rs, n_threads=1)
        idx.append(i)
        gamma.append(g)
    idx, gamma = np.concatenate(idx), np.concatenate(gamma)
    counts = np.bincount(idx, minlength=Xz.shape[0])
    assert counts.sum() == counts[keep].sum(), "a zero-weight row was drawn"
    q = lwcs_q(X, w)
    pos = np.searchsorted(keep, idx)
    np.testing.assert_allclose(gamma, w[pos] / (4 * X.shape[0] * q[pos]), rtol=1e-12)
    assert chisquare_exact(counts[keep], q) > alpha
    assert chisquare_exact(counts, lwcs_q(Xz, _ones_on_zero_rows(wz)), null=False) < power_alpha


# ----------------------------------------------------------------------------
# Chunked data: the chunked coreset never draws a zero-weight row
# ----------------------------------------------------------------------------


def test_chunked_lwcs_ignores_zero_weight_rows(small_weighted, chisquare_exact, alpha,
                                               power_alpha):
    X, w = small_weighted
    Xz, wz, keep = _with_zero_rows(X, w)
    # Chunks: rows 0-3, an all-zero chunk (an extra zero row), rows 4-9.
    chunks = [Xz[:4], Xz[4:5], Xz[5:]]
    wz = wz.copy()
    assert wz[4] == 0.0
    rs = np.random.RandomState(34)
    idx, gamma = [], []
    for _ in range(1000):  # 28,000 draws
        i, g = vcgmm.lwcs(chunks, 4 * X.shape[0], sample_weight=wz, random_state=rs, n_threads=1)
        idx.append(i)
        gamma.append(g)
    idx, gamma = np.concatenate(idx), np.concatenate(gamma)
    counts = np.bincount(idx, minlength=Xz.shape[0])
    assert counts.sum() == counts[keep].sum(), "a zero-weight row was drawn"
    q = lwcs_q(X, w)
    pos = np.searchsorted(keep, idx)
    np.testing.assert_allclose(gamma, w[pos] / (4 * X.shape[0] * q[pos]), rtol=1e-12)
    assert chisquare_exact(counts[keep], q) > alpha
    assert chisquare_exact(counts, lwcs_q(Xz, _ones_on_zero_rows(wz)), null=False) < power_alpha


def test_chunked_fit_labels_zero_weight_rows_and_refuses_too_few(data):
    X, w = data
    chunks = [X[:100], X[100:120], X[120:]]  # the middle chunk: all weights 0
    assert not np.any(w[100:120])
    est = vcgmm.KMeans(C, coreset_size=120, random_state=0, n_threads=1).fit(
        chunks, sample_weight=w)
    d2 = ((X[:, None, :] - est.cluster_centers_[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(est.labels_, d2.argmin(1))
    np.testing.assert_allclose(est.inertia_, np.dot(w, d2.min(1)), rtol=1e-10)
    assert not np.isin(est.coreset_indices_, np.flatnonzero(w == 0)).any()
    w2 = np.zeros_like(w)
    w2[[3, 5]] = 1.0
    with pytest.raises(ValueError, match="sample_weight has 2 positive entries but n_clusters=3"):
        vcgmm.KMeans(C, coreset_size=50, random_state=0).fit(chunks, sample_weight=w2)
    with pytest.raises(ValueError, match="sample_weight has no positive entry"):
        vcgmm.KMeans(C, coreset_size=50, random_state=0).fit(chunks, sample_weight=0 * w)


def test_dask_data_ignore_zero_weight_rows(data):
    da = pytest.importorskip("dask.array")
    import vcgmm.dask

    X, w = data
    zero = np.flatnonzero(w == 0)
    Xd, wd = da.from_array(X, chunks=(60, 4)), da.from_array(w, chunks=60)
    for seed in range(20):
        idx, _ = vcgmm.lwcs(Xd, 200, sample_weight=wd, random_state=seed)
        assert not np.isin(idx, zero).any()
    r = vcgmm.dask.fit_vcgmm(Xd, C, 2, 100, sample_weight=wd, return_labels=True,
                             random_state=0, n_threads=1)
    labels, inertia = np.asarray(r.labels), float(np.asarray(r.inertia))
    d2 = ((X[:, None, :] - r.centers[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(labels, d2.argmin(1))
    np.testing.assert_allclose(inertia, np.dot(w, d2.min(1)), rtol=1e-10)
    with pytest.raises(ValueError, match="sample_weight has no positive entry"):
        vcgmm.lwcs(Xd, 50, sample_weight=0 * wd, random_state=0)
    w2 = np.zeros_like(w)
    w2[[3, 5]] = 1.0
    with pytest.raises(ValueError, match="sample_weight has 2 positive entries"):
        vcgmm.dask.fit_vcgmm(Xd, C, 2, 50, sample_weight=da.from_array(w2, chunks=60))
