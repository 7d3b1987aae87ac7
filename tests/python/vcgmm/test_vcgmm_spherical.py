"""vc-GMM / var-GMM-S with ``covariance_type="spherical"``: a variance and a
mixing weight per component.

What is checked, against references computed here:

- G = C makes the loop exact EM for the isotropic GMM with per-component
  variances and weights: means, variances, weights and the free energy (= the
  exact log-likelihood, from scipy's normal log-densities) agree with a
  float64 numpy EM to ~1e-10, step by step and through ``fit_vargmm``, with
  and without integer sample weights;
- G < C (with and without "+1") on blobs of very different spreads: an E-step
  and an M-step never decrease the free energy, whole-fit traces are
  non-decreasing, and the learned variances follow the blobs' spreads;
- the variance floor (1e-6 times the data's variance per feature) is what a
  component on duplicated points gets; a component that loses all its mass
  keeps its mean and variance with weight 0;
- "shared" reports its one variance and equal weights;
- ``shared_m_steps`` (the authors' isoflex warm-up): the first M-steps fit
  the shared model, then per-component ones, exactly as a numpy reference;
- 1, 2 and 3 threads bit-identical (several E-step blocks, several M-step
  owners);
- the estimator: ``covariances_`` / ``weights_``, ``sample``, save/load and
  the bad value of ``covariance_type``;
- the exact likelihood of the spherical model (``score_samples``, ``score``,
  ``bic``, ``aic``, ``predict_proba``, ``predict_proba_sparse``, the core's
  ``gmm_log_likelihood_spherical`` / ``gmm_truncated_posteriors_spherical``)
  against the scipy log joint above, in float64 and float32, with components
  of weight 0, 1/2/3 threads, bad arguments; ``n_init > 1`` ranks the runs by
  it.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import norm

import vcgmm

# shared_m_steps=0: the references below start per-component from the first
# M-step (the warm-up has its own test).
_fit_vargmm = functools.partial(vcgmm.fit_vargmm, refine=0, covariance_type="spherical",
                                shared_m_steps=0)
_fit_vcgmm = functools.partial(vcgmm.fit_vcgmm, refine=0, covariance_type="spherical",
                               shared_m_steps=0)
_Loop = functools.partial(vcgmm.VariationalLoop, refine=0, covariance_type="spherical",
                          shared_m_steps=0)

#: kComponentVarianceFloor of variational_gmm.hpp.
VARIANCE_FLOOR = 1e-6


def _log_joint(X, mu, var, pi):
    """(N, C) log pi_c + log N(x; mu_c, var_c I), from scipy's univariate
    normal log-densities (independent of the library's distance formula)."""
    logpdf = norm.logpdf(X[:, None, :], loc=mu[None, :, :],
                         scale=np.sqrt(var)[None, :, None]).sum(-1)
    with np.errstate(divide="ignore"):
        return logpdf + np.log(pi)[None, :]


def _reference_spherical_em(X, means, n_iter, w=None, shared=0):
    """Exact float64 EM for C isotropic Gaussians with their own variances and
    weights, from `means`, sigma^2 of eq. 12 for all components and weights
    1/C; the first `shared` M-steps fit one variance and keep the weights 1/C
    (the isoflex warm-up). Returns one (F = log-likelihood before the M-step,
    means, variances, weights) per iteration."""
    X = np.asarray(X, np.float64)
    mu = np.array(means, np.float64)
    N, D = X.shape
    C = mu.shape[0]
    w = np.ones(N) if w is None else np.asarray(w, np.float64)
    W = w.sum()
    d2 = ((X[:, None, :] - mu[None, :, :]) ** 2).sum(-1)
    var = np.full(C, np.sum(w * d2.min(axis=1)) / (D * W))  # eq. 12
    pi = np.full(C, 1.0 / C)
    out = []
    for _ in range(n_iter):
        lj = _log_joint(X, mu, var, pi)
        lse = logsumexp(lj, axis=1)
        F = float(np.sum(w * lse))
        ws = np.exp(lj - lse[:, None]) * w[:, None]
        mass = ws.sum(axis=0)
        mu = (ws.T @ X) / mass[:, None]
        d2 = ((X[:, None, :] - mu[None, :, :]) ** 2).sum(-1)
        if len(out) < shared:
            var = np.full(C, np.sum(ws * d2) / (D * W))
            pi = np.full(C, 1.0 / C)
        else:
            var = np.sum(ws * d2, axis=0) / (D * mass)
            pi = mass / W
        out.append((F, mu.copy(), var.copy(), pi.copy()))
    return out


def _small_data(seed=0):
    """60 x 3: four blobs of different spreads (0.3 to 2), overlapping enough
    that every responsibility matters."""
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0, 0], [3, 0, 0], [0, 4, 0], [2, 2, 3]])
    spreads = np.array([0.3, 0.6, 1.2, 2.0])
    lab = np.arange(60) % 4
    return centers[lab] + spreads[lab, None] * rng.standard_normal((60, 3))


