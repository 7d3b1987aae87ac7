"""Principal-subspace screening of the approximate assignment (method
"gemm", ``screen_dims``): distances in the centers' leading principal
subspace are exact lower bounds of the full ones, so a probed center whose
bound exceeds the best full distance so far is skipped unread.

Reference: the exact scan (vcgmm.assign) and numpy brute force in float64.
Properties: with every cell probed the screened search is the exact
assignment (labels and distances), also for data far from the origin in
float32 (the rounding margin); the automatic choice engages on data with a
decaying spectrum and stays off for isotropic centers or fewer than 16
features; screening costs fewer distance evaluations than the unscreened
search; thread-independent; bad values refused naming the parameter. (The
C++ tests add: with one probe the label is the exact nearest member of its
cell, ties to the lowest index.)
"""

import numpy as np
import pytest

import vcgmm


def _low_rank(n, d, rank, seed, offset=0.0, dtype=np.float64):
    """Rows z A / (1 + axis) + noise: a decaying spectrum, like image patches."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((rank, d))
    z = rng.standard_normal((n, rank)) / (1.0 + np.arange(rank))
    return (offset + z @ A + 0.05 * rng.standard_normal((n, d))).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("offset", [0.0, 1000.0])
@pytest.mark.parametrize("screen_dims", [None, 4, 16])
def test_all_cells_probed_is_exact(dtype, offset, screen_dims):
    X = _low_rank(3000, 40, 12, 0, offset, dtype)
    centers = _low_rank(400, 40, 12, 1, offset, dtype)
    index = vcgmm.ApproximateIndex(centers, n_probe=10_000, probe_ratio=np.inf,
                                   screen_dims=screen_dims, n_threads=2)
    assert index.build_stats["screen_dims"] == (8 if screen_dims is None else screen_dims)
    labels, stats = index.assign(X, return_stats=True)
    np.testing.assert_array_equal(labels, vcgmm.assign(X, centers, n_threads=2))
    d2 = ((X.astype(np.float64) - centers.astype(np.float64)[labels]) ** 2).sum(1)
    np.testing.assert_allclose(stats["objective"], d2.sum(), rtol=1e-9)


def test_automatic_choice_and_cost():
    # Clustered data: every point near one of the centers, which spread
    # along a few axes (as the means of a fit on image patches do).
    centers = _low_rank(2000, 64, 12, 3, dtype=np.float32)
    rng = np.random.default_rng(2)
    X = (centers[rng.integers(0, 2000, 20_000)]
         + 0.05 * rng.standard_normal((20_000, 64))).astype(np.float32)
    screened = vcgmm.ApproximateIndex(centers, n_threads=2)
    plain = vcgmm.ApproximateIndex(centers, screen_dims=0, n_threads=2)
    dims = screened.build_stats["screen_dims"]
    assert dims > 0 and dims % 8 == 0 and dims <= 32
    assert plain.build_stats["screen_dims"] == 0
    a, sa = screened.assign(X, return_stats=True)
    b, sb = plain.assign(X, return_stats=True)
    assert sa["search_distance_evals"] < sb["search_distance_evals"] / 2
    exact = vcgmm.assign(X, centers, n_threads=2)
    # Both probe about the same cells: both nearly exact, never closer than exact.
    assert np.mean(a == exact) >= 0.97 and np.mean(b == exact) >= 0.97
    q_exact = vcgmm.quantization_error(X, centers, n_threads=2)
    assert q_exact * (1 - 1e-12) <= sa["objective"] <= 1.005 * q_exact
    # Isotropic centers: no small subspace holds 97% of their variance.
    rng = np.random.default_rng(4)
    iso = rng.standard_normal((500, 64))
    assert vcgmm.ApproximateIndex(iso).build_stats["screen_dims"] == 0
    # Fewer than 16 features: off.
    assert vcgmm.ApproximateIndex(centers[:, :12]).build_stats["screen_dims"] == 0
    # screen_dims >= n_features: off.
    assert vcgmm.ApproximateIndex(centers, screen_dims=64).build_stats["screen_dims"] == 0


def test_thread_independent(assert_thread_independent):
    X = _low_rank(9000, 48, 16, 5, dtype=np.float32)
    centers = _low_rank(900, 48, 16, 6, dtype=np.float32)
    w = np.random.default_rng(7).uniform(0.5, 2.0, 9000)
    w[::5] = 0.0

    def run(n_threads):
        labels, stats = vcgmm.assign_approximate(X, centers, w, return_stats=True,
                                                 n_threads=n_threads)
        stats = {k: v for k, v in stats.items() if not k.endswith("seconds")}
        return labels, stats

    assert_thread_independent(run)


@pytest.mark.parametrize("bad, err", [(-2, ValueError), (2.5, TypeError), ("8", TypeError)])
def test_bad_screen_dims(bad, err):
    X = np.random.default_rng(8).standard_normal((50, 20))
    with pytest.raises(err, match="screen_dims"):
        vcgmm.assign_approximate(X, X[:5], screen_dims=bad)
    with pytest.raises(err, match="screen_dims"):
        vcgmm.ApproximateIndex(X[:5], screen_dims=bad)
