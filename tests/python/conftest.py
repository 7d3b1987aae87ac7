"""The one home of what the Python tests share: data sets, brute-force
references, statistical helpers and the thread-independence check.

Every shared item is a fixture (so a test file never redefines one); the
tables of bad input live in ``_bad_inputs.py``, next to this file (pytest's
default import mode puts this directory on ``sys.path``; the line below does
it for the other import modes too).
"""

from __future__ import annotations

import dataclasses
import os
import sys

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.special import logsumexp
from scipy.stats import chisquare, norm

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# A correct sampler fails a goodness-of-fit test with probability ALPHA; the
# seeds are fixed, so each test is deterministic.
ALPHA = 1e-4
# A wrong distribution must be rejected far more decisively than ALPHA.
POWER_ALPHA = 1e-8

# ----------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------


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
    """(X, w): 7 distinct 2-D points and integer weights (fresh copies)."""
    return _small_weighted()


def _blobs(n_samples, n_centers, n_features, *, spread=10.0, std=1.0, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-spread, spread, size=(n_centers, n_features))
    truth = rng.integers(0, n_centers, size=n_samples)
    X = centers[truth] + std * rng.standard_normal((n_samples, n_features))
    return X.astype(dtype), truth, centers


@pytest.fixture(scope="session")
def make_blobs():
    """make_blobs(n_samples, n_centers, n_features, *, spread, std, seed, dtype)
    -> (X, true labels, true centers): Gaussian blobs around uniform centers."""
    return _blobs


def _readonly(X):
    X.flags.writeable = False  # session-wide data: a test must not change it
    return X


@pytest.fixture(scope="session")
def blobs():
    """3000 x 4 float64 points around 6 well separated centers."""
    return _readonly(_blobs(3000, 6, 4, seed=0)[0])


@pytest.fixture(scope="session")
def blobs32():
    """600 x 5 float32 points around 8 centers (small files for the command line)."""
    return _readonly(_blobs(600, 8, 5, seed=0, dtype=np.float32)[0])


@pytest.fixture(scope="session")
def overlapping_blobs():
    """400 x 3 strongly overlapping blobs: responsibilities far from 0/1, so
    every term of an EM update matters."""
    return _readonly(_blobs(400, 6, 3, spread=3.0, std=1.0, seed=5)[0])


@pytest.fixture(scope="session")
def digits():
    """scikit-learn's digits, (1797, 64), integer-valued float64."""
    from sklearn.datasets import load_digits

    return _readonly(load_digits().data)


@pytest.fixture(scope="session")
def patches():
    """~134,000 x 108 float32 image patches: three E-step blocks of up to
    65,536 points, many tasks in every phase (for thread independence)."""
    import vcgmm.datasets

    X = vcgmm.datasets.image_patches(stride=2)
    assert X.dtype == np.float32 and X.shape[0] > 2 * 65536
    return _readonly(X)


# ----------------------------------------------------------------------------
# Brute-force references (float64, explicit differences)
# ----------------------------------------------------------------------------


def _sqdist(X, C):
    """Squared Euclidean distances in float64 by explicit differences (no
    ||x||^2 - 2 x.c + ||c||^2 expansion, so no cancellation)."""
    return cdist(np.asarray(X, np.float64), np.asarray(C, np.float64), "sqeuclidean")


@pytest.fixture(scope="session")
def sqdist():
    return _sqdist


def _brute_qe(X, C, w=None):
    d = _sqdist(X, C).min(axis=1)
    return float(np.sum(d if w is None else np.asarray(w, np.float64) * d))


@pytest.fixture(scope="session")
def brute_qe():
    """Exact weighted quantization error sum_n w_n min_c ||x_n - c||^2."""
    return _brute_qe


def _gmm_log_likelihood(X, means, sigma2):
    """log(1/C sum_c N(x; mu_c, sigma2 I)) of every row of X, over all C
    components, from scipy's univariate normal log-densities (independent of
    the distance formula the library uses)."""
    X = np.asarray(X, np.float64)
    means = np.asarray(means, np.float64)
    logpdf = norm.logpdf(X[:, None, :], loc=means[None, :, :], scale=np.sqrt(sigma2)).sum(-1)
    return logsumexp(logpdf, axis=1) - np.log(means.shape[0])


@pytest.fixture(scope="session")
def gmm_log_likelihood():
    return _gmm_log_likelihood


def _reference_em(X, means, n_iter, w=None):
    """Exact EM (float64) for C isotropic Gaussians, equal weights, one shared
    variance, from `means`, with the initial sigma^2 of eq. 12. Returns one
    (free energy = log-likelihood before the M-step, means, sigma2) per iteration."""
    X = np.asarray(X, np.float64)
    mu = np.array(means, np.float64)
    N, D = X.shape
    w = np.ones(N) if w is None else np.asarray(w, np.float64)
    W = w.sum()
    sigma2 = np.sum(w * cdist(X, mu, "sqeuclidean").min(axis=1)) / (D * W)  # eq. 12
    out = []
    for _ in range(n_iter):
        logp = -cdist(X, mu, "sqeuclidean") / (2.0 * sigma2)
        lse = logsumexp(logp, axis=1)
        F = float(np.sum(w * _gmm_log_likelihood(X, mu, sigma2)))
        ws = np.exp(logp - lse[:, None]) * w[:, None]
        mu = (ws.T @ X) / ws.sum(axis=0)[:, None]
        sigma2 = np.sum(ws * cdist(X, mu, "sqeuclidean")) / (D * W)
        out.append((F, mu.copy(), sigma2))
    return out


