"""vcgmm.ApproximateIndex: the approximate search's index kept between calls,
and predict(X, exact=False) reusing one.

Oracle: vcgmm.assign_approximate with the same parameters (which builds its
index on every call): labels, distances and statistics must be equal bit for
bit, whichever batches the data come in, on any number of threads, for both
methods and dtypes. Properties of the object: it copies the centers, builds
an index per data dtype once, pickles by rebuilding, may be used from several
Python threads at once; the estimators rebuild theirs when the centers change.
"""

import pickle
import threading

import numpy as np
import pytest

import vcgmm

METHODS = [dict(), dict(method="gemm", n_probe=3, probe_ratio=np.inf),
           dict(method="graph", graph_degree=12, beam_width=6)]


def _data(dtype=np.float32, n=3000, C=300, d=9, seed=0):
    rng = np.random.default_rng(seed)
    centers = (rng.standard_normal((C, d)) * 3).astype(dtype)
    X = (centers[rng.integers(0, C, n)] + rng.standard_normal((n, d))).astype(dtype)
    w = rng.uniform(0.5, 2.0, n)
    return X, centers, w


def _search_stats(stats):
    """The statistics that do not depend on timing or on who built the index."""
    return {"objective": stats["objective"],
            "search_distance_evals": stats["search_distance_evals"]}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("params", METHODS)
def test_equal_to_assign_approximate_in_any_batches(dtype, params):
    X, centers, w = _data(dtype)
    one_shot, stats = vcgmm.assign_approximate(X, centers, w, return_stats=True, n_threads=2,
                                               **params)
    index = vcgmm.ApproximateIndex(centers, n_threads=2, **params)
    labels, got = index.assign(X, w, return_stats=True)
    assert labels.dtype == np.int32
    assert np.array_equal(labels, one_shot)
    assert _search_stats(got) == _search_stats(stats)
    # Built at construction: its cost is in build_stats, not in the calls.
    assert got["index_distance_evals"] == 0 and got["index_seconds"] == 0.0
    assert got["n_distance_evals"] == got["search_distance_evals"]
    assert index.build_stats["index_distance_evals"] == stats["index_distance_evals"]
    assert stats["n_distance_evals"] == (stats["index_distance_evals"]
                                         + stats["search_distance_evals"])
    # Batches of any size, in any order, give the same labels.
    parts = [index.assign(X[a:b], w[a:b]) for a, b in ((0, 1), (1, 1000), (1000, 1001),
                                                       (1001, 3000))]
    assert np.array_equal(np.concatenate(parts), one_shot)
    assert np.array_equal(index.assign(X[::-1]), one_shot[::-1])


def test_large_inputs_in_larger_tasks_give_the_labels_of_small_batches():
    # From 2 x 128 tasks of 2048 points on, the gemm search runs larger tasks
    # (fewer packings of each cell's centers); a point's label must not depend
    # on the task it falls in: 600,000 rows at once (tasks of 4096) against
    # batches of 100,000 (tasks of 2048).
    rng = np.random.default_rng(5)
    centers = (rng.standard_normal((200, 3)) * 4).astype(np.float32)
    X = (centers[rng.integers(0, 200, 600_000)]
         + rng.standard_normal((600_000, 3))).astype(np.float32)
    index = vcgmm.ApproximateIndex(centers, n_threads=2)
    whole = index.assign(X)
    parts = np.concatenate([index.assign(X[a:a + 100_000]) for a in range(0, 600_000, 100_000)])
    assert np.array_equal(whole, parts)


def test_the_other_dtype_gets_its_own_index_once():
    X, centers, w = _data(np.float32)
    index = vcgmm.ApproximateIndex(centers.astype(np.float64))
    assert index.centers.dtype == np.float64
    expected, stats = vcgmm.assign_approximate(X, centers.astype(np.float64), w,
                                               return_stats=True)
    labels, first = index.assign(X, w, return_stats=True)  # float32 data: built now
    assert np.array_equal(labels, expected)
    assert first["index_distance_evals"] == stats["index_distance_evals"] > 0
    assert first["n_distance_evals"] == stats["n_distance_evals"]
    labels, again = index.assign(X, w, return_stats=True)
    assert np.array_equal(labels, expected)
    assert again["index_distance_evals"] == 0
    # float64 data use the index built at construction.
    assert np.array_equal(index.assign(X.astype(np.float64)),
                          vcgmm.assign_approximate(X.astype(np.float64),
                                                   centers.astype(np.float64)))


