"""Hard refinement after EM (vc-GMM's ``refine``).

What is checked, against numpy references computed here:

- one refinement step assigns every point to the nearest mean of its search
  space S(n) = union of G_c over c in K(n) (with G = C: the exact nearest mean
  of all C; ``refine_search="exact"``: of all C for any G; ``"approx"``: a
  mean never nearer than the exact nearest one, and never farther than the
  previous label), moves every cluster no point chose onto the points
  farthest from their means (as ``vcgmm.lloyd``), and every mean to the
  weighted mean of its points; it returns the weighted quantization error of
  the assignment; with ``"exact"`` a step is ``vcgmm.lloyd(max_iter=1)`` on
  the coreset;
- the weighted quantization error of the assignments never increases over
  the steps (the previous label is always in S(n));
- ``fit(refine=k)`` = the papers' loop (``refine=0``) followed by k steps, bit
  for bit, and ``refine=0`` leaves EM's result untouched;
- the refinement is its own phase of the costs; 1, 2 and 3 threads give
  bit-identical results.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import vcgmm


def _loop_after_em(X, C, G, w, seed, **kw):
    mu0 = X[np.random.default_rng(seed).choice(X.shape[0], C, replace=False)]
    kw.setdefault("refine_search", "restricted")
    loop = vcgmm.VariationalLoop(X, mu0, G=G, sample_weight=w, random_state=seed,
                                 n_threads=1, refine=0, **kw)
    for _ in range(4):
        loop.e_step()
        loop.m_step()
    return loop


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_G_equal_C_refinement_is_an_exact_lloyd_step(dtype, make_blobs, hard_step):
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
        expected, _ = hard_step.relocated(exact, d2[np.arange(X.shape[0]), exact], C)
        np.testing.assert_array_equal(labels, expected)
        assert q == pytest.approx(np.sum(w * d2[np.arange(X.shape[0]), exact]), rel=1e-5)
        np.testing.assert_allclose(loop.means, hard_step.weighted_means(X, w, expected, before),
                                   rtol=1e-5 if dtype == np.float32 else 1e-10, atol=1e-5)


@pytest.mark.parametrize("plus1", [False, True])
def test_refinement_assigns_within_the_search_space(plus1, make_blobs, hard_step):
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
        found = best.copy()
        if plus1:  # the "+1" draw may add one cluster nearer than all of S(n)
            n_outside += int(np.sum(~in_S))
            assert np.all(d2[~in_S, labels[~in_S]] < d2[~in_S, best[~in_S]])
            found[~in_S] = labels[~in_S]
        else:
            assert in_S.all()
        rows = np.arange(X.shape[0])
        expected, n_moved = hard_step.relocated(found, d2[rows, found], 60)
        assert n_moved == 0  # every cluster keeps points here (relocation: its own test)
        np.testing.assert_array_equal(labels, expected)
        assert q == pytest.approx(np.sum(w * d2[rows, found]), rel=1e-10)
        np.testing.assert_allclose(loop.means, hard_step.weighted_means(X, w, labels, before),
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
    # EM is the same; then the means move (and sigma^2 is refitted about them)
    np.testing.assert_array_equal(refined.free_energy, papers.free_energy)
    assert refined.n_iter == papers.n_iter and refined.sigma2 != papers.sigma2
    np.testing.assert_array_equal(refined.estep_distance_evals, papers.estep_distance_evals)
    assert papers.refine_objective.shape == (0,)
    assert papers.n_distance_evals["refinement"] == 0 and papers.timings["refinement"] == 0.0
    assert not np.array_equal(refined.centers, papers.centers)

    loop = vcgmm.VariationalLoop(X, mu0, G=3, random_state=4, n_threads=1, refine=0)
    loop.fit()
    np.testing.assert_array_equal(loop.means, papers.centers)
    # split-merge moves after every step but the last (the default split_merge)
    steps = [loop.refine_step(split_merge=k < 3) for k in range(4)]
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
    r = vcgmm.fit_vcgmm(X, 40, G, N_fit, refine=k, refine_search="restricted", random_state=0,
                        n_threads=1, return_labels=True, data_steps=0)
    assert set(r.timings) == set(r.n_distance_evals) == {
        "coreset", "seeding", "iterations", "refinement", "evaluation"}
    # k steps and the variances' refit, each at most one search of N' G^2
    assert 0 < r.n_distance_evals["refinement"] <= (k + 1) * N_fit * G * G
    assert r.n_distance_evals["iterations"] == r.estep_distance_evals.sum()
    assert r.timings["refinement"] > 0
    assert r.algorithm_seconds == pytest.approx(
        r.timings["coreset"] + r.timings["seeding"] + r.timings["iterations"]
        + r.timings["refinement"], rel=1e-12)
    np.testing.assert_array_equal(r.labels, vcgmm.assign(X, r.centers, n_threads=1))
    est = vcgmm.VCGMM(40, G=G, coreset_size=N_fit, refine=k, refine_search="restricted",
                      data_steps=0, random_state=0, n_threads=1).fit(X)
    np.testing.assert_array_equal(est.cluster_centers_, r.centers)
    assert est.n_distance_evals_["refinement"] == r.n_distance_evals["refinement"]


def test_default_refine_is_read_from_the_core():
    assert vcgmm.VCGMM().refine == vcgmm._base.loader.core.VcgmmParams().em.refine
    # chosen by measurement (see the docstring); refine=0 is the papers' vc-GMM
    assert vcgmm.VCGMM().refine == 3 and vcgmm.VCGMM().refine_search == "approx"


@pytest.mark.parametrize("plus1", [False, True])
@pytest.mark.parametrize("search", ["restricted", "approx", "exact"])
def test_refinement_does_not_depend_on_the_thread_count(plus1, search, patches,
                                                        assert_thread_independent):
    # ~134,000 x 108: three E-step blocks; C = 100 > 64: several M-step tasks.
    def run(n_threads):
        return vcgmm.fit_vargmm(patches, 100, G=3, plus1=plus1, max_iter=3, tol=0, refine=3,
                                refine_search=search, random_state=3, n_threads=n_threads)

    r = assert_thread_independent(run)
    assert r.refine_objective.shape == (3,)


# ---------------------------------------------------------------------------
# refine_search: the assignment over all means ("exact", "approx"), and the
# relocation of clusters no point chose
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exact_search_step_is_a_lloyd_step_on_the_coreset(dtype, make_blobs):
    # G = 3 of C = 60 on overlapping blobs: the truncated search misses
    # nearest means; refine_search="exact" is one Lloyd step over all 60
    # (vcgmm.lloyd, empty clusters relocated) from EM's means, on the coreset.
    X, _, _ = make_blobs(6000, 60, 6, seed=21, std=2.0, dtype=dtype)
    kw = dict(G=3, random_state=5, n_threads=1, data_steps=0)
    papers = vcgmm.fit_vcgmm(X, 60, coreset_size=2000, refine=0, **kw)
    one = vcgmm.fit_vcgmm(X, 60, coreset_size=2000, refine=1, refine_search="exact", **kw)
    Y, w = X[papers.coreset_indices], papers.coreset_weights
    centers, info = vcgmm.lloyd(Y, papers.centers, sample_weight=w, max_iter=1, tol=0,
                                n_threads=1)
    np.testing.assert_allclose(one.centers, centers, rtol=1e-5 if dtype == np.float32 else 1e-10,
                               atol=1e-4 if dtype == np.float32 else 1e-10)
    assert one.refine_objective[0] == pytest.approx(info["objective"][0], rel=1e-6)
    assert one.refine_relocated.tolist() == [info["n_relocated"]]
    # the step's scan, then the variances' refit (one search of at most G^2 + 1)
    assert Y.shape[0] * 60 < one.n_distance_evals["refinement"] <= Y.shape[0] * (60 + 10)
    # the restricted step's error is above the exact one here (what it misses)
    restricted = vcgmm.fit_vcgmm(X, 60, coreset_size=2000, refine=1,
                                 refine_search="restricted", **kw)
    assert restricted.refine_objective[0] > one.refine_objective[0]


def test_approx_search_labels_are_near_nearest_and_never_worse_than_before(make_blobs, hard_step):
    X, _, _ = make_blobs(6000, 200, 8, seed=23, std=2.0)
    w = np.random.default_rng(24).uniform(0.5, 2.0, X.shape[0])
    loop = _loop_after_em(X, 200, 3, w, seed=6, refine_search="approx")
    n_exact = 0
    previous_q = np.inf
    for _ in range(3):
        K_before, before = loop.truncation_sets.copy(), loop.means
        q = loop.refine_step()
        labels = loop.truncation_sets[:, 0]
        d2 = cdist(X, before, "sqeuclidean")
        rows = np.arange(X.shape[0])
        nearest = d2.min(axis=1)
        # never nearer than the exact nearest mean, never farther than the previous label
        assert np.all(d2[rows, labels] >= nearest * (1 - 1e-12))
        assert np.all(d2[rows, labels] <= d2[rows, K_before[:, 0]] * (1 + 1e-12))
        n_exact += int(np.sum(d2[rows, labels] <= nearest * (1 + 1e-12)))
        assert q == pytest.approx(np.sum(w * d2[rows, labels]), rel=1e-10)
        assert q <= previous_q
        previous_q = q
        # K(n) holds distinct clusters, the label first, then the old K(n)
        K = loop.truncation_sets
        assert all(len(set(k)) == K.shape[1] for k in K)
        np.testing.assert_allclose(loop.means, hard_step.weighted_means(X, w, labels, before),
                                   rtol=1e-10, atol=1e-10)
    assert n_exact >= 0.95 * 3 * X.shape[0]
    # fewer evaluations than a full scan of the 200 means (index build included)
    r = vcgmm.fit_vargmm(X, 200, G=3, refine=1, refine_search="approx", split_merge=False,
                         random_state=0, n_threads=1)
    assert 0 < r.n_distance_evals["refinement"] < X.shape[0] * 200 / 2


def test_a_cluster_no_point_chooses_is_moved_onto_the_farthest_point(make_blobs):
    X, _, _ = make_blobs(2000, 10, 3, seed=25)
    w = np.ones(X.shape[0])
    mu0 = X[np.random.default_rng(3).choice(X.shape[0], 10, replace=False)].copy()
    mu0[7] = 1e3  # far from every point: no point ever chooses it
    for search in ("restricted", "approx", "exact"):
        loop = vcgmm.VariationalLoop(X, mu0, G=3, sample_weight=w, random_state=1, n_threads=1,
                                     refine_search=search)
        for _ in range(3):
            loop.e_step()
            loop.m_step()
        assert np.all(loop.means[7] == 1e3)  # EM keeps a mean of zero mass
        before, K, Gc = loop.means, loop.truncation_sets, loop.neighbourhoods
        d2 = cdist(X, before, "sqeuclidean")
        if search == "restricted":  # the nearest mean of S(n)
            found = np.array([d2[n, np.unique(Gc[K[n]])].min() for n in range(X.shape[0])])
        else:  # of all means (approx: the same on these separated blobs)
            found = d2.min(axis=1)
        loop.refine_step()
        far = int(np.argmax(found))
        assert loop.truncation_sets[far, 0] == 7, search
        np.testing.assert_array_equal(loop.means[7], X[far])
    r = vcgmm.fit_vargmm(X, 10, G=3, init=mu0, refine=2, refine_search="exact",
                         split_merge=False, random_state=1, n_threads=1)
    assert r.refine_relocated.tolist() == [1, 0]
    assert np.all(np.diff(r.refine_objective) <= 0)


@pytest.mark.parametrize("search", ["restricted", "approx", "exact"])
def test_quantization_error_never_increases_with_every_search(search, make_blobs):
    X, _, _ = make_blobs(4000, 80, 5, seed=7, std=1.5)
    r = vcgmm.fit_vcgmm(X, 80, G=3, coreset_size=2000, refine=8, refine_search=search,
                        random_state=0, n_threads=1)
    q = r.refine_objective
    assert q.shape == (8,) and r.refine_relocated.shape == (8,)
    assert np.all(np.diff(q) <= 1e-12 * q[0]), q
    assert q[-1] < q[0]


def test_default_refine_search_is_read_from_the_core():
    assert vcgmm.VCGMM().refine_search == vcgmm._base.loader.core.VcgmmParams().em.refine_search


@pytest.mark.parametrize("bad", ["full", "", None, 1])
def test_bad_refine_search_is_refused(bad, make_blobs):
    X, _, _ = make_blobs(500, 5, 3, seed=1)
    with pytest.raises((ValueError, TypeError), match="refine_search"):
        vcgmm.fit_vcgmm(X, 5, 3, 200, refine=1, refine_search=bad)


@pytest.mark.parametrize("covariance_type", ["shared", "spherical"])
def test_variances_are_refitted_about_the_refined_means(covariance_type, make_blobs):
    # G = C makes the E-step exact, so the refit has a closed form: soft
    # responsibilities with EM's variances and weights at the refined means,
    # then the variances (spherical: and weights) about those means.
    X, _, _ = make_blobs(600, 6, 3, seed=3)
    N, D = X.shape
    mu0 = X[np.random.default_rng(1).choice(N, 6, replace=False)]
    kw = dict(G=6, init=mu0, random_state=0, n_threads=1, covariance_type=covariance_type,
              max_iter=30)
    em = vcgmm.fit_vargmm(X, 6, refine=0, **kw)
    ref = vcgmm.fit_vargmm(X, 6, refine=2, **kw)
    assert not np.allclose(ref.centers, em.centers)
    d2 = cdist(X, ref.centers, "sqeuclidean")

    def log_joint(var, pi):
        return np.log(pi) - 0.5 * D * np.log(2 * np.pi * var) - d2 / (2 * var)

    lj = log_joint(em.variances, em.mixing_weights)
    resp = np.exp(lj - lj.max(1, keepdims=True))
    resp /= resp.sum(1, keepdims=True)
    mass, sq = resp.sum(0), (resp * d2).sum(0)
    if covariance_type == "shared":
        np.testing.assert_allclose(ref.sigma2, sq.sum() / (D * N), rtol=1e-10)
        np.testing.assert_array_equal(ref.mixing_weights, np.full(6, 1 / 6))
    else:
        np.testing.assert_allclose(ref.variances, sq / (D * mass), rtol=1e-10)
        np.testing.assert_allclose(ref.mixing_weights, mass / N, rtol=1e-10)
    # the refit cannot lower the (here exact) log-likelihood of the refined means
    def loglik(var, pi):
        lj = log_joint(var, pi)
        m = lj.max(1)
        return float((m + np.log(np.exp(lj - m[:, None]).sum(1))).sum())

    before = loglik(em.variances, em.mixing_weights)
    after = loglik(ref.variances, ref.mixing_weights)
    assert after >= before
    est = vcgmm.VCGMM(6, coreset_size=None, refine=2, **kw).fit(X)
    np.testing.assert_array_equal(est.cluster_centers_, ref.centers)
    np.testing.assert_allclose(est.lower_bound_, after / N, rtol=1e-10)


# ---------------------------------------------------------------------------
# initial_sets="nearest": each point's nearest initial mean first in K(n)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("search", ["exact", "approx", "restricted"])
def test_nearest_initial_sets_put_the_nearest_mean_first(search, make_blobs):
    X, _, _ = make_blobs(4000, 80, 6, seed=31, std=0.5)
    mu0 = X[np.random.default_rng(1).choice(4000, 80, replace=False)]
    nearest = vcgmm.assign(X, mu0, n_threads=1)
    loop = vcgmm.VariationalLoop(X, mu0, G=4, initial_sets="nearest", refine_search=search,
                                 random_state=2, n_threads=1)
    papers = vcgmm.VariationalLoop(X, mu0, G=4, random_state=2, n_threads=1)
    K = loop.truncation_sets
    assert all(len(set(row)) == 4 for row in K)  # still G distinct clusters
    hit = np.mean(K[:, 0] == nearest)
    if search == "exact":
        assert hit == 1.0
        assert loop.n_distance_evals == 4000 * 80  # the labelling, before any E-step
    else:  # the approximate cell index ("restricted" starts from it too)
        assert hit > 0.95
    assert np.mean(papers.truncation_sets[:, 0] == nearest) < 0.2  # random: 4 of 80
    assert papers.n_distance_evals == 0


def test_nearest_initial_sets_keep_well_separated_clusters(make_blobs, assert_thread_independent):
    # Well-separated blobs: from random K(n) the first M-step averages points
    # of other clusters and EM ends well above exact EM (G = C); from the
    # nearest means it ends where exact EM does.
    X, _, _ = make_blobs(20000, 150, 16, seed=41, std=0.3)
    kw = dict(coreset_size=6000, init="k-means++", refine=0, data_steps=0)

    def fit(n_threads, **more):
        return vcgmm.fit_vcgmm(X, 150, 4, random_state=3, n_threads=n_threads, **kw, **more)

    def error(r):
        return vcgmm.quantization_error(X, r.centers)

    exact = error(vcgmm.fit_vcgmm(X, 150, 150, random_state=3, n_threads=2, **kw))
    near = assert_thread_independent(functools.partial(fit, initial_sets="nearest"))
    papers = fit(2)
    assert error(near) <= 1.01 * exact
    assert error(papers) > 1.2 * exact