def _initial_means(X, C, seed):
    rng = np.random.default_rng(seed)
    return X[rng.choice(X.shape[0], C, replace=False)] + rng.uniform(-0.1, 0.1, (C, X.shape[1]))


def _floor(X, w=None):
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, np.float64)
    xbar = np.average(X, axis=0, weights=w)
    return VARIANCE_FLOOR * np.sum(w * ((X - xbar) ** 2).sum(1)) / (w.sum() * X.shape[1])


# ----------------------------------------------------------------------------
# 1. G = C: exact EM for the spherical model
# ----------------------------------------------------------------------------

N_EXACT_ITER = 6


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_G_equal_C_is_exact_spherical_em_step_by_step(seed, weighted):
    X = _small_data(seed)
    C = 4
    w = np.random.default_rng(seed).integers(1, 4, X.shape[0]).astype(np.float64) if weighted \
        else None
    mu0 = _initial_means(X, C, seed)
    ref = _reference_spherical_em(X, mu0, N_EXACT_ITER, w)
    loop = _Loop(X, mu0, G=C, sample_weight=w, random_state=0, n_threads=1)
    assert loop.G == C
    for t, (F_ref, mu_ref, var_ref, pi_ref) in enumerate(ref):
        F = loop.e_step()
        np.testing.assert_allclose(F, F_ref, rtol=1e-10, err_msg=f"iteration {t}")
        np.testing.assert_allclose(loop.free_energy(), F, rtol=1e-12)
        loop.m_step()
        np.testing.assert_allclose(loop.means, mu_ref, rtol=0, atol=1e-10 * np.abs(X).max())
        np.testing.assert_allclose(loop.variances, var_ref, rtol=1e-10)
        np.testing.assert_allclose(loop.mixing_weights, pi_ref, rtol=1e-10)
        # The pooled variance.
        np.testing.assert_allclose(loop.sigma2, np.dot(pi_ref, var_ref), rtol=1e-10)
    var_last = ref[-1][2]
    # The reference moved away from one shared variance (else the test would
    # not tell the models apart), and the floor never bound.
    assert var_last.max() / var_last.min() > 3
    assert var_last.min() > 100 * _floor(X, w)


