"""The chunked lightweight coreset and the out-of-core fits on one machine.

- The chunked sampler draws from the exact LWCS distribution q for every
  chunking (one chunk, one-row chunks, empty chunks, uneven chunks): a
  chi-square test per chunking, with power checks (plain weights, q without
  sample weights, and a split of the draws by rows instead of by mass are
  rejected by the same draws).
- Its weights are exactly w / (m q) and the weighted sums unbiased.
- Same chunks and seed: the same coreset on 1, 2 and 3 threads, from lists,
  .npy files, a zarr array and a chunk function alike.
- Out-of-core fits equal the fit on the same coreset in memory; labels,
  inertia, predict and the quantization error equal the one-array results.
- Peak memory stays near one chunk plus the coreset.
- Bad chunks (NaN/inf, inconsistent width or dtype, ...) raise errors naming
  the chunk (the table ``BAD_CHUNKS`` of ``_bad_inputs.py``).
"""

from __future__ import annotations

import logging
import tracemalloc

import numpy as np
import pytest

import vcgmm
from vcgmm._data.chunked import ChunkSource
from vcgmm._base.run import run_options

from _bad_inputs import BAD_CHUNKS, CHUNK_ENTRY_POINTS

# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------


def lwcs_q(X, w):
    """q(x) = 1/2 w/sum w + 1/2 w d(x, mu)^2 / sum w d^2, mu the weighted mean."""
    mu = (w[:, None] * X).sum(0) / w.sum()
    d = ((X - mu) ** 2).sum(1)
    return 0.5 * w / w.sum() + 0.5 * w * d / (w * d).sum()