def test_copies_the_centers():
    X, centers, _ = _data(np.float64)
    before = vcgmm.assign_approximate(X, centers)
    index = vcgmm.ApproximateIndex(centers)
    assert centers.flags.writeable  # the caller's array is left alone
    assert not index.centers.flags.writeable
    centers[:] = 0.0
    assert np.array_equal(index.assign(X), before)
    assert index.n_clusters == 300 and index.n_features == 9


def test_thread_independent(assert_thread_independent):
    X, centers, w = _data(np.float32, n=5000, C=500, seed=1)
    w[::4] = 0.0

    def run(n_threads):
        labels, stats = vcgmm.ApproximateIndex(centers, n_threads=n_threads).assign(
            X, w, return_stats=True)
        return labels, _search_stats(stats)

    assert_thread_independent(run)


def test_assign_from_several_python_threads_at_once():
    X, centers, _ = _data(np.float32, n=20000, C=400, seed=2)
    index = vcgmm.ApproximateIndex(centers, n_threads=2)
    expected = index.assign(X)
    results, errors = [None] * 4, []

    def work(i):
        try:
            results[i] = index.assign(X[i::4])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(4):
        assert np.array_equal(results[i], expected[i::4])


def test_pickle_rebuilds_the_same_index():
    X, centers, _ = _data(np.float32)
    index = vcgmm.ApproximateIndex(centers, method="graph", beam_width=8)
    clone = pickle.loads(pickle.dumps(index))
    assert clone.params == index.params
    assert np.array_equal(clone.centers, index.centers)
    assert np.array_equal(clone.assign(X), index.assign(X))
    assert "beam_width=8" in repr(clone) and "n_clusters=300" in repr(clone)


def test_predict_keeps_its_index_until_the_centers_change():
    X, _, _ = _data(np.float32, n=4000, C=50)
    km = vcgmm.KMeans(50, random_state=0, n_threads=2).fit(X)
    first = km.predict(X[:100], exact=False)
    index = km.__dict__["_kept_approximate_index"]
    assert km.predict(X[:100], exact=False) is not first
    assert km.__dict__["_kept_approximate_index"] is index  # reused
    assert np.array_equal(km.predict(X, exact=False),
                          vcgmm.assign_approximate(X, km.cluster_centers_))
    # Pickles and clones never carry it.
    restored = pickle.loads(pickle.dumps(km))
    assert "_kept_approximate_index" not in restored.__dict__
    assert np.array_equal(restored.predict(X, exact=False), km.predict(X, exact=False))
    # New centers (set by hand, or a refit) get a new index.
    km.cluster_centers_ = km.cluster_centers_[::-1].copy()
    assert np.array_equal(km.predict(X, exact=False),
                          vcgmm.assign_approximate(X, km.cluster_centers_))
    assert km.__dict__["_kept_approximate_index"] is not index
    index = km.__dict__["_kept_approximate_index"]
    km.set_params(random_state=1).fit(X)
    assert np.array_equal(km.predict(X, exact=False),
                          vcgmm.assign_approximate(X, km.cluster_centers_))
    assert km.__dict__["_kept_approximate_index"] is not index


def test_predict_cosine_uses_normalised_rows():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((2000, 6)).astype(np.float32)
    km = vcgmm.KMeans(20, metric="cosine", random_state=0).fit(X)
    expected = vcgmm.assign_approximate(X / np.linalg.norm(X, axis=1, keepdims=True),
                                        km.cluster_centers_)
    assert np.array_equal(km.predict(X, exact=False), expected)
    assert np.array_equal(km.predict(X, exact=False), expected)


def test_bad_queries_and_parameters():
    X, centers, _ = _data(np.float64, n=50, C=5)
    index = vcgmm.ApproximateIndex(centers)
    with pytest.raises(ValueError, match="X has 4 features but the index's centers have 9"):
        index.assign(X[:, :4])
    with pytest.raises(ValueError, match="one array, not chunked"):
        index.assign([X[:20], X[20:]])
    with pytest.raises(TypeError, match="return_stats"):
        index.assign(X, return_stats="yes")
    with pytest.raises(ValueError, match="n_probe"):
        vcgmm.ApproximateIndex(centers, n_probe=0)
    with pytest.raises(ValueError, match="centers"):
        vcgmm.ApproximateIndex(centers[:, :0])
    from vcgmm._blocks.approximate import approximate_nearest_centers

    with pytest.raises(TypeError, match="pass the parameters to the index"):
        approximate_nearest_centers(X, None, index=index, n_probe=2)
