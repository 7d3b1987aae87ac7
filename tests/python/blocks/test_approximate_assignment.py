"""Approximate nearest-center assignment: vcgmm.assign_approximate,
vcgmm.assign(exact=False), predict(X, exact=False); both methods, "gemm"
(the default: points grouped by coarse cell, one matrix product per group
against the cell's candidate list) and "graph" (best-first search over a k-NN
graph of the centers).

Reference: numpy brute force in float64 and the exact scan. Properties: gemm
with n_probe = all cells and graph with a complete graph or n_starts = C are
exact; never closer than the exact nearest center; exact on well-separated
blobs; measured exactness bounds at the defaults on random data; distance
evaluations below N C; thread-independent; zero weights; duplicates.
"""

import numpy as np
import pytest

import vcgmm


def _exact_d2(X, centers):
    X = X.astype(np.float64)
    C = centers.astype(np.float64)
    d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(-1)
    return d2


def _label_d2(X, centers, labels):
    X = X.astype(np.float64)
    C = centers.astype(np.float64)
    return ((X - C[labels]) ** 2).sum(1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("params", [dict(method="graph", graph_degree=10_000, n_starts=1,
                                         beam_width=1),
                                    dict(method="graph", n_starts=10_000),
                                    dict(method="gemm", n_probe=10_000, probe_ratio=np.inf),
                                    dict(n_probe=10_000, probe_ratio=np.inf, coarse_iter=0,
                                         coarse_size=7)])
def test_exact_with_all_cells_complete_graph_or_all_starts(dtype, params):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((800, 7)).astype(dtype)
    centers = rng.standard_normal((120, 7)).astype(dtype)
    w = rng.uniform(0.5, 2.0, 800)
    labels, stats = vcgmm.assign_approximate(X, centers, w, return_stats=True, n_threads=2,
                                             **params)
    exact = vcgmm.assign(X, centers, n_threads=2)
    d2 = _exact_d2(X, centers)
    best = d2.min(1)
    got = d2[np.arange(800), labels]
    tol = 1e-5 if dtype == np.float32 else 1e-12
    # bitwise equal or a tie within rounding
    differ = labels != exact
    assert np.all(got[differ] <= best[differ] * (1 + tol) + 1e-12)
    assert differ.sum() <= 2
    np.testing.assert_allclose(stats["objective"], float(w @ got), rtol=1e-10)


def test_never_closer_than_exact_and_counts():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((3000, 5))
    centers = rng.standard_normal((300, 5))
    labels, stats = vcgmm.assign_approximate(X, centers, method="graph", graph_degree=3,
                                             n_starts=1, beam_width=1, return_stats=True)
    best = _exact_d2(X, centers).min(1)
    got = _label_d2(X, centers, labels)
    assert np.all(got >= best * (1 - 1e-12))
    assert (got > best * (1 + 1e-9)).any()  # this weak search does miss some
    assert stats["n_distance_evals"] == stats["index_distance_evals"] + stats[
        "search_distance_evals"]
    assert stats["index_distance_evals"] == 300 * 300
    assert stats["search_distance_evals"] < 3000 * 300 / 4
    np.testing.assert_allclose(stats["objective"], got.sum(), rtol=1e-10)


def test_gemm_never_closer_than_exact_and_counts():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((3000, 5))
    centers = rng.standard_normal((300, 5))
    labels, stats = vcgmm.assign_approximate(X, centers, n_probe=1, return_stats=True)
    best = _exact_d2(X, centers).min(1)
    got = _label_d2(X, centers, labels)
    assert np.all(got >= best * (1 - 1e-12))
    assert (got > best * (1 + 1e-9)).any()  # one cell only: misses some
    assert stats["n_distance_evals"] == stats["index_distance_evals"] + stats[
        "search_distance_evals"]
    # 18 cells of ~17 centers: 18 coarse + ~17 cell evaluations per point
    assert stats["search_distance_evals"] < 3000 * 300 / 4
    assert stats["index_distance_evals"] < 300 * 300
    np.testing.assert_allclose(stats["objective"], got.sum(), rtol=1e-10)
    # More probed cells: never worse on average, eventually exact.
    errors = []
    for n_probe in (1, 4, 8, 18):
        lab = vcgmm.assign_approximate(X, centers, n_probe=n_probe, probe_ratio=np.inf)
        errors.append(_label_d2(X, centers, lab).sum())
    assert errors == sorted(errors, reverse=True)
    assert errors[-1] == pytest.approx(best.sum(), rel=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method", ["gemm", "graph"])
def test_well_separated_blobs_exact(dtype, method):
    rng = np.random.default_rng(2)
    C, D, per = 500, 8, 12
    centers = (rng.standard_normal((C, D)) * 50).astype(dtype)
    X = (np.repeat(centers, per, axis=0) + rng.standard_normal((C * per, D)) * 0.05).astype(dtype)
    labels = vcgmm.assign_approximate(X, centers, method=method)
    assert np.array_equal(labels, np.repeat(np.arange(C), per).astype(np.int32))
    if method == "gemm":  # the default
        assert np.array_equal(vcgmm.assign(X, centers, exact=False), labels)


def test_random_data_default_exactness():
    """C = 200, D = 16, uniform random centers and data (no cluster structure:
    the hard case for a graph search). Measured at the defaults: see the bound."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20_000, 16))
    centers = rng.standard_normal((200, 16))
    labels, stats = vcgmm.assign_approximate(X, centers, method="graph", return_stats=True)
    exact = vcgmm.assign(X, centers)
    frac = float((labels == exact).mean())
    assert frac >= 0.99, frac  # measured 1.0000 at the defaults 32/16/4
    # At C = 200 the search is not sublinear (measured ~210 evaluations per
    # point: 29 coarse + the walk); it is at larger C (below).
    got = _label_d2(X, centers, labels).sum()
    best = _exact_d2(X, centers).min(1).sum()
    assert got >= best and got <= best * 1.002


def test_sublinear_at_larger_C():
    """C = 2000, D = 16 random: measured 575 search + 200 index evaluations
    per point (vs 2000) and 99.9% exact labels at the defaults."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20_000, 16))
    centers = rng.standard_normal((2000, 16))
    labels, stats = vcgmm.assign_approximate(X, centers, method="graph", return_stats=True)
    assert stats["search_distance_evals"] < 20_000 * 2000 / 2.5
    assert stats["n_distance_evals"] < 20_000 * 2000 / 2
    assert (labels == vcgmm.assign(X, centers)).mean() >= 0.99


@pytest.mark.parametrize("method", ["gemm", "graph"])
def test_thread_independent(assert_thread_independent, method):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((6000, 10)).astype(np.float32)
    centers = rng.standard_normal((700, 10)).astype(np.float32)
    w = rng.uniform(0.5, 2.0, 6000)
    w[::5] = 0.0

    def run(n_threads):
        labels, stats = vcgmm.assign_approximate(X, centers, w, return_stats=True,
                                                 method=method, n_threads=n_threads)
        stats = {k: v for k, v in stats.items() if not k.endswith("seconds")}
        return labels, stats

    assert_thread_independent(run)


def test_predict_exact_false_kmeans_and_vcgmm():
    rng = np.random.default_rng(5)
    centers = rng.standard_normal((60, 4)) * 30
    X = np.repeat(centers, 30, axis=0) + rng.standard_normal((1800, 4))
    for est in (vcgmm.KMeans(60, random_state=0, n_threads=2),
                vcgmm.VCGMM(60, random_state=0, n_threads=2)):
        est.fit(X)
        approx = est.predict(X, exact=False)
        exact = est.predict(X)
        assert approx.dtype == np.int32
        assert np.array_equal(approx, exact), type(est).__name__
        assert np.array_equal(est.predict(X, exact=True), exact)


def test_exact_false_refuses_chunked():
    X = np.random.default_rng(6).standard_normal((20, 3))
    km = vcgmm.KMeans(2, random_state=0).fit(X)
    with pytest.raises(ValueError, match=r"exact=False\) takes X as one array|exact=False takes X as one array"):
        km.predict([X[:10], X[10:]], exact=False)
    with pytest.raises(ValueError, match=r"exact=False\) takes X as one array|exact=False takes X as one array"):
        vcgmm.assign([X[:10], X[10:]], km.cluster_centers_, exact=False)
    with pytest.raises(TypeError, match="exact must be True or False"):
        km.predict(X, exact=1)


def test_defaults_read_from_core():
    from vcgmm._blocks.approximate import approximate_default

    assert approximate_default("graph_degree") >= 1
    assert approximate_default("beam_width") >= 1
    assert approximate_default("n_starts") >= 1
    assert approximate_default("coarse_size") == 0
    assert approximate_default("method") == "gemm"
    assert approximate_default("n_probe") >= 1
    assert approximate_default("coarse_iter") >= 0
    from vcgmm._base.loader import core

    assert sorted(core.approximate_methods()) == ["gemm", "graph"]


@pytest.mark.parametrize("bad, err", [(dict(method="hnsw"), ValueError),
                                      (dict(method=1), TypeError),
                                      (dict(n_probe=0), ValueError),
                                      (dict(n_probe=2.5), TypeError),
                                      (dict(coarse_iter=-1), ValueError),
                                      (dict(probe_ratio=0.5), ValueError),
                                      (dict(probe_ratio=np.nan), ValueError),
                                      (dict(probe_ratio="2"), TypeError),
                                      (dict(coarse_size=-1), ValueError)])
def test_bad_parameters(bad, err):
    X = np.random.default_rng(8).standard_normal((50, 3))
    with pytest.raises(err, match=next(iter(bad))):
        vcgmm.assign_approximate(X, X[:5], **bad)


def test_duplicate_centers_do_not_trap_the_search():
    """Fits leave identical means; a group of more copies than graph_degree
    would be a zero-distance clique. Labels: the lowest index of a group, as
    the exact assignment's tie rule."""
    rng = np.random.default_rng(7)
    base = rng.standard_normal((150, 6)) * 20
    centers = np.concatenate([base] + [base[:10]] * 30)  # 30 extra copies of 10 centers
    centers = centers[rng.permutation(len(centers))]
    X = np.repeat(base, 10, axis=0) + rng.standard_normal((1500, 6)) * 0.05
    approx = vcgmm.assign_approximate(X, centers, method="graph", graph_degree=8, beam_width=4)
    assert np.array_equal(approx, vcgmm.assign(X, centers))
    approx = vcgmm.assign_approximate(X, centers, method="gemm")
    assert np.array_equal(approx, vcgmm.assign(X, centers))


def test_centers_equal_up_to_the_sign_of_zero_are_one_center():
    # Rows are compared by value: [0, 1] and [-0, 1] are the same center, and
    # the lower index takes its points (the exact assignment's tie rule).
    rng = np.random.default_rng(8)
    centers = rng.standard_normal((300, 3)) * 10
    centers[[10, 200], 0] = 0.0
    centers[200] = centers[10]
    centers[200, 0] = -0.0
    centers[150] = centers[40]
    X = np.concatenate([centers[[10, 40, 150, 200]],
                        centers + rng.standard_normal(centers.shape) * 0.01])
    for params in (dict(method="graph"), dict(method="gemm")):
        approx = vcgmm.assign_approximate(X, centers, **params)
        assert np.array_equal(approx, vcgmm.assign(X, centers))
        assert list(approx[:4]) == [10, 40, 40, 10]


def test_zero_weights_are_labelled_and_add_nothing():
    # An evaluation entry point, like assign and quantization_error: a row of
    # weight 0 still gets its label; it adds nothing to the objective.
    rng = np.random.default_rng(5)
    X = rng.standard_normal((600, 4))
    centers = rng.standard_normal((40, 4))
    w = rng.uniform(0.5, 2.0, 600)
    w[::3] = 0.0
    exact = vcgmm.assign(X, centers)
    for params in (dict(method="graph", n_starts=10_000),
                   dict(n_probe=10_000, probe_ratio=np.inf)):
        labels, stats = vcgmm.assign_approximate(X, centers, w, return_stats=True, **params)
        np.testing.assert_array_equal(labels, exact)
        np.testing.assert_allclose(stats["objective"], float(w @ _label_d2(X, centers, exact)),
                                   rtol=1e-10)
