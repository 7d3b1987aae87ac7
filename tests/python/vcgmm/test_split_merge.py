"""Split-merge moves between vc-GMM's refinement steps (``split_merge``).

What is checked, against a numpy reference of one round written here from
the specification (cpp/src/vcgmm/split_merge.hpp):

- after a refinement step's M-step (``refine_step(split_merge=True)``),
  every cluster's weight, its 2-means split gain (from its farthest point
  and that point's mirror image through its mean, 3 iterations), its
  cheapest merge (Ward's cost) into a candidate (G_c and the clusters whose
  neighbourhood holds c), the empty clusters (ascending) paired with the
  largest gains, then the greedy pairing of the cheapest merges with the
  largest gains while gain > 4 x cost, the moved means (merged mean; the
  split's two halves) and the neighbourhoods (the halves each other's first
  neighbour) are those of the reference, for G < C and G = C (all clusters
  candidates), with and without empty clusters;
- on blobs seeded with two means in one blob and one mean between two, one
  round leaves one mean per blob;
- the refinement's objective stays non-increasing with the moves, and on
  well-separated blobs with C = the number of blobs the fit ends far lower
  than without them; the steps go on past ``refine`` while a round gains;
  1, 2 and 3 threads give the same bits;
- ``split_merge=False``, ``refine_search="restricted"`` and ``refine=0``
  make no move and no extra step.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import vcgmm

MARGIN = 4.0
SPLIT_ITERATIONS = 3


def _split(Xc, wc, mean):
    """(gain, a, b): 2-means of one cluster's points (positive weights)."""
    keep = wc > 0
    Xc, wc = Xc[keep], wc[keep]
    a = mean.astype(np.float64)
    d2 = ((Xc - a) ** 2).sum(1)
    if Xc.shape[0] < 2 or not np.any(d2 > 0):
        return 0.0, None, None
    sse = np.sum(wc * d2)
    b = Xc[np.argmax(d2)].copy()
    a = 2.0 * a - b
    for _ in range(SPLIT_ITERATIONS):
        side = ((Xc - b) ** 2).sum(1) < ((Xc - a) ** 2).sum(1)
        if side.all() or not side.any():
            return 0.0, None, None
        a = np.average(Xc[~side], axis=0, weights=wc[~side])
        b = np.average(Xc[side], axis=0, weights=wc[side])
    split = np.sum(wc * np.minimum(((Xc - a) ** 2).sum(1), ((Xc - b) ** 2).sum(1)))
    return max(0.0, sse - split), a, b


def _split_merge_reference(X, w, labels, means, Gc, margin=MARGIN):
    """One round on the partition `labels` whose means are `means`; returns
    (new means, number of pairs, new neighbourhoods)."""
    C = means.shape[0]
    mass = np.bincount(labels, weights=w, minlength=C)
    empty = np.bincount(labels, minlength=C) == 0
    splits = [_split(X[labels == c], w[labels == c], means[c]) for c in range(C)]
    gain = np.array([s[0] for s in splits])
    cost = np.full(C, np.inf)
    partner = np.full(C, -1)
    for c in range(C):
        # G_c, and every cluster whose neighbourhood holds c; no empty cluster
        candidates = range(C) if Gc is None else set(Gc[c]) | set(np.nonzero(Gc == c)[0])
        for q in sorted(candidates):
            if q == c or empty[c] or empty[q]:
                continue
            m = mass[c] + mass[q]
            cq = mass[c] * mass[q] / m * np.sum((means[c] - means[q]) ** 2) if m > 0 else 0.0
            if cq < cost[c] or (cq == cost[c] and q < partner[c]):
                cost[c], partner[c] = cq, q
    by_cost = sorted(range(C), key=lambda c: (cost[c], c))
    by_gain = sorted(range(C), key=lambda c: (-gain[c], c))
    used = np.zeros(C, bool)
    out = means.astype(np.float64).copy()
    new_Gc = None if Gc is None else Gc.copy()
    pairs = 0

    def move(r, s):
        out[s], out[r] = splits[s][1], splits[s][2]
        if new_Gc is not None and Gc.shape[1] >= 2:  # the halves side by side
            rest = [g for g in Gc[s][1:] if g != r][:Gc.shape[1] - 2]
            new_Gc[s] = [s, r] + rest
            new_Gc[r] = [r, s] + rest

    for r in np.nonzero(empty)[0]:  # merges that cost nothing
        used[r] = True
        free = [s for s in by_gain if not used[s]]
        if free and gain[free[0]] > 0:
            used[free[0]] = True
            move(r, free[0])
    for r in by_cost:
        q = partner[r]
        if q < 0 or used[r] or used[q]:
            continue
        free = [s for s in by_gain if not used[s] and s != r and s != q]
        if not free:
            break
        s = free[0]
        if not gain[s] > margin * cost[r]:
            break
        used[[r, q, s]] = True
        if mass[r] + mass[q] > 0:
            out[q] = (mass[r] * means[r] + mass[q] * means[q]) / (mass[r] + mass[q])
        move(r, s)
        pairs += 1
    return out, pairs, new_Gc


