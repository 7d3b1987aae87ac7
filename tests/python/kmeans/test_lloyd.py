"""Weighted Lloyd iterations: vcgmm.lloyd and vcgmm.KMeans from given centers."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import KMeans as SKKMeans
from sklearn.exceptions import ConvergenceWarning

import vcgmm


def _init_from(X, C, seed):
    # Data points plus a small jitter: digits are integer-valued, so centers
    # that are data points produce exact distance ties, which scikit-learn
    # (it centers X first) and vcgmm legitimately break differently.
    rng = np.random.default_rng(seed)
    return X[rng.choice(X.shape[0], C, replace=False)] + rng.uniform(-0.25, 0.25, (C, X.shape[1]))


def _dataset(name, digits, make_blobs):
    if name == "digits":
        return digits
    X, _, _ = make_blobs(3000, 12, 5, spread=4.0, std=1.0, seed=11)
    return X


def _assert_same_as_sklearn(X, init, max_iter, sample_weight=None):
    C = init.shape[0]
    sk = SKKMeans(C, init=init, n_init=1, algorithm="lloyd", tol=0, max_iter=max_iter).fit(
        X, sample_weight=sample_weight
    )
    scale = np.abs(X).max()
    centers, info = vcgmm.lloyd(X, init, sample_weight=sample_weight, tol=0, max_iter=max_iter,
                                n_threads=1)
    assert info["n_relocated"] == 0  # the comparison is only meaningful without relocation
    np.testing.assert_allclose(centers, sk.cluster_centers_, rtol=0, atol=1e-11 * scale)
    np.testing.assert_array_equal(vcgmm.assign(X, centers, n_threads=1), sk.labels_)
    assert info["n_iter"] == sk.n_iter_

    km = vcgmm.KMeans(C, init=init, tol=0, max_iter=max_iter, random_state=0, n_threads=1).fit(
        X, sample_weight=sample_weight
    )
    np.testing.assert_allclose(km.cluster_centers_, sk.cluster_centers_, rtol=0,
                               atol=1e-11 * scale)
    np.testing.assert_array_equal(km.labels_, sk.labels_)
    np.testing.assert_allclose(km.inertia_, sk.inertia_, rtol=1e-10)
    assert km.n_iter_ == sk.n_iter_


@pytest.mark.parametrize("max_iter", [1, 3, 300])
@pytest.mark.parametrize("C", [5, 30, 100])
@pytest.mark.parametrize("data", ["digits", "blobs"])
def test_same_as_sklearn_lloyd(data, C, max_iter, digits, make_blobs):
    X = _dataset(data, digits, make_blobs)
    _assert_same_as_sklearn(X, _init_from(X, C, seed=C), max_iter)


@pytest.mark.parametrize("max_iter", [2, 300])
@pytest.mark.parametrize("data", ["digits", "blobs"])
def test_weighted_same_as_sklearn_lloyd(data, max_iter, digits, make_blobs):
    X = _dataset(data, digits, make_blobs)
    w = np.random.default_rng(1).uniform(0.2, 5.0, size=X.shape[0])
    _assert_same_as_sklearn(X, _init_from(X, 20, seed=2), max_iter, sample_weight=w)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_objective_never_increases(seed, dtype, digits, make_blobs):
    rng = np.random.default_rng(seed)
    datasets = [
        digits,
        make_blobs(4000, 40, 3, spread=5.0, std=1.5, seed=seed)[0],
        rng.uniform(size=(3000, 2)),  # no cluster structure: many iterations
    ]
    for X in datasets:
        X = X.astype(dtype)
        C = 25
        init = X[rng.choice(X.shape[0], C, replace=False)]
        for w in (None, rng.uniform(0.1, 3.0, X.shape[0])):
            _, info = vcgmm.lloyd(X, init, sample_weight=w, tol=0, max_iter=100, n_threads=1)
            obj = np.asarray(info["objective"])
            assert obj.shape == (info["n_iter"],) and info["n_iter"] > 3
            rtol = 1e-12 if dtype == np.float64 else 1e-6
            assert np.all(obj[1:] <= obj[:-1] * (1 + rtol)), np.diff(obj).max()
            km = vcgmm.KMeans(C, init=init, tol=0, max_iter=100,
                              n_threads=1).fit(X, sample_weight=w)
            assert np.all(np.diff(km.objective_) <= km.objective_[:-1] * rtol)
            # The reported objective is the quantization error of the
            # assignment step, i.e. of the centers before the update.
            if info["n_iter"] >= 2:
                c1, _ = vcgmm.lloyd(X, init, sample_weight=w, tol=0, max_iter=1, n_threads=1)
                np.testing.assert_allclose(
                    obj[1], vcgmm.quantization_error(X, c1, w, n_threads=1), rtol=1e-12
                )
            np.testing.assert_allclose(obj[0], vcgmm.quantization_error(X, init, w, n_threads=1),
                                       rtol=1e-12)


def test_tol_stopping_rule(make_blobs):
    X, _, _ = make_blobs(5000, 30, 4, spread=6.0, std=1.0, seed=3)
    init = _init_from(X, 30, seed=3)
    for tol in (1e-2, 1e-3, 1e-4):
        _, info = vcgmm.lloyd(X, init, tol=tol, max_iter=500, n_threads=1)
        obj = np.asarray(info["objective"])
        rel = np.abs(np.diff(obj)) / obj[1:]
        assert info["converged"]
        # Stops at the first iteration whose relative change is <= tol.
        assert obj.size == info["n_iter"] >= 2
        assert np.all(rel[:-1] > tol)
        assert rel[-1] <= tol
    _, info = vcgmm.lloyd(X, init, tol=0, max_iter=2, n_threads=1)
    assert info["n_iter"] == 2 and not info["converged"]


def test_fixed_point_stops_and_converges(make_blobs):
    X, _, _ = make_blobs(2000, 5, 3, spread=20.0, std=0.5, seed=4)
    init = _init_from(X, 5, seed=4)
    c, info = vcgmm.lloyd(X, init, tol=0, max_iter=1000, n_threads=1)
    assert info["converged"] and info["n_iter"] < 1000
    c2, info2 = vcgmm.lloyd(X, c, tol=0, max_iter=1000, n_threads=1)
    # From a fixed point: one iteration establishes the labels, the second
    # sees none change (scikit-learn counts the same way).
    assert info2["n_iter"] == 2 and info2["converged"]
    assert info2["objective"][0] == info2["objective"][1]
    np.testing.assert_allclose(c2, c, rtol=0, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_later_iterations_from_the_labels_equal_scanning(dtype, weighted, make_blobs):
    # From the second iteration on, the assignment starts from the last labels
    # (assign_nearest_from); a first iteration always scans all C centers. So
    # k single-iteration runs, chained, scan every time, and must give the
    # k-iteration run's centers and objectives bit for bit. 8000 rows in 40
    # blobs, 200 centers from random rows (several per blob, some blobs none):
    # labels move between blobs for a few iterations. Two identical far rows
    # and two far centers: the first iteration relocates both empty clusters
    # onto the two rows, so the second finds one of them empty (equal means,
    # ties to the lower index) and relocates it by that iteration's distances.
    X, _, _ = make_blobs(8000, 40, 8, spread=6.0, std=1.0, seed=21, dtype=dtype)
    X[-2:] = 100.0
    rng = np.random.default_rng(21)
    w = rng.uniform(0.5, 2.0, X.shape[0]) if weighted else None
    init = X[rng.choice(X.shape[0] - 2, 200, replace=False)].copy()
    init[:2] = -100.0
    N, C, k = X.shape[0], init.shape[0], 6
    centers, info = vcgmm.lloyd(X, init, sample_weight=w, max_iter=k, tol=0, n_threads=2)
    assert info["n_iter"] == k
    # The later iterations measured far fewer distances than scans would.
    assert N * C < info["n_distance_evals"]["iterations"] < N * C + (k - 1) * N * C / 4
    chained, objectives, relocated = init, [], []
    for _ in range(k):
        chained, one = vcgmm.lloyd(X, chained, sample_weight=w, max_iter=1, tol=0, n_threads=2)
        assert one["n_distance_evals"]["iterations"] == N * C
        objectives.extend(list(one["objective"]))
        relocated.append(one["n_relocated"])
    assert relocated[:2] == [2, 1]
    np.testing.assert_array_equal(centers, chained)
    assert list(info["objective"]) == objectives
    assert info["n_relocated"] == sum(relocated)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_results_do_not_depend_on_the_thread_count(dtype, make_blobs,
                                                   assert_thread_independent):
    # 40 clusters: 3 center-update tasks of 16; 40,000 rows: 157 assignment blocks.
    X, _, centers = make_blobs(40000, 40, 8, spread=5.0, std=1.0, seed=5, dtype=dtype)
    w = np.random.default_rng(5).uniform(0.5, 2.0, X.shape[0])
    init = centers[::-1] + 0.5
    far = np.vstack([centers[:30], np.full((10, 8), 100.0)])  # 10 empty clusters: relocation
    info = assert_thread_independent(lambda t: {
        "weighted": vcgmm.lloyd(X, init, sample_weight=w, max_iter=8, tol=0, n_threads=t),
        "unweighted": vcgmm.lloyd(X, init, max_iter=8, tol=0, n_threads=t),
        "relocating": vcgmm.lloyd(X, far, max_iter=3, tol=0, n_threads=t),
    })
    assert info["relocating"][1]["n_relocated"] >= 10


def test_float32_agrees_with_float64(make_blobs):
    X, _, true_centers = make_blobs(6000, 8, 6, spread=20.0, std=0.5, seed=6)
    init = true_centers + 1.0
    c64, i64 = vcgmm.lloyd(X, init, tol=0, max_iter=50, n_threads=1)
    c32, i32 = vcgmm.lloyd(X.astype(np.float32), init, tol=0, max_iter=50, n_threads=1)
    assert c32.dtype == np.float32 and c64.dtype == np.float64
    np.testing.assert_allclose(c32, c64, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(i32["objective"][-1], i64["objective"][-1], rtol=1e-5)
    km64 = vcgmm.KMeans(8, init=init, tol=0, n_threads=1).fit(X)
    km32 = vcgmm.KMeans(8, init=init, tol=0, n_threads=1).fit(X.astype(np.float32))
    assert km32.cluster_centers_.dtype == np.float32
    np.testing.assert_array_equal(km32.labels_, km64.labels_)
    np.testing.assert_allclose(km32.cluster_centers_, km64.cluster_centers_, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(km32.inertia_, km64.inertia_, rtol=1e-5)


def _far_center_problem(make_blobs):
    X, _, true_centers = make_blobs(600, 3, 2, spread=5.0, std=1.0, seed=8)
    init = np.vstack([true_centers, [[1000.0, 1000.0]]])  # center 3 gets no point
    return X, init


def test_empty_cluster_is_relocated_to_the_farthest_point(make_blobs, sqdist):
    X, init = _far_center_problem(make_blobs)
    assert np.all(vcgmm.assign(X, init, n_threads=1) < 3)
    c, info = vcgmm.lloyd(X, init, max_iter=1, n_threads=1)
    assert info["n_relocated"] == 1
    # The farthest point from its nearest center moves to the empty cluster,
    # which then consists of that point alone.
    far = np.argmax(sqdist(X, init[:3]).min(1))
    np.testing.assert_array_equal(c[3], X[far])
    c, info = vcgmm.lloyd(X, init, tol=0, max_iter=100, n_threads=1)
    assert info["n_relocated"] >= 1
    assert np.unique(vcgmm.assign(X, c, n_threads=1)).size == 4
    km = vcgmm.KMeans(4, init=init, n_threads=1).fit(X)
    assert km.n_relocated_ >= 1
    assert np.unique(km.labels_).size == 4


def test_empty_cluster_kept_without_relocation(make_blobs):
    X, init = _far_center_problem(make_blobs)
    c, info = vcgmm.lloyd(X, init, tol=0, max_iter=100, relocate_empty=False, n_threads=1)
    assert info["n_relocated"] == 0
    np.testing.assert_array_equal(c[3], init[3])
    assert np.unique(vcgmm.assign(X, c, n_threads=1)).size == 3
    # Only 3 clusters hold points: the estimator says so.
    with pytest.warns(ConvergenceWarning):
        km = vcgmm.KMeans(4, init=init, relocate_empty=False, n_threads=1).fit(X)
    assert km.n_relocated_ == 0
    np.testing.assert_array_equal(km.cluster_centers_[3], init[3])


def test_many_empty_clusters_all_relocated(make_blobs):
    # 20 centers far away: all must be moved, each onto a distinct point.
    X, _, true_centers = make_blobs(500, 4, 3, spread=5.0, std=1.0, seed=9)
    far = 1000.0 + np.arange(20)[:, None] * np.ones((1, 3))
    init = np.vstack([true_centers, far])
    c, info = vcgmm.lloyd(X, init, tol=0, max_iter=50, n_threads=1)
    assert info["n_relocated"] >= 20
    assert np.unique(vcgmm.assign(X, c, n_threads=1)).size == 24
    assert np.unique(c, axis=0).shape[0] == 24


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_integer_weights_equal_repeated_rows(dtype, make_blobs):
    X, _, _ = make_blobs(1500, 10, 4, spread=4.0, std=1.0, seed=10)
    X = X.astype(dtype)
    k = np.random.default_rng(10).integers(1, 5, size=X.shape[0])
    init = _init_from(X.astype(np.float64), 10, seed=10)
    cw, iw = vcgmm.lloyd(X, init, sample_weight=k.astype(float), tol=0, max_iter=100, n_threads=1)
    cr, ir = vcgmm.lloyd(np.repeat(X, k, axis=0), init, tol=0, max_iter=100, n_threads=1)
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(cw, cr, rtol=rtol, atol=rtol)
    assert iw["n_iter"] == ir["n_iter"]
    np.testing.assert_allclose(iw["objective"], ir["objective"], rtol=rtol)
    kw = vcgmm.KMeans(10, init=init, tol=0, n_threads=1).fit(X, sample_weight=k.astype(float))
    kr = vcgmm.KMeans(10, init=init, tol=0, n_threads=1).fit(np.repeat(X, k, axis=0))
    np.testing.assert_allclose(kw.cluster_centers_, kr.cluster_centers_, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(kw.inertia_, kr.inertia_, rtol=rtol)


def test_distance_evals_and_input_not_modified(make_blobs):
    X, _, _ = make_blobs(1000, 6, 3, seed=12)
    init = _init_from(X, 6, seed=12)
    before = init.copy()
    _, info = vcgmm.lloyd(X, init, tol=0, max_iter=7, n_threads=1)
    np.testing.assert_array_equal(init, before)
    # Lloyd's phase is "iterations": every point against every center in the
    # first, at most as many in each later one (from the last labels).
    evals = dict(info["n_distance_evals"])
    assert 1000 * 6 <= evals.pop("iterations") <= info["n_iter"] * 1000 * 6
    assert evals == {"coreset": 0, "seeding": 0, "refinement": 0, "evaluation": 0}
    assert set(info["timings"]) == set(info["n_distance_evals"])
    assert info["timings"]["iterations"] > 0.0
    assert all(info["timings"][k] == 0.0 for k in ("coreset", "seeding", "evaluation"))