@pytest.mark.parametrize("shared", [1, 2])
def test_shared_m_steps_are_the_shared_model_then_spherical_em(shared):
    # The authors' isoflex warm-up: the first `shared` M-steps fit one
    # variance with equal weights, then per-component ones; G = C makes it
    # exact EM, step by step against the reference.
    X = _small_data(3)
    C = 4
    mu0 = _initial_means(X, C, 3)
    ref = _reference_spherical_em(X, mu0, N_EXACT_ITER, shared=shared)
    loop = _Loop(X, mu0, G=C, shared_m_steps=shared, random_state=0, n_threads=1)
    for t, (F_ref, mu_ref, var_ref, pi_ref) in enumerate(ref):
        np.testing.assert_allclose(loop.e_step(), F_ref, rtol=1e-10, err_msg=f"iteration {t}")
        loop.m_step()
        np.testing.assert_allclose(loop.means, mu_ref, rtol=0, atol=1e-10 * np.abs(X).max())
        np.testing.assert_allclose(loop.variances, var_ref, rtol=1e-10)
        np.testing.assert_allclose(loop.mixing_weights, pi_ref, rtol=1e-10)
        if t < shared:
            assert np.all(loop.variances == loop.variances[0])
            assert np.all(loop.mixing_weights == 1.0 / C)
    assert ref[-1][2].max() / ref[-1][2].min() > 3  # per-component afterwards
    # The warm-up changes the path: without it the means differ after it.
    plain = _reference_spherical_em(X, mu0, shared + 1)
    assert np.abs(plain[shared][1] - ref[shared][1]).max() > 1e-3
    # The estimator passes it on; "shared" ignores it.
    est = vcgmm.VCGMM(C, G=C, covariance_type="spherical", shared_m_steps=shared, init=mu0,
                      coreset_size=None, refine=0, max_iter=N_EXACT_ITER, tol=0,
                      random_state=0, n_threads=1).fit(X)
    np.testing.assert_allclose(est.cluster_centers_, ref[-1][1], rtol=0,
                               atol=1e-10 * np.abs(X).max())
    kw = dict(G=C, init=mu0, coreset_size=None, refine=0, max_iter=3, tol=0, random_state=0)
    np.testing.assert_array_equal(
        vcgmm.VCGMM(C, shared_m_steps=2, **kw).fit(X).cluster_centers_,
        vcgmm.VCGMM(C, **kw).fit(X).cluster_centers_)
    with pytest.raises(ValueError, match="shared_m_steps"):
        vcgmm.VCGMM(C, covariance_type="spherical", shared_m_steps=-1).fit(X)


@pytest.mark.parametrize("k", [1, 2, N_EXACT_ITER])
def test_G_equal_C_fit_vargmm_is_exact_spherical_em(k):
    X = _small_data(2)
    C = 4
    mu0 = _initial_means(X, C, 7)
    ref = _reference_spherical_em(X, mu0, k)
    r = _fit_vargmm(X, C, G=C, init=mu0, max_iter=k, tol=0, random_state=0, n_threads=1)
    assert r.n_iter == k and not r.converged
    np.testing.assert_allclose(r.free_energy, [f for f, _, _, _ in ref], rtol=1e-10)
    np.testing.assert_allclose(r.centers, ref[-1][1], rtol=0, atol=1e-10 * np.abs(X).max())
    np.testing.assert_allclose(r.variances, ref[-1][2], rtol=1e-10)
    np.testing.assert_allclose(r.mixing_weights, ref[-1][3], rtol=1e-10)
    np.testing.assert_allclose(r.mixing_weights.sum(), 1.0, rtol=1e-12)


def test_first_iteration_equals_shared():
    # Before the first M-step both models have sigma^2 of eq. 12 and weights
    # 1/C: the first free energy and the first means are the same bits.
    X = _small_data(3)
    mu0 = _initial_means(X, 4, 3)
    kw = dict(G=2, init=mu0, max_iter=1, tol=0, random_state=0, n_threads=1, refine=0)
    a = vcgmm.fit_vargmm(X, 4, covariance_type="shared", **kw)
    b = vcgmm.fit_vargmm(X, 4, covariance_type="spherical", **kw)
    assert a.free_energy[0] == b.free_energy[0]
    np.testing.assert_array_equal(a.centers, b.centers)
    # "shared" reports its one variance and the fixed equal weights.
    np.testing.assert_array_equal(a.variances, np.full(4, a.sigma2))
    np.testing.assert_array_equal(a.mixing_weights, np.full(4, 0.25))


