"""Statistical tests of the samplers: LWCS, k-means++ (D^2) and AFK-MC^2.

Every sampler is checked against its exact distribution, computed on a small
weighted data set, with a chi-square goodness-of-fit test (p > ALPHA with
fixed seeds). Each test also shows that the same draws are rejected by a
plausible wrong distribution, so it can fail.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import chi2_contingency, ttest_ind

import vcgmm

# ----------------------------------------------------------------------------
# Exact distributions
# ----------------------------------------------------------------------------


def pairwise_sq(X):
    X = np.asarray(X, np.float64)
    return ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)


def lwcs_q(X, w):
    """q(x) = 1/2 w/sum w + 1/2 w d(x, mu)^2 / sum w d^2, mu the weighted mean."""
    mu = (w[:, None] * X).sum(0) / w.sum()
    d = ((X - mu) ** 2).sum(1)
    return 0.5 * w / w.sum() + 0.5 * w * d / (w * d).sum()


def d2_joint(X, w):
    """P(first = i, second = j) of k-means++ with two centers."""
    D = pairwise_sq(X)
    cond = w[None, :] * D
    cond /= cond.sum(1, keepdims=True)
    return (w / w.sum())[:, None] * cond


def afkmc2_joint(X, w, chain_length):
    """P(c1 = i, c2 = j) of AFK-MC^2 with two centers.

    Given c1, the chain is an independent Metropolis-Hastings chain with
    proposal q and target pi = w d^2 (d^2 to c1), started from a q-draw and
    run for chain_length - 1 transitions: c2 ~ q T^(chain_length - 1).
    """
    D = pairwise_sq(X)
    n = X.shape[0]
    joint = np.zeros((n, n))
    for i in range(n):
        d = D[i]
        q = 0.5 * w * d / (w * d).sum() + 0.5 * w / w.sum()
        pi = w * d
        T = np.zeros((n, n))
        for x in range(n):
            for y in range(n):
                if y == x:
                    continue
                # A state of potential 0 (c1 itself) accepts every proposal.
                accept = 1.0 if d[x] == 0 else min(1.0, pi[y] * q[x] / (pi[x] * q[y]))
                T[x, y] = q[y] * accept
            T[x, x] = 1.0 - T[x].sum()
        joint[i] = w[i] / w.sum() * (q @ np.linalg.matrix_power(T, chain_length - 1))
    return joint


def d2_sampling(X, n_clusters, **kwargs):
    """Classic D^2 sampling (one candidate per step), the law the tests check."""
    return vcgmm.kmeans_plusplus(X, n_clusters, n_local_trials=1, **kwargs)


def pair_counts(sampler, X, n_draws, seed, n_labels=None, owner=None, **kwargs):
    """Counts of (first index, second index) over n_draws calls with 2 centers.

    owner maps rows to distinct-point ids (for the repeated-rows data sets).
    The random_state is one RandomState shared by the calls: a fixed seed
    sequence, but without constructing a generator per call (10x faster)."""
    rs = np.random.RandomState(seed)
    n_labels = X.shape[0] if n_labels is None else n_labels
    counts = np.zeros((n_labels, n_labels), np.int64)
    with warnings.catch_warnings():
        # AFK-MC^2 may legitimately pick c1 twice (a UserWarning says so).
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(n_draws):
            _, idx = sampler(X, 2, random_state=rs, n_threads=1, **kwargs)
            if owner is not None:
                idx = owner[idx]
            counts[idx[0], idx[1]] += 1
    return counts


def repeated_rows(X, w):
    reps = w.astype(int)
    assert np.array_equal(reps, w)
    return np.repeat(X, reps, axis=0), np.repeat(np.arange(X.shape[0]), reps)


# ----------------------------------------------------------------------------
# k-means++ (D^2 sampling)
# ----------------------------------------------------------------------------


def test_d2_sampling_matches_exact_joint_distribution(small_weighted, chisquare_exact, alpha,
                                                      power_alpha):
    X, w = small_weighted
    counts = pair_counts(d2_sampling, X, 20000, seed=1, sample_weight=w)
    assert np.all(np.diag(counts) == 0), "a point was chosen twice"
    p = chisquare_exact(counts, d2_joint(X, w))
    assert p > alpha, p

    # Power: the same draws reject D^2 without weights and weights without D^2.
    ones = np.ones_like(w)
    assert chisquare_exact(counts, d2_joint(X, ones), null=False) < power_alpha
    D = pairwise_sq(X)
    cond = w[None, :] * (D > 0)  # second center by weight among the others
    no_distance = (w / w.sum())[:, None] * cond / cond.sum(1, keepdims=True)
    assert chisquare_exact(counts, no_distance, null=False) < power_alpha


def test_d2_sampling_unweighted_and_float32(small_weighted, chisquare_exact, alpha):
    X, _ = small_weighted
    counts = pair_counts(d2_sampling, X.astype(np.float32), 6000, seed=2)
    p = chisquare_exact(counts, d2_joint(X, np.ones(X.shape[0])))
    assert p > alpha, p


def test_d2_integer_weights_equal_repeated_rows(small_weighted, chisquare_exact, alpha):
    X, w = small_weighted
    Xr, owner = repeated_rows(X, w)
    rep = pair_counts(d2_sampling, Xr, 8000, seed=3, n_labels=X.shape[0], owner=owner)
    assert chisquare_exact(rep, d2_joint(X, w)) > alpha
    wtd = pair_counts(d2_sampling, X, 8000, seed=4, sample_weight=w)
    keep = (rep + wtd).ravel() > 0
    table = np.vstack([rep.ravel()[keep], wtd.ravel()[keep]])
    assert chi2_contingency(table).pvalue > alpha


def test_greedy_local_trials_lower_the_potential(make_blobs, brute_qe):
    X, _, _ = make_blobs(3000, 25, 2, spread=10.0, std=0.6, seed=5)
    C = 25

    def potentials(n_local_trials):
        out = []
        for seed in range(40):
            centers, idx = vcgmm.kmeans_plusplus(
                X, C, n_local_trials=n_local_trials, random_state=seed, n_threads=1
            )
            assert np.array_equal(centers, X[idx])
            assert np.unique(idx).size == C
            out.append(brute_qe(X, centers))
        return np.array(out)

    classic, greedy = potentials(1), potentials(4)
    assert greedy.mean() < classic.mean()
    assert ttest_ind(greedy, classic, equal_var=False, alternative="less").pvalue < 1e-3


def test_local_trials_auto_is_two_plus_log_c(make_blobs):
    X, _, _ = make_blobs(500, 12, 3, seed=6)
    for C in (1, 3, 12, 30):
        expected_trials = 2 + int(np.log(C))
        for seed in range(3):
            _, auto = vcgmm.kmeans_plusplus(X, C, n_local_trials="auto", random_state=seed,
                                            n_threads=1)
            _, explicit = vcgmm.kmeans_plusplus(
                X, C, n_local_trials=expected_trials, random_state=seed, n_threads=1
            )
            assert np.array_equal(auto, explicit)
    # ... and it is not the classic algorithm (so the comparison above can fail).
    differs = [
        not np.array_equal(
            vcgmm.kmeans_plusplus(X, 30, n_local_trials="auto", random_state=s, n_threads=1)[1],
            vcgmm.kmeans_plusplus(X, 30, n_local_trials=1, random_state=s, n_threads=1)[1],
        )
        for s in range(3)
    ]
    assert any(differs)


# ----------------------------------------------------------------------------
# AFK-MC^2
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("chain_length", [1, 2, 5])
def test_afkmc2_matches_exact_joint_distribution(small_weighted, chisquare_exact, alpha,
                                                 power_alpha, chain_length):
    X, w = small_weighted
    counts = pair_counts(
        vcgmm.afkmc2, X, 10000, seed=10 + chain_length, sample_weight=w, chain_length=chain_length
    )
    exact = afkmc2_joint(X, w, chain_length)
    p = chisquare_exact(counts, exact)
    assert p > alpha, p

    # Power: the chain ignoring the weights is rejected ...
    wrong = afkmc2_joint(X, np.ones_like(w), chain_length)
    assert chisquare_exact(counts, wrong, null=False) < power_alpha
    # ... and for short chains, where the chain is far from its stationary
    # distribution, so is one transition more or less and exact D^2 sampling.
    if chain_length <= 2:
        assert chisquare_exact(counts, afkmc2_joint(X, w, chain_length + 1), null=False) < power_alpha
        assert chisquare_exact(counts, d2_joint(X, w), null=False) < power_alpha
    if chain_length == 2:
        assert chisquare_exact(counts, afkmc2_joint(X, w, 1), null=False) < power_alpha


def test_afkmc2_chain_length_one_is_the_proposal(small_weighted):
    # Exact-distribution sanity of the oracle itself: with one state, c2 ~ q.
    X, w = small_weighted
    joint = afkmc2_joint(X, w, 1)
    D = pairwise_sq(X)
    for i in range(X.shape[0]):
        q = 0.5 * w * D[i] / (w * D[i]).sum() + 0.5 * w / w.sum()
        np.testing.assert_allclose(joint[i] / joint[i].sum(), q, rtol=1e-12)


def test_afkmc2_integer_weights_equal_repeated_rows(small_weighted, chisquare_exact, alpha):
    X, w = small_weighted
    Xr, owner = repeated_rows(X, w)
    rep = pair_counts(
        vcgmm.afkmc2, Xr, 10000, seed=20, n_labels=X.shape[0], owner=owner, chain_length=2
    )
    assert chisquare_exact(rep, afkmc2_joint(X, w, 2)) > alpha


# ----------------------------------------------------------------------------
# Lightweight coreset
# ----------------------------------------------------------------------------


def lwcs_draws(X, coreset_size, n_calls, seed, **kwargs):
    """(indices, weights) of n_calls coresets of coreset_size draws each,
    concatenated: lwcs draws at most 4 n_samples per call, so many draws from
    a 7-point data set take many calls (one RandomState shared by the calls,
    so the concatenation is i.i.d. draws from q with a fixed seed)."""
    rs = np.random.RandomState(seed)
    indices, weights = [], []
    for _ in range(n_calls):
        idx, gamma = vcgmm.lwcs(X, coreset_size, random_state=rs, n_threads=1, **kwargs)
        assert idx.dtype == np.int64 and gamma.dtype == np.float64
        assert idx.shape == gamma.shape == (coreset_size,)
        assert np.all(np.diff(idx) >= 0), "indices are not sorted"
        indices.append(idx)
        weights.append(gamma)
    return np.concatenate(indices), np.concatenate(weights)


def test_lwcs_matches_q_and_weights_are_exact(small_weighted, chisquare_exact, alpha, power_alpha):
    X, w = small_weighted
    n_prime = 4 * X.shape[0]  # the largest coreset of 7 points
    idx, gamma = lwcs_draws(X, n_prime, 7143, seed=0, sample_weight=w)  # 200,004 draws
    q = lwcs_q(X, w)
    np.testing.assert_allclose(gamma, w[idx] / (n_prime * q[idx]), rtol=1e-12)
    counts = np.bincount(idx, minlength=X.shape[0])
    assert chisquare_exact(counts, q) > alpha

    # Power: plain weights, and q without the sample weights, are rejected.
    assert chisquare_exact(counts, w / w.sum(), null=False) < power_alpha
    assert chisquare_exact(counts, lwcs_q(X, np.ones_like(w)), null=False) < power_alpha


def test_lwcs_unweighted_float32(small_weighted, chisquare_exact, alpha):
    X, _ = small_weighted
    n_prime = 25
    idx, gamma = lwcs_draws(X.astype(np.float32), n_prime, 2000, seed=1)  # 50,000 draws
    q = lwcs_q(X, np.ones(X.shape[0]))
    np.testing.assert_allclose(gamma, 1.0 / (n_prime * q[idx]), rtol=1e-6)
    assert chisquare_exact(np.bincount(idx, minlength=X.shape[0]), q) > alpha


def test_lwcs_all_points_equal_is_uniform_by_weight(chisquare_exact, alpha):
    X = np.full((5, 3), 2.5)
    w = np.array([1.0, 2.0, 3.0, 1.0, 3.0])
    idx, gamma = lwcs_draws(X, 20, 2000, seed=2, sample_weight=w)  # 40,000 draws
    assert chisquare_exact(np.bincount(idx, minlength=5), w / w.sum()) > alpha
    np.testing.assert_allclose(gamma, w.sum() / 20)


def test_lwcs_is_unbiased(small_weighted, power_alpha):
    X, w = small_weighted
    n_rep, n_prime = 3000, 20
    fs = {
        "one": np.ones(X.shape[0]),
        "squared norm": (X**2).sum(1),
        "coordinate": X[:, 1],
    }
    rs = np.random.RandomState(7)
    est = {k: np.empty(n_rep) for k in fs}
    naive = np.empty(n_rep)
    for r in range(n_rep):
        idx, gamma = vcgmm.lwcs(X, n_prime, sample_weight=w, random_state=rs, n_threads=1)
        for k, f in fs.items():
            est[k][r] = np.sum(gamma * f[idx])
        # A wrong estimator: the draws weighted equally (ignores q).
        naive[r] = w.sum() / n_prime * np.sum(fs["squared norm"][idx])
    for k, f in fs.items():
        truth = np.sum(w * f)
        se = est[k].std(ddof=1) / np.sqrt(n_rep)
        # |z| < 4.4: a correct sampler fails with probability ~1e-5.
        assert abs(est[k].mean() - truth) < 4.4 * se + 1e-12 * abs(truth), (k, est[k].mean(), truth, se)
    truth = np.sum(w * fs["squared norm"])
    se = naive.std(ddof=1) / np.sqrt(n_rep)
    assert abs(naive.mean() - truth) > 10 * se, "the unbiasedness test has no power"


def test_lwcs_integer_weights_equal_repeated_rows(small_weighted, chisquare_exact, alpha):
    X, w = small_weighted
    Xr, owner = repeated_rows(X, w)
    n_prime = 4 * X.shape[0]  # the same coreset size for both (<= 4 n_samples of each)
    idx_r, gamma_r = lwcs_draws(Xr, n_prime, 3572, seed=3)  # 100,016 draws
    idx_w, gamma_w = lwcs_draws(X, n_prime, 3572, seed=4, sample_weight=w)
    counts_r = np.bincount(owner[idx_r], minlength=X.shape[0])
    counts_w = np.bincount(idx_w, minlength=X.shape[0])
    assert chisquare_exact(counts_r, lwcs_q(X, w)) > alpha
    assert chi2_contingency(np.vstack([counts_r, counts_w])).pvalue > alpha
    # A copy of a point gets the same coreset weight as the weighted point.
    per_point = np.zeros(X.shape[0])
    per_point[idx_w] = gamma_w
    np.testing.assert_array_equal(gamma_w, per_point[idx_w])  # one weight per point
    np.testing.assert_allclose(gamma_r, per_point[owner[idx_r]], rtol=1e-12)


def test_lwcs_draws_at_most_four_times_n_samples(small_weighted):
    X, w = small_weighted
    idx, _ = vcgmm.lwcs(X, 4 * X.shape[0], sample_weight=w, random_state=0, n_threads=1)
    assert idx.shape == (28,)
    with pytest.raises(ValueError, match=r"coreset_size must be an integer in \[1, 28\], got 29"):
        vcgmm.lwcs(X, 29, sample_weight=w, random_state=0, n_threads=1)


# ----------------------------------------------------------------------------
# Thread independence (one helper for every algorithm: conftest.py)
# ----------------------------------------------------------------------------

SAMPLERS = {
    # Data of ~50,000 x 108: several tasks of every pass (16,384-row stream
    # chunks, 4,096-row k-means++ chunks) and enough work for every thread.
    "lwcs": lambda X, w, t: vcgmm.lwcs(X, 30_000, sample_weight=w, random_state=0, n_threads=t),
    "k-means++": lambda X, w, t: vcgmm.kmeans_plusplus(X, 20, n_local_trials=1, sample_weight=w,
                                                       random_state=1, n_threads=t),
    "greedy k-means++": lambda X, w, t: vcgmm.kmeans_plusplus(
        X, 20, n_local_trials=3, sample_weight=w, random_state=2, n_threads=t),
    "afk-mc2": lambda X, w, t: vcgmm.afkmc2(X, 40, sample_weight=w, random_state=3, n_threads=t),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sampler", list(SAMPLERS))
def test_samplers_do_not_depend_on_the_thread_count(sampler, dtype, patches,
                                                    assert_thread_independent):
    X = np.ascontiguousarray(patches[:50_000], dtype=dtype)
    w = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0])
    indices = assert_thread_independent(lambda t: SAMPLERS[sampler](X, w, t))[1]
    assert np.unique(indices).size > 1
