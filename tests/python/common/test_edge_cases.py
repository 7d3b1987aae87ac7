"""One test per defect of the reliability issue not covered elsewhere (the
bad-input tables in ``_bad_inputs.py`` cover refusals of single arguments;
``test_process_faults.py`` the process-level faults; ``test_cli_files.py``
the command line's files; ``test_cancel.py`` cancellation latency).

Each test names its item of the issue.
"""

from __future__ import annotations

import gc
import os
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import vcgmm

# ------------------------------------------------- 2: overflowing distances


@pytest.mark.parametrize("call", [
    lambda X, C: vcgmm.quantization_error(X, C),
    lambda X, C: vcgmm.assign(X, C),
    lambda X, C: vcgmm.lloyd(X, C),
])
def test_overflowing_centers_are_refused_not_miscomputed(call):
    X = np.array([[0.0], [1.0], [3.0]])
    with pytest.raises(ValueError, match=r"centers has values up to 2e\+200.*Rescale"):
        call(X, np.array([[0.5], [1e200], [2e200]]))


@pytest.mark.parametrize("dtype, big", [(np.float64, 1e200), (np.float32, 1e20)])
@pytest.mark.parametrize("call", [
    lambda X: vcgmm.fit_vcgmm(X, 2, G=2, coreset_size=None, random_state=0),
    lambda X: vcgmm.KMeans(2, random_state=0).fit(X),
    lambda X: vcgmm.lwcs(X, 4, random_state=0),
])
def test_overflowing_data_blame_the_data_not_the_weights(call, dtype, big):
    X = np.array([[0.0], [big], [3.0], [4.0]], dtype=dtype)
    with pytest.raises(ValueError) as err:
        call(X)
    assert str(err.value).startswith("X has values up to"), err.value
    assert "sample_weight" not in str(err.value)


def test_largest_accepted_spread_computes_correctly():
    # Just inside the refusal limit the squared distances are exact enough:
    # compare with a numpy reference computed in a scaled frame.
    X = np.array([[0.0], [1.0], [3.0]]) * 1e150
    C = np.array([[0.5], [1.5], [2.5]]) * 1e150
    scaled = ((X / 1e150 - (C / 1e150).T) ** 2).min(axis=1).sum()
    np.testing.assert_allclose(vcgmm.quantization_error(X, C), scaled * 1e300, rtol=1e-12)


# ---------------------------------------- 5: fewer distinct points than C


def test_lloyd_converges_with_fewer_distinct_points_than_clusters():
    X = np.array([[0.1]] * 3 + [[0.7]] * 3)
    with pytest.warns(ConvergenceWarning, match="distinct clusters"):
        km = vcgmm.KMeans(3, random_state=0).fit(X)
    assert km.converged_ and km.n_iter_ <= 3
    assert km.inertia_ == pytest.approx(0.0, abs=1e-30)


def test_lloyd_converges_on_random_few_distinct_data():
    # 200 random data sets of 2-3 distinct values repeated, C = 3-4: the issue
    # found 170 of 200 running to max_iter with relocations.
    rng = np.random.default_rng(0)
    slow = 0
    for _ in range(200):
        values = rng.random((rng.integers(2, 4), 2))
        X = values[rng.integers(0, len(values), size=12)]
        C = len(np.unique(X, axis=0)) + 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            km = vcgmm.KMeans(C, random_state=int(rng.integers(1 << 30))).fit(X)
        slow += (not km.converged_) or km.n_iter_ > 5
    assert slow == 0


# ------------------------------------------------ 6: unit-free stopping rule


def test_stopping_does_not_depend_on_units(digits):
    # The default rule ("gain", nats per unit weight and feature). The papers'
    # "relative" rule divides by F, which has an offset of N' D log(scale):
    # kept for fidelity, documented as unit-dependent.
    X = np.asarray(digits, dtype=np.float64)
    runs = [vcgmm.fit_vcgmm(s * X, 20, G=3, coreset_size=None, random_state=0, n_threads=1)
            for s in (1.0, 1000.0)]
    assert runs[0].converged and runs[0].n_iter > 3
    assert runs[0].n_iter == runs[1].n_iter
    np.testing.assert_allclose(runs[1].centers / 1000.0, runs[0].centers, rtol=1e-9, atol=1e-9)


