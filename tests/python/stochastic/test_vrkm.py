"""VRKM and VRKM++ (VRKMeans, fit_vrkm): a numpy reference of the paper's
epochs (Alg. 3 and 4) for the same draws -- sequential inner loop, the
authors'-code update rule, the blocked variant --, VRKM == VRKM++ (the
paper's equivalence), the position correction equals the partition means,
blocked vs sequential within noise, objective decreasing over epochs,
distance-evaluation counts, thread independence, bad input, pickling."""

from __future__ import annotations

import pickle
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning

import vcgmm
from vcgmm._base.loader import core
from vcgmm._base.run import seed_from


def _init(X, C, seed=0):
    return X[np.random.default_rng(seed).choice(X.shape[0], C, replace=False)].copy()


def _sq_dists(X, centers):
    return ((X[:, None, :].astype(np.float64) - centers[None, :, :]) ** 2).sum(-1)


def _vrkm_reference(X, w, init, *, eta, T, max_epochs, tol, seed, variant="vrkm++",
                    rule="svrg", block=1):
    """Alg. 3 (variant="vrkm") / Alg. 4 ("vrkm++") in float64 for the rows
    fit_vrkm draws (core.vrkm_epoch_rows): per epoch the full pass, the
    position correction, T single-row updates. block > 1: our blocked
    variant (nearest centers of a block of draws against the centers at the
    block's start, updates in draw order). Returns the centers, the
    objective trace and the moved-updates per epoch."""
    n, C = X.shape[0], init.shape[0]
    weights = np.ones(n) if w is None else w
    c = np.array(init, np.float64)
    objective, n_updates = [], []
    for e in range(1, max_epochs + 1):
        d2 = _sq_dists(X, c)
        ref_label = d2.argmin(axis=1)
        min_d2 = d2[np.arange(n), ref_label]
        Q = float((weights * min_d2).sum())
        objective.append(Q)
        # empty clusters onto the farthest points (largest distance first, ties: lower row)
        empty = np.setdiff1d(np.arange(C), ref_label)
        far = np.lexsort((np.arange(n), -min_d2))[:empty.size]
        ref_label[far] = empty
        if e > 1 and empty.size == 0 and abs(objective[-2] - Q) <= tol * Q:
            break
        # position correction (empty clusters keep their centers)
        ref = c.copy()
        grad = np.zeros_like(c)
        for j in np.unique(ref_label):
            m = ref_label == j
            mean = (weights[m, None] * X[m]).sum(0) / weights[m].sum()
            if variant == "vrkm":
                g = ref[j] - mean               # Alg. 2: grad f~(c~)
                ref[j] = ref[j] - g             # c~new = c~ - grad
                grad[j] = ref[j] - mean         # Alg. 3 line 7: grad f~(c~new)
            else:
                ref[j] = mean                   # eq. 8
        c = ref.copy()
        rows = core.vrkm_epoch_rows(n, w, T, seed, e)
        moved = 0
        for s in range(0, T, block):
            blk = rows[s:s + block]
            labels = _sq_dists(X[blk], c).argmin(axis=1)
            for k, i in enumerate(blk):
                x = X[i].astype(np.float64)
                a = labels[k] if block > 1 else _sq_dists(x[None], c)[0].argmin()
                r = ref_label[i]
                if a != r:
                    c[a] -= eta * (c[a] - x)
                    c[r] += eta * (ref[r] - x)
                    if variant == "vrkm":
                        c -= eta * grad
                    moved += 1
                elif rule == "svrg":
                    # Alg. 3/4 compare center vectors, x{C_t} != x{C~new}: the
                    # same label still steps by grad f_i(c_a) - grad f_i(c~new_a)
                    c[a] += eta * (ref[a] - c[a])
                    if variant == "vrkm":
                        c -= eta * grad
                    moved += 1
        n_updates.append(moved)
    return c, np.array(objective), np.array(n_updates)


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(3)
    centers = rng.uniform(-4, 4, (6, 3))
    X = centers[rng.integers(0, 6, 300)] + rng.standard_normal((300, 3))
    return X, rng.uniform(0.5, 2.0, 300)