@pytest.fixture(scope="session")
def reference_em():
    """reference_em(X, means, n_iter, w=None) -> [(F, means, sigma2)] per iteration."""
    return _reference_em


# ----------------------------------------------------------------------------
# Statistics
# ----------------------------------------------------------------------------


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


@pytest.fixture(scope="session")
def chisquare_exact():
    return _chisquare_exact


@pytest.fixture(scope="session")
def alpha():
    return ALPHA


@pytest.fixture(scope="session")
def power_alpha():
    return POWER_ALPHA


# ----------------------------------------------------------------------------
# Thread independence
# ----------------------------------------------------------------------------

#: The thread counts every algorithm is run with: 1, 2 and an odd count.
THREAD_COUNTS = (1, 2, 3)
#: Result entries that measure the machine rather than the computation.
NONDETERMINISTIC = frozenset({"timings", "timings_", "objective_seconds", "objective_seconds_",
                              "epoch_timings", "epoch_timings_"})


def _fitted_attributes(est):
    """The fitted state of an estimator: its public attributes ending in '_'."""
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def _is_estimator(obj):
    return hasattr(obj, "get_params") and hasattr(obj, "fit")


def _bits(x):
    """A float as its bit pattern (so -0.0 != 0.0 and NaN == the same NaN)."""
    return np.float64(x).tobytes()


def _leaves(obj, path="result"):
    """(path, value) of every array, number, string, bool and None in obj,
    descending into dicts, lists, tuples, dataclasses and fitted estimators.
    Entries that measure wall time are left out."""
    if _is_estimator(obj):
        obj = _fitted_attributes(obj)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        for k in sorted(obj, key=str):
            if k not in NONDETERMINISTIC:
                yield from _leaves(obj[k], f"{path}[{k!r}]")
    elif isinstance(obj, (list, tuple)):
        yield (f"{path}:len", len(obj))
        for i, v in enumerate(obj):
            yield from _leaves(v, f"{path}[{i}]")
    elif hasattr(obj, "toarray") and hasattr(obj, "nnz"):  # scipy.sparse
        csr = obj.tocsr()
        yield from _leaves((csr.shape, csr.indptr, csr.indices, csr.data), path)
    elif isinstance(obj, np.ndarray):
        yield (path, obj)
    elif obj is None or isinstance(obj, (bool, np.bool_, str, int, float, np.integer,
                                         np.floating)):
        yield (path, obj)
    else:
        raise TypeError(f"{path}: cannot compare a {type(obj).__name__} for thread "
                        "independence; return arrays, numbers or containers of them")


def _assert_bit_identical(a, b, what):
    la, lb = list(_leaves(a)), list(_leaves(b))
    assert [p for p, _ in la] == [p for p, _ in lb], f"{what}: different structure"
    n_values = 0
    for (path, x), (_, y) in zip(la, lb):
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray), f"{what}: {path}"
            assert x.dtype == y.dtype and x.shape == y.shape, f"{what}: {path}"
            # Bit patterns, not values: -0.0 vs 0.0 or a different NaN differ too.
            assert np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes(), (
                f"{what}: {path} differs")
            n_values += x.size
        elif isinstance(x, (float, np.floating)):
            assert isinstance(y, (float, np.floating)) and _bits(x) == _bits(y), (
                f"{what}: {path}: {x!r} != {y!r}")
            n_values += 1
        else:
            assert type(x) is type(y) and x == y, f"{what}: {path}: {x!r} != {y!r}"
            n_values += 1
    return n_values


def _assert_thread_independent(fn, thread_counts=THREAD_COUNTS):
    """Runs ``fn(n_threads)`` for every thread count and asserts bit-identical
    outputs: every array (bytes, dtype, shape), every number (bit pattern),
    every other value, recursively through dicts, lists, tuples, result
    dataclasses and fitted estimators (their attributes ending in '_'); wall
    times ("timings") excepted. Returns the result of the first run."""
    results = [fn(n_threads) for n_threads in thread_counts]
    for n_threads, other in zip(thread_counts[1:], results[1:]):
        n_values = _assert_bit_identical(
            results[0], other, f"n_threads={thread_counts[0]} vs n_threads={n_threads}")
        assert n_values > 0, "nothing to compare"
    return results[0]


@pytest.fixture(scope="session")
def assert_thread_independent():
    """assert_thread_independent(fn) -> fn(1): fn(n_threads) must give
    bit-identical results for n_threads = 1, 2 and 3 (see
    ``_assert_thread_independent``)."""
    return _assert_thread_independent
