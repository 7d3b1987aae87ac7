"""vc-GMM, the coreset and the scans on Dask arrays (skipped without dask).

- The Dask sampler is the chunked sampler with the blocks as chunks: the same
  coreset, bit for bit, as the list of blocks in memory (one-row and empty
  blocks included), and it matches the exact LWCS distribution (chi-square).
- Same seed and chunking: the same coreset with 1 and 2 threads of the local
  scheduler and on a 2-process LocalCluster.
- fit_vcgmm / VCGMM / KMeans on a Dask array on a LocalCluster with 2 worker
  processes == the same fit on the blocks in memory; labels, transform,
  assign and the quantization error are lazy and equal the numpy results.
- Faults: a block with NaN/inf names the block; a worker killed during the
  coreset passes is replaced and the fit completes (Dask recomputes the pure
  tasks).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import vcgmm  # noqa: E402
import vcgmm.dask  # noqa: E402


def lwcs_q(X, w):
    mu = (w[:, None] * X).sum(0) / w.sum()
    d = ((X - mu) ** 2).sum(1)
    return 0.5 * w / w.sum() + 0.5 * w * d / (w * d).sum()


def blocks_of(X, sizes):
    """The dask array of X with row blocks of the given sizes, and the same
    blocks as a list."""
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    Xd = da.from_array(X, chunks=(tuple(sizes), (X.shape[1],)))
    return Xd, [X[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 worker processes (one thread each) and its client."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as lc:
        with distributed.Client(lc) as client:
            yield client


@pytest.fixture(scope="module")
def blobs_dask():
    rng = np.random.default_rng(5)
    centers = rng.uniform(-15, 15, size=(25, 5))
    X = (centers[rng.integers(0, 25, 30000)] + rng.normal(size=(30000, 5))).astype(np.float32)
    sizes = (7000, 1, 0, 9000, 6999, 7000)
    return X, *blocks_of(X, sizes)


# ----------------------------------------------------------------------------
# The sampler
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("sizes", [(7,), (1, 1, 1, 1, 1, 1, 1), (0, 3, 0, 1, 3, 0), (5, 2)])
def test_dask_sampler_is_the_chunked_sampler_and_matches_q(small_weighted, sizes, chisquare_exact,
                                                           alpha, power_alpha):
    X, w = small_weighted
    Xd, chunks = blocks_of(X, sizes)
    wd = da.from_array(w, chunks=3)  # rechunked to X's blocks
    m = 28
    rs_a, rs_b = np.random.RandomState(1), np.random.RandomState(1)
    idx = []
    with dask.config.set(scheduler="sync"):
        for _ in range(200):
            got = vcgmm.dask.lwcs(Xd, m, sample_weight=wd, random_state=rs_a, return_points=True)
            ref = vcgmm.lwcs(chunks, m, sample_weight=w, random_state=rs_b, return_points=True)
            for a, b in zip(got, ref):
                np.testing.assert_array_equal(a, b)
            idx.append(got[0])
    idx = np.concatenate(idx)
    q = lwcs_q(X, w)
    np.testing.assert_allclose(got[1], w[got[0]] / (m * q[got[0]]), rtol=1e-12)
    counts = np.bincount(idx, minlength=7)
    assert chisquare_exact(counts, q) > alpha
    assert chisquare_exact(counts, w / w.sum(), null=False) < power_alpha


def test_same_coreset_on_1_and_2_threads_and_on_the_cluster(blobs_dask, cluster):
    X, Xd, chunks = blobs_dask
    runs = {}
    for name, config in (("1 thread", {"scheduler": "threads", "num_workers": 1}),
                         ("2 threads", {"scheduler": "threads", "num_workers": 2})):
        with dask.config.set(**config):
            runs[name] = vcgmm.lwcs(Xd, 5000, random_state=4, return_points=True)
    runs["2 worker processes"] = vcgmm.lwcs(Xd, 5000, random_state=4, return_points=True)
    runs["blocks in memory"] = vcgmm.lwcs(chunks, 5000, random_state=4, return_points=True)
    ref = runs.pop("1 thread")
    for name, got in runs.items():
        for a, b in zip(ref, got):
            np.testing.assert_array_equal(a, b, err_msg=name)
    np.testing.assert_array_equal(ref[2], X[ref[0]])


# ----------------------------------------------------------------------------
# Fits on a LocalCluster
# ----------------------------------------------------------------------------


def test_fit_vcgmm_on_the_cluster_equals_the_fit_on_the_blocks(blobs_dask, cluster):
    X, Xd, chunks = blobs_dask
    r = vcgmm.dask.fit_vcgmm(Xd, 25, 5, 4096, random_state=3, return_labels=True)
    ref = vcgmm.fit_vcgmm(chunks, 25, 5, 4096, random_state=3, return_labels=True)
    assert isinstance(r, vcgmm.VCGMMResult)
    for field in ("centers", "free_energy", "coreset_indices", "coreset_weights",
                  "estep_distance_evals"):
        np.testing.assert_array_equal(getattr(r, field), getattr(ref, field), err_msg=field)
    assert (r.sigma2, r.n_iter, r.converged, r.G) == (ref.sigma2, ref.n_iter, ref.converged,
                                                      ref.G)
    assert r.n_distance_evals["coreset"] == ref.n_distance_evals["coreset"]
    # Labels and inertia are lazy until asked for.
    assert isinstance(r.labels, da.Array) and isinstance(r.inertia, da.Array)
    np.testing.assert_array_equal(r.labels.compute(), ref.labels)
    assert float(r.inertia) == pytest.approx(ref.inertia, rel=1e-12)


def test_estimators_on_the_cluster(blobs_dask, cluster):
    X, Xd, chunks = blobs_dask
    gmm = vcgmm.VCGMM(25, random_state=6).fit(Xd)
    ref = vcgmm.VCGMM(25, random_state=6).fit(chunks)
    np.testing.assert_array_equal(gmm.cluster_centers_, ref.cluster_centers_)
    assert gmm.lower_bound_ == ref.lower_bound_ and gmm.n_features_in_ == 5
    assert isinstance(gmm.labels_, da.Array)
    np.testing.assert_array_equal(gmm.labels_.compute(), ref.labels_)
    # inertia_ is a float, as scikit-learn's (one pass at fit, costed as evaluation)
    assert type(gmm.inertia_) is float
    assert gmm.inertia_ == pytest.approx(ref.inertia_, rel=1e-12)
    assert gmm.n_distance_evals_["evaluation"] == ref.n_distance_evals_["evaluation"]
    assert gmm.timings_["evaluation"] > 0

    w = np.random.default_rng(7).uniform(0.5, 2.0, X.shape[0])
    km = vcgmm.KMeans(25, init="afk-mc2", coreset_size=5000, random_state=8).fit(
        Xd, sample_weight=da.from_array(w, chunks=4000))
    kref = vcgmm.KMeans(25, init="afk-mc2", coreset_size=5000, random_state=8).fit(
        chunks, sample_weight=w)
    np.testing.assert_array_equal(km.cluster_centers_, kref.cluster_centers_)
    assert type(km.inertia_) is float and km.inertia_ == pytest.approx(kref.inertia_, rel=1e-12)
    score = km.score(Xd, sample_weight=w)
    assert type(score) is float and score == pytest.approx(-kref.inertia_, rel=1e-12)


def test_predict_transform_assign_quantization_error_are_lazy_and_exact(blobs_dask, cluster):
    X, Xd, _ = blobs_dask
    km = vcgmm.KMeans(25, random_state=0).fit(X[:5000])
    centers = km.cluster_centers_
    labels = km.predict(Xd)
    dist = km.transform(Xd)
    assigned = vcgmm.dask.assign(Xd, centers)
    q = vcgmm.dask.quantization_error(Xd, centers)
    for lazy in (labels, dist, assigned, q):
        assert isinstance(lazy, da.Array)
    assert labels.shape == (X.shape[0],) and labels.dtype == np.int32
    assert dist.shape == (X.shape[0], 25)
    np.testing.assert_array_equal(labels.compute(), km.predict(X))
    np.testing.assert_array_equal(assigned.compute(), vcgmm.assign(X, centers))
    np.testing.assert_allclose(dist.compute(), km.transform(X), rtol=1e-6)
    assert float(q) == pytest.approx(vcgmm.quantization_error(X, centers), rel=1e-12)
    # Columns in several blocks are merged; other dtypes become float64.
    X64 = da.from_array(X.astype(np.int64), chunks=(5000, 2))
    np.testing.assert_array_equal(vcgmm.dask.assign(X64, centers).compute(),
                                  vcgmm.assign(X.astype(np.int64), centers))


def test_lazy_results_keep_the_centers_they_were_asked_with(blobs_dask):
    X, Xd, _ = blobs_dask
    km = vcgmm.KMeans(25, random_state=0).fit(X[:5000])
    expected_labels, expected_dist = km.predict(X), km.transform(X)
    labels, dist = km.predict(Xd), km.transform(Xd)
    centers = km.cluster_centers_.copy()
    q = vcgmm.dask.quantization_error(Xd, km.cluster_centers_)
    km.cluster_centers_[:] = km.cluster_centers_[::-1]  # changed in place before compute
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(labels.compute(), expected_labels)
        np.testing.assert_allclose(dist.compute(), expected_dist, rtol=1e-6)
        assert float(q) == pytest.approx(vcgmm.quantization_error(X, centers), rel=1e-12)


def test_dask_functions_want_dask_arrays():
    with pytest.raises(TypeError, match="takes a dask array"):
        vcgmm.dask.fit_vcgmm(np.zeros((10, 2)), 2)


# ----------------------------------------------------------------------------
# Faults
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("value, what", [(np.nan, "NaN"), (np.inf, "infinity")])
def test_a_bad_block_is_named(value, what, cluster):
    X = np.random.default_rng(2).normal(size=(50, 3))
    X[33, 1] = value
    Xd = da.from_array(X, chunks=(10, 3))
    with pytest.raises(ValueError, match=rf"X chunk 3 \(rows 30:40\) contains {what} \(first "
                                         r"at row 3, column 1\)"):
        vcgmm.dask.fit_vcgmm(Xd, 3, random_state=0)


def test_bad_dask_inputs_are_refused():
    X = da.zeros((10, 3, 2), chunks=5)
    with pytest.raises(ValueError, match="2-D"):
        vcgmm.dask.lwcs(X, 5)
    with pytest.raises(TypeError, match="complex"):
        vcgmm.dask.lwcs(da.zeros((10, 3), dtype=complex, chunks=5), 5)
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(10,\)"):
        vcgmm.dask.lwcs(da.ones((10, 3), chunks=5), 5, sample_weight=np.ones(9))
    with pytest.raises(ValueError, match="coreset"):
        vcgmm.fit_vargmm(da.ones((10, 3), chunks=5), 2)
    with pytest.raises(ValueError, match="n_clusters=20 must be <= n_samples=10"):
        vcgmm.dask.fit_vcgmm(da.random.random((10, 3), chunks=5), 20)


def _block_that_kills_its_worker_once(marker, seed, n, d):
    """A block of data; the first call in any process kills that process
    (the marker file makes it happen once)."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return np.random.default_rng(seed).normal(size=(n, d))
    os.close(fd)
    os._exit(1)