# -------------------------------------------------- 8: bounded parameters


@pytest.mark.parametrize("call, message", [
    (lambda X: vcgmm.kmeans_plusplus(X, 2, n_local_trials=10**9), r"n_local_trials .*\[1, 1000\]"),
    (lambda X: vcgmm.afkmc2(X, 2, chain_length=10**9), r"chain_length .*\[1, 10000\]"),
    (lambda X: vcgmm.lwcs(X, 10**9), r"coreset_size .*\[1, 80\]"),
    (lambda X: vcgmm.KMeans(2, chain_length=10**6, init="afk-mc2").fit(X), "chain_length"),
])
def test_work_bounding_parameters_are_bounded(call, message):
    X = np.random.default_rng(0).random((20, 2))
    with pytest.raises(ValueError, match=message):
        call(X)


def test_initial_e_steps_count_against_max_iter():
    X = np.random.default_rng(0).random((200, 2))
    r = vcgmm.fit_vcgmm(X, 4, G=2, n_init_estep=10**6, max_iter=5, coreset_size=None,
                        random_state=0)
    assert len(r.estep_distance_evals) == 5
    assert not r.converged


def test_largest_legal_bounds_still_run():
    # The largest documented values still run (they are limits, not traps).
    X = np.random.default_rng(0).random((50, 2))
    assert vcgmm.kmeans_plusplus(X, 3, n_local_trials=1000, random_state=0)[0].shape == (3, 2)
    assert vcgmm.afkmc2(X, 3, chain_length=10000, random_state=0)[0].shape == (3, 2)


# -------------------------------------------------- 10: scratch memory


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_scratch_memory_is_bounded_and_released():
    # 300 x 100,000 float64 (240 MB of data): scratch used to keep 198 MB.
    X = np.random.default_rng(0).random((300, 100_000))
    centers = X[:5].copy()
    gc.collect()
    before = _rss_bytes()
    for _ in range(3):
        vcgmm.assign(X, centers, n_threads=2)
        vcgmm.quantization_error(X, centers, n_threads=2)
    gc.collect()
    grown = _rss_bytes() - before
    assert grown < 40e6, f"resident memory grew by {grown / 1e6:.0f} MB"


# ----------------------------------------------------- 11: messages


def test_denormal_weights_are_refused_not_zeroed():
    X = np.random.default_rng(0).random((20, 2))
    with pytest.raises(ValueError, match=r"sample_weight\[0\] = 5e-324.*multiply all of them"):
        vcgmm.lwcs(X, 5, sample_weight=np.full(20, 5e-324))
    # Tiny but normal weights work and give the same coreset as weights of 1.
    tiny = vcgmm.lwcs(X, 5, sample_weight=np.full(20, 1e-300), random_state=0)
    ones = vcgmm.lwcs(X, 5, sample_weight=np.ones(20), random_state=0)
    np.testing.assert_array_equal(tiny[0], ones[0])
    assert np.all(tiny[1] > 0)


def test_no_coinciding_means_warning_on_many_distinct_points(patches):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        vcgmm.VCGMM(50, G=3, coreset_size=2048, random_state=0).fit(patches)


def test_coinciding_means_warning_when_data_have_few_distinct_points():
    X = np.repeat(np.eye(3), 10, axis=0)
    with pytest.warns(ConvergenceWarning, match="coincide"):
        vcgmm.VCGMM(5, G=2, coreset_size=None, random_state=0).fit(X)


# ------------------------------------------- 12: small inconsistencies


def test_default_coreset_size_validates():
    with pytest.raises(ValueError, match="n_samples"):
        vcgmm.default_coreset_size(0, 0)
    assert vcgmm.default_coreset_size(10_000, 10) >= 10