def split(X, bounds):
    """The chunks X[bounds[c]:bounds[c+1]] (empty ones included)."""
    return [X[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def chunked_draw(chunks, m, seed, w=None, n_threads=1):
    """(indices, weights, points) of the chunked coreset, without the public
    API's cap of 4 n_samples draws (a chi-square test wants many draws)."""
    draw = ChunkSource(chunks, w).coreset(m, run_options(n_threads, seed))
    return draw.indices, draw.weights, draw.points


#: Chunkings of the 7 points of ``small_weighted``: one chunk, one row per
#: chunk, empty chunks between and around, uneven chunks.
SMALL_CHUNKINGS = {
    "one chunk": [0, 7],
    "one row each": [0, 1, 2, 3, 4, 5, 6, 7],
    "empty chunks": [0, 0, 3, 3, 4, 7, 7],
    "uneven": [0, 5, 6, 7],
}


def rows_split(X, w, bounds):
    """A plausible wrong sampler: draws split over the chunks by their number
    of rows instead of their q-mass, then q within each chunk."""
    q = lwcs_q(X, w)
    p = np.zeros_like(q)
    for a, b in zip(bounds[:-1], bounds[1:]):
        if b > a:
            p[a:b] = (b - a) / X.shape[0] * q[a:b] / q[a:b].sum()
    return p


# ----------------------------------------------------------------------------
# The distribution
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("chunking", list(SMALL_CHUNKINGS))
def test_chunked_sampler_matches_q(small_weighted, chunking, chisquare_exact, alpha, power_alpha):
    X, w = small_weighted
    bounds = SMALL_CHUNKINGS[chunking]
    m = 60000
    idx, gamma, pts = chunked_draw(split(X, bounds), m, seed=11, w=w)
    assert idx.shape == gamma.shape == (m,)
    assert np.all(np.diff(idx) >= 0), "indices are not sorted"
    np.testing.assert_array_equal(pts, X[idx])
    q = lwcs_q(X, w)
    np.testing.assert_allclose(gamma, w[idx] / (m * q[idx]), rtol=1e-12)
    counts = np.bincount(idx, minlength=X.shape[0])
    assert chisquare_exact(counts, q) > alpha

    # Power: the same draws reject plain weights and q without the sample weights.
    assert chisquare_exact(counts, w / w.sum(), null=False) < power_alpha
    assert chisquare_exact(counts, lwcs_q(X, np.ones_like(w)), null=False) < power_alpha


def test_split_by_rows_would_be_rejected(small_weighted, chisquare_exact, power_alpha):
    """The chunk masses, not the chunk sizes, split the draws: a sampler
    splitting by rows is rejected by the draws of the real one."""
    X, w = small_weighted
    for chunking in ("empty chunks", "uneven"):
        bounds = SMALL_CHUNKINGS[chunking]
        idx, _, _ = chunked_draw(split(X, bounds), 60000, seed=12, w=w)
        counts = np.bincount(idx, minlength=X.shape[0])
        wrong = rows_split(X, w, bounds)
        assert not np.allclose(wrong, lwcs_q(X, w))
        assert chisquare_exact(counts, wrong, null=False) < power_alpha, chunking


def test_public_lwcs_on_chunks_matches_q(small_weighted, chisquare_exact, alpha):
    """Through vcgmm.lwcs (at most 4 n draws per call): many calls, one
    RandomState, unweighted float32 chunks."""
    X, _ = small_weighted
    chunks = split(X.astype(np.float32), SMALL_CHUNKINGS["empty chunks"])
    rs = np.random.RandomState(3)
    idx = np.concatenate([vcgmm.lwcs(chunks, 28, random_state=rs, n_threads=1)[0]
                          for _ in range(1500)])
    q = lwcs_q(X, np.ones(X.shape[0]))
    assert chisquare_exact(np.bincount(idx, minlength=7), q) > alpha


def test_all_points_equal_is_uniform_by_weight(chisquare_exact, alpha):
    X = np.full((5, 3), 2.5)
    w = np.array([1.0, 2.0, 3.0, 1.0, 3.0])
    idx, gamma, _ = chunked_draw(split(X, [0, 2, 2, 5]), 40000, seed=2, w=w)
    assert chisquare_exact(np.bincount(idx, minlength=5), w / w.sum()) > alpha
    np.testing.assert_allclose(gamma, w.sum() / 40000)


def test_weighted_sums_are_unbiased(make_blobs):
    """sum(gamma f(x)) estimates sum(w f(x)) without bias: the mean over
    independent coresets lies within 4.5 standard errors of the truth, and
    that is tight enough to expose a 2% bias."""
    X, _, _ = make_blobs(3000, 6, 3, spread=5.0, std=1.0, seed=4)
    w = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0])
    chunks = split(X, [0, 1, 700, 700, 1900, 3000])
    f = (X ** 2).sum(1) + X[:, 0]  # any function of the points
    truth = float((w * f).sum())
    rs = np.random.RandomState(6)
    estimates = []
    for _ in range(300):
        idx, gamma = vcgmm.lwcs(chunks, 200, sample_weight=w, random_state=rs, n_threads=1)
        estimates.append(float((gamma * f[idx]).sum()))
    estimates = np.array(estimates)
    se = estimates.std(ddof=1) / np.sqrt(estimates.size)
    assert abs(estimates.mean() - truth) < 4.5 * se
    assert abs(1.02 * estimates.mean() - truth) > 4.5 * se  # power against a 2% bias
    # The weights themselves estimate sum(w) unbiasedly too.
    totals = []
    for _ in range(300):
        totals.append(vcgmm.lwcs(chunks, 200, sample_weight=w, random_state=rs)[1].sum())
    assert abs(np.mean(totals) - w.sum()) < 4.5 * np.std(totals, ddof=1) / np.sqrt(300)


# ----------------------------------------------------------------------------
# Determinism: chunking and seed decide the coreset
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def medium():
    rng = np.random.default_rng(21)
    X = rng.normal(size=(50000, 5)).astype(np.float32) * rng.uniform(0.5, 3, 5).astype(np.float32)
    w = rng.uniform(0.2, 5.0, X.shape[0])
    bounds = [0, 1, 17000, 17000, 33000, 50000]  # a one-row chunk, an empty one, > 16384 rows
    return X, w, bounds


def test_same_chunks_and_seed_give_the_same_coreset_on_any_threads(medium,
                                                                    assert_thread_independent):
    X, w, bounds = medium
    chunks = split(X, bounds)
    ref = assert_thread_independent(
        lambda nt: vcgmm.lwcs(chunks, 20000, sample_weight=w, random_state=7, n_threads=nt,
                              return_points=True))
    idx, gamma, pts = ref
    np.testing.assert_array_equal(pts, X[idx])
    # Draws from every non-empty chunk, in proportion to its mass.
    assert idx.min() == 0 or idx.min() < 17000
    assert idx.max() >= 33000
    # Another seed, or another chunking: another coreset.
    assert not np.array_equal(vcgmm.lwcs(chunks, 20000, sample_weight=w, random_state=8)[0], idx)
    other = vcgmm.lwcs(split(X, [0, 25000, 50000]), 20000, sample_weight=w, random_state=7)[0]
    assert not np.array_equal(other, idx)


