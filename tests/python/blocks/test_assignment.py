"""vcgmm.assign and vcgmm.quantization_error against brute force.

The sizes cross the internal block boundaries (256-row chunks, 512-center
blocks) so every edge case of the blocked GEMM assignment is exercised.
"""

from __future__ import annotations

import numpy as np
import pytest

import vcgmm

ROWS = [255, 256, 257, 513, 1000]
CENTERS = [1, 511, 512, 513, 1100]


def _data(n, c, d, dtype, seed):
    rng = np.random.default_rng(seed)
    # An offset away from 0 makes ||x||^2 - 2 x.c + ||c||^2 cancel badly, the
    # case where a GEMM assignment goes wrong without the exact recomputation.
    X = (5.0 + rng.standard_normal((n, d))).astype(dtype)
    C = (5.0 + rng.standard_normal((c, d))).astype(dtype)
    return X, C


def _check_against_brute_force(X, C, sqdist, w=None):
    D = sqdist(X, C)  # float64 by differences, from the (possibly float32) values
    labels = vcgmm.assign(X, C, n_threads=1)
    assert labels.dtype == np.int32 and labels.shape == (X.shape[0],)
    assert labels.min() >= 0 and labels.max() < C.shape[0]
    best = D.min(axis=1)
    chosen = D[np.arange(X.shape[0]), labels]
    scale = (X.astype(np.float64) ** 2).sum(1) + (C.astype(np.float64) ** 2).sum(1).max()
    if X.dtype == np.float64:
        # Random data: no near-ties at double precision, the labels are exact.
        np.testing.assert_array_equal(labels, D.argmin(axis=1))
    else:
        # float32: a different label is only allowed for a near-tie, i.e. the
        # chosen center is as close as the best up to float32 rounding of the
        # expansion (a few ulps of ||x||^2 + ||c||^2).
        assert np.all(chosen - best <= 1e-6 * scale), (chosen - best).max()
    qe = vcgmm.quantization_error(X, C, w, n_threads=1)
    ref = np.sum(chosen if w is None else w * chosen)
    rtol = 1e-12 if X.dtype == np.float64 else 1e-5
    np.testing.assert_allclose(qe, ref, rtol=rtol)
    assert qe >= 0.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_centers", CENTERS)
@pytest.mark.parametrize("n_rows", ROWS)
def test_assign_matches_brute_force_d3(n_rows, n_centers, dtype, sqdist):
    X, C = _data(n_rows, n_centers, 3, dtype, seed=n_rows * 7 + n_centers)
    _check_against_brute_force(X, C, sqdist)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    "n_rows,n_centers,d",
    [
        (255, 1, 1),
        (257, 513, 1),
        (1000, 1100, 1),
        (256, 512, 108),
        (257, 511, 108),
        (513, 513, 108),
        (1000, 1100, 108),
        (255, 1, 108),
    ],
)
def test_assign_matches_brute_force_d1_d108(n_rows, n_centers, d, dtype, sqdist):
    X, C = _data(n_rows, n_centers, d, dtype, seed=n_rows + n_centers + d)
    if d == 1 and n_centers > 1:
        # In 1-D random centers nearly collide; keep them distinct enough for
        # exact labels (ties are tested separately).
        C = np.linspace(0.0, 10.0, n_centers).astype(dtype)[:, None]
    _check_against_brute_force(X, C, sqdist)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_rows,n_centers", [(300, 5), (600, 520), (1000, 1100)])
