"""The progress callback: one ProgressRecord per iteration and per phase end,
matching the fitted traces; returning True stops the iterations with the result
of the iterations done (equal to a fit limited to as many iterations);
exceptions propagate; the records do not depend on the thread count (times
aside)."""

import numpy as np
import pytest

import vcgmm


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(0)
    return rng.normal(size=(3000, 4)) + rng.integers(0, 6, size=(3000, 1)) * 2.0


def _collect(stop_at=None, phase="iterations"):
    records = []

    def callback(record):
        records.append(record)
        return stop_at is not None and record.phase == phase and record.iteration == stop_at
    return records, callback


def test_kmeans_records_match_the_fit(X):
    records, cb = _collect()
    km = vcgmm.KMeans(8, tol=0, max_iter=6, random_state=0, n_threads=1, callback=cb).fit(X)
    assert [r.phase for r in records] == ["seeding"] + ["iterations"] * 6 + ["evaluation"]
    its = [r for r in records if r.phase == "iterations"]
    assert [r.iteration for r in its] == list(range(1, 7))
    assert all(r.algorithm == "lloyd" for r in its)
    np.testing.assert_array_equal([r.objective for r in its], km.objective_)
    # Cumulative: the first iteration scans all 8 centers, later ones start
    # from the last labels and measure at most as many.
    evals = [r.distance_evals for r in its]
    assert evals[0] == X.shape[0] * 8 and evals[-1] == km.n_distance_evals_["iterations"]
    assert all(0 < b - a <= X.shape[0] * 8 for a, b in zip(evals, evals[1:]))
    assert records[-1].objective == pytest.approx(km.inertia_, rel=1e-12)
    assert records[-1].distance_evals == km.n_distance_evals_["evaluation"]
    assert np.isnan(records[0].objective) and records[0].iteration == 0
    assert all(r.seconds >= 0 for r in records)


def test_kmeans_stop_equals_a_shorter_fit(X):
    records, cb = _collect(stop_at=3)
    stopped = vcgmm.KMeans(8, tol=0, random_state=0, n_threads=1, callback=cb).fit(X)
    short = vcgmm.KMeans(8, tol=0, max_iter=3, random_state=0, n_threads=1).fit(X)
    assert stopped.n_iter_ == 3 and not stopped.converged_
    np.testing.assert_array_equal(stopped.cluster_centers_, short.cluster_centers_)
    np.testing.assert_array_equal(stopped.labels_, short.labels_)
    assert [r.phase for r in records][-1] == "evaluation"  # the fit completes


def test_vcgmm_records_and_stop(X):
    records, cb = _collect()
    full = vcgmm.VCGMM(8, G=3, coreset_size=1024, tol=0, max_iter=8, random_state=0,
                       n_threads=1, callback=cb).fit(X)
    phases = [r.phase for r in records]
    assert phases[:2] == ["coreset", "seeding"] and phases[-1] == "evaluation"
    em = [r for r in records if r.phase == "iterations"]
    assert all(r.algorithm == "vc-gmm" for r in em)
    np.testing.assert_array_equal([r.objective for r in em], full.free_energy_)
    assert em[-1].distance_evals == full.n_distance_evals_["iterations"]
    records2, cb2 = _collect(stop_at=4)
    stopped = vcgmm.VCGMM(8, G=3, coreset_size=1024, tol=0, max_iter=8, random_state=0,
                          n_threads=1, callback=cb2).fit(X)
    assert stopped.n_iter_ == 4 and not stopped.converged_
    np.testing.assert_array_equal(stopped.free_energy_, full.free_energy_[:4])


def test_vcgmm_refinement_records(X):
    records, cb = _collect()
    r = vcgmm.fit_vcgmm(X, 8, 3, 1024, refine=3, random_state=0, n_threads=1, callback=cb)
    ref = [x for x in records if x.phase == "refinement"]
    # the 3 steps on the coreset, then the data step on all points (the default)
    assert [x.iteration for x in ref] == [1, 2, 3, 4]
    np.testing.assert_array_equal([x.objective for x in ref],
                                  np.r_[r.refine_objective, r.data_step_objective])
    # a stop during the refinement ends the phase: no data step follows
    records, cb = _collect(stop_at=2, phase="refinement")
    stopped = vcgmm.fit_vcgmm(X, 8, 3, 1024, refine=3, random_state=0, n_threads=1,
                              callback=cb)
    assert stopped.refine_objective.size == 2 and stopped.data_step_objective.size == 0