@pytest.mark.parametrize("variant", ["vrkm++", "vrkm"])
@pytest.mark.parametrize("rule", ["svrg", "label-change"])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_a_numpy_reference_of_the_sequential_loop(small, variant, rule, weighted):
    X, w = small
    w = w if weighted else None
    C, eta, T = 6, 0.05, 200
    init = _init(X, C, 1)
    r = vcgmm.fit_vrkm(X, C, init=init, variant=variant, update_rule=rule, learning_rate=eta,
                       epoch_size=T, max_epochs=6, tol=0.0, random_state=4, sample_weight=w,
                       n_threads=1)
    ref_c, ref_obj, ref_moved = _vrkm_reference(X, w, init, eta=eta, T=T, max_epochs=6, tol=0.0,
                                                seed=seed_from(4), variant=variant, rule=rule)
    np.testing.assert_allclose(r.centers, ref_c, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(r.objective, ref_obj, rtol=1e-10)
    np.testing.assert_array_equal(r.info["n_updates"], ref_moved)
    # tol = 0 stops only at an exact fixed point (the objective repeats)
    assert r.n_iter == ref_moved.size >= 4 and r.converged == (ref_obj.size > ref_moved.size)
    assert r.info["learning_rate"] == eta and r.info["epoch_size"] == T
    if rule == "label-change":  # a draw that keeps its reference label changes nothing
        assert 0 < ref_moved.sum() < ref_moved.size * T
    else:
        assert np.all(ref_moved == T)


def test_the_two_rules_differ_and_the_old_names_still_work(small):
    X, _ = small
    kw = dict(init=_init(X, 6, 1), learning_rate=0.05, epoch_size=200, max_epochs=3, tol=0.0,
              random_state=4, n_threads=1)
    svrg = vcgmm.fit_vrkm(X, 6, update_rule="svrg", **kw)
    label = vcgmm.fit_vrkm(X, 6, update_rule="label-change", **kw)
    assert np.abs(svrg.centers - label.centers).max() > 1e-6
    np.testing.assert_array_equal(vcgmm.fit_vrkm(X, 6, **kw).centers, svrg.centers)  # default
    for old, new in [("reference-code", svrg), ("paper", label)]:
        with pytest.warns(FutureWarning, match=f"update_rule={old!r} is now named"):
            r = vcgmm.fit_vrkm(X, 6, update_rule=old, **kw)
        np.testing.assert_array_equal(r.centers, new.centers)
        with pytest.warns(FutureWarning):
            est = vcgmm.VRKMeans(6, update_rule=old, **kw).fit(X)
        assert est.get_params()["update_rule"] == old  # as given (scikit-learn's convention)
        np.testing.assert_array_equal(est.cluster_centers_, new.centers)


@pytest.mark.parametrize("block", [7, 64])
def test_blocked_variant_matches_its_numpy_reference(small, block):
    X, w = small
    init = _init(X, 6, 2)
    r = vcgmm.fit_vrkm(X, 6, init=init, learning_rate=0.05, epoch_size=250, max_epochs=5,
                       tol=0.0, block_size=block, random_state=8, sample_weight=w, n_threads=2)
    ref_c, ref_obj, ref_moved = _vrkm_reference(X, w, init, eta=0.05, T=250, max_epochs=5,
                                                tol=0.0, seed=seed_from(8), block=block)
    np.testing.assert_allclose(r.centers, ref_c, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(r.objective, ref_obj, rtol=1e-10)
    np.testing.assert_array_equal(r.info["n_updates"], ref_moved)


def test_stopping_rule_matches_the_reference(small):
    X, _ = small
    init = _init(X, 6, 5)
    r = vcgmm.fit_vrkm(X, 6, init=init, random_state=1, n_threads=1)
    # defaults: eta = C / n, T = n, tol = 1e-4
    ref_c, ref_obj, _ = _vrkm_reference(X, None, init, eta=6 / 300, T=300, max_epochs=100,
                                        tol=1e-4, seed=seed_from(1))
    assert r.converged and r.n_iter == ref_obj.size - 1
    assert r.info["learning_rate"] == 6 / 300 and r.info["epoch_size"] == 300
    np.testing.assert_allclose(r.objective, ref_obj, rtol=1e-10)
    np.testing.assert_allclose(r.centers, ref_c, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("rule", ["svrg", "label-change"])
def test_vrkm_and_vrkm_plus_plus_give_the_same_iterates(make_blobs, rule):
    # The paper's equivalence (eq. 8, 9): c~ - grad f~(c~) is the partition
    # mean and grad f~(c~new) = 0, so VRKM's extra terms vanish up to rounding.
    X = make_blobs(3000, 10, 5, seed=2)[0]
    w = np.random.default_rng(1).uniform(0.5, 2.0, 3000)
    kw = dict(init="k-means++", update_rule=rule, max_epochs=8, tol=0.0, random_state=6,
              sample_weight=w, n_threads=2)
    a = vcgmm.fit_vrkm(X, 10, variant="vrkm++", **kw)
    b = vcgmm.fit_vrkm(X, 10, variant="vrkm", **kw)
    np.testing.assert_allclose(a.centers, b.centers, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(a.objective, b.objective, rtol=1e-12)
    np.testing.assert_array_equal(a.info["n_updates"], b.info["n_updates"])


@pytest.mark.parametrize("variant", ["vrkm++", "vrkm"])
def test_position_correction_is_the_partition_means(make_blobs, variant):
    # One draw per epoch, at a rate so small that no draw leaves its cluster
    # from the means: C_T = C~new, the weighted means of the first partition
    # (the svrg step of a draw that keeps its label is eta (c~new_a - c_a) = 0).
    X, truth, _ = make_blobs(2000, 5, 4, seed=9)
    w = np.random.default_rng(2).uniform(0.5, 2.0, 2000)
    init = np.stack([X[truth == j][0] for j in range(5)])
    r = vcgmm.fit_vrkm(X, 5, init=init, variant=variant, epoch_size=1, max_epochs=1,
                       random_state=0, sample_weight=w, n_threads=1)
    assert r.info["n_updates"].tolist() == [1]
    labels = _sq_dists(X, init).argmin(axis=1)
    means = np.stack([np.average(X[labels == j], axis=0, weights=w[labels == j])
                      for j in range(5)])
    np.testing.assert_allclose(r.centers, means, rtol=1e-12, atol=1e-12)


def test_empty_cluster_keeps_its_center_in_the_papers_loop():
    X = np.array([[0.0], [0.1], [0.2], [10.0], [10.1]])
    init = np.array([[0.0], [10.0], [100.0]])  # the third center holds no point
    r = vcgmm.fit_vrkm(X, 3, init=init, epoch_size=1, max_epochs=1, learning_rate=1e-6,
                       relocate_empty=False, random_state=0, n_threads=1)
    assert r.centers[2, 0] == 100.0
    np.testing.assert_allclose(r.centers[:2, 0], [0.1, 10.05], atol=1e-5)
    assert r.info["n_relocated"] == 0


def test_empty_cluster_moves_onto_the_farthest_point():
    X = np.array([[0.0], [0.1], [0.2], [10.0], [10.1]])
    init = np.array([[0.0], [10.0], [100.0]])
    r = vcgmm.fit_vrkm(X, 3, init=init, epoch_size=1, max_epochs=1, learning_rate=1e-6,
                       random_state=0, n_threads=1)
    # 0.2 is the farthest from its center (0.0): it becomes the third cluster
    np.testing.assert_allclose(r.centers[:, 0], [0.05, 10.05, 0.2], atol=1e-5)
    assert r.info["n_relocated"] == 1


# (at 0.1 only the label-change rule empties clusters on these data)
@pytest.mark.parametrize("rule, eta", [("label-change", 0.1), ("svrg", 0.3), ("svrg", 1.0)])
def test_large_learning_rates_keep_every_cluster(rule, eta):
    # Without relocation these legal rates collapse the fit to one or two clusters.
    X = np.random.default_rng(0).standard_normal((2000, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        km = vcgmm.VRKMeans(5, learning_rate=eta, update_rule=rule, random_state=0,
                            n_threads=2).fit(X)
    assert np.unique(km.labels_).size == 5
    assert km.n_relocated_ > 0
    lloyd = vcgmm.KMeans(5, random_state=0, n_threads=2).fit(X)
    assert km.inertia_ <= 1.4 * lloyd.inertia_  # was 1.76x at eta = 1 (one cluster)
    paper = vcgmm.VRKMeans(5, learning_rate=eta, update_rule=rule, relocate_empty=False,
                           random_state=0, n_threads=2)
    with pytest.warns(ConvergenceWarning, match="relocate_empty=False"):
        paper.fit(X)
    assert paper.n_relocated_ == 0


def _epoch_trace(X, C, **kw):
    # the paper's start: classic k-means++ (one candidate per step)
    return vcgmm.VRKMeans(C, n_local_trials=1, random_state=0, n_threads=2, **kw).fit(X)


@pytest.mark.parametrize("data", ["blobs", "digits"])
@pytest.mark.parametrize("variant", ["vrkm++", "vrkm"])
def test_objective_decreases_over_epochs(make_blobs, data, variant):
    X = make_blobs(5000, 20, 6, seed=5)[0] if data == "blobs" else load_digits().data
    km = _epoch_trace(X, 20, variant=variant, tol=0.0, max_epochs=12)
    # the energy at the start of every epoch (the trace the paper plots)
    obj = km.objective_
    # tol = 0 stops only at an exact fixed point, where the objective repeats
    # (the svrg rule reaches one on the blobs: its steps vanish at the means)
    assert obj.shape == (12,)
    assert (km.n_iter_ == 12 and not km.converged_) or (km.converged_ and obj[-1] == obj[-2])
    # every epoch lowers the full-data quantization error (the typical case,
    # these seeds), and the last one is at least 5% below the k-means++ start
    assert np.all(np.diff(obj) <= 1e-9 * obj[:-1]), np.diff(obj)
    assert obj[-1] < 0.95 * obj[0]
    # the final inner loop is stochastic too: its end may be a hair worse
    # than its start (digits: +1e-4 relative), never by more than noise
    assert km.inertia_ <= obj[-1] * (1 + 1e-3)
    # the trace's time stamps: 0 for the initial centers, then increasing
    assert km.objective_seconds_[0] == 0 and np.all(np.diff(km.objective_seconds_) >= 0)
    assert set(km.epoch_timings_) == {"full_pass", "correction", "inner_loop"}


@pytest.mark.parametrize("data", ["blobs", "digits"])
def test_blocked_is_within_noise_of_sequential(make_blobs, data):
    # Blocked labels go stale within a block; at eta = C / n the centers move
    # little per block, so the result stays within the seed-to-seed spread.
    X = make_blobs(6000, 25, 6, seed=7)[0] if data == "blobs" else load_digits().data
    C = 25
    seq, blk = [], []
    for seed in range(3):
        kw = dict(max_epochs=10, tol=0.0, random_state=seed, n_threads=2)
        seq.append(vcgmm.VRKMeans(C, **kw).fit(X).inertia_)
        blk.append(vcgmm.VRKMeans(C, block_size=256, **kw).fit(X).inertia_)
    seq, blk = np.array(seq), np.array(blk)
    # per seed: the same local optimum region (relative gap well under 1%)
    np.testing.assert_allclose(blk, seq, rtol=5e-3)
    assert abs(blk.mean() - seq.mean()) <= 5e-3 * seq.mean()


def test_distance_evaluation_counts(small):
    X, w = small
    n, C, T = X.shape[0], 6, 123
    r = vcgmm.fit_vrkm(X, C, init=_init(X, C), epoch_size=T, max_epochs=50, random_state=0,
                       sample_weight=w, n_threads=1, return_labels=True)
    assert r.converged
    # every epoch: the full pass (n C) and the inner loop (T C); then the
    # full pass that saw the objective stop changing
    assert r.n_distance_evals["iterations"] == r.n_iter * (n + T) * C + n * C
    assert r.objective.shape == (r.n_iter + 1,)
    assert r.n_distance_evals["seeding"] == 0 and r.n_distance_evals["evaluation"] == n * C
    km = vcgmm.VRKMeans(C, epoch_size=T, max_epochs=4, tol=0.0, random_state=0,
                        n_threads=1).fit(X)
    # stopped by max_epochs: one more full pass looks for clusters the last inner loop emptied
    assert km.n_distance_evals_["iterations"] == 4 * (n + T) * C + n * C
    # greedy k-means++ seeding (the default): C - 1 steps of L + 1 passes over
    # the n points, L = 2 + ln C candidates
    L = 2 + int(np.log(C))
    assert km.n_distance_evals_["seeding"] == (C - 1) * (L + 1) * n


_rng = np.random.default_rng(12)
_DATA = (_rng.uniform(-5, 5, (30, 7))[_rng.integers(0, 30, 5000)]
         + _rng.standard_normal((5000, 7))).astype(np.float32)
_WEIGHTS = _rng.uniform(0.5, 2.0, 5000)


@pytest.mark.parametrize("kw", [
    dict(variant="vrkm++"),
    dict(variant="vrkm", update_rule="label-change"),
    dict(variant="vrkm++", block_size=300, sample_weight=_WEIGHTS),
    dict(variant="vrkm++", init="afk-mc2", coreset_size=2000),
], ids=["vrkm++", "vrkm-label-change", "vrkm++-blocked-weighted", "vrkm++-afkmc2-coreset"])
def test_results_do_not_depend_on_the_thread_count(assert_thread_independent, kw):
    assert_thread_independent(lambda t: vcgmm.fit_vrkm(
        _DATA, 30, max_epochs=4, tol=0.0, random_state=3, n_threads=t, return_labels=True,
        **kw))


def test_bad_input_gets_clear_errors(small):
    X, _ = small
    for value in (0.0, -0.1, 1.5, np.nan, np.inf):
        with pytest.raises(ValueError, match="learning_rate must be a finite number > 0 and <= 1"):
            vcgmm.VRKMeans(4, learning_rate=value).fit(X)
    for value in (0, -3):
        with pytest.raises(ValueError, match="epoch_size must be an integer >= 1"):
            vcgmm.fit_vrkm(X, 4, epoch_size=value)
    with pytest.raises(ValueError, match="max_epochs"):
        vcgmm.VRKMeans(4, max_epochs=0).fit(X)
    with pytest.raises(ValueError, match="block_size"):
        vcgmm.VRKMeans(4, block_size=0).fit(X)
    with pytest.raises(ValueError, match="variant must be one of 'vrkm\\+\\+', 'vrkm'"):
        vcgmm.VRKMeans(4, variant="svrg").fit(X)
    with pytest.raises(ValueError, match="update_rule must be one of 'svrg', 'label-change'"):
        vcgmm.fit_vrkm(X, 4, update_rule="code")
    with pytest.raises(TypeError, match="epoch_size"):
        vcgmm.fit_vrkm(X, 4, epoch_size=2.5)
    with pytest.raises(TypeError, match="unexpected keyword.*batch_size"):
        vcgmm.fit_vrkm(X, 4, batch_size=10)
    with pytest.raises(ValueError, match="C"):
        vcgmm.fit_vrkm(X, 301)
    # 1.0 is the largest rate allowed
    vcgmm.fit_vrkm(X, 4, learning_rate=1.0, max_epochs=2, random_state=0, n_threads=1)


def test_pickle_round_trip_and_float32(small):
    X = small[0].astype(np.float32)
    km = vcgmm.VRKMeans(5, max_epochs=3, random_state=0, n_threads=1).fit(X)
    assert km.cluster_centers_.dtype == np.float32
    clone = pickle.loads(pickle.dumps(km))
    np.testing.assert_array_equal(clone.predict(X), km.predict(X))
    assert clone.score(X) == km.score(X) == -km.inertia_
    assert clone.get_params() == km.get_params()


def test_a_block_beyond_the_epoch_is_the_epoch():
    # block_size is allocated as min(block_size, epoch size) rows, not as given
    X = np.random.default_rng(5).normal(size=(500, 3))
    kw = dict(max_epochs=3, random_state=0, n_threads=1)
    huge = vcgmm.VRKMeans(4, block_size=2**31 - 1, **kw).fit(X)
    epoch = vcgmm.VRKMeans(4, block_size=500, **kw).fit(X)
    np.testing.assert_array_equal(huge.cluster_centers_, epoch.cluster_centers_)


def test_a_huge_epoch_is_drawn_in_pieces_and_cancellable():
    # 2**40 draws are never allocated at once: the fit runs (and is cancelled)
    # instead of failing to allocate 8 TB of row indices
    X = np.random.default_rng(5).normal(size=(500, 3))
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(vcgmm.VRKMeans(4, epoch_size=2**40, max_epochs=1,
                                            random_state=0, n_threads=1).fit, X)
        time.sleep(1.0)
        assert not future.done(), future.exception()
        vcgmm.cancel_all()
        with pytest.raises(KeyboardInterrupt):
            future.result(timeout=30)
