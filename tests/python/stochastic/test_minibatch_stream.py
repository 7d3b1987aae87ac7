"""MiniBatchKMeans.fit over chunked and Dask data (streaming mbatch): one
chunk gives the in-memory fit bit for bit, the chunk each batch reads is
drawn in proportion to its rows (chi-square, with a power check), several
chunks give a deterministic, thread-independent fit of in-memory quality,
every chunk kind gives the same fit, and bad chunked input gets a clear
error."""

from __future__ import annotations

import numpy as np
import pytest

import vcgmm
from vcgmm._base.loader import core

#: n > 3 max(b, C): the seeding runs on a strict subset of the rows, and the
#: early stop fires before max_iter.
PARAMS = dict(batch_size=50, max_iter=200, random_state=3, n_threads=1)


@pytest.fixture(scope="module")
def data(make_blobs):
    X = make_blobs(2000, 6, 4, std=1.5, seed=11)[0]
    w = np.random.default_rng(12).uniform(0.5, 2.0, X.shape[0])
    w[::17] = 0.0  # rows of weight 0 do not exist, in memory and in chunks
    return X, w


def _same_fit(a, b, *, objective_rtol=0.0):
    assert a.cluster_centers_.dtype == b.cluster_centers_.dtype
    assert a.cluster_centers_.tobytes() == b.cluster_centers_.tobytes()
    assert a.counts_.tobytes() == b.counts_.tobytes()
    assert (a.n_iter_, a.converged_, a.n_reassigned_, a.batch_size_) == (
        b.n_iter_, b.converged_, b.n_reassigned_, b.batch_size_)
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=objective_rtol, atol=0)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.inertia_ == pytest.approx(b.inertia_, rel=1e-12)


@pytest.mark.parametrize("init", ["k-means++", "random", "afk-mc2", "array"])
@pytest.mark.parametrize("weighted", [False, True])
def test_one_chunk_is_the_in_memory_fit(data, init, weighted):
    X, w = data
    init = X[[5, 50, 500, 1000, 1500]] if init == "array" else init
    sw = w if weighted else None
    memory = vcgmm.MiniBatchKMeans(5, init=init, **PARAMS).fit(X, sample_weight=sw)
    chunked = vcgmm.MiniBatchKMeans(5, init=init, **PARAMS).fit([X], sample_weight=sw)
    assert memory.converged_ and memory.n_iter_ < PARAMS["max_iter"]
    _same_fit(memory, chunked)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_chunk_is_the_in_memory_fit_for_float32_and_cosine(data, dtype):
    X = data[0].astype(dtype)
    for params in ({}, {"metric": "cosine"}):
        memory = vcgmm.MiniBatchKMeans(5, **PARAMS, **params).fit(X)
        chunked = vcgmm.MiniBatchKMeans(5, **PARAMS, **params).fit([X])
        _same_fit(memory, chunked)


def test_the_chunk_of_a_batch_is_drawn_in_proportion_to_its_rows(chisquare_exact, alpha,
                                                                  power_alpha):
    rows = np.array([100, 0, 700, 200, 3], np.int64)
    plan = core.mbatch_stream_plan(rows, 5, 1, 20000)
    counts = np.bincount(plan, minlength=rows.size)
    assert counts[1] == 0  # a chunk without rows is never drawn
    assert chisquare_exact(counts, rows / rows.sum()) > alpha
    # power: the uniform choice of a chunk is rejected
    uniform = (rows > 0) / (rows > 0).sum()
    assert chisquare_exact(counts, uniform, null=False) < power_alpha
    # the plan of batch t depends on (seed, t) only: a later start continues it
    np.testing.assert_array_equal(core.mbatch_stream_plan(rows, 5, 101, 50), plan[100:150])


def test_several_chunks_are_deterministic_thread_independent_and_as_good(
        data, assert_thread_independent, brute_qe):
    X, w = data
    chunks = np.array_split(X, 7)
    params = {**PARAMS, "max_iter": 400}

    def fit(n_threads):
        return vcgmm.MiniBatchKMeans(8, **{**params, "n_threads": n_threads}).fit(
            chunks, sample_weight=w)

    km = assert_thread_independent(fit)
    memory = vcgmm.MiniBatchKMeans(8, **params).fit(X, sample_weight=w)
    assert len(np.unique(km.labels_)) == 8
    assert km.labels_.shape == (X.shape[0],)
    assert km.inertia_ == pytest.approx(brute_qe(X, km.cluster_centers_, w), rel=1e-9)
    assert km.inertia_ <= 1.05 * memory.inertia_
    assert km.n_features_in_ == X.shape[1]
    # the chunks' sizes and kinds do not matter beyond the rows they hold:
    # a function returning the same chunks gives the same fit
    again = vcgmm.MiniBatchKMeans(8, **params).fit(lambda: iter(chunks), sample_weight=w)
    _same_fit(km, again)