def test_lists_files_zarr_and_functions_give_the_same_coreset(medium, tmp_path):
    X, w, _ = medium
    bounds = [0, 12500, 25000, 37500, 50000]  # zarr chunks are regular
    chunks = split(X, bounds)
    ref = vcgmm.lwcs(chunks, 5000, sample_weight=w, random_state=9, return_points=True)
    paths = []
    for c, chunk in enumerate(chunks):
        paths.append(tmp_path / f"part{c}.npy")
        np.save(paths[-1], chunk)
    inputs = {"paths": paths, "str paths": [str(p) for p in paths], "tuple": tuple(chunks),
              "function": lambda: iter(chunks),
              "memmaps": [np.load(p, mmap_mode="r") for p in paths]}
    try:
        import zarr
    except ImportError:
        zarr = None
    if zarr is not None:
        z = zarr.open_array(str(tmp_path / "x.zarr"), mode="w", shape=X.shape,
                            chunks=(12500, 5), dtype="float32")
        z[:] = X
        inputs["zarr"] = zarr.open_array(str(tmp_path / "x.zarr"), mode="r")
    for name, data in inputs.items():
        got = vcgmm.lwcs(data, 5000, sample_weight=w, random_state=9, return_points=True)
        for a, b in zip(ref, got):
            np.testing.assert_array_equal(a, b, err_msg=name)
    # The coreset of one in-memory array has the same distribution but its
    # own random streams (not the chunked ones).
    assert not np.array_equal(vcgmm.lwcs(X, 5000, sample_weight=w, random_state=9)[0], ref[0])


# ----------------------------------------------------------------------------
# Out-of-core fits
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def blob_chunks():
    rng = np.random.default_rng(31)
    centers = rng.uniform(-20, 20, size=(30, 6))
    X = (centers[rng.integers(0, 30, 40000)] + rng.normal(size=(40000, 6))).astype(np.float32)
    return X, split(X, [0, 9000, 9000, 9001, 25000, 40000])


def test_fit_vcgmm_on_chunks_is_the_fit_on_the_chunked_coreset(blob_chunks, brute_qe):
    X, chunks = blob_chunks
    r = vcgmm.fit_vcgmm(chunks, 30, 5, 6000, random_state=3, return_labels=True)
    idx, gamma, pts = vcgmm.lwcs(chunks, 6000, random_state=3, return_points=True)
    np.testing.assert_array_equal(r.coreset_indices, idx)
    np.testing.assert_array_equal(r.coreset_weights, gamma)
    # The fit on the coreset in memory, with the same seed.
    ref = vcgmm.fit_vcgmm(pts, 30, 5, None, sample_weight=gamma, random_state=3)
    np.testing.assert_array_equal(r.centers, ref.centers)
    np.testing.assert_array_equal(r.free_energy, ref.free_energy)
    assert r.sigma2 == ref.sigma2 and r.n_iter == ref.n_iter
    # Labels and inertia of the full data, from the third pass.
    np.testing.assert_array_equal(r.labels, vcgmm.assign(X, r.centers))
    assert r.inertia == pytest.approx(brute_qe(X, r.centers), rel=1e-5)
    # Costs: pass 1 reads every row, pass 2 the chunks with draws; evaluation N C.
    starts = np.cumsum([0] + [c.shape[0] for c in chunks])
    read = sum(b - a for a, b in zip(starts[:-1], starts[1:])
               if np.any((idx >= a) & (idx < b)))
    assert read < X.shape[0]  # the one-row chunk has (almost surely) no draw
    assert r.n_distance_evals["coreset"] == X.shape[0] + read
    assert r.n_distance_evals["evaluation"] == X.shape[0] * 30
    assert r.timings["coreset"] > 0
    # Without return_labels: no third pass.
    r2 = vcgmm.fit_vcgmm(chunks, 30, 5, 6000, random_state=3)
    assert r2.labels is None and r2.inertia is None and r2.n_distance_evals["evaluation"] == 0
    np.testing.assert_array_equal(r2.centers, r.centers)


