"""vc-GMM and var-GMM-S (fit_vcgmm, fit_vargmm, VariationalLoop).

What is checked, against references computed here:

- G = C makes the variational loop exact EM for the equal-weight isotropic
  GMM with one shared variance: means, sigma^2 and free energy (= the exact
  log-likelihood) agree with a float64 numpy EM to ~1e-9, with and without
  integer sample weights (== repeated rows);
- Prop. 1: with the parameters fixed an E-step never decreases the free
  energy; the M-step does not either; whole-fit traces are non-decreasing;
- the authors' regression example (BIRCH-like 5 x 5 grid): EM recovers more
  blobs than its seeding covers;
- after convergence G_c and K(n) hold (nearly always) the nearest clusters;
- vc-GMM = lightweight coreset + AFK-MC^2 (or k-means++) on it + the loop,
  bit for bit; coreset_size None is var-GMM-S, "auto" the default size;
- 1, 2 and 3 threads bit-identical on data spanning several E-step blocks;
  float32 agrees with float64; the distance counts follow their definitions.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import vcgmm

# This file tests the papers' algorithm: no hard refinement after EM (refine=0,
# data_steps=0; they have their own tests, test_refine.py, test_data_steps.py).
_fit_vargmm = functools.partial(vcgmm.fit_vargmm, refine=0)
_fit_vcgmm = functools.partial(vcgmm.fit_vcgmm, refine=0, data_steps=0)
_VariationalLoop = functools.partial(vcgmm.VariationalLoop, refine=0)
_VCGMM = functools.partial(vcgmm.VCGMM, refine=0, data_steps=0)

# ----------------------------------------------------------------------------
# Data (the data sets and the numpy EM reference are conftest.py's fixtures)
# ----------------------------------------------------------------------------


def _initial_means(X, C, seed):
    rng = np.random.default_rng(seed)
    return X[rng.choice(X.shape[0], C, replace=False)] + rng.uniform(-0.1, 0.1, (C, X.shape[1]))


def _exact_data(name, digits, overlapping_blobs):
    return {"blobs": overlapping_blobs, "digits": digits[:600]}[name]


# ----------------------------------------------------------------------------
# 1. G = C: exact EM
# ----------------------------------------------------------------------------

N_EXACT_ITER = 8


@pytest.mark.parametrize("C", [2, 5, 9])
@pytest.mark.parametrize("data", ["blobs", "digits"])
def test_G_equal_C_is_exact_em_step_by_step(data, C, digits, overlapping_blobs, reference_em):
    X = _exact_data(data, digits, overlapping_blobs)
    mu0 = _initial_means(X, C, seed=C)
    ref = reference_em(X, mu0, N_EXACT_ITER)
    scale = np.abs(X).max()
    loop = _VariationalLoop(X, mu0, G=C, random_state=0, n_threads=1)
    assert loop.G == C
    for t, (F_ref, mu_ref, s2_ref) in enumerate(ref):
        F = loop.e_step()
        # The free energy with all clusters in K(n) is the exact log-likelihood.
        np.testing.assert_allclose(F, F_ref, rtol=1e-9, err_msg=f"iteration {t}")
        np.testing.assert_allclose(loop.free_energy(), F, rtol=1e-12)
        loop.m_step()
        np.testing.assert_allclose(loop.means, mu_ref, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(loop.sigma2, s2_ref, rtol=1e-9)
        # Every K(n) holds all clusters, nearest first.
        K = loop.truncation_sets
        np.testing.assert_array_equal(np.sort(K, axis=1), np.tile(np.arange(C), (X.shape[0], 1)))


@pytest.mark.parametrize("C", [3, 7])
@pytest.mark.parametrize("data", ["blobs", "digits"])
def test_G_equal_C_fit_vargmm_is_exact_em(data, C, digits, overlapping_blobs, reference_em):
    X = _exact_data(data, digits, overlapping_blobs)
    mu0 = _initial_means(X, C, seed=10 + C)
    ref = reference_em(X, mu0, N_EXACT_ITER)
    scale = np.abs(X).max()
    for k in (1, N_EXACT_ITER):
        r = _fit_vargmm(X, C, G=C, init=mu0, max_iter=k, tol=0, random_state=0, n_threads=1)
        assert r.n_iter == k and not r.converged
        np.testing.assert_allclose(r.centers, ref[k - 1][1], rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(r.sigma2, ref[k - 1][2], rtol=1e-9)
        np.testing.assert_allclose(r.free_energy, [f for f, _, _ in ref[:k]], rtol=1e-9)
        # No randomness is left when every set holds all clusters.
        r2 = _fit_vargmm(X, C, G=C, init=mu0, max_iter=k, tol=0, random_state=123,
                              n_threads=1)
        np.testing.assert_array_equal(r2.centers, r.centers)


@pytest.mark.parametrize("C", [3, 6])
def test_G_equal_C_integer_weights_are_repeated_rows(C, overlapping_blobs, reference_em):
    X = overlapping_blobs[:150]
    w = np.random.default_rng(C).integers(1, 5, X.shape[0])
    Xrep = np.repeat(X, w, axis=0)
    mu0 = _initial_means(X, C, seed=20 + C)
    ref = reference_em(Xrep, mu0, N_EXACT_ITER)
    scale = np.abs(X).max()

    loop = _VariationalLoop(X, mu0, G=C, sample_weight=w.astype(np.float64), n_threads=1)
    for F_ref, mu_ref, s2_ref in ref:
        np.testing.assert_allclose(loop.e_step(), F_ref, rtol=1e-9)
        loop.m_step()
        np.testing.assert_allclose(loop.means, mu_ref, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(loop.sigma2, s2_ref, rtol=1e-9)

    rw = _fit_vargmm(X, C, G=C, init=mu0, sample_weight=w, max_iter=N_EXACT_ITER, tol=0,
                          n_threads=1)
    rr = _fit_vargmm(Xrep, C, G=C, init=mu0, max_iter=N_EXACT_ITER, tol=0, n_threads=1)
    np.testing.assert_allclose(rw.centers, ref[-1][1], rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(rw.centers, rr.centers, rtol=0, atol=1e-11 * scale)
    np.testing.assert_allclose(rw.sigma2, rr.sigma2, rtol=1e-11)
    np.testing.assert_allclose(rw.free_energy, rr.free_energy, rtol=1e-11)


def test_weighted_reference_matches_its_own_repeated_rows(overlapping_blobs, reference_em):
    # The reference itself honours weights the way the library must (guards
    # the oracle of the previous test).
    X = overlapping_blobs[:60]
    w = np.arange(60) % 3 + 1
    mu0 = _initial_means(X, 3, seed=1)
    a = reference_em(X, mu0, 4, w=w)
    b = reference_em(np.repeat(X, w, axis=0), mu0, 4)
    for (fa, ma, sa), (fb, mb, sb) in zip(a, b):
        np.testing.assert_allclose([fa, sa], [fb, sb], rtol=1e-12)
        np.testing.assert_allclose(ma, mb, rtol=1e-12)


# ----------------------------------------------------------------------------
# 2. Prop. 1 and monotone free energy
# ----------------------------------------------------------------------------

N_MONO_CLUSTERS = 40


def _mono_data(name, digits, make_blobs):
    if name == "digits":
        return digits
    return make_blobs(3000, N_MONO_CLUSTERS, 4, seed=3)[0]


@pytest.mark.parametrize("plus1", [False, True])
@pytest.mark.parametrize("G", [2, 3, 5])
@pytest.mark.parametrize("data", ["blobs", "digits"])
def test_estep_and_mstep_never_decrease_free_energy(data, G, plus1, digits, make_blobs):
    X = _mono_data(data, digits, make_blobs)
    for seed in range(3):
        mu0, _ = vcgmm.afkmc2(X, N_MONO_CLUSTERS, random_state=seed, n_threads=1)
        loop = _VariationalLoop(X, mu0, G=G, plus1=plus1, random_state=seed, n_threads=1)
        loop.e_step()
        loop.m_step()
        n_changed = 0
        for it in range(6):
            K_old = loop.truncation_sets
            F_before = loop.free_energy()  # old K(n), current parameters
            F_after = loop.e_step()  # new K(n), same parameters (Prop. 1)
            assert F_after >= F_before - 1e-12 * abs(F_before), (seed, it, F_before, F_after)
            n_changed += int(np.any(loop.truncation_sets != K_old))
            # e_step returns F of the new K(n) with the unchanged parameters.
            np.testing.assert_allclose(loop.free_energy(), F_after, rtol=1e-12)
            loop.m_step()  # same K(n), better parameters: F cannot drop either
            F_m = loop.free_energy()
            assert F_m >= F_after - 1e-12 * abs(F_after), (seed, it, F_after, F_m)
        # The search did something (otherwise the test would prove nothing).
        assert n_changed > 0


@pytest.mark.parametrize("plus1", [False, True])
@pytest.mark.parametrize("data", ["blobs", "digits", "gaussian"])
def test_free_energy_trace_is_non_decreasing(data, plus1, digits, make_blobs):
    X = {
        "blobs": make_blobs(4000, 30, 4, seed=8)[0],
        "digits": digits,
        "gaussian": np.random.default_rng(9).standard_normal((3000, 6)),
    }[data]
    D = X.shape[1]
    # Each stopping rule with one seed: "gain" (the default: |F_t - F_t-1| per
    # unit of fitted weight and per feature) and "relative" (the papers').
    for seed, stop_rule, tol in ((0, "relative", 1e-5), (1, "gain", 1e-3)):
        for fit in ("vc-GMM", "var-GMM-S"):
            kw = dict(G=3, plus1=plus1, stop_rule=stop_rule, tol=tol, random_state=seed,
                      n_threads=1)
            if fit == "vc-GMM":
                r = _fit_vcgmm(X, 30, coreset_size=1200, **kw)
                weight = r.coreset_weights.sum()
            else:
                r = _fit_vargmm(X, 30, **kw)
                weight = X.shape[0]
            F = r.free_energy
            assert F.shape == (r.n_iter,) and r.n_iter >= 3
            assert np.all(np.isfinite(F))
            assert np.all(np.diff(F) >= -1e-9 * np.abs(F[1:])), (fit, seed, np.diff(F).min())
            # The stopping rule: the first change below tol stops.
            assert r.converged
            change = np.abs(np.diff(F))
            if stop_rule == "relative":
                change = change / np.abs(F[1:])
            else:
                change = change / (weight * D)
            assert change[-1] < tol and np.all(change[:-1] >= tol), (fit, stop_rule, change)


def test_fit_is_the_sequence_of_steps(overlapping_blobs):
    # fit() returns the same trace as the step-by-step calls it is made of.
    X = overlapping_blobs
    mu0 = _initial_means(X, 5, seed=2)
    a = _VariationalLoop(X, mu0, G=2, random_state=4, tol=0, max_iter=6, n_threads=1).fit()
    loop = _VariationalLoop(X, mu0, G=2, random_state=4, n_threads=1)
    trace = []
    for it in range(6):
        trace.append(loop.e_step())
        loop.m_step()
    np.testing.assert_array_equal(a["free_energy"], trace)
    assert a["n_iter"] == 6 and not a["converged"]


# ----------------------------------------------------------------------------
# 3. The authors' regression example: a BIRCH-like 5 x 5 grid
# ----------------------------------------------------------------------------

GRID = np.array([(a, b) for a in range(-2, 3) for b in range(-2, 3)], dtype=np.float64)
BIRCH_SEEDS = range(30)


def _birch(std):
    # Like the authors' example-dataset-birch-5x5.txt: 25 Gaussian blobs of
    # 400 points on the integer grid {-2..2}^2, N = 10,000, D = 2.
    rng = np.random.default_rng(0)
    return np.repeat(GRID, 400, axis=0) + std * rng.standard_normal((GRID.shape[0] * 400, 2))


def _n_recovered(centers, std):
    """Blobs with a fitted mean within one std of their center."""
    return int((cdist(GRID, centers).min(axis=1) < std).sum())


def _n_covered(centers):
    """Blobs holding at least one of the (seed) centers."""
    return np.unique(cdist(centers, GRID).argmin(axis=1)).size


def _birch_runs(std):
    """(blobs covered by the seeding, blobs recovered by vc-GMM) per seed,
    with the paper's settings: C = 25, N' = 1000, G = 5, chain 20."""
    X = _birch(std)
    rows = []
    for seed in BIRCH_SEEDS:
        r = _fit_vcgmm(X, 25, G=5, coreset_size=1000, chain_length=20, random_state=seed,
                            n_threads=1)
        # The very seeding of that run: AFK-MC^2 on the same coreset (the
        # pipeline's composition is tested bit for bit below).
        idx, w = vcgmm.lwcs(X, 1000, random_state=seed, n_threads=1)
        np.testing.assert_array_equal(idx, r.coreset_indices)
        seeds, _ = vcgmm.afkmc2(X[idx], 25, chain_length=20, sample_weight=w, random_state=seed,
                                n_threads=1)
        rows.append((_n_covered(seeds), _n_recovered(r.centers, std)))
    return np.array(rows)


def test_birch_grid_em_repairs_the_seeding():
    # Measured (30 seeds): the seeding covers 20.77 blobs on average, vc-GMM
    # recovers 22.37 (all 25 in 4 runs). D^2-type seeding alone misses ~4 of
    # the 25 blobs on this grid (scikit-learn's k-means++ too), so "all 25"
    # is not the property; "EM moves means into missed blobs" is.
    rows = _birch_runs(std=0.2)
    covered, recovered = rows[:, 0].mean(), rows[:, 1].mean()
    assert recovered >= 21.5, rows.T
    assert recovered >= covered + 0.5, (covered, recovered)
    assert (rows[:, 1] == 25).sum() >= 1
    # (Means left at the seeds, i.e. no working EM, "recover" 9.07 blobs on
    # average: a seed lies within one std of its blob center ~40% of the time.)


def test_birch_grid_well_separated_blobs():
    # std 0.02: the seeding covers all 25 blobs in 10 of 30 seeds (24.27 on
    # average) and vc-GMM then recovers all 25 every time (12 of 30 runs in
    # all). A missed blob pulls one neighbouring mean between the two blobs,
    # so each missed blob costs at most one further blob.
    rows = _birch_runs(std=0.02)
    covered, recovered = rows[:, 0], rows[:, 1]
    full = covered == 25
    assert full.sum() >= 5, covered
    np.testing.assert_array_equal(recovered[full], 25)
    assert np.all(recovered >= 2 * covered - 25), rows.T
    assert (recovered == 25).sum() >= 9, rows.T


# ----------------------------------------------------------------------------
# 4. Neighbourhoods G_c and truncation sets K(n) after convergence
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("plus1", [False, True])
def test_neighbourhoods_and_truncation_sets_find_the_nearest_clusters(plus1, make_blobs):
    C, G = 30, 4
    stats = []
    for seed in range(4):
        X, _, _ = make_blobs(6000, C, 5, std=1.0, seed=seed)
        mu0, _ = vcgmm.afkmc2(X, C, random_state=seed, n_threads=1)
        loop = _VariationalLoop(X, mu0, G=G, plus1=plus1, tol=1e-6, random_state=seed,
                                     n_threads=1)
        res = loop.fit()
        assert res["converged"]
        loop.e_step()  # K(n) and G_c for the final means (the E-step keeps them)
        mu, K, Gc = loop.means, loop.truncation_sets, loop.neighbourhoods
        assert K.shape == (X.shape[0], G) and Gc.shape == (C, G)
        np.testing.assert_array_equal(Gc[:, 0], np.arange(C))
        assert all(np.unique(row).size == G for row in Gc)
        assert all(np.unique(row).size == G for row in K)

        # K(n): nearest first, and the exact G nearest means.
        d2 = cdist(X, mu, "sqeuclidean")
        dK = np.take_along_axis(d2, K, axis=1)
        assert np.all(np.diff(dK, axis=1) >= 0)
        exact_K = np.argsort(d2, axis=1, kind="stable")[:, :G]
        k_nearest = np.mean(K[:, 0] == exact_K[:, 0])
        k_set = np.mean(np.all(np.sort(K, 1) == np.sort(exact_K, 1), axis=1))

        # G_c: c and its G - 1 nearest clusters by the distance between means.
        dm = cdist(mu, mu)
        np.fill_diagonal(dm, -1.0)
        order = np.argsort(dm, axis=1, kind="stable")
        g_set = np.mean([set(Gc[c]) == set(order[c, :G]) for c in range(C)])
        g_first = np.mean([order[c, 1] in Gc[c] for c in range(C)])
        # Neighbours no farther than 1.25 x the (G-1)-th nearest: near-ties
        # between the 3rd and 4th neighbour are decided by the mean distance
        # of c's points, which may order them differently from the means.
        radius = dm[np.arange(C), order[:, G - 1]]
        g_close = np.mean([dm[c, Gc[c, 1:]].max() <= 1.25 * radius[c] for c in range(C)])
        stats.append((k_nearest, k_set, g_set, g_first, g_close))
    stats = np.array(stats)
    # Measured over seeds 0-3 (min / mean), without plus1 | with plus1:
    #   K(n)[0] = exact nearest       0.996 / 0.998 | 0.998 / 0.999
    #   K(n) = exact G nearest (set)  0.968 / 0.974 | 0.977 / 0.985
    #   G_c = exact set               0.60  / 0.675 | 0.70  / 0.758
    #   nearest neighbour in G_c      1.0   / 1.0   | 1.0   / 1.0
    #   G_c within 1.25x              0.967 / 0.983 | 1.0   / 1.0
    # Random neighbourhoods would hold the nearest neighbour for ~3/29 of c.
    k_nearest, k_set, g_set, g_first, g_close = stats.T
    assert k_nearest.min() >= 0.99, stats
    assert k_set.min() >= 0.95, stats
    assert g_first.min() >= 0.95, stats
    assert g_close.min() >= 0.93, stats
    assert g_set.mean() >= 0.6, stats


def test_neighbourhoods_are_random_before_the_first_estep():
    # Initial sets: K(n) = G distinct random clusters, G_c = c + G-1 random
    # others (not the identity, not a fixed pattern).
    X = np.random.default_rng(1).standard_normal((2000, 3))
    loop = _VariationalLoop(X, X[:50], G=4, random_state=0, n_threads=1)
    K, Gc = loop.truncation_sets, loop.neighbourhoods
    np.testing.assert_array_equal(Gc[:, 0], np.arange(50))
    assert all(np.unique(r).size == 4 for r in K) and all(np.unique(r).size == 4 for r in Gc)
    counts = np.bincount(K.ravel(), minlength=50)
    # 8000 draws over 50 clusters: every cluster is used, none dominates.
    assert counts.min() > 80 and counts.max() < 260, counts
    assert loop.sigma2 == 0.0


def test_estep_estimate_sigma_must_be_a_bool():
    X = np.random.default_rng(1).standard_normal((300, 3))
    loop = _VariationalLoop(X, X[:5], G=2, random_state=0, n_threads=1)
    for bad in ("no", 0, None, 1.0):
        with pytest.raises(TypeError, match="estimate_sigma must be True or False"):
            loop.e_step(bad)
    assert loop.sigma2 == 0.0  # the refused calls changed nothing
    assert np.isfinite(loop.e_step(np.bool_(True)))


# ----------------------------------------------------------------------------
# 5. Composition, determinism, dtypes, distance counts
# ----------------------------------------------------------------------------


def test_vcgmm_is_coreset_plus_afkmc2_plus_loop(make_blobs):
    X = make_blobs(5000, 20, 4, std=1.5, seed=4)[0]
    r = _fit_vcgmm(X, 20, G=3, coreset_size=1500, init="afk-mc2", chain_length=9,
                   random_state=7, n_threads=1)
    assert r.G == 3
    idx, w = vcgmm.lwcs(X, 1500, random_state=7, n_threads=1)
    np.testing.assert_array_equal(r.coreset_indices, idx)
    np.testing.assert_array_equal(r.coreset_weights, w)
    seeds, _ = vcgmm.afkmc2(X[idx], 20, chain_length=9, sample_weight=w, random_state=7,
                            n_threads=1)
    r_given = _fit_vcgmm(X, 20, G=3, coreset_size=1500, init=seeds, random_state=7,
                              n_threads=1)
    r_loop = _fit_vargmm(X[idx], 20, G=3, init=seeds, sample_weight=w, random_state=7,
                              n_threads=1)
    for other in (r_given, r_loop):
        np.testing.assert_array_equal(other.centers, r.centers)
        assert other.sigma2 == r.sigma2
        np.testing.assert_array_equal(other.free_energy, r.free_energy)
    loop = _VariationalLoop(X[idx], seeds, G=3, sample_weight=w, random_state=7,
                                 n_threads=1)
    out = loop.fit()
    np.testing.assert_array_equal(loop.means, r.centers)
    np.testing.assert_array_equal(out["free_energy"], r.free_energy)
    assert out["n_iter"] == r.n_iter and out["converged"] == r.converged
    assert out["sigma2"] == r.sigma2 and out["G"] == r.G
    np.testing.assert_array_equal(out["estep_distance_evals"], r.estep_distance_evals)
    assert out["n_distance_evals"] == {"coreset": 0, "seeding": 0, "evaluation": 0,
                                       "iterations": r.n_distance_evals["iterations"],
                                       "refinement": r.n_distance_evals["refinement"]}
    assert set(out["timings"]) == set(out["n_distance_evals"]) and out["timings"]["iterations"] > 0
    assert r.coreset_weights.sum() == pytest.approx(X.shape[0], rel=0.1)


@pytest.mark.parametrize("dtype, D", [(np.float32, 2048), (np.float64, 1024)])
def test_vcgmm_orders_a_large_coreset_by_cell(dtype, D):
    # Means of >= 32 MiB (C D itemsize): the pipeline fits the coreset's rows
    # ordered by their nearest of ceil(sqrt(C)) evenly strided coreset rows
    # (stable within a cell), so that consecutive points share their nearby
    # means in cache; it reports the coreset in its own order. The same as
    # the loop on the rows in that order, bit for bit; with a quarter less
    # the rows keep the coreset's order.
    rng = np.random.default_rng(5)
    X = (rng.normal(size=(64, D)) * 4)[rng.integers(0, 64, 5000)] + rng.normal(size=(5000, D))
    X = X.astype(dtype)
    C, n_prime, m = 4096, 4500, 64  # 64 = ceil(sqrt(4096))
    seeds = X[rng.choice(5000, C, replace=False)] + dtype(0.1)
    kw = dict(G=2, coreset_size=n_prime, max_iter=2, random_state=2)
    r = _fit_vcgmm(X, C, init=seeds, n_threads=2, **kw)
    idx, w = vcgmm.lwcs(X, n_prime, random_state=2)
    np.testing.assert_array_equal(r.coreset_indices, idx)
    np.testing.assert_array_equal(r.coreset_weights, w)
    Y = X[idx]
    strided = Y[(np.arange(m) * n_prime) // m].astype(np.float64)
    cell = cdist(Y.astype(np.float64), strided, "sqeuclidean").argmin(axis=1)
    order = np.argsort(cell, kind="stable")
    assert not np.array_equal(order, np.arange(n_prime))
    loop = _VariationalLoop(Y[order], seeds, G=2, sample_weight=w[order], max_iter=2,
                            random_state=2, n_threads=3)
    loop.fit()
    np.testing.assert_array_equal(loop.means, r.centers)
    # 1 thread == 2 threads; the coreset's own order below the threshold
    r1 = _fit_vcgmm(X, C, init=seeds, n_threads=1, **kw)
    np.testing.assert_array_equal(r1.centers, r.centers)
    small = np.ascontiguousarray(X[:, : D * 3 // 4])  # means of 24 MiB
    small_seeds = np.ascontiguousarray(seeds[:, : D * 3 // 4])
    r_small = _fit_vcgmm(small, C, init=small_seeds, n_threads=2, **kw)
    idx, w = vcgmm.lwcs(small, n_prime, random_state=2)
    loop = _VariationalLoop(small[idx], small_seeds, G=2, sample_weight=w, max_iter=2,
                            random_state=2, n_threads=2)
    loop.fit()
    np.testing.assert_array_equal(loop.means, r_small.centers)


def test_kmeans_plusplus_seeding_of_the_pipeline(make_blobs):
    # init="k-means++" with greedy candidates: the seeding is kmeans_plusplus
    # on the coreset with the same n_local_trials, bit for bit.
    X = make_blobs(5000, 20, 4, std=1.5, seed=4)[0]
    kw = dict(random_state=7, n_threads=1)
    r = _fit_vcgmm(X, 20, 3, 1500, init="k-means++", n_local_trials=3, **kw)
    idx, w = vcgmm.lwcs(X, 1500, **kw)
    seeds, _ = vcgmm.kmeans_plusplus(X[idx], 20, n_local_trials=3, sample_weight=w, **kw)
    given = _fit_vcgmm(X, 20, 3, 1500, init=seeds, **kw)
    np.testing.assert_array_equal(r.centers, given.centers)
    # Each step draws n_local_trials candidates and scores each with a pass.
    assert r.n_distance_evals["seeding"] == 19 * 1500 * (1 + 3)
    classic = _fit_vcgmm(X, 20, 3, 1500, init="k-means++", n_local_trials=1, **kw)
    assert classic.n_distance_evals["seeding"] == 19 * 1500
    gmm = _VCGMM(20, G=3, coreset_size=1500, init="k-means++", n_local_trials=3, **kw).fit(X)
    np.testing.assert_array_equal(gmm.cluster_centers_, r.centers)


def test_coreset_size_none_auto_and_the_n_prime_alias(make_blobs):
    X = make_blobs(5000, 10, 3, seed=17)[0]
    kw = dict(max_iter=5, random_state=2, n_threads=1)
    # None: no coreset, var-GMM-S.
    none = _fit_vcgmm(X, 10, 3, None, **kw)
    var = _fit_vargmm(X, 10, 3, **kw)
    assert none.coreset_indices is None and none.coreset_weights is None
    assert none.n_distance_evals["coreset"] == 0
    np.testing.assert_array_equal(none.centers, var.centers)
    np.testing.assert_array_equal(none.free_energy, var.free_energy)
    # "auto" (the default): default_coreset_size; n_prime is the same argument.
    size = vcgmm.default_coreset_size(5000, 10)
    auto = _fit_vcgmm(X, 10, 3, **kw)
    for other in (_fit_vcgmm(X, 10, 3, "auto", **kw), _fit_vcgmm(X, 10, 3, size, **kw),
                  _fit_vcgmm(X, 10, 3, n_prime=size, **kw)):
        np.testing.assert_array_equal(other.coreset_indices, auto.coreset_indices)
        np.testing.assert_array_equal(other.centers, auto.centers)
    assert auto.coreset_indices.shape == (size,)


# ----------------------------------------------------------------------------
# 6. Thread independence (one helper for every algorithm: conftest.py)
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("plus1", [False, True])
@pytest.mark.parametrize("fit", ["vc-GMM", "var-GMM-S"])
def test_results_do_not_depend_on_the_thread_count(fit, plus1, patches,
                                                   assert_thread_independent):
    # ~134,000 x 108: three E-step blocks of up to 65,536 points; C = 100 > 64:
    # several neighbourhood / M-step tasks of 64 clusters.
    def run(n_threads):
        kw = dict(G=3, plus1=plus1, max_iter=5, tol=0, random_state=3, n_threads=n_threads,
                  return_labels=True)
        if fit == "vc-GMM":
            return _fit_vcgmm(patches, 100, coreset_size=150_000, **kw)
        return _fit_vargmm(patches, 100, **kw)

    r = assert_thread_independent(run)
    assert r.centers.dtype == np.float32 and r.labels is not None and r.n_iter == 5


def test_loop_does_not_depend_on_the_thread_count(patches, assert_thread_independent):
    mu0, _ = vcgmm.afkmc2(patches, 100, random_state=0, n_threads=1)

    def run(n_threads):
        loop = _VariationalLoop(patches, mu0, G=3, plus1=True, random_state=5,
                                     n_threads=n_threads)
        steps = []
        for _ in range(3):
            F = loop.e_step()
            state = {"F": F, "K": loop.truncation_sets, "G_c": loop.neighbourhoods}
            loop.m_step()
            state.update(means=loop.means, sigma2=loop.sigma2, F_after=loop.free_energy(),
                         n_distance_evals=loop.n_distance_evals)
            steps.append(state)
        fit = _VariationalLoop(patches, mu0, G=3, random_state=6, max_iter=3, tol=0,
                                    n_threads=n_threads)
        return {"steps": steps, "fit": fit.fit(), "fit means": fit.means}

    assert_thread_independent(run)


# The M-step sums over point ranges with few clusters (C <= 4096 G / 8) and over
# the pairs bucketed by cluster above: with G = 1, C = 200 and C = 700 take one
# path each.
@pytest.mark.parametrize("C", [200, 700])
@pytest.mark.parametrize("weighted", [False, True])
def test_m_step_matches_a_numpy_reference_on_both_paths(C, weighted, patches):
    X = patches[::7][:20_000]
    w = np.random.default_rng(1).uniform(0.2, 3.0, len(X)) if weighted else None
    mu0 = X[np.random.default_rng(2).choice(len(X), C, replace=False)]
    loop = _VariationalLoop(X, mu0, G=1, sample_weight=w, random_state=0, n_threads=2)
    for _ in range(2):
        loop.e_step()
        before = loop.means
        label = loop.truncation_sets[:, 0]  # G = 1: responsibility 1
        loop.m_step()
        ww = np.ones(len(X)) if w is None else w
        mass = np.bincount(label, weights=ww, minlength=C)
        sums = np.zeros((C, X.shape[1]))
        np.add.at(sums, label, ww[:, None] * X.astype(np.float64))
        expected = np.where(mass[:, None] > 0, sums / np.maximum(mass, 1e-300)[:, None], before)
        np.testing.assert_allclose(loop.means, expected, rtol=0, atol=1e-4)


def test_bucketed_m_step_does_not_depend_on_the_thread_count(patches,
                                                             assert_thread_independent):
    # G = 1 and C = 700 > 4096 / 8: the M-step over the pairs bucketed by cluster
    def run(n_threads):
        return _fit_vcgmm(patches, 700, G=1, coreset_size=20_000, max_iter=3, tol=0,
                          random_state=4, n_threads=n_threads)

    assert_thread_independent(run)


# ----------------------------------------------------------------------------
# 7. Dtypes and distance counts
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("fit", ["vc-GMM", "var-GMM-S"])
def test_float32_agrees_with_float64(fit, make_blobs):
    X, _, _ = make_blobs(20000, 50, 6, std=0.5, seed=6)
    X32 = X.astype(np.float32)
    X64 = X32.astype(np.float64)  # the same values
    # AFK-MC^2: its chain compares float32 and float64 distances alike here
    # (greedy k-means++ may pick another candidate on a float32 tie).
    kw = dict(G=4, init="afk-mc2", random_state=0, return_labels=True, n_threads=1)
    if fit == "vc-GMM":
        a = _fit_vcgmm(X32, 50, coreset_size=5000, **kw)
        b = _fit_vcgmm(X64, 50, coreset_size=5000, **kw)
        np.testing.assert_array_equal(a.coreset_indices, b.coreset_indices)
        np.testing.assert_allclose(a.coreset_weights, b.coreset_weights, rtol=1e-6)
    else:
        a = _fit_vargmm(X32, 50, **kw)
        b = _fit_vargmm(X64, 50, **kw)
    assert a.centers.dtype == np.float32 and b.centers.dtype == np.float64
    assert a.n_iter == b.n_iter
    # Measured: centers within 5e-7, sigma^2 and F within 4e-9 relative.
    scale = np.abs(X).max()
    np.testing.assert_allclose(a.centers, b.centers, rtol=0, atol=1e-6 * scale)
    np.testing.assert_allclose(a.sigma2, b.sigma2, rtol=1e-6)
    np.testing.assert_allclose(a.free_energy, b.free_energy, rtol=1e-7)
    # Labels agree except where two means are tied to float32 precision.
    differ = np.flatnonzero(a.labels != b.labels)
    d2 = cdist(X64[differ], b.centers, "sqeuclidean")
    rows = np.arange(differ.size)
    gap = np.abs(d2[rows, a.labels[differ]] - d2[rows, b.labels[differ]])
    assert np.all(gap <= 5e-6 * d2[rows, b.labels[differ]]), gap
    # Two components whose means coincide to float32 precision (EM merged
    # them: measured 1.8e-7 apart) tie for all their points (175 of the 177
    # differing labels of vc-GMM, all 26 of var-GMM-S); any other difference
    # is a rare near-tie.
    coincide = np.linalg.norm(b.centers[a.labels[differ]] - b.centers[b.labels[differ]],
                              axis=1) <= 1e-6 * scale
    assert (~coincide).sum() <= 5e-4 * X.shape[0], (differ.size, coincide.sum())


@pytest.mark.parametrize("plus1", [False, True])
def test_estep_distance_count_is_the_search_space_size(plus1, make_blobs):
    X, _, _ = make_blobs(3000, 40, 4, seed=12)
    mu0, _ = vcgmm.afkmc2(X, 40, random_state=1, n_threads=1)
    loop = _VariationalLoop(X, mu0, G=3, plus1=plus1, random_state=1, n_threads=1)
    total = 0
    for _ in range(5):
        K, Gc = loop.truncation_sets, loop.neighbourhoods  # read BEFORE the E-step
        union = np.array([np.unique(Gc[k]).size for k in K])  # |S(n)| without "+1"
        before = loop.n_distance_evals
        loop.e_step()
        evals = loop.n_distance_evals - before
        if plus1:
            # The random extra cluster adds one distance unless already in S(n).
            assert union.sum() <= evals <= union.sum() + X.shape[0]
            assert evals > union.sum()
        else:
            assert evals == union.sum()
        total += evals
        loop.m_step()
    assert loop.n_distance_evals == total
    # At most G^2 (+1) per point; far fewer than N C once neighbourhoods settle.
    assert evals <= X.shape[0] * (9 + plus1)


@pytest.mark.parametrize("fit", ["vc-GMM", "var-GMM-S"])
def test_phase_distance_counts(fit, make_blobs):
    X, _, _ = make_blobs(3000, 40, 4, seed=13)
    N, C, m = X.shape[0], 40, 7
    kw = dict(G=3, init="afk-mc2", chain_length=m, random_state=0, n_threads=1)
    if fit == "vc-GMM":
        r = _fit_vcgmm(X, C, coreset_size=1000, return_labels=True, **kw)
        n_fit = 1000
        assert r.n_distance_evals["coreset"] == N  # one pass, d(x, mean)
    else:
        r = _fit_vargmm(X, C, return_labels=True, **kw)
        n_fit = N
        assert r.n_distance_evals["coreset"] == 0
        assert r.coreset_indices is None and r.coreset_weights is None
    # AFK-MC^2: one pass for the proposal, then m candidates per center times
    # the centers chosen so far.
    assert r.n_distance_evals["seeding"] == n_fit + m * C * (C - 1) // 2
    assert r.n_distance_evals["iterations"] == r.estep_distance_evals.sum()
    assert r.estep_distance_evals.shape == (r.n_iter,)
    assert np.all(r.estep_distance_evals <= n_fit * 9)
    assert r.n_distance_evals["evaluation"] == N * C
    np.testing.assert_array_equal(r.labels, vcgmm.assign(X, r.centers, n_threads=1))
    np.testing.assert_allclose(r.inertia, vcgmm.quantization_error(X, r.centers, n_threads=1),
                               rtol=1e-12)
    assert set(r.timings) == {"coreset", "seeding", "iterations", "refinement", "evaluation"}
    assert all(t >= 0 for t in r.timings.values())
    assert r.algorithm_seconds == r.timings["coreset"] + r.timings["seeding"] + \
        r.timings["iterations"] + r.timings["refinement"]

    # Given initial means: no seeding; extra initial E-steps are counted too.
    r2 = _fit_vargmm(X, C, G=3, init=r.centers, n_init_estep=2, random_state=0,
                          n_threads=1)
    assert r2.n_distance_evals["seeding"] == 0 and r2.n_distance_evals["evaluation"] == 0
    assert r2.timings["evaluation"] == 0.0
    assert r2.estep_distance_evals.shape == (r2.n_iter + 2,)
    assert r2.n_distance_evals["iterations"] == r2.estep_distance_evals.sum()
    assert r2.labels is None and r2.inertia is None


def test_G_equal_C_integer_weights_equal_repeated_rows_fit(make_blobs):
    # var-GMM-S with G = C is deterministic given the initial means, so
    # integer weights must give the repeated-rows fit (up to summation order).
    X, _, _ = make_blobs(500, 8, 3, spread=3.0, seed=14)
    w = np.random.default_rng(14).integers(1, 4, 500)
    mu0 = _initial_means(X, 8, seed=3)
    a = _fit_vargmm(X, 8, G=8, init=mu0, sample_weight=w, tol=1e-8, random_state=0,
                         n_threads=1)
    b = _fit_vargmm(np.repeat(X, w, axis=0), 8, G=8, init=mu0, tol=1e-8, random_state=1,
                         n_threads=1)
    assert a.n_iter == b.n_iter
    np.testing.assert_allclose(a.centers, b.centers, rtol=0, atol=1e-10 * np.abs(X).max())
    np.testing.assert_allclose(a.sigma2, b.sigma2, rtol=1e-10)
    np.testing.assert_allclose(a.free_energy, b.free_energy, rtol=1e-10)


def test_n_init_estep_runs_extra_esteps_before_the_first_mstep(make_blobs):
    X, _, _ = make_blobs(2000, 20, 3, seed=15)
    mu0, _ = vcgmm.afkmc2(X, 20, random_state=2, n_threads=1)
    # The initial E-steps count against max_iter: 3 of them + 4 iterations.
    out = _VariationalLoop(X, mu0, G=3, n_init_estep=3, tol=0, max_iter=7,
                                random_state=2, n_threads=1).fit()
    loop = _VariationalLoop(X, mu0, G=3, random_state=2, n_threads=1)
    for _ in range(3):
        loop.e_step(estimate_sigma=True)
    trace = [loop.e_step(estimate_sigma=True)]
    loop.m_step()
    for _ in range(3):
        trace.append(loop.e_step())
        loop.m_step()
    np.testing.assert_array_equal(out["free_energy"], trace)
    assert out["n_iter"] == 4 and not out["converged"]
    assert out["estep_distance_evals"].shape == (7,)
    # At most max_iter - 1 initial E-steps: one iteration always runs.
    short = _VariationalLoop(X, mu0, G=3, n_init_estep=10, tol=0, max_iter=4,
                                  random_state=2, n_threads=1).fit()
    assert short["n_iter"] == 1 and short["estep_distance_evals"].shape == (4,)
    np.testing.assert_array_equal(short["free_energy"], trace[:1])


def test_default_coreset_size(make_blobs):
    assert vcgmm.default_coreset_size(10**6, 10) == 4096
    assert vcgmm.default_coreset_size(10**6, 1000) == 64_000
    assert vcgmm.default_coreset_size(3000, 10) == 3000
    X = make_blobs(5000, 10, 2, seed=16)[0]
    r = _fit_vcgmm(X, 10, random_state=0, max_iter=2, n_threads=1)
    assert r.coreset_indices.shape == (4096,)
