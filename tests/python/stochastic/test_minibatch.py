"""mbatch (MiniBatchKMeans, fit_mbatch) and nmbatch (NestedMiniBatchKMeans,
fit_nmbatch): numpy references of Sculley's algorithm and of "one sample,
one vote" for the same draws, partial_fit == fit on the same batches, the
bounds never change a result, the doubling rule, the memory budget, thread
independence, pickling."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import vcgmm
from vcgmm._base.loader import core
from vcgmm._base.run import seed_from


def _init(X, C, seed=0):
    return X[np.random.default_rng(seed).choice(X.shape[0], C, replace=False)].copy()


def _nearest(X, centers):
    d = ((X[:, None, :].astype(np.float64) - centers[None, :, :]) ** 2).sum(-1)
    return d.argmin(axis=1)


# ------------------------------------------------------------------------ mbatch

def _sculley_reference(X, w, centers, b, T, seed, rate="sklearn"):
    """Alg. 4 with Alg. 2 (v = 1 per initial center): c = S / v, for the
    batches fit_mbatch draws; rate "beta": c <- (1 - a) c + a mean, a =
    sqrt(b_j / b) (Schwartzman 2023), with the counts v kept as before."""
    c = np.array(centers, np.float64)
    v = np.ones(c.shape[0])
    for t in range(1, T + 1):
        rows = core.mbatch_batch_rows(X.shape[0], b, seed, t)
        xb, wb = X[rows], w[rows]
        lab = _nearest(xb, c)
        for j in np.unique(lab):
            m = lab == j
            s, ws = (wb[m, None] * xb[m]).sum(0), wb[m].sum()
            if rate == "beta":
                a = np.sqrt(ws / wb.sum())
                c[j] = (1 - a) * c[j] + a * (s / ws)
            else:
                c[j] = (v[j] * c[j] + s) / (v[j] + ws)
            v[j] += ws
    return c, v


@pytest.mark.parametrize("rate", ["sklearn", "beta"])
@pytest.mark.parametrize("weighted", [False, True])
def test_mbatch_matches_a_numpy_reference_of_sculley(make_blobs, weighted, rate):
    X = make_blobs(400, 5, 3, seed=1)[0]
    w = np.random.default_rng(2).uniform(0.5, 2.0, 400) if weighted else np.ones(400)
    init = _init(X, 5)
    r = vcgmm.fit_mbatch(X, 5, init=init, batch_size=30, max_iter=9, random_state=3,
                         reassignment_ratio=0.0, sample_weight=w if weighted else None,
                         n_threads=1, learning_rate=rate)
    ref_c, ref_v = _sculley_reference(X, w, init, 30, 9, seed_from(3), rate)
    other = _sculley_reference(X, w, init, 30, 9, seed_from(3),
                               "beta" if rate == "sklearn" else "sklearn")[0]
    assert np.abs(other - ref_c).max() > 1e-3  # the two rates differ on this data
    np.testing.assert_allclose(r.centers, ref_c, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.info["counts"], ref_v, rtol=1e-12)
    assert r.n_iter == 9 and not r.converged
    assert r.n_distance_evals["iterations"] == 9 * 30 * 5


@pytest.mark.parametrize("rate", ["sklearn", "beta"])
def test_partial_fit_over_chunks_equals_fit_on_the_same_batches(make_blobs, rate):
    X = make_blobs(500, 4, 3, seed=4)[0].astype(np.float32)
    w = np.random.default_rng(5).uniform(0.5, 2.0, 500)
    init = _init(X, 4)
    # partial_fit does not reassign rare centers
    fit = vcgmm.MiniBatchKMeans(4, init=init, batch_size=40, max_iter=6, random_state=7,
                                reassignment_ratio=0.0, n_threads=1,
                                learning_rate=rate).fit(X, sample_weight=w)
    part = vcgmm.MiniBatchKMeans(4, init=init, random_state=7, n_threads=1, learning_rate=rate)
    for t in range(1, 7):
        rows = core.mbatch_batch_rows(500, 40, seed_from(7), t)
        part.partial_fit(X[rows], sample_weight=w[rows])
    assert part.cluster_centers_.dtype == np.float32
    assert part.cluster_centers_.tobytes() == fit.cluster_centers_.tobytes()
    assert part.counts_.tobytes() == fit.counts_.tobytes()
    assert part.n_iter_ == fit.n_iter_ == 6
    # partial_fit continues a fit: its 7th batch gives fit(max_iter=7)
    rows = core.mbatch_batch_rows(500, 40, seed_from(7), 7)
    fit.partial_fit(X[rows], sample_weight=w[rows])
    longer = vcgmm.MiniBatchKMeans(4, init=init, batch_size=40, max_iter=7, random_state=7,
                                   reassignment_ratio=0.0, n_threads=1,
                                   learning_rate=rate).fit(X, sample_weight=w)
    assert fit.cluster_centers_.tobytes() == longer.cluster_centers_.tobytes()
    # labels_ and inertia_ of partial_fit: the batch with the updated centers
    np.testing.assert_array_equal(fit.labels_, vcgmm.assign(X[rows], fit.cluster_centers_))


def test_partial_fit_seeds_on_the_first_batch_and_pickles(make_blobs):
    X = make_blobs(300, 3, 2, seed=6)[0]
    for init in ("random", "k-means++", "afk-mc2"):
        km = vcgmm.MiniBatchKMeans(3, init=init, random_state=0, n_threads=1)
        km.partial_fit(X[:100])
        np.testing.assert_array_equal(km.counts_ >= 1, True)
        clone = pickle.loads(pickle.dumps(km))
        km.partial_fit(X[100:200])
        clone.partial_fit(X[100:200])
        assert km.cluster_centers_.tobytes() == clone.cluster_centers_.tobytes()
    with pytest.raises(ValueError, match="n_clusters"):
        vcgmm.MiniBatchKMeans(5, random_state=0).partial_fit(X[:3])


def _early_stop(objective, w_total, b, n, patience):
    """scikit-learn's rule on the batch objectives per unit weight: the batch
    after which the fit stops (None: it never does)."""
    alpha = min(1.0, 2.0 * b / (n + 1))
    ewa, best, without = None, np.inf, 0
    for t, q in enumerate(np.asarray(objective) / w_total, start=1):
        ewa = q if ewa is None else ewa * (1 - alpha) + q * alpha
        if ewa < best:
            best, without = ewa, 0
        else:
            without += 1
            if without >= patience:
                return t
    return None


@pytest.mark.parametrize("weighted", [False, True])
def test_mbatch_early_stop_is_scikit_learns_rule(make_blobs, weighted):
    """The fit stops at the first batch where the smoothed objective has not
    improved for max_no_improvement batches (a numpy replay of the trace),
    and is then the fit of that many batches without the rule."""
    X = make_blobs(3000, 4, 5, seed=11, std=2.0)[0]
    w = np.random.default_rng(1).uniform(0.5, 2.0, X.shape[0]) if weighted else None
    kw = dict(batch_size=200, random_state=4, n_threads=1)
    full = vcgmm.MiniBatchKMeans(5, max_iter=400, max_no_improvement=0, **kw).fit(
        X, sample_weight=w)
    assert full.n_iter_ == 400 and not full.converged_
    w_total = X.shape[0] if w is None else w.sum()
    for patience in (3, 10):
        stop = _early_stop(full.objective_, w_total, 200, X.shape[0], patience)
        assert stop is not None and stop < 400
        km = vcgmm.MiniBatchKMeans(5, max_iter=400, max_no_improvement=patience, **kw).fit(
            X, sample_weight=w)
        assert km.n_iter_ == stop and km.converged_
        np.testing.assert_array_equal(km.objective_, full.objective_[:stop])
        cut = vcgmm.MiniBatchKMeans(5, max_iter=stop, max_no_improvement=0, **kw).fit(
            X, sample_weight=w)
        assert km.cluster_centers_.tobytes() == cut.cluster_centers_.tobytes()


def test_mbatch_defaults_and_seeding_sample(make_blobs):
    X = make_blobs(2000, 4, 3, seed=8)[0]
    km = vcgmm.MiniBatchKMeans(4, random_state=0, n_threads=1).fit(X)
    assert km.batch_size_ == 2000 and km.max_no_improvement == 10  # "auto": min(5000, n)
    # greedy k-means++ (2 + ln 4 = 3 candidates) on min(n, 3 b) = 2000 rows:
    # (C - 1) steps of (L + 1) passes
    assert km.init == "k-means++" and km.n_local_trials == "auto"
    assert km.n_distance_evals_["seeding"] == 3 * 4 * 2000
    km = vcgmm.MiniBatchKMeans(4, init="random", random_state=0, n_threads=1).fit(X)
    assert km.n_distance_evals_["seeding"] == 0  # "random": no distances
    km = vcgmm.MiniBatchKMeans(4, init="k-means++", n_local_trials=1, batch_size=100, max_iter=2,
                               random_state=0, n_threads=1).fit(X)
    # classic k-means++ on min(n, 3 b) = 300 rows: (C - 1) passes over them
    assert km.n_distance_evals_["seeding"] == 300 * 3
    assert km.objective_.shape == km.objective_seconds_.shape == (2,)
    assert np.all(np.diff(km.objective_seconds_) >= 0)


def test_reassignment_moves_the_rare_centers_onto_batch_rows(make_blobs):
    # One center far from the data is never updated (count 1): after the first
    # 10 C = 40 rows it moves onto a row of that batch and takes the smallest
    # count kept; the other centers are Sculley's.
    X = make_blobs(400, 4, 3, seed=9)[0]
    init = _init(X, 4, seed=1)
    init[3] = X.max(axis=0) + 100.0
    w = np.ones(400)
    r = vcgmm.fit_mbatch(X, 4, init=init, batch_size=40, max_iter=1, random_state=5,
                         reassignment_ratio=0.5, n_threads=1)
    ref_c, ref_v = _sculley_reference(X, w, init, 40, 1, seed_from(5))
    rare = ref_v < 0.5 * ref_v.max()
    assert rare[3] and r.info["n_reassigned"] == rare.sum()
    np.testing.assert_allclose(r.centers[~rare], ref_c[~rare], rtol=1e-12)
    np.testing.assert_array_equal(r.info["counts"][~rare], ref_v[~rare])
    np.testing.assert_array_equal(r.info["counts"][rare], ref_v[~rare].min())
    batch = X[core.mbatch_batch_rows(400, 40, seed_from(5), 1)]
    for c in np.flatnonzero(rare):
        assert (batch == r.centers[c]).all(axis=1).any()
    # ratio 0: Sculley's mbatch, the far center stays
    r0 = vcgmm.fit_mbatch(X, 4, init=init, batch_size=40, max_iter=1, random_state=5,
                          reassignment_ratio=0.0, n_threads=1)
    np.testing.assert_allclose(r0.centers, ref_c, rtol=1e-12)
    assert r0.info["n_reassigned"] == 0


def test_every_cluster_is_used_after_a_bad_start(make_blobs):
    # Two initial centers far from all data are never nearest to a sample:
    # without reassignment their clusters stay empty; with it every cluster
    # holds points.
    X = make_blobs(6000, 6, 2, seed=10, std=0.3)[0]
    init = np.vstack([_init(X, 4, seed=2), X.max(axis=0) + [100.0, 0.0],
                      X.max(axis=0) + [0.0, 150.0]])
    def fit(ratio):
        return vcgmm.MiniBatchKMeans(6, init=init, batch_size=500, max_iter=50,
                                     reassignment_ratio=ratio, max_no_improvement=0,
                                     random_state=0, n_threads=1).fit(X)

    # the warning names the cause, not the data (6000 distinct points)
    with pytest.warns(ConvergenceWarning, match="reassignment_ratio=0, a larger value"):
        km = fit(0.0)
    assert (np.bincount(km.labels_, minlength=6) == 0).any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        km = fit(0.01)
    assert (np.bincount(km.labels_, minlength=6) > 0).all()


def test_reassignment_ratio_is_checked():
    X = np.random.default_rng(0).normal(size=(50, 2))
    for bad in (-0.1, 1.5, np.nan):
        with pytest.raises(ValueError, match="reassignment_ratio"):
            vcgmm.MiniBatchKMeans(3, reassignment_ratio=bad).fit(X)


def test_partial_fit_goes_on_from_centers_given_by_from_centers(make_blobs):
    X = make_blobs(600, 4, 3, seed=5)[0]
    init = X[[0, 150, 300, 450]].copy()
    given = vcgmm.MiniBatchKMeans.from_centers(init)
    seeded = vcgmm.MiniBatchKMeans(4, init=init, n_threads=1)
    for start in (0, 200, 400):
        given.partial_fit(X[start:start + 200])
        seeded.partial_fit(X[start:start + 200])
    np.testing.assert_array_equal(given.cluster_centers_, seeded.cluster_centers_)
    np.testing.assert_array_equal(given.counts_, seeded.counts_)
    assert given.n_steps_ == seeded.n_steps_ == 3


def test_weights_whose_counts_would_overflow_are_refused():
    # One pass over these weights is fine; 200,000 batches of them overflow the counts.
    X = np.random.default_rng(0).normal(size=(50, 2))
    w = np.full(50, 2e301)
    with pytest.raises(ValueError, match=r"sample_weight is too large.*max_iter \* batch_size"):
        vcgmm.MiniBatchKMeans(3, batch_size=50, max_iter=200_000, random_state=0).fit(
            X, sample_weight=w)
    km = vcgmm.MiniBatchKMeans(3, batch_size=50, max_iter=20, random_state=0).fit(
        X, sample_weight=w * 1e-7)
    assert np.isfinite(km.cluster_centers_).all() and np.isfinite(km.counts_).all()


def test_partial_fit_refuses_weights_whose_counts_would_overflow():
    X = np.random.default_rng(0).normal(size=(50, 2))
    w = np.full(50, 1e300)
    km = vcgmm.MiniBatchKMeans(3, random_state=0)
    with pytest.raises(ValueError, match="sample_weight is too large.*largest center count"):
        for _ in range(1000):
            km.partial_fit(X, sample_weight=w)
    # the refused call changed nothing
    assert np.isfinite(km.cluster_centers_).all() and np.isfinite(km.counts_).all()


# ----------------------------------------------------------------------- nmbatch

@pytest.fixture(scope="module")
def datasets(request):
    rng = np.random.default_rng(0)
    centers = rng.uniform(-6, 6, (12, 6))
    blobs = centers[rng.integers(0, 12, 4000)] + rng.standard_normal((4000, 6))
    from sklearn.datasets import load_digits

    return {
        "blobs": (blobs, None),
        "blobs32": (blobs.astype(np.float32), None),
        "weighted": (blobs, rng.uniform(0.2, 3.0, 4000)),
        "digits": (load_digits().data, None),
    }


@pytest.mark.parametrize("name", ["blobs", "blobs32", "weighted", "digits"])
def test_bounds_only_skip_and_never_change_a_result(datasets, name):
    X, w = datasets[name]
    kw = dict(batch_size=400, random_state=1, n_threads=2, sample_weight=w, return_labels=True)
    ref = vcgmm.fit_nmbatch(X, 20, bounds="none", **kw)
    assert ref.info["n_distances_skipped"] == 0
    for bounds, groups in (("elkan", "auto"), ("yinyang", 1), ("yinyang", 3), ("yinyang", 20)):
        r = vcgmm.fit_nmbatch(X, 20, bounds=bounds, n_groups=groups, **kw)
        assert r.centers.tobytes() == ref.centers.tobytes(), (bounds, groups)
        np.testing.assert_array_equal(r.labels, ref.labels)
        np.testing.assert_array_equal(r.objective, ref.objective)
        np.testing.assert_array_equal(r.info["batch_sizes"], ref.info["batch_sizes"])
        assert r.n_iter == ref.n_iter and r.converged == ref.converged
        # computed + skipped = the distances "none" computes, every iteration
        np.testing.assert_array_equal(
            r.info["distances_computed"] + r.info["distances_skipped"],
            ref.info["distances_computed"])
        assert r.info["n_distances_skipped"] > 0
    assert ref.converged


@pytest.mark.parametrize("T", [1, 2, 3, 6, 10])
def test_one_sample_one_vote(datasets, T):
    # Each center = the (weighted) mean of the rows of the used batch assigned
    # to it (by the previous centers), each row counted once.
    X, w = datasets["weighted"]
    C, seed = 15, 5
    init = _init(X, C, 1)
    kw = dict(init=init, batch_size=300, random_state=seed, n_threads=1, sample_weight=w)
    before = init if T == 1 else vcgmm.fit_nmbatch(X, C, max_iter=T - 1, **kw).centers
    r = vcgmm.fit_nmbatch(X, C, max_iter=T, **kw)
    b = r.info["batch_sizes"][-1]
    rows = core.nmbatch_sample_order(X.shape[0], seed_from(seed))[:b]
    lab = _nearest(X[rows], before)
    expected = before.copy()
    for j in np.unique(lab):
        m = lab == j
        expected[j] = np.average(X[rows][m], axis=0, weights=w[rows][m])
    np.testing.assert_allclose(r.centers, expected, rtol=1e-10, atol=1e-10)
    sizes = r.info["batch_sizes"]
    assert sizes[0] == 300 and np.all((sizes[1:] == sizes[:-1]) | (sizes[1:] == np.minimum(
        2 * sizes[:-1], X.shape[0])))


def test_converges_to_a_lloyd_fixed_point(datasets):
    X, _ = datasets["blobs"]
    km = vcgmm.NestedMiniBatchKMeans(12, batch_size=500, random_state=2, n_threads=2).fit(X)
    assert km.converged_ and km.batch_sizes_[-1] == X.shape[0]
    centers, info = vcgmm.lloyd(X, km.cluster_centers_, max_iter=1)
    np.testing.assert_allclose(centers, km.cluster_centers_, rtol=1e-12, atol=1e-12)
    assert km.inertia_ == pytest.approx(vcgmm.quantization_error(X, km.cluster_centers_))


def test_rho_infinity_doubles_only_when_no_center_moved(datasets):
    X, _ = datasets["blobs"]
    km = vcgmm.NestedMiniBatchKMeans(12, batch_size=500, rho=np.inf, random_state=2,
                                     n_threads=1).fit(X)
    sizes = km.batch_sizes_
    grew = np.flatnonzero(sizes[1:] > sizes[:-1])
    assert grew.size >= 3 and km.converged_
    for t in grew:  # iteration t moved nothing: no new rows and no reassignment
        assert t >= 1 and sizes[t] == sizes[t - 1]
        assert km.distances_computed_[t] + km.distances_skipped_[t] == sizes[t] * 12
    # a small rho doubles while centers still move: all rows sooner
    fast = vcgmm.NestedMiniBatchKMeans(12, batch_size=500, rho=0.1, random_state=2,
                                       n_threads=1).fit(X)
    assert np.argmax(fast.batch_sizes_ == 4000) < np.argmax(sizes == 4000)


@pytest.mark.parametrize("doubling", ["paper", "median"])
def test_the_first_doubling_decision_matches_a_numpy_reference(datasets, doubling):
    # Iteration 1 from the first C rows of the order on the first b0 rows:
    # the statistic (paper: min_j sigma_C(j) / p(j); median: the upper median
    # of rms(j) / p(j)), and a rho just below / above it doubles / does not.
    X, _ = datasets["blobs"]
    C, b0, seed = 7, 400, 9
    order = core.nmbatch_sample_order(X.shape[0], seed_from(seed))
    batch, c0 = X[order[:b0]].astype(np.float64), X[order[:C]].astype(np.float64)
    d2 = ((batch[:, None, :] - c0[None]) ** 2).sum(-1)
    labels = d2.argmin(axis=1)
    ratios = []
    for j in range(C):
        mine = labels == j
        v = int(mine.sum())
        p = np.linalg.norm(batch[mine].mean(axis=0) - c0[j]) if v else 0.0
        sse = d2[mine, j].sum()
        if p == 0.0 or (doubling == "paper" and v < 2):
            ratios.append(np.inf)
        elif doubling == "paper":
            ratios.append(np.sqrt(sse / (v * (v - 1))) / p)
        else:
            ratios.append(np.sqrt(sse / v) / p)
    stat = min(ratios) if doubling == "paper" else sorted(ratios)[C // 2]
    assert np.isfinite(stat) and stat > 0
    for rho, doubles in ((stat * (1 - 1e-9), True), (stat * (1 + 1e-9), False)):
        r = vcgmm.fit_nmbatch(X, C, batch_size=b0, rho=rho, doubling=doubling, max_iter=2,
                              random_state=seed, n_threads=1)
        assert r.info["batch_sizes"].tolist() == [b0, 2 * b0 if doubles else b0], (rho, stat)


def test_first_rows_of_the_order_are_the_random_init(datasets):
    X, _ = datasets["blobs"]
    order = core.nmbatch_sample_order(X.shape[0], seed_from(9))
    a = vcgmm.fit_nmbatch(X, 7, max_iter=1, random_state=9, n_threads=1)
    b = vcgmm.fit_nmbatch(X, 7, max_iter=1, init=X[order[:7]], random_state=9, n_threads=1)
    assert a.centers.tobytes() == b.centers.tobytes()
    assert sorted(order.tolist()) == list(range(X.shape[0]))
    # a D^2 seeding (classic: one candidate per step) runs on the first batch only
    km = vcgmm.NestedMiniBatchKMeans(7, init="k-means++", n_local_trials=1, batch_size=250,
                                     max_iter=1,
                                     random_state=9, n_threads=1).fit(X)
    assert km.n_distance_evals_["seeding"] == 250 * 6


def test_bounds_memory_budget_chooses_the_bounds(datasets):
    X, _ = datasets["blobs"]  # 4000 rows: elkan at C = 40 needs 640,000 bytes
    kw = dict(batch_size=500, max_iter=3, random_state=0, n_threads=1)
    km = vcgmm.NestedMiniBatchKMeans(40, **kw).fit(X)
    assert km.bounds_ == "elkan" and km.n_bound_groups_ == 40 and km.bounds_bytes_ == 640_000
    km = vcgmm.NestedMiniBatchKMeans(40, bounds_memory=600_000, **kw).fit(X)
    assert km.bounds_ == "yinyang" and km.n_bound_groups_ == 4  # ceil(C / 10) of Ding et al.
    km = vcgmm.NestedMiniBatchKMeans(40, bounds_memory=3 * 16_000, **kw).fit(X)
    assert km.bounds_ == "yinyang" and km.n_bound_groups_ == 3  # what the budget holds
    km = vcgmm.NestedMiniBatchKMeans(40, bounds="none", **kw).fit(X)
    assert km.bounds_ == "none" and km.bounds_bytes_ == 0


def test_time_budget_stops_early(datasets):
    X, _ = datasets["digits"]
    km = vcgmm.NestedMiniBatchKMeans(30, batch_size=100, rho=np.inf, time_budget=1e-9,
                                     random_state=0, n_threads=1).fit(X)
    assert km.n_iter_ == 1 and not km.converged_


@pytest.mark.parametrize("make", [
    lambda t: vcgmm.fit_mbatch(_DATA, 20, batch_size=700, max_iter=5, random_state=1,
                               n_threads=t, return_labels=True),
    lambda t: vcgmm.fit_nmbatch(_DATA, 20, batch_size=700, random_state=1, n_threads=t,
                                return_labels=True),
    lambda t: vcgmm.fit_nmbatch(_DATA, 20, batch_size=700, bounds="yinyang", random_state=1,
                                n_threads=t, sample_weight=_WEIGHTS, return_labels=True),
    lambda t: vcgmm.fit_nmbatch(_DATA, 20, batch_size=700, init="k-means++", max_iter=8,
                                random_state=1, n_threads=t),
], ids=["mbatch", "nmbatch-elkan", "nmbatch-yinyang-weighted", "nmbatch-kmeans++"])
def test_results_do_not_depend_on_the_thread_count(assert_thread_independent, make):
    assert_thread_independent(make)


_rng = np.random.default_rng(11)
_DATA = (_rng.uniform(-5, 5, (25, 8))[_rng.integers(0, 25, 6000)]
         + _rng.standard_normal((6000, 8))).astype(np.float32)
_WEIGHTS = _rng.uniform(0.5, 2.0, 6000)


def test_pickle_round_trip_and_float32(datasets):
    X, _ = datasets["blobs32"]
    for est in (vcgmm.MiniBatchKMeans(5, max_iter=3, random_state=0),
                vcgmm.NestedMiniBatchKMeans(5, random_state=0)):
        est.fit(X)
        assert est.cluster_centers_.dtype == np.float32
        clone = pickle.loads(pickle.dumps(est))
        np.testing.assert_array_equal(clone.predict(X), est.predict(X))
        assert clone.score(X) == est.score(X) == -est.inertia_


def test_batch_size_limits_name_the_argument(datasets):
    X, _ = datasets["digits"]
    with pytest.raises(ValueError, match="batch_size=1798"):
        vcgmm.MiniBatchKMeans(5, batch_size=1798).fit(X)
    with pytest.raises(ValueError, match=r"batch_size=9 .*n_clusters \(10\)"):
        vcgmm.NestedMiniBatchKMeans(10, batch_size=9).fit(X)
    with pytest.raises(ValueError, match="batch_size=600"):
        vcgmm.fit_nmbatch(X, 10, batch_size=600, coreset_size=500)
    with pytest.raises(ValueError, match="rho"):
        vcgmm.fit_nmbatch(X, 10, rho=0.0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        vcgmm.fit_nmbatch(X, 10, learning_rate=0.5)


# ------------------------------------------------------- distance-evaluation counts

def _elkan_counts_reference(X, C, init, order, batch_sizes):
    """nmbatch with exact (float64) Elkan bounds, for the batch sizes the core
    chose: per iteration, the distances computed and the ones a bound ruled
    out, counted pair by pair (Alg. 1: the assigned center first, then every
    other center unless l(i, j) > the best distance so far)."""
    n, d = X.shape
    c = np.array(init, np.float64)
    p = np.zeros(C)
    labels = np.full(n, -1)
    bounds = np.zeros((n, C))
    sums, weight = np.zeros((C, d)), np.zeros(C)
    computed, skipped = [], []
    b_prev = 0
    for b_t in batch_sizes:
        comp = skip = 0
        for k in range(b_prev):
            x, a = X[order[k]], labels[k]
            bounds[k] -= p
            d_a = np.sqrt(((x - c[a]) ** 2).sum())
            best, best_j = d_a, a
            comp += 1
            for j in range(C):
                if j == a:
                    continue
                if bounds[k, j] > best:
                    skip += 1
                    continue
                dj = np.sqrt(((x - c[j]) ** 2).sum())
                comp += 1
                bounds[k, j] = dj
                if dj < best or (dj == best and j < best_j):
                    best, best_j = dj, j
            if best_j != a:
                bounds[k, a] = d_a
                sums[a] -= x
                weight[a] -= 1
                sums[best_j] += x
                weight[best_j] += 1
                labels[k] = best_j
        new = X[order[b_prev:b_t]]
        dist = np.sqrt(_sq_dists_all(new, c))
        bounds[b_prev:b_t] = dist
        labels[b_prev:b_t] = dist.argmin(axis=1)
        for k, j in zip(range(b_prev, b_t), labels[b_prev:b_t]):
            sums[j] += X[order[k]]
            weight[j] += 1
        comp += (b_t - b_prev) * C
        old = c.copy()
        nonempty = weight > 0
        c[nonempty] = sums[nonempty] / weight[nonempty, None]
        p = np.sqrt(((c - old) ** 2).sum(axis=1))
        computed.append(comp)
        skipped.append(skip)
        b_prev = b_t
    return c, np.array(computed), np.array(skipped)


def _sq_dists_all(X, centers):
    return ((X[:, None, :] - centers[None, :, :]) ** 2).sum(-1)


def test_nmbatch_distance_counts_match_a_brute_force_count(make_blobs):
    X = make_blobs(1500, 10, 5, seed=13)[0]
    C, seed = 12, 4
    order = core.nmbatch_sample_order(X.shape[0], seed_from(seed))
    init = X[order[:C]]  # the paper's initialisation ("random": the first C rows)
    kw = dict(batch_size=200, random_state=seed, n_threads=2)
    none = vcgmm.fit_nmbatch(X, C, bounds="none", **kw)
    elkan = vcgmm.fit_nmbatch(X, C, bounds="elkan", **kw)
    sizes = elkan.info["batch_sizes"]
    assert sizes[-1] == X.shape[0] and elkan.converged
    # no bounds: every (row, center) pair of the batch, every iteration
    np.testing.assert_array_equal(none.info["distances_computed"], sizes * C)
    assert none.n_distance_evals["iterations"] == (sizes * C).sum()
    # Elkan: computed + skipped is that same brute-force count ...
    comp, skip = elkan.info["distances_computed"], elkan.info["distances_skipped"]
    np.testing.assert_array_equal(comp + skip, sizes * C)
    assert elkan.n_distance_evals["iterations"] == comp.sum()
    assert elkan.info["n_distances_skipped"] == skip.sum()
    # ... and the split follows exact-arithmetic Elkan bounds pair by pair:
    # the core's float32 bounds are rounded down (rigorous), so a pair at the
    # very edge of the test may be computed instead of skipped: a handful.
    ref_c, ref_comp, ref_skip = _elkan_counts_reference(X, C, init, order, sizes)
    np.testing.assert_allclose(elkan.centers, ref_c, rtol=1e-10, atol=1e-10)
    assert np.abs(comp - ref_comp).max() <= max(3, 1e-3 * (sizes * C).max())
    np.testing.assert_array_equal(comp + skip, ref_comp + ref_skip)
    # the bounds do their job: most of the reused rows' distances are skipped
    assert skip.sum() > 0.5 * (sizes[:-1] * (C - 1)).sum()


def test_mbatch_distance_counts(make_blobs):
    X = make_blobs(1000, 4, 3, seed=14)[0]
    r = vcgmm.fit_mbatch(X, 6, batch_size=77, max_iter=13, init="k-means++", n_local_trials=1,
                         random_state=0, n_threads=1, return_labels=True)
    # seeding: k-means++ on min(n, 3 b) = 231 rows, C - 1 passes; iterations:
    # b C per batch; evaluation: all n C
    assert r.n_distance_evals == {**r.n_distance_evals, "seeding": 231 * 5,
                                  "iterations": 13 * 77 * 6, "evaluation": 1000 * 6}
