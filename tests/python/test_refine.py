"""Hard refinement after EM (vc-GMM's ``refine``; issue 13, item 1).

What is checked, against numpy references computed here:

- one refinement step assigns every point to the nearest mean of its search
  space S(n) = union of G_c over c in K(n) (with G = C: the exact nearest mean
  of all C) and moves every mean to the weighted mean of its points (a mean
  without points stays); it returns the weighted quantization error of the
  assignment;
- the weighted quantization error of the assignments never increases over
  the steps (the previous label is always in S(n));
- ``fit(refine=k)`` = the papers' loop (``refine=0``) followed by k steps, bit
  for bit, and ``refine=0`` leaves EM's result untouched;
- the refinement is its own phase of the costs; 1, 2 and 3 threads give
  bit-identical results.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import vcgmm


def _weighted_means(X, w, labels, old_means):
    means = old_means.astype(np.float64).copy()
    for c in range(means.shape[0]):
        mask = labels == c
        if mask.any():
            means[c] = np.average(X[mask].astype(np.float64), axis=0, weights=w[mask])
    return means


def _loop_after_em(X, C, G, w, seed, **kw):
    mu0 = X[np.random.default_rng(seed).choice(X.shape[0], C, replace=False)]
    loop = vcgmm.VariationalLoop(X, mu0, G=G, sample_weight=w, random_state=seed,
                                 n_threads=1, refine=0, **kw)
    for _ in range(4):
        loop.e_step()
        loop.m_step()
    return loop


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_G_equal_C_refinement_is_an_exact_lloyd_step(dtype, make_blobs):
    X, _, _ = make_blobs(1500, 12, 3, seed=3, dtype=dtype)
    w = np.random.default_rng(4).uniform(0.5, 2.0, X.shape[0])
    C = 12
    loop = _loop_after_em(X, C, C, w, seed=1)
    for _ in range(3):
        before = loop.means.astype(np.float64)
        q = loop.refine_step()
        d2 = cdist(X.astype(np.float64), before, "sqeuclidean")
        exact = np.argmin(d2, axis=1)
        labels = loop.truncation_sets[:, 0]
        np.testing.assert_array_equal(labels, exact)
        assert q == pytest.approx(np.sum(w * d2[np.arange(X.shape[0]), exact]), rel=1e-5)
        np.testing.assert_allclose(loop.means, _weighted_means(X, w, exact, before),
                                   rtol=1e-5 if dtype == np.float32 else 1e-10, atol=1e-5)


@pytest.mark.parametrize("plus1", [False, True])
def test_refinement_assigns_within_the_search_space(plus1, make_blobs):
    X, _, _ = make_blobs(3000, 60, 4, seed=5)
    w = np.random.default_rng(6).uniform(0.5, 2.0, X.shape[0])
    G = 3
    loop = _loop_after_em(X, 60, G, w, seed=2, plus1=plus1)
    n_outside = 0
    for _ in range(3):
        K, Gc, before = loop.truncation_sets, loop.neighbourhoods, loop.means
        q = loop.refine_step()
        labels = loop.truncation_sets[:, 0]
        d2 = cdist(X, before, "sqeuclidean")
        S = [np.unique(Gc[K[n]].ravel()) for n in range(X.shape[0])]
        best = np.array([s[np.argmin(d2[n, s])] for n, s in enumerate(S)])
        in_S = np.array([labels[n] in S[n] for n in range(X.shape[0])])
        if plus1:  # the "+1" draw may add one cluster nearer than all of S(n)
            n_outside += int(np.sum(~in_S))
            ok = in_S
            assert np.all(d2[~in_S, labels[~in_S]] < d2[~in_S, best[~in_S]])
        else:
            assert in_S.all()
            ok = np.ones(X.shape[0], bool)
        np.testing.assert_array_equal(labels[ok], best[ok])
        assert q == pytest.approx(np.sum(w * d2[np.arange(X.shape[0]), labels]), rel=1e-10)
        np.testing.assert_allclose(loop.means, _weighted_means(X, w, labels, before),
                                   rtol=1e-10, atol=1e-10)
        # no full scan: at most G^2 (+1) distances per point
    assert loop.n_distance_evals > 0
    if not plus1:
        assert n_outside == 0


@pytest.mark.parametrize("plus1", [False, True])
@pytest.mark.parametrize("fit", ["vc-GMM", "var-GMM-S"])
def test_quantization_error_never_increases_over_refinement(fit, plus1, make_blobs):
    X, _, _ = make_blobs(4000, 80, 5, seed=7, std=1.5)
    kw = dict(G=3, plus1=plus1, refine=12, random_state=0, n_threads=1)
    r = (vcgmm.fit_vcgmm(X, 80, coreset_size=2000, **kw) if fit == "vc-GMM"
         else vcgmm.fit_vargmm(X, 80, **kw))
    q = r.refine_objective
    assert q.shape == (12,)
    assert np.all(np.diff(q) <= 1e-12 * q[0]), q
    assert q[-1] < q[0]  # the steps do something on overlapping blobs


def test_fit_is_the_papers_loop_followed_by_refinement_steps(make_blobs):
    X, _, _ = make_blobs(3000, 40, 4, seed=9)
    mu0 = X[np.random.default_rng(0).choice(X.shape[0], 40, replace=False)]
    kw = dict(G=3, init=mu0, random_state=4, n_threads=1)
    papers = vcgmm.fit_vargmm(X, 40, refine=0, **kw)
    refined = vcgmm.fit_vargmm(X, 40, refine=4, **kw)
    # EM is the same; only the means move afterwards
    np.testing.assert_array_equal(refined.free_energy, papers.free_energy)
    assert refined.sigma2 == papers.sigma2 and refined.n_iter == papers.n_iter
    np.testing.assert_array_equal(refined.estep_distance_evals, papers.estep_distance_evals)
    assert papers.refine_objective.shape == (0,)
    assert papers.n_distance_evals["refinement"] == 0 and papers.timings["refinement"] == 0.0
    assert not np.array_equal(refined.centers, papers.centers)

    loop = vcgmm.VariationalLoop(X, mu0, G=3, random_state=4, n_threads=1, refine=0)
    loop.fit()
    np.testing.assert_array_equal(loop.means, papers.centers)
    steps = [loop.refine_step() for _ in range(4)]
    np.testing.assert_array_equal(loop.means, refined.centers)
    np.testing.assert_array_equal(steps, refined.refine_objective)
    # and the loop's own fit runs the same steps
    loop2 = vcgmm.VariationalLoop(X, mu0, G=3, random_state=4, n_threads=1, refine=4)
    out = loop2.fit()
    np.testing.assert_array_equal(loop2.means, refined.centers)
    np.testing.assert_array_equal(out["refine_objective"], refined.refine_objective)


def test_refinement_is_its_own_phase(make_blobs):
    X, _, _ = make_blobs(3000, 40, 4, seed=11)
    N_fit, G, k = 1000, 3, 3
    r = vcgmm.fit_vcgmm(X, 40, G, N_fit, refine=k, random_state=0, n_threads=1,
                        return_labels=True)
    assert set(r.timings) == set(r.n_distance_evals) == {
        "coreset", "seeding", "iterations", "refinement", "evaluation"}
    assert 0 < r.n_distance_evals["refinement"] <= k * N_fit * G * G
    assert r.n_distance_evals["iterations"] == r.estep_distance_evals.sum()
    assert r.timings["refinement"] > 0
    assert r.algorithm_seconds == pytest.approx(
        r.timings["coreset"] + r.timings["seeding"] + r.timings["iterations"]
        + r.timings["refinement"], rel=1e-12)
    np.testing.assert_array_equal(r.labels, vcgmm.assign(X, r.centers, n_threads=1))
    est = vcgmm.VCGMM(40, G=G, coreset_size=N_fit, refine=k, random_state=0, n_threads=1).fit(X)
    np.testing.assert_array_equal(est.cluster_centers_, r.centers)
    assert est.n_distance_evals_["refinement"] == r.n_distance_evals["refinement"]


def test_default_refine_is_read_from_the_core():
    assert vcgmm.VCGMM().refine == vcgmm._loader.core.VcgmmParams().em.refine
    assert vcgmm.VCGMM().refine == 0  # the papers' vc-GMM unless asked (see the docstring)


@pytest.mark.parametrize("plus1", [False, True])
def test_refinement_does_not_depend_on_the_thread_count(plus1, patches,
                                                        assert_thread_independent):
    # ~134,000 x 108: three E-step blocks; C = 100 > 64: several M-step tasks.
    def run(n_threads):
        return vcgmm.fit_vargmm(patches, 100, G=3, plus1=plus1, max_iter=3, tol=0, refine=3,
                                random_state=3, n_threads=n_threads)

    r = assert_thread_independent(run)
    assert r.refine_objective.shape == (3,)