def test_a_worker_killed_during_the_coreset_passes(cluster, tmp_path):
    """Dask replaces the worker and recomputes the lost task elsewhere; the
    fit then equals the fit on the same data without a failure."""
    blocks = [dask.delayed(_block_that_kills_its_worker_once)(
        str(tmp_path / "killed") if c == 2 else str(tmp_path / "never"), c, 400, 3)
        for c in range(4)]
    (tmp_path / "never").touch()
    Xd = da.concatenate([da.from_delayed(b, shape=(400, 3), dtype=np.float64) for b in blocks])
    r = vcgmm.dask.fit_vcgmm(Xd, 4, 2, 512, random_state=1)
    assert (tmp_path / "killed").exists()  # a worker did die
    X = np.concatenate([np.random.default_rng(c).normal(size=(400, 3)) for c in range(4)])
    ref = vcgmm.fit_vcgmm([X[i:i + 400] for i in range(0, 1600, 400)], 4, 2, 512, random_state=1)
    np.testing.assert_array_equal(r.centers, ref.centers)
    np.testing.assert_array_equal(r.coreset_indices, ref.coreset_indices)


def test_verbose_shows_dask_progress(blobs_dask, cluster, capsys, caplog):
    """verbose=True: distributed.progress bars under a client (Dask's own
    diagnostics), the same result as without."""
    import logging

    _, Xd, chunks = blobs_dask
    with caplog.at_level(logging.INFO, logger="vcgmm"):
        r = vcgmm.dask.fit_vcgmm(Xd, 5, 2, 2048, random_state=2, verbose=True)
    out = capsys.readouterr()
    assert "100%" in out.out + out.err  # the progress bars completed
    assert "coreset pass 1: 6 Dask tasks" in caplog.text
    assert "coreset: 2,048 draws from 30,000 rows in 6 Dask blocks" in caplog.text
    ref = vcgmm.fit_vcgmm(chunks, 5, 2, 2048, random_state=2)
    np.testing.assert_array_equal(r.centers, ref.centers)
