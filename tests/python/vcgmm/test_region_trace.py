"""The region trace behind ``bench/vcgmm_threads.py --replay``: a traced fit
with n_threads = P records its parallel regions (run on the calling thread)
and gives the centers of a fit on 1 thread; the replay's schedule is
OpenMP's dynamic one and its thread cap that of parallel_for."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import vcgmm
from vcgmm._base.loader import core

REPO_ROOT = Path(__file__).resolve().parents[3]


def test_traced_fit_records_its_regions_and_keeps_its_result(patches):
    X = patches[:20_000]
    ref = vcgmm.fit_vcgmm(X, 300, 3, 8192, random_state=2, n_threads=1)
    core.start_region_trace()
    try:
        r = vcgmm.fit_vcgmm(X, 300, 3, 8192, random_state=2, n_threads=16)
    finally:
        regions = core.stop_region_trace()
    np.testing.assert_array_equal(r.centers, ref.centers)
    assert len(regions) > 20
    previous_end = -np.inf
    for start, end, worth, tasks in regions:
        assert previous_end <= start <= end
        assert worth > 0 and tasks.size >= 1 and np.all(tasks >= 0)
        assert tasks.sum() <= end - start + 1e-9
        previous_end = end
    # The regions hold nearly all of the fit's time.
    inside = sum(end - start for start, end, _, _ in regions)
    assert inside > 0.5 * sum(r.timings.values())
    assert core.stop_region_trace() == []  # off: nothing more recorded


@pytest.fixture
def replay_helpers():
    if not (REPO_ROOT / "bench" / "vcgmm_threads.py").is_file():
        pytest.skip("bench/ is not next to the tests")
    sys.path.insert(0, str(REPO_ROOT))
    try:
        from bench.vcgmm_threads import _makespan, _region_threads
    finally:
        sys.path.remove(str(REPO_ROOT))
    return _makespan, _region_threads


def test_replay_schedule_and_thread_cap(replay_helpers):
    makespan, region_threads = replay_helpers
    # Each task goes to the first thread free, in task order.
    assert makespan(np.array([3.0, 1.0, 1.0, 1.0]), 2) == 3.0
    assert makespan(np.array([1.0, 1.0, 1.0, 3.0]), 2) == 4.0
    assert makespan(np.ones(8), 4) == 2.0
    assert makespan(np.array([2.0, 5.0]), 1) == 7.0
    # parallel_for: at most the tasks, and the work cap rounded down (1 below 1).
    assert region_threads(16, 10, 1e9) == 10
    assert region_threads(16, 100, 3.7) == 3
    assert region_threads(16, 100, 0.2) == 1
    assert region_threads(2, 100, 50.0) == 2