def _bad_seeding(seed, n_blobs=12, per_blob=60, d=8):
    """Blobs far apart, and initial means: one per blob for all but the last
    two, a second one in blob 0, one half-way between the last two blobs."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-30, 30, size=(n_blobs, d))
    truth = np.repeat(np.arange(n_blobs), per_blob)
    X = centers[truth] + rng.standard_normal((truth.size, d))
    mu0 = np.vstack([centers[:n_blobs - 2] + 0.3 * rng.standard_normal((n_blobs - 2, d)),
                     centers[:1] + 0.5 * rng.standard_normal((1, d)),
                     0.5 * (centers[-2:-1] + centers[-1:])])
    return X, truth, centers, mu0


def _one_round(X, w, mu0, G, hard_step):
    """One refinement step with split-merge moves from `mu0` (exact search),
    checked against the reference: its labels (the exact nearest of the
    means after EM), the step's means, G_c (None with G = C) and the pairs."""
    loop = vcgmm.VariationalLoop(X, mu0, G=G, sample_weight=w, random_state=3, n_threads=1,
                                 refine=0, refine_search="exact")
    loop.e_step()
    Gc = None if G == mu0.shape[0] else loop.neighbourhoods.copy()
    before = loop.means.astype(np.float64)
    loop.refine_step(split_merge=True)
    labels = np.argmin(cdist(X, before, "sqeuclidean"), axis=1)
    np.testing.assert_array_equal(loop.truncation_sets[:, 0], labels)
    stepped = hard_step.weighted_means(X, w, labels, before)
    expected, pairs, new_Gc = _split_merge_reference(X, w, labels, stepped, Gc)
    np.testing.assert_allclose(loop.means, expected, rtol=1e-9, atol=1e-9)
    if Gc is not None:
        np.testing.assert_array_equal(loop.neighbourhoods, new_Gc)
    return loop, labels, stepped, Gc, pairs


@pytest.mark.parametrize("G", [4, None])
def test_one_round_is_the_reference(G, hard_step):
    X, _, centers, mu0 = _bad_seeding(1)
    w = np.random.default_rng(2).uniform(0.5, 2.0, X.shape[0])
    C = mu0.shape[0]
    loop, labels, _, _, pairs = _one_round(X, w, mu0, C if G is None else G, hard_step)
    assert np.unique(labels).size == C  # no empty cluster
    assert pairs >= 1
    # one mean per blob: the duplicate merged, the mean between two blobs split
    nearest = np.argmin(cdist(centers, loop.means), axis=1)
    assert np.unique(nearest).size == C


def test_an_empty_cluster_takes_a_half_of_the_largest_split(hard_step):
    # One more mean far from every point: no point chooses it. It takes a half
    # of the largest split (the mean between the last two blobs) at no cost,
    # not the farthest point; the duplicate in blob 0 pairs with the next one.
    X, _, centers, mu0 = _bad_seeding(4)
    mu0 = np.vstack([mu0[:3], [np.full(X.shape[1], 500.0)], mu0[3:]])
    w = np.random.default_rng(2).uniform(0.5, 2.0, X.shape[0])
    loop, labels, _, _, _ = _one_round(X, w, mu0, 4, hard_step)
    assert 3 not in labels
    # the far mean now sits in one of the two blobs the middle mean served
    assert np.min(cdist(loop.means[3:4], centers[-2:])) < 3.0
    assert np.unique(np.argmin(cdist(centers, loop.means), axis=1)).size == centers.shape[0]


def test_one_round_is_the_reference_where_the_margin_decides(hard_step):
    # Gaussian data: gains and costs are of one size, so the margin decides
    X = np.random.default_rng(5).standard_normal((3000, 6))
    w = np.random.default_rng(6).uniform(0.5, 2.0, X.shape[0])
    C = 60
    mu0 = X[np.random.default_rng(7).choice(X.shape[0], C, replace=False)]
    _, labels, stepped, Gc, pairs = _one_round(X, w, mu0, 5, hard_step)
    assert pairs != _split_merge_reference(X, w, labels, stepped, Gc, margin=MARGIN / 2)[1]