def test_ties_go_to_the_lowest_index(n_rows, n_centers, dtype, sqdist,
                                     assert_thread_independent):
    # Integer lattice points: every distance, and every term of the GEMM
    # expansion, is exact in float32 and float64, so ties are exact ties.
    rng = np.random.default_rng(n_rows)
    X = rng.integers(-3, 4, size=(n_rows, 2)).astype(dtype)
    base = np.array([[1, 0], [-1, 0], [0, 1], [0, -1], [0, 0], [2, 2], [-2, -2]])
    # Repeat the lattice centers so exact duplicates sit in different
    # 512-center blocks as well.
    C = np.resize(base, (n_centers, 2)).astype(dtype)
    C[n_centers // 2 :] = C[n_centers // 2 :][::-1].copy()
    D = sqdist(X, C)
    expected = D.argmin(axis=1)  # numpy returns the first minimum
    assert np.any((D == D.min(1, keepdims=True)).sum(1) > 1), "no ties constructed"
    labels = assert_thread_independent(lambda t: vcgmm.assign(X, C, n_threads=t))
    np.testing.assert_array_equal(labels, expected)


def test_tie_exactly_between_two_centers():
    X = np.zeros((1, 1))
    C = np.array([[1.0], [-1.0]])
    assert vcgmm.assign(X, C, n_threads=1)[0] == 0
    assert vcgmm.assign(X, C[::-1], n_threads=1)[0] == 0
    C3 = np.array([[5.0], [1.0], [-1.0], [1.0]])
    assert vcgmm.assign(X, C3, n_threads=1)[0] == 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_quantization_error_zero_on_the_data_points(dtype):
    # An offset of 100 x the spread: the GEMM expansion alone gives small
    # nonzero (even negative) values; the exact recomputation must give 0.
    rng = np.random.default_rng(3)
    X = (100.0 + rng.standard_normal((700, 20))).astype(dtype)
    assert vcgmm.quantization_error(X, X, n_threads=1) == 0.0
    perm = rng.permutation(700)
    assert vcgmm.quantization_error(X, X[perm], n_threads=1) == 0.0
    np.testing.assert_array_equal(vcgmm.assign(X, X, n_threads=1), np.arange(700))
    np.testing.assert_array_equal(vcgmm.assign(X, X[perm], n_threads=1), np.argsort(perm))


@pytest.mark.parametrize("offset", [1e3, 1e5])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_assignment_exact_far_from_the_origin(dtype, offset, sqdist):
    # Unit-spread data far from the origin: all points are distinct in
    # float32 (ulp(1e5) = 0.008), so "exact nearest center" means every
    # point is its own nearest center and the error is 0. A float32 GEMM
    # expansion loses ||x||^2 ~ 2e11 to rounding and cannot see this.
    rng = np.random.default_rng(3)
    X = (offset + rng.standard_normal((700, 20))).astype(dtype)
    assert np.all(sqdist(X, X)[~np.eye(700, dtype=bool)] > 0)
    np.testing.assert_array_equal(vcgmm.assign(X, X, n_threads=1), np.arange(700))
    assert vcgmm.quantization_error(X, X, n_threads=1) == 0.0
    C = X[::7] + dtype(0.25)
    _check_against_brute_force(X, C, sqdist)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_quantization_error_never_negative(dtype):
    rng = np.random.default_rng(4)
    X = (1e4 + 1e-3 * rng.standard_normal((1000, 50))).astype(dtype)
    C = X[:10] + dtype(1e-3)
    for w in (None, rng.uniform(0.5, 2.0, 1000)):
        assert vcgmm.quantization_error(X, C, w, n_threads=1) >= 0.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_weighted_quantization_error(dtype, sqdist):
    rng = np.random.default_rng(5)
    X, C = _data(1000, 300, 7, dtype, seed=5)
    w = rng.uniform(0.1, 5.0, size=1000)
    _check_against_brute_force(X, C, sqdist, w=w)
    # Integer weights == repeated rows.
    k = rng.integers(1, 4, size=1000)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(
        vcgmm.quantization_error(X, C, k.astype(float), n_threads=1),
        vcgmm.quantization_error(np.repeat(X, k, axis=0), C, n_threads=1),
        rtol=rtol,
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_results_do_not_depend_on_the_thread_count(dtype, assert_thread_independent):
    # 20 row blocks of 256 x 2 center tiles of 512: many tasks for every thread.
    X, C = _data(5000, 700, 30, dtype, seed=6)
    w = np.random.default_rng(6).uniform(0.5, 2.0, 5000)
    assert_thread_independent(lambda t: {
        "assign": vcgmm.assign(X, C, n_threads=t),
        "quantization_error": vcgmm.quantization_error(X, C, n_threads=t),
        "weighted quantization_error": vcgmm.quantization_error(X, C, w, n_threads=t),
    })