# ----------------------------------------------------------------------------
# 2. G < C: the free energy never decreases
# ----------------------------------------------------------------------------

SPREADS = (0.05, 0.2, 1.0, 3.0)


def _uneven_blobs(n=3000, n_blobs=24, seed=4):
    """Blobs whose standard deviations differ by 60x (0.05 to 3), centers
    uniform in a 40^4 box: the case one shared variance fits badly."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-20, 20, (n_blobs, 4))
    std = np.array(SPREADS)[np.arange(n_blobs) % len(SPREADS)]
    lab = rng.integers(0, n_blobs, n)
    return centers[lab] + std[lab, None] * rng.standard_normal((n, 4)), centers, std


@pytest.mark.parametrize("plus1", [False, True])
@pytest.mark.parametrize("G", [2, 3])
def test_estep_and_mstep_never_decrease_free_energy(G, plus1):
    X = _uneven_blobs()[0]
    C = 24
    for seed in range(2):
        mu0, _ = vcgmm.afkmc2(X, C, random_state=seed, n_threads=1)
        loop = _Loop(X, mu0, G=G, plus1=plus1, random_state=seed, n_threads=1)
        loop.e_step()
        loop.m_step()
        n_changed = 0
        for it in range(8):
            K_old = loop.truncation_sets
            F_before = loop.free_energy()
            F_after = loop.e_step()
            assert F_after >= F_before - 1e-12 * abs(F_before), (seed, it, F_before, F_after)
            n_changed += int(np.any(loop.truncation_sets != K_old))
            np.testing.assert_allclose(loop.free_energy(), F_after, rtol=1e-12)
            loop.m_step()
            F_m = loop.free_energy()
            assert F_m >= F_after - 1e-12 * abs(F_after), (seed, it, F_after, F_m)
        assert n_changed > 0
        # The components did not stay at one shared variance.
        var = loop.variances
        assert var.max() / var.min() > 10, var


@pytest.mark.parametrize("plus1", [False, True])
@pytest.mark.parametrize("fit", ["vc-GMM", "var-GMM-S"])
def test_free_energy_trace_is_non_decreasing(fit, plus1):
    X, centers, std = _uneven_blobs(6000, seed=5)
    kw = dict(G=3, plus1=plus1, tol=1e-4, random_state=1, n_threads=1, max_iter=300)
    if fit == "vc-GMM":
        r = _fit_vcgmm(X, 24, coreset_size=3000, **kw)
    else:
        r = _fit_vargmm(X, 24, **kw)
    F = r.free_energy
    assert r.n_iter >= 3 and np.all(np.isfinite(F))
    assert np.all(np.diff(F) >= -1e-9 * np.abs(F[1:])), np.diff(F).min()
    np.testing.assert_allclose(r.mixing_weights.sum(), 1.0, rtol=1e-12)
    if fit == "var-GMM-S" and not plus1:
        # Components whose mean sits on a blob learned (about) its spread.
        d = np.sqrt(((r.centers[:, None, :] - centers[None]) ** 2).sum(-1))
        on_blob = d.min(axis=1) < 0.5 * std[d.argmin(axis=1)] + 0.05
        ratio = np.sqrt(r.variances[on_blob]) / std[d.argmin(axis=1)][on_blob]
        assert on_blob.sum() >= 8, on_blob.sum()
        assert np.median(ratio) == pytest.approx(1.0, rel=0.3), ratio


# ----------------------------------------------------------------------------
# 3. The variance floor and components of zero mass
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("G, variance_floor", [(3, None), (4, None), (3, 1e-4)])
def test_variance_floor_on_duplicated_points(G, variance_floor):
    # 300 points of three blobs plus 40 copies of one point far away: the
    # component started there owns exactly the copies, whose variance is 0.
    rng = np.random.default_rng(6)
    X = np.vstack([rng.standard_normal((300, 3)) + np.repeat([[0, 0, 0], [6, 0, 0],
                                                                [0, 6, 0]], 100, axis=0),
                   np.tile([[40.0, 40.0, 40.0]], (40, 1))])
    init = np.array([[0.0, 0, 0], [6, 0, 0], [0, 6, 0], [40, 40, 40]])
    kw = {} if variance_floor is None else {"variance_floor": variance_floor}
    r = _fit_vargmm(X, 4, G=G, init=init, max_iter=20, tol=0, random_state=0, n_threads=1, **kw)
    floor = _floor(X) * (1.0 if variance_floor is None else variance_floor / VARIANCE_FLOOR)
    assert r.variances[3] == pytest.approx(floor, rel=1e-12)
    assert np.all(r.variances >= floor * (1 - 1e-12))
    assert r.variances[:3].min() > 5 * floor  # only the duplicates are floored
    np.testing.assert_allclose(r.centers[3], [40.0, 40.0, 40.0], rtol=1e-14)
    assert r.mixing_weights[3] == pytest.approx(40 / 340, rel=1e-12)
    assert np.all(np.isfinite(r.free_energy))
    assert np.all(np.diff(r.free_energy) >= -1e-9 * np.abs(r.free_energy[1:]))


@pytest.mark.parametrize("noise", [0.0, 1e-4])
@pytest.mark.parametrize("fit", ["vc-GMM", "var-GMM-S"])
def test_first_step_keeps_the_floor_on_few_distinct_points(fit, noise):
    # 3 distinct points (or 3 specks of width 1e-4) and 13 components: the
    # first E-step's shared sigma^2 (eq. 12) is ~0. It starts at the floor the
    # M-step keeps; below it, the first M-step raised it and F fell.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3, 5))[rng.integers(0, 3, 1358)]
    X += noise * rng.normal(size=X.shape)
    fit_ = _fit_vcgmm if fit == "vc-GMM" else _fit_vargmm
    for seed in range(4):
        r = fit_(X, 13, G=3, random_state=seed, n_threads=1, max_iter=10, tol=0)
        F = np.asarray(r.free_energy)
        assert len(F) >= 2 and np.all(np.isfinite(F))
        assert np.all(np.diff(F) >= -1e-9 * np.abs(F[1:])), (seed, F[:3])
        if fit == "var-GMM-S":  # (vc-GMM's floor is the coreset's)
            assert np.all(r.variances >= _floor(X) * (1 - 1e-12))


def test_component_of_zero_mass_keeps_mean_and_variance_with_weight_zero():
    X = _small_data(4)
    far = np.array([1e4, 1e4, 1e4])
    init = np.vstack([_initial_means(X, 3, 4), far])
    loop = _Loop(X, init, G=4, random_state=0, n_threads=1)
    loop.e_step()
    sigma2_first = loop.sigma2  # eq. 12, every component's variance before the M-step
    np.testing.assert_array_equal(loop.variances, np.full(4, sigma2_first))
    loop.m_step()
    assert loop.mixing_weights[3] == 0.0
    assert loop.variances[3] == sigma2_first
    np.testing.assert_array_equal(loop.means[3], far)
    F = [loop.e_step()]
    for _ in range(3):
        loop.m_step()
        F.append(loop.e_step())
    assert loop.mixing_weights[3] == 0.0 and np.all(np.isfinite(F))
    assert np.all(np.diff(F) >= -1e-12 * np.abs(F[1:]))
    # Unreachable: last in every K(n), with responsibility 0.
    assert np.all(loop.truncation_sets[:, -1] == 3)


# ----------------------------------------------------------------------------
# 4. Threads
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("fit", ["vc-GMM", "var-GMM-S"])
def test_results_do_not_depend_on_the_thread_count(fit, patches, assert_thread_independent):
    # ~134,000 x 108: three E-step blocks; C = 100: several M-step owners.
    def run(n_threads):
        kw = dict(G=3, plus1=True, max_iter=4, tol=0, random_state=3, n_threads=n_threads)
        if fit == "vc-GMM":
            return _fit_vcgmm(patches, 100, coreset_size=40_000, **kw)
        return _fit_vargmm(patches, 100, **kw)

    r = assert_thread_independent(run)
    assert r.n_iter == 4 and np.ptp(r.variances) > 0


# ----------------------------------------------------------------------------
# 5. The estimator
# ----------------------------------------------------------------------------


def test_estimator_attributes_and_save_load(tmp_path):
    X = _uneven_blobs(2000, seed=7)[0]
    gmm = vcgmm.VCGMM(24, G=3, coreset_size=None, covariance_type="spherical", random_state=0,
                      n_threads=1).fit(X)
    # the estimator's default refinement (the variances are refitted after it)
    r = _fit_vargmm(X, 24, G=3, random_state=0, n_threads=1, refine=gmm.refine,
                    shared_m_steps=gmm.shared_m_steps)
    np.testing.assert_array_equal(gmm.covariances_, r.variances)
    np.testing.assert_array_equal(gmm.weights_, r.mixing_weights)
    np.testing.assert_array_equal(gmm.precisions_, 1.0 / r.variances)
    assert gmm.sigma2_ == pytest.approx(np.dot(r.mixing_weights, r.variances), rel=1e-12)
    assert gmm._n_parameters() == 24 * 4 + 24 + 23
    gmm.predict(X[:5])  # the nearest mean
    # save / load keeps the per-component parameters
    path = tmp_path / "m.npz"
    gmm.save(path)
    loaded = vcgmm.load(path)
    np.testing.assert_array_equal(loaded.covariances_, gmm.covariances_)
    np.testing.assert_array_equal(loaded.weights_, gmm.weights_)
    np.testing.assert_array_equal(loaded.score_samples(X[:50]), gmm.score_samples(X[:50]))


def test_sample_uses_each_components_variance_and_weight():
    X = _uneven_blobs(3000, seed=8)[0]
    gmm = vcgmm.VCGMM(24, G=3, coreset_size=None, covariance_type="spherical", random_state=0,
                      n_threads=1).fit(X)
    S, y = gmm.sample(200_000)
    counts = np.bincount(y, minlength=24)
    np.testing.assert_allclose(counts / 200_000, gmm.weights_, atol=0.005)
    big = np.flatnonzero(counts > 2000)
    emp = np.array([((S[y == c] - gmm.means_[c]) ** 2).mean() for c in big])
    np.testing.assert_allclose(emp, gmm.covariances_[big], rtol=0.1)
    assert gmm.covariances_[big].max() / gmm.covariances_[big].min() > 10


def test_bad_covariance_type_and_n_init():
    X = _small_data(0)
    with pytest.raises(ValueError, match="covariance_type"):
        vcgmm.VCGMM(4, covariance_type="diag").fit(X)
    with pytest.raises(ValueError, match="covariance_type"):
        vcgmm.fit_vargmm(X, 4, covariance_type="full")
    with pytest.raises(TypeError, match="covariance_type"):
        vcgmm.fit_vargmm(X, 4, covariance_type=1)
    for bad in (-1e-6, np.nan, np.inf):
        with pytest.raises(ValueError, match="variance_floor"):
            vcgmm.fit_vargmm(X, 4, covariance_type="spherical", variance_floor=bad)
    with pytest.raises(ValueError, match="covariance_type"):
        vcgmm.VCGMM.from_centers(X[:4], sigma2=1.0, covariance_type="spherical")


# ----------------------------------------------------------------------------
# 6. The exact likelihood of the spherical model
# ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spherical_fit():
    X = _uneven_blobs(2000, seed=7)[0]
    gmm = vcgmm.VCGMM(24, G=3, coreset_size=None, covariance_type="spherical", random_state=0,
                      n_threads=1).fit(X)
    # Test points: training points, fresh draws, and far-away points (where
    # only the widest components keep any probability).
    rng = np.random.default_rng(11)
    T = np.vstack([X[:200], _uneven_blobs(200, seed=12)[0], rng.uniform(-200, 200, (20, 4))])
    return gmm, X, T


def test_score_samples_score_bic_aic_are_the_exact_spherical_likelihood(spherical_fit):
    gmm, X, T = spherical_fit
    assert np.ptp(gmm.covariances_) > 0 and np.ptp(gmm.weights_) > 0
    ref = logsumexp(_log_joint(T, gmm.means_, gmm.covariances_, gmm.weights_), axis=1)
    ll = gmm.score_samples(T)
    assert ll.shape == (T.shape[0],) and ll.dtype == np.float64
    np.testing.assert_allclose(ll, ref, rtol=1e-10, atol=1e-9)
    w = np.random.default_rng(1).uniform(0.5, 2.0, T.shape[0])
    assert gmm.score(T) == pytest.approx(ref.mean(), rel=1e-10)
    assert gmm.score(T, sample_weight=w) == pytest.approx(np.dot(w, ref) / w.sum(), rel=1e-10)
    k = 24 * (4 + 2) - 1
    assert gmm.bic(T) == pytest.approx(-2 * ref.sum() + k * np.log(T.shape[0]), rel=1e-10)
    assert gmm.aic(T) == pytest.approx(-2 * ref.sum() + 2 * k, rel=1e-10)
    # The shared model's likelihood of the same means is a different number.
    shared = logsumexp(_log_joint(T, gmm.means_, np.full(24, gmm.sigma2_), np.full(24, 1 / 24)),
                       axis=1)
    assert np.abs(shared - ref).max() > 1.0


def test_predict_proba_and_sparse_are_the_exact_spherical_posteriors(spherical_fit):
    gmm, X, T = spherical_fit
    lj = _log_joint(T, gmm.means_, gmm.covariances_, gmm.weights_)
    post = np.exp(lj - logsumexp(lj, axis=1)[:, None])
    P = gmm.predict_proba(T)
    assert P.shape == (T.shape[0], 24)
    np.testing.assert_allclose(P, post, rtol=0, atol=1e-10)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    # Sparse: the G components of largest log joint (not the G nearest
    # means: with uneven variances these differ), renormalized.
    G = gmm.G_
    order = np.argsort(-lj, axis=1, kind="stable")[:, :G]
    nearest = np.argsort(((T[:, None, :] - gmm.means_[None]) ** 2).sum(-1), axis=1)[:, :G]
    assert np.any(np.sort(order, 1) != np.sort(nearest, 1))
    S = gmm.predict_proba_sparse(T).toarray()
    ref = np.zeros_like(post)
    top = np.take_along_axis(lj, order, axis=1)
    np.put_along_axis(ref, order, np.exp(top - logsumexp(top, axis=1)[:, None]), axis=1)
    np.testing.assert_allclose(S, ref, rtol=0, atol=1e-10)
    assert np.all(np.count_nonzero(S, axis=1) <= G)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_core_spherical_scoring_with_zero_weights_and_threads(dtype):
    rng = np.random.default_rng(5)
    C, D = 700, 6  # more than one center tile (512 columns)
    means = rng.normal(0, 3, (C, D)).astype(dtype)
    var = rng.uniform(0.2, 4.0, C)
    pi = rng.uniform(0, 1, C)
    pi[::7] = 0.0  # components that cannot generate anything
    pi /= pi.sum()
    X = rng.normal(0, 3, (600, D)).astype(dtype)
    lj = _log_joint(X.astype(np.float64), means.astype(np.float64), var, pi)
    ref = logsumexp(lj, axis=1)
    tol = dict(rtol=1e-5, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-10)
    outs = [vcgmm._base.loader.core.gmm_log_likelihood_spherical(X, means, var, pi, t)
            for t in (1, 2, 3)]
    np.testing.assert_allclose(outs[0], ref, **tol)
    for o in outs[1:]:
        np.testing.assert_array_equal(o, outs[0])
    for k in (1, 5, C):
        res = [vcgmm._base.loader.core.gmm_truncated_posteriors_spherical(X, means, var, pi, k, t)
               for t in (1, 3)]
        idx, resp = res[0]
        np.testing.assert_array_equal(idx, res[1][0])
        np.testing.assert_array_equal(resp, res[1][1])
        assert idx.shape == resp.shape == (600, k)
        np.testing.assert_allclose(resp.sum(axis=1), 1.0, atol=1e-12)
        # most probable first, and every kept one at least as probable as any left out
        top = np.take_along_axis(lj, idx.astype(np.intp), axis=1)
        finite = np.where(np.isfinite(top), top, -1e300)  # weight 0: log joint -inf, last
        assert np.all(np.diff(finite, axis=1) <= 1e-6)
        if k < C:
            rest = lj.copy()
            np.put_along_axis(rest, idx.astype(np.intp), -np.inf, axis=1)
            assert np.all(rest.max(axis=1) <= top[:, -1] + 1e-6)
            assert not np.isin(idx, np.flatnonzero(pi == 0)).any()
        else:  # all components: the exact posteriors, weight 0 -> probability 0
            np.testing.assert_array_equal(np.sort(idx, axis=1), np.tile(np.arange(C), (600, 1)))
            dense = np.zeros((600, C))
            np.put_along_axis(dense, idx.astype(np.intp), resp, axis=1)
            np.testing.assert_allclose(dense, np.exp(lj - ref[:, None]), rtol=0,
                                       atol=1e-6 if dtype == np.float32 else 1e-11)
            assert np.all(dense[:, pi == 0] == 0.0)


def test_core_spherical_scoring_refuses_bad_components():
    core = vcgmm._base.loader.core
    X = np.zeros((3, 2))
    means = np.array([[0.0, 0.0], [1.0, 1.0]])
    good_var, good_pi = np.array([1.0, 2.0]), np.array([0.5, 0.5])
    bad = [(np.array([1.0, 0.0]), good_pi, "variance"),
           (np.array([1.0, np.nan]), good_pi, "variance"),
           (np.array([1.0, np.inf]), good_pi, "variance"),
           (good_var, np.array([1.5, -0.5]), "weight"),
           (good_var, np.array([0.5, np.nan]), "weight"),
           (good_var, np.array([0.5, 0.6]), "sum to 1"),
           (np.array([1.0]), good_pi, "variances must have shape"),
           (good_var, np.array([1.0]), "weights must have shape")]
    for var, pi, match in bad:
        with pytest.raises(ValueError, match=match):
            core.gmm_log_likelihood_spherical(X, means, var, pi, 1)
        with pytest.raises(ValueError, match=match):
            core.gmm_truncated_posteriors_spherical(X, means, var, pi, 1, 1)
    with pytest.raises(ValueError, match="k must be"):
        core.gmm_truncated_posteriors_spherical(X, means, good_var, good_pi, 3, 1)


def test_n_init_ranks_spherical_runs_by_the_exact_likelihood():
    X = _uneven_blobs(1500, seed=9)[0]
    kw = dict(G=3, coreset_size=None, covariance_type="spherical", max_iter=8, n_threads=1)
    one = vcgmm.VCGMM(24, random_state=4, **kw).fit(X)
    three = vcgmm.VCGMM(24, n_init=3, random_state=4, **kw).fit(X)
    # Run 0 of the three is the single run; the kept one is the most likely.
    assert three.score(X) >= one.score(X)
    assert three.n_distance_evals_["evaluation"] >= 3 * X.shape[0] * 24