def test_estimators_fit_predict_score_on_chunks(blob_chunks):
    X, chunks = blob_chunks
    gmm = vcgmm.VCGMM(30, random_state=4).fit(chunks)
    assert gmm.n_features_in_ == 6
    np.testing.assert_array_equal(gmm.labels_, gmm.predict(X))
    np.testing.assert_array_equal(gmm.predict(chunks), gmm.predict(X))
    np.testing.assert_allclose(gmm.transform(chunks), gmm.transform(X), rtol=1e-6)
    assert gmm.inertia_ == pytest.approx(vcgmm.quantization_error(X, gmm.cluster_centers_),
                                         rel=1e-12)
    # The fit equals fit_vcgmm on the same chunks (the estimator's default "auto" N').
    r = vcgmm.fit_vcgmm(chunks, 30, random_state=4)
    np.testing.assert_array_equal(gmm.cluster_centers_, r.centers)

    km = vcgmm.KMeans(30, init="afk-mc2", coreset_size="auto", random_state=5).fit(chunks)
    np.testing.assert_array_equal(km.labels_, km.predict(X))
    assert km.score(chunks) == pytest.approx(-vcgmm.quantization_error(X, km.cluster_centers_),
                                             rel=1e-12)
    assert km.coreset_indices_.shape == (vcgmm.default_coreset_size(X.shape[0], 30),)
    # Weighted chunks: the weights travel with the rows.
    w = np.random.default_rng(6).uniform(0.5, 2, X.shape[0])
    kw = vcgmm.KMeans(30, init="afk-mc2", coreset_size=5000, random_state=5).fit(
        chunks, sample_weight=w)
    assert kw.inertia_ == pytest.approx(
        vcgmm.quantization_error(X, kw.cluster_centers_, sample_weight=w), rel=1e-12)
    assert kw.score(chunks, sample_weight=w) == pytest.approx(-kw.inertia_, rel=1e-12)


def test_fit_on_chunks_does_not_depend_on_threads(blob_chunks, assert_thread_independent):
    _, chunks = blob_chunks
    assert_thread_independent(
        lambda nt: vcgmm.fit_vcgmm(chunks, 30, 5, 4096, random_state=8, n_threads=nt,
                                   return_labels=True))


def test_chunked_fit_needs_a_coreset(blob_chunks):
    _, chunks = blob_chunks
    with pytest.raises(ValueError, match="coreset"):
        vcgmm.fit_vargmm(chunks, 10)
    with pytest.raises(ValueError, match="coreset"):
        vcgmm.KMeans(10).fit(chunks)  # k-means++ on all points
    with pytest.raises(TypeError, match="in memory"):
        vcgmm.kmeans_plusplus(chunks, 3)
    gmm = vcgmm.VCGMM(5, random_state=0).fit(chunks)
    with pytest.raises(TypeError, match="in memory"):
        gmm.score_samples(chunks)


def test_verbose_logs_every_chunk(blob_chunks, caplog):
    _, chunks = blob_chunks
    with caplog.at_level(logging.INFO, logger="vcgmm"):
        vcgmm.fit_vcgmm(chunks, 5, coreset_size=4096, random_state=0, verbose=True)
    text = caplog.text
    for c, chunk in enumerate(chunks):
        assert f"coreset pass 1: chunk {c}: {chunk.shape[0]:,} rows" in text
    assert "coreset pass 2: chunk 1" not in text  # an empty chunk has no draws: not read
    assert "coreset: 4,096 draws from 40,000 rows in 5 chunks" in text