@pytest.mark.parametrize("make, algorithm", [
    (lambda cb: vcgmm.MiniBatchKMeans(8, batch_size=256, max_iter=20, random_state=0,
                                      n_threads=1, callback=cb), "mbatch"),
    (lambda cb: vcgmm.NestedMiniBatchKMeans(8, batch_size=256, random_state=0, n_threads=1,
                                            callback=cb), "nmbatch"),
    (lambda cb: vcgmm.VRKMeans(8, tol=0, max_epochs=10, random_state=0, n_threads=1,
                               callback=cb), "vrkm"),
    (lambda cb: vcgmm.KernelKMeans(4, batch_size=256, tau=50, max_iter=20, random_state=0,
                                   n_threads=1, callback=cb), "kernel-kmeans"),
    (lambda cb: vcgmm.KernelKMeans(4, algorithm="full", max_iter=20, random_state=0,
                                   n_threads=1, callback=cb), "kernel-kmeans"),
])
def test_other_families_report_and_stop(X, make, algorithm):
    records, cb = _collect()
    est = make(cb).fit(X[:1500])
    its = [r for r in records if r.phase == "iterations"]
    assert its and all(r.algorithm == algorithm for r in its)
    assert [r.iteration for r in its] == list(range(1, len(its) + 1))
    assert len(its) == est.n_iter_
    assert all(np.isfinite(r.objective) for r in its)
    assert np.all(np.diff([r.distance_evals for r in its]) >= 0)
    if est.n_iter_ >= 3:
        records2, cb2 = _collect(stop_at=2)
        stopped = make(cb2).fit(X[:1500])
        assert stopped.n_iter_ == 2 and not stopped.converged_
        assert [r.iteration for r in records2 if r.phase == "iterations"] == [1, 2]


def test_exceptions_propagate_and_later_fits_work(X):
    def boom(record):
        if record.phase == "iterations" and record.iteration == 2:
            raise RuntimeError("stop from the callback")

    with pytest.raises(RuntimeError, match="stop from the callback"):
        vcgmm.KMeans(8, tol=0, random_state=0, callback=boom).fit(X)
    assert vcgmm.KMeans(8, random_state=0).fit(X).n_iter_ >= 1


def test_records_do_not_depend_on_threads(X):
    def run(n_threads):
        records, cb = _collect()
        vcgmm.VCGMM(8, G=3, coreset_size=1024, random_state=0, n_threads=n_threads,
                    callback=cb).fit(X)
        return [(r.phase, r.iteration, repr(r.objective), r.distance_evals) for r in records]
    one = run(1)
    assert run(2) == one and run(3) == one


def test_bad_callback_named():
    with pytest.raises(TypeError, match="callback"):
        vcgmm.KMeans(3, callback=3).fit(np.zeros((10, 2)) + np.arange(10)[:, None])


def test_cli_progress_bar(tmp_path):
    import subprocess
    import sys

    data = tmp_path / "data.npy"
    rng = np.random.default_rng(1)
    np.save(data, rng.normal(size=(2000, 3)) + rng.integers(0, 4, size=(2000, 1)) * 3.0)
    out = tmp_path / "c.npy"
    base = [sys.executable, "-m", "vcgmm", "fit", str(data), "-C", "4", "--algo", "kmeans++",
            "--seed", "0", "--threads", "1"]
    plain = subprocess.run(base + ["--out", str(out)], capture_output=True, text=True,
                           timeout=120)
    bar = subprocess.run(base + ["--progress", "--out", str(tmp_path / "d.npy")],
                         capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0 and bar.returncode == 0, bar.stderr
    assert "iterations" in bar.stderr and "error=" in bar.stderr and "change=" in bar.stderr
    assert "error=" not in plain.stderr
    np.testing.assert_array_equal(np.load(out), np.load(tmp_path / "d.npy"))