def test_npy_files_and_zarr_like_chunks_give_the_list_fit(data, tmp_path):
    X = data[0].astype(np.float32)
    parts = np.array_split(X, 3)
    paths = []
    for i, part in enumerate(parts):
        paths.append(tmp_path / f"part{i}.npy")
        np.save(paths[-1], part)
    listed = vcgmm.MiniBatchKMeans(6, **PARAMS).fit(parts)
    files = vcgmm.MiniBatchKMeans(6, **PARAMS).fit([str(p) for p in paths])
    _same_fit(listed, files)
    assert files.cluster_centers_.dtype == np.float32


def test_dask_blocks_give_the_list_fit_and_a_float_inertia(data):
    da = pytest.importorskip("dask.array")
    X, w = data
    dX = da.from_array(X, chunks=(300, -1))
    blocks = [X[i:i + 300] for i in range(0, X.shape[0], 300)]
    listed = vcgmm.MiniBatchKMeans(5, **PARAMS).fit(blocks, sample_weight=w)
    lazy = vcgmm.MiniBatchKMeans(5, **PARAMS).fit(dX, sample_weight=w)
    assert type(lazy.inertia_) is float
    assert lazy.cluster_centers_.tobytes() == listed.cluster_centers_.tobytes()
    np.testing.assert_array_equal(np.asarray(lazy.labels_), listed.labels_)
    assert lazy.inertia_ == pytest.approx(listed.inertia_, rel=1e-12)


def test_coreset_size_fits_chunks_on_a_coreset_instead(data):
    X = data[0]
    km = vcgmm.MiniBatchKMeans(5, coreset_size=600, **PARAMS).fit(np.array_split(X, 4))
    assert km.coreset_indices_.shape == (600,)
    assert km.labels_.shape == (X.shape[0],)
    assert len(np.unique(km.labels_)) == 5


def test_compute_labels_false_leaves_labels_and_inertia_none(data):
    km = vcgmm.MiniBatchKMeans(5, compute_labels=False, **PARAMS).fit(np.array_split(data[0], 3))
    assert km.labels_ is None and km.inertia_ is None
    assert km.cluster_centers_.shape == (5, data[0].shape[1])


def test_bad_chunked_input_is_named(data):
    X, w = data
    chunks = np.array_split(X, 3)
    with pytest.raises(ValueError, match="n_init"):
        vcgmm.MiniBatchKMeans(5, n_init=2, **PARAMS).fit(chunks)
    with pytest.raises(ValueError, match="n_clusters=5 must be <= n_samples=4"):
        vcgmm.MiniBatchKMeans(5, **PARAMS).fit([X[:2], X[2:4]])
    with pytest.raises(ValueError, match="batch_size=5000"):
        vcgmm.MiniBatchKMeans(5, **{**PARAMS, "batch_size": 5000}).fit(chunks)
    with pytest.raises(ValueError, match="no positive entry"):
        vcgmm.MiniBatchKMeans(5, **PARAMS).fit(chunks, sample_weight=np.zeros(X.shape[0]))
    with pytest.raises(ValueError, match="sample_weight has 10 entries"):
        vcgmm.MiniBatchKMeans(5, **PARAMS).fit(chunks, sample_weight=w[:10])
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(2000,\)"):
        vcgmm.MiniBatchKMeans(5, **PARAMS).fit(chunks, sample_weight=np.ones(2001))
    bad = [c.copy() for c in chunks]
    bad[1][3, 2] = np.nan
    with pytest.raises(ValueError, match="chunk 1"):
        vcgmm.MiniBatchKMeans(5, **PARAMS).fit(bad)
    with pytest.raises(ValueError, match="features"):
        vcgmm.MiniBatchKMeans(5, **PARAMS).fit([X[:100], X[100:, :3]])
    with pytest.raises(ValueError, match="no chunks"):
        vcgmm.MiniBatchKMeans(5, **PARAMS).fit(lambda: iter([]))
    with pytest.raises(TypeError, match="iterator"):
        vcgmm.MiniBatchKMeans(5, **PARAMS).fit(iter(chunks))
    with pytest.raises(ValueError, match="init has 3 features but X has 4"):
        vcgmm.MiniBatchKMeans(5, init=np.zeros((5, 3)), **PARAMS).fit(chunks)


def test_command_line_streams_a_folder_of_chunks(data, tmp_path, capsys):
    from vcgmm.cli import main

    X, _ = data
    folder = tmp_path / "parts"
    folder.mkdir()
    paths = []
    for c, part in enumerate(np.array_split(X, 4)):
        paths.append(folder / f"part{c}.npy")
        np.save(paths[-1], part)
    out = tmp_path / "c.npy"
    assert main(["fit", str(folder), "-C", "8", "--algo", "mbatch", "--seed", "1",
                 "--out", str(out)]) == 0
    assert "streamed" in capsys.readouterr().out
    ref = vcgmm.MiniBatchKMeans(8, random_state=1).fit(paths)
    np.testing.assert_array_equal(np.load(out), ref.cluster_centers_)
