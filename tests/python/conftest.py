"""Shared small data sets and brute-force references for the Python tests.

Helpers are exposed as fixtures (not imported from this module) so the suite
works under every pytest import mode.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.stats import chisquare

# A correct sampler fails a goodness-of-fit test with probability ALPHA; the
# seeds are fixed, so each test is deterministic.
ALPHA = 1e-4
# A wrong distribution must be rejected far more decisively than ALPHA.
POWER_ALPHA = 1e-8


def _small_weighted():
    # 7 distinct points in 2-D with non-uniform integer weights: small enough
    # for exact distributions, irregular enough that every plausible mistake
    # (ignoring weights, ignoring distances, off-by-one in the chain) changes
    # the distribution a lot.
    X = np.array([[0, 0], [1, 0], [0, 2], [3, 1], [2, 3], [4, 4], [1, 4]], dtype=np.float64)
    w = np.array([3, 1, 2, 4, 2, 1, 3], dtype=np.float64)
    return X, w


@pytest.fixture
def small_weighted():
    """(X, w): 7 distinct 2-D points and integer weights."""
    return _small_weighted()


def _blobs(n_samples, n_centers, n_features, *, spread=10.0, std=1.0, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-spread, spread, size=(n_centers, n_features))
    truth = rng.integers(0, n_centers, size=n_samples)
    X = centers[truth] + std * rng.standard_normal((n_samples, n_features))
    return X.astype(dtype), truth, centers


@pytest.fixture
def make_blobs():
    """make_blobs(n_samples, n_centers, n_features, *, spread, std, seed, dtype)
    -> (X, true labels, true centers)."""
    return _blobs


def _sqdist(X, C):
    """Squared Euclidean distances in float64 by explicit differences (no
    ||x||^2 - 2 x.c + ||c||^2 expansion, so no cancellation)."""
    return cdist(np.asarray(X, np.float64), np.asarray(C, np.float64), "sqeuclidean")


@pytest.fixture
def sqdist():
    return _sqdist


def _brute_qe(X, C, w=None):
    d = _sqdist(X, C).min(axis=1)
    return float(np.sum(d if w is None else np.asarray(w, np.float64) * d))


@pytest.fixture
def brute_qe():
    """Exact weighted quantization error sum_n w_n min_c ||x_n - c||^2."""
    return _brute_qe


def _chisquare_exact(counts, probs, *, min_expected=5.0, null=True):
    """p-value of a chi-square goodness-of-fit test of `counts` against the
    exact probabilities `probs` (same shape). Cells of probability 0 are left
    out of the test; with ``null=True`` (the distribution claimed to be the
    true one) they must be empty (asserted); with ``null=False`` (a wrong
    distribution, to show the test has power) a draw in such a cell refutes
    the distribution outright, p = 0."""
    counts = np.asarray(counts, np.float64).ravel()
    probs = np.asarray(probs, np.float64).ravel()
    assert np.isclose(probs.sum(), 1.0), probs.sum()
    impossible = probs <= 0
    if counts[impossible].sum() > 0:
        assert not null, "draws in cells of probability 0"
        return 0.0
    counts, probs = counts[~impossible], probs[~impossible]
    expected = counts.sum() * probs
    # The chi-square approximation needs filled cells: pool the rare ones
    # (e.g. AFK-MC^2 proposing c1 as c2 on every step of a long chain) into
    # one cell, and that cell into the next smallest while it is still rare.
    order = np.argsort(expected, kind="stable")
    rare = expected[order] < min_expected
    n_rare = int(rare.sum())
    if n_rare > 0:
        while n_rare < order.size and expected[order[:n_rare]].sum() < min_expected:
            n_rare += 1
        pooled_obs = counts[order[:n_rare]].sum()
        pooled_exp = expected[order[:n_rare]].sum()
        counts = np.append(counts[order[n_rare:]], pooled_obs)
        expected = np.append(expected[order[n_rare:]], pooled_exp)
    assert expected.size >= 2
    return float(chisquare(counts, expected).pvalue)


@pytest.fixture
def chisquare_exact():
    return _chisquare_exact


@pytest.fixture
def alpha():
    return ALPHA


@pytest.fixture
def power_alpha():
    return POWER_ALPHA