def test_peak_memory_is_one_chunk_plus_the_coreset(tmp_path):
    """Python-side allocations (numpy arrays) during an out-of-core fit of 20
    files stay below a few chunks' worth, far below the data (the core's own
    buffers, 8 bytes per row of a chunk, are not counted by tracemalloc)."""
    rng = np.random.default_rng(41)
    n_files, rows, d = 20, 25000, 16  # 1.6 MB per chunk, 32 MB in all
    paths = []
    for c in range(n_files):
        paths.append(tmp_path / f"chunk{c:02d}.npy")
        np.save(paths[-1], rng.normal(size=(rows, d)).astype(np.float32) + c)
    chunk_bytes = rows * d * 4
    tracemalloc.start()
    try:
        r = vcgmm.fit_vcgmm(paths, 20, 5, 4096, random_state=0, return_labels=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    coreset_bytes = 4096 * (d * 4 + 16)
    labels_bytes = n_files * rows * 4
    assert peak < 2 * chunk_bytes + 2 * coreset_bytes + 2 * labels_bytes, peak
    assert peak < n_files * chunk_bytes / 3
    assert r.labels.shape == (n_files * rows,)


# ----------------------------------------------------------------------------
# Bad chunks
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("entry,case", [(e, c) for c in BAD_CHUNKS for e in CHUNK_ENTRY_POINTS
                                         if BAD_CHUNKS[c][3](e)])
def test_bad_chunks_raise(entry, case):
    make, exc, pattern, _ = BAD_CHUNKS[case]
    with pytest.raises(exc, match=pattern):
        CHUNK_ENTRY_POINTS[entry](make())


def test_bad_chunk_files_are_named(tmp_path):
    good = np.random.default_rng(0).normal(size=(50, 3))
    bad = good.copy()
    bad[7, 2] = np.nan
    paths = [tmp_path / "a.npy", tmp_path / "b.npy"]
    np.save(paths[0], good)
    np.save(paths[1], bad)
    with pytest.raises(ValueError, match=r"chunk 1 \(.*b\.npy\) contains NaN \(first at row 7, "
                                         r"column 2\)"):
        vcgmm.fit_vcgmm(paths, 3, random_state=0)
    with pytest.raises(FileNotFoundError, match="missing.npy"):
        vcgmm.lwcs([paths[0], tmp_path / "missing.npy"], 10)
    np.savetxt(tmp_path / "c.csv", good)
    with pytest.raises(ValueError, match=r"\.npy"):
        vcgmm.lwcs([paths[0], tmp_path / "c.csv"], 10)


def test_chunks_that_change_between_passes_are_refused():
    rng = np.random.default_rng(1)
    calls = []

    def chunks():
        calls.append(1)
        n = 100 if len(calls) == 1 else 90
        return iter([rng.normal(size=(n, 2)), rng.normal(size=(50, 2))])

    with pytest.raises(ValueError, match="must not change between passes"):
        vcgmm.lwcs(chunks, 100, random_state=0)

    calls.clear()

    def fewer():
        calls.append(1)
        return iter([np.ones((20, 2)) * np.arange(2)] * (3 if len(calls) == 1 else 2))

    with pytest.raises(ValueError, match="must not change between passes"):
        vcgmm.lwcs(fewer, 100, random_state=0)


def test_more_chunks_on_the_second_pass_are_refused():
    calls = []

    def more():
        calls.append(1)
        return iter([np.ones((20, 2)) * np.arange(2)] * (2 if len(calls) == 1 else 3))

    with pytest.raises(ValueError, match=r"more chunks on this pass than on the first \(2\)"):
        vcgmm.lwcs(more, 100, random_state=0)


@pytest.mark.parametrize("value", [np.nan, np.inf, 1e200])
@pytest.mark.parametrize("fit", ["lwcs", "fit_vcgmm", "KMeans"])
def test_values_that_change_between_passes_are_refused(value, fit):
    # Same shapes on both passes; on the second, every value of chunk 1 is bad.
    good = [np.random.default_rng(c).normal(size=(60, 3)) for c in range(3)]
    calls = []

    def chunks():
        calls.append(1)
        if len(calls) == 1:
            return iter(good)
        return iter([good[0], np.full_like(good[1], value), good[2]])

    run = {"lwcs": lambda: vcgmm.lwcs(chunks, 90, random_state=0),
           "fit_vcgmm": lambda: vcgmm.fit_vcgmm(chunks, 3, 2, 90, random_state=0),
           "KMeans": lambda: vcgmm.KMeans(3, coreset_size=90, random_state=0).fit(chunks)}[fit]
    with pytest.raises(ValueError, match=r"X chunk 1 (contains|has values up to).*The first "
                                         r"pass accepted this chunk") as info:
        run()
    assert "sample_weight" not in str(info.value)


def test_weights_of_chunked_data_are_checked():
    chunks = [np.random.default_rng(0).normal(size=(30, 2))] * 3
    with pytest.raises(ValueError, match=r"sample_weight has 80 entries but X has more rows"):
        vcgmm.lwcs(chunks, 10, sample_weight=np.ones(80))
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(90,\)"):
        vcgmm.lwcs(chunks, 10, sample_weight=np.ones(95))
    w = np.ones(90)
    w[45] = -1
    with pytest.raises(ValueError, match=r"sample_weight \(chunk 1\).*non-negative"):
        vcgmm.lwcs(chunks, 10, sample_weight=w)
    # Zero weights: points that are ignored (never drawn), all zero refused.
    w[45] = 0.0
    idx, _ = vcgmm.lwcs(chunks, 300, sample_weight=w, random_state=0)
    assert 45 not in idx
    with pytest.raises(ValueError, match=r"sample_weight has no positive entry"):
        vcgmm.lwcs(chunks, 10, sample_weight=np.zeros(90))


# ----------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------


def test_cli_fits_a_folder_a_glob_and_a_zarr_store(tmp_path, capsys, blob_chunks):
    X, _ = blob_chunks
    folder = tmp_path / "parts"
    folder.mkdir()
    for c in range(12):  # natural order: part2 before part10
        np.save(folder / f"part{c}.npy", X[c * 3000:(c + 1) * 3000])
    np.save(folder / "part12.npy", X[36000:])
    from vcgmm.cli import main

    out_labels = tmp_path / "labels.npy"
    assert main(["fit", str(folder), "-C", "30", "--algo", "vcgmm", "--seed", "1",
                 "--labels-out", str(out_labels), "--out", str(tmp_path / "c.npy")]) == 0
    text = capsys.readouterr().out
    assert "40,000 x 6 float32 (out of core: 13 chunk files" in text
    centers = np.load(tmp_path / "c.npy")
    # The labels are those of X in natural file order.
    np.testing.assert_array_equal(np.load(out_labels), vcgmm.assign(X, centers))
    # The same fit in Python, from the same chunks in the same order.
    paths = [folder / f"part{c}.npy" for c in range(13)]
    ref = vcgmm.VCGMM(30, random_state=1).fit(paths)
    np.testing.assert_array_equal(centers, ref.cluster_centers_)

    assert main(["fit", str(folder / "part1*.npy"), "-C", "5", "--algo", "lwcs",
                 "--seed", "1"]) == 0
    # part1, part10, part11, part12
    assert "13,000 x 6 float32 (out of core: 4 chunk files" in capsys.readouterr().out
    # Fits on all points need the data in memory; outputs must not overwrite a chunk.
    assert main(["fit", str(folder), "-C", "5", "--algo", "vargmm"]) == 2
    assert "coreset" in capsys.readouterr().err
    assert main(["fit", str(folder), "-C", "5", "--algo", "vcgmm",
                 "--out", str(folder / "part3.npy")]) == 2
    assert "one of the input chunks" in capsys.readouterr().err
    assert main(["fit", str(tmp_path / "nothing" / "*.npy"), "-C", "5", "--algo", "vcgmm"]) == 2
    assert "no files match" in capsys.readouterr().err

    try:
        import zarr
    except ImportError:
        return
    z = zarr.open_array(str(tmp_path / "x.zarr"), mode="w", shape=X.shape, chunks=(7000, 6),
                        dtype="float32")
    z[:] = X
    assert main(["fit", str(tmp_path / "x.zarr"), "-C", "30", "--algo", "vcgmm", "--seed", "1",
                 "--out", str(tmp_path / "cz.npy")]) == 0
    assert "zarr array" in capsys.readouterr().out
    bounds = list(range(0, 40000, 7000)) + [40000]
    ref = vcgmm.VCGMM(30, random_state=1).fit(split(X, bounds))
    np.testing.assert_array_equal(np.load(tmp_path / "cz.npy"), ref.cluster_centers_)


def test_vcgmm_dask_without_dask_says_how_to_install(monkeypatch):
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "dask", None)  # import dask now fails
    monkeypatch.setitem(sys.modules, "dask.array", None)
    monkeypatch.delitem(sys.modules, "vcgmm.dask", raising=False)
    with pytest.raises(ImportError, match=r"pip install 'vcgmm\[dask\]'"):
        importlib.import_module("vcgmm.dask")