def test_empty_cluster_with_the_restricted_search():
    # refine_step(split_merge=True) called directly with refine_search="restricted"
    # (the fit never pairs them): the mean no point chose still takes a half
    # of a split, and the step's error is finite.
    X = np.random.default_rng(0).standard_normal((2000, 5))
    mu0 = np.vstack([X[:30], np.full((1, 5), 50.0)])
    loop = vcgmm.VariationalLoop(X, mu0, G=4, random_state=3, n_threads=1, refine=0,
                                 refine_search="restricted")
    loop.e_step()
    assert np.isfinite(loop.refine_step(split_merge=True))
    assert np.abs(loop.means[30]).max() < 10.0


def test_without_split_merge_the_step_is_plain(hard_step):
    X, _, _, mu0 = _bad_seeding(1)
    w = np.ones(X.shape[0])
    loop = vcgmm.VariationalLoop(X, mu0, G=4, random_state=3, n_threads=1, refine=0,
                                 refine_search="exact")
    loop.e_step()
    before = loop.means.astype(np.float64)
    loop.refine_step()
    labels = np.argmin(cdist(X, before, "sqeuclidean"), axis=1)
    np.testing.assert_allclose(loop.means, hard_step.weighted_means(X, w, labels, before),
                               rtol=1e-12)


def _separated_blobs(make_blobs):
    X, truth, centers = make_blobs(8000, 40, 32, spread=20.0, seed=7)
    return X, truth, centers


# Random seeds leave about a third of 40 equal blobs without a mean.
SEEDED = dict(coreset_size=2048, init="random", random_state=0)


def test_fit_on_separated_blobs_ends_near_the_truth(make_blobs):
    X, truth, centers = _separated_blobs(make_blobs)
    truth_error = np.mean(np.sum((X - centers[truth]) ** 2, axis=1))
    kw = dict(SEEDED, n_threads=1, data_steps=0)
    on = vcgmm.fit_vcgmm(X, 40, **kw)
    off = vcgmm.fit_vcgmm(X, 40, split_merge=False, **kw)
    err = {name: np.mean(np.min(cdist(X, r.centers, "sqeuclidean"), axis=1))
           for name, r in (("on", on), ("off", off))}
    assert on.refine_split_merges[0] > 0
    assert np.all(np.diff(on.refine_objective) <= 0)
    assert err["on"] < 0.8 * err["off"]
    assert err["on"] < 1.1 * truth_error


def test_same_bits_on_1_2_3_threads(make_blobs):
    X, _, _ = _separated_blobs(make_blobs)
    X = X.astype(np.float32)
    runs = [vcgmm.fit_vcgmm(X, 40, n_threads=t, **SEEDED)
            for t in (1, 2, 3)]
    assert runs[0].refine_split_merges.sum() > 0
    for r in runs[1:]:
        np.testing.assert_array_equal(r.centers, runs[0].centers)
        np.testing.assert_array_equal(r.refine_split_merges, runs[0].refine_split_merges)


@pytest.mark.parametrize("kw", [dict(split_merge=False), dict(refine_search="restricted"),
                                dict(refine=0)])
def test_no_moves(kw, make_blobs):
    X, _, _ = _separated_blobs(make_blobs)
    r = vcgmm.fit_vcgmm(X, 40, n_threads=1, **SEEDED, **kw)
    assert r.refine_split_merges.shape == (kw.get("refine", 3),)
    assert r.refine_objective.shape == (kw.get("refine", 3),)
    assert not np.any(r.refine_split_merges)


def test_steps_go_on_while_a_round_gains(make_blobs):
    X, _, _ = _separated_blobs(make_blobs)
    r = vcgmm.fit_vcgmm(X, 40, n_threads=1, refine=1, data_steps=0, **SEEDED)
    # a round after every step; one that gained earns one more step
    assert r.refine_objective.shape[0] > 1
    assert r.refine_objective.shape == r.refine_split_merges.shape
    assert np.all(r.refine_split_merges[:-1] > 0)
    assert np.all(np.diff(r.refine_objective) < 0)


def test_estimator_parameter(make_blobs):
    X, _, _ = _separated_blobs(make_blobs)
    est = vcgmm.VCGMM(40, n_threads=1, **SEEDED)
    assert est.get_params()["split_merge"] is True
    with pytest.raises(TypeError, match="split_merge"):
        vcgmm.VCGMM(40, split_merge="yes").fit(X)
    off = vcgmm.VCGMM(40, n_threads=1, split_merge=False, **SEEDED)
    assert est.fit(X).inertia_ < off.fit(X).inertia_
    assert vcgmm.VCGMM.paper(40).get_params()["refine"] == 0  # the papers' vc-GMM: no moves