def test_kmeans_accepts_what_kmeans_plusplus_accepts():
    X = np.random.default_rng(0).random((50, 2))
    km = vcgmm.KMeans(3, n_local_trials="auto", random_state=0).fit(X)
    greedy = 2 + int(np.log(3))  # scikit-learn's choice, what "auto" means in both
    np.testing.assert_array_equal(
        km.cluster_centers_,
        vcgmm.KMeans(3, n_local_trials=greedy, random_state=0).fit(X).cluster_centers_)


# -------------------------------------------------- 13: absurd sizes


def test_absurd_work_is_warned_before_it_starts(tmp_path):
    # A sparse 480 MB file: nothing is computed, the warning (made an error
    # here) comes before the first distance. 12 features: below 16 AFK-MC^2
    # runs no subspace screen, so its m C^2 / 2 comparisons are certain (with
    # the screen's tree a candidate may read only the centers near it, and a
    # huge C alone no longer proves hours).
    X = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", dtype=np.float32,
                                  shape=(10**7, 12))
    X[:1000, 0] = np.arange(1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        with pytest.raises(UserWarning, match=r"hours on .*coreset_size='auto'"):
            vcgmm.KMeans(10**6, random_state=0).fit(X)
        with pytest.raises(UserWarning, match="hours on"):
            vcgmm.VCGMM(4 * 10**6, coreset_size=None, random_state=0).fit(X)


def _core_params(est):
    from vcgmm._blocks.seeding import seeding_to_core

    values = est._checked_params()
    params = est._params.to_core(values)
    seeding_to_core(values, None, est.n_clusters, params)
    return params


def test_absurd_work_bound_stays_below_a_measured_screened_seeding():
    # The warning says "at least N hours": its model must not exceed a run
    # that was measured. bench/results/seeding/seeding.md: AFK-MC^2 (m = 20) of
    # C = 16384 centers on 65,536 Fashion-MNIST rows (D = 784), subspace
    # screen on (the default): 7.806 s on 2 threads. Counting every chain
    # comparison as a full 784-dimensional distance put it at 42 s. With the
    # screen's tree a candidate may read only the centers near it: its
    # projection and one full distance are all that is certain.
    from vcgmm._estimator.cost import FLOPS_PER_THREAD, seeding_work

    params = _core_params(vcgmm.KMeans(16384, init="afk-mc2"))
    evals, flops = seeding_work(65536, 784, params)
    assert evals == 65536 + 20 * 16384 * 16383 // 2  # the algorithm's count is unchanged
    assert flops / (FLOPS_PER_THREAD * 2) < 7.806
    assert flops == 2.0 * 784 * (65536 + 20 * 16383 * (8 + 1))
    # Below 16 features the automatic screen never runs: full distances.
    assert seeding_work(65536, 12, params)[1] == 2.0 * 12 * evals
    # The core owns the screen's sizes: automatic 8 axes from 16 features on,
    # fixed screen_dims as given, none when off.
    chain = params.seeding.afkmc2
    assert [chain.min_screen_coordinates(d) for d in (12, 15, 16, 784)] == [12, 15, 8, 8]
    chain.screen_dims = 20  # valid for d > 20 (afkmc2 refuses screen_dims >= d)
    assert [chain.min_screen_coordinates(d) for d in (21, 784)] == [20, 20]
    chain.screen_dims = 0
    assert chain.min_screen_coordinates(784) == 784
    # k-means++: its count is the algorithm's, but only the first center's
    # distances are certain; every later center and candidate costs each row
    # at least its triangle-inequality test.
    params = _core_params(vcgmm.KMeans(16384, init="k-means++", n_local_trials=1))
    evals, flops = seeding_work(65536, 784, params)
    assert evals == 65536 * 16383 and flops == 2.0 * 784 * 65536 + evals
    # greedy k-means++ (the default, 2 + ln C candidates): a test per candidate
    params = _core_params(vcgmm.KMeans(16384, init="k-means++"))
    evals, flops = seeding_work(65536, 784, params)
    assert evals == 65536 * 16383 * (2 + int(np.log(16384)))
    assert flops == 2.0 * 784 * 65536 + evals
