"""The papers' Table 1 (vcgmm.cli.table1): ``vcgmm demo`` and the benchmark bench/table1.py.

The demo (``vcgmm.cli.demo``) runs in-process (``vcgmm.cli.main``) with one thread; the table's
arithmetic is checked on fake fits with known measurements.
"""

from __future__ import annotations

import argparse
import importlib
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import vcgmm
from vcgmm import cli
from vcgmm.cli import demo as _cli_demo
from vcgmm.cli import table1 as _table1
from vcgmm.cli.table1 import Measurement, Row, Setting

REPO_ROOT = Path(__file__).resolve().parents[3]


def _demo_table(out):
    """The demo table's header and rows as lists of cells (split on 2+ spaces)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("algorithm "))
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return lines[start], rows


def test_demo_quick_table_matches_independent_fits(capsys):
    status = cli.main(["demo", "--quick", "--threads", "1"])
    captured = capsys.readouterr()
    out = captured.out
    assert status == 0, captured.err
    header, rows = _demo_table(out)
    for column in ("G", "N'", "rel. error eta", "speedup time", "speedup distances",
                   "iterations", "coreset+seeding"):
        assert column in header
    assert _table1.DEFAULT_REFINE == vcgmm.VCGMM().refine == 3
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("k-means++", "-", "-"), ("var-GMM-S", "5", "-"),
        ("LWCS", "-", "2^11"), ("vc-GMM", "5", "2^11"), ("vc-GMM refine=3", "5", "2^11"),
        ("vc-GMM", "3+1", "2^11"), ("vc-GMM refine=3", "3+1", "2^11"),
        ("VCGMM() defaults", "7", "2^11"),
        ("LWCS", "-", "2^13"), ("vc-GMM", "5", "2^13"), ("vc-GMM refine=3", "5", "2^13"),
        ("vc-GMM", "3+1", "2^13"), ("vc-GMM refine=3", "3+1", "2^13"),
        ("VCGMM() defaults", "7", "2^13"),
    ]
    assert rows[0][3:6] == ["0.00%", "1.0x", "1.0x"]
    assert "[1/14] k-means++" in out and "[14/14] VCGMM() defaults (N'=2^13) (G=7)" in out
    assert "'vc-GMM refine=3' (not in the paper; the library's default" in " ".join(out.split())
    assert "eta is the relative quantization error" in out
    # the table states the stopping rules, the baseline's first
    assert ("k-means++ baseline stopped when the relative change of its quantization error "
            "fell below 0.0001") in " ".join(out.split())  # whatever the line breaks

    # Recompute eta, the distance speedup and the iterations from independent estimators.
    X = vcgmm.datasets.image_patches(stride=8)
    assert f"N = {X.shape[0]:,}" in out
    # the baseline row is the papers' k-means++: one candidate per step
    base = vcgmm.KMeans(100, n_local_trials=1, random_state=0, n_threads=1).fit(X)
    cost = lambda est: sum(v for k, v in est.n_distance_evals_.items() if k != "evaluation")
    assert rows[0][6] == str(base.n_iter_)
    # the demo's vc-GMM and var-GMM-S rows are the papers' algorithms (AFK-MC^2,
    # refine=0); its "vc-GMM refine=3" rows add the library's refinement, and
    # its "VCGMM() defaults" rows are VCGMM at all its defaults on that coreset
    one = dict(random_state=0, n_threads=1, init="afk-mc2")
    defaults = dict(random_state=0, n_threads=1)
    independent = [
        vcgmm.VCGMM(100, G=5, coreset_size=None, refine=0, **one),
        vcgmm.KMeans(100, coreset_size=2**11, **one),
        vcgmm.VCGMM(100, G=5, coreset_size=2**11, refine=0, **one),
        vcgmm.VCGMM(100, G=5, coreset_size=2**11, **one),
        vcgmm.VCGMM(100, G=3, plus1=True, coreset_size=2**11, refine=0, **one),
        vcgmm.VCGMM(100, G=3, plus1=True, coreset_size=2**11, **one),
        vcgmm.VCGMM(100, coreset_size=2**11, **defaults),
        vcgmm.KMeans(100, coreset_size=2**13, **one),
        vcgmm.VCGMM(100, G=5, coreset_size=2**13, refine=0, **one),
        vcgmm.VCGMM(100, G=5, coreset_size=2**13, **one),
        vcgmm.VCGMM(100, G=3, plus1=True, coreset_size=2**13, refine=0, **one),
        vcgmm.VCGMM(100, G=3, plus1=True, coreset_size=2**13, **one),
        vcgmm.VCGMM(100, coreset_size=2**13, **defaults),
    ]
    assert len(independent) == len(rows) - 1
    for row, est in zip(rows[1:], independent):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X)
        eta = (est.inertia_ - base.inertia_) / base.inertia_ * 100
        assert row[3] == f"{round(eta, 2) + 0.0:.2f}%"
        assert row[5] == _table1.format_speedup(cost(base) / cost(est))
        assert row[6] == str(est.n_iter_)


def test_demo_flags(capsys):
    parser = cli.build_parser()
    args = parser.parse_args(["demo", "--coreset-sizes", "2^11, 300", "-C", "7"])
    assert args.coreset_sizes == (2048, 300) and args.clusters == 7 and args.func is _cli_demo.run
    for flags in (["--coreset-sizes", "2^x"], ["--coreset-sizes", "0"], ["--repeats", "0"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["demo", *flags])
        assert "vcgmm demo: error:" in capsys.readouterr().err
    assert cli.main(["demo", "--quick", "--clusters", "100000"]) == 2
    assert "--clusters 100000 exceeds the number of patches (8,480)" in capsys.readouterr().err


class _Fake:
    """A fitted estimator with given measurements (to test the table arithmetic)."""

    def __init__(self, centers, n_iter, timings, evals):
        self.cluster_centers_ = centers
        self.n_iter_ = n_iter
        self.timings_ = timings
        self.n_distance_evals_ = evals


# Q(base) = 4 * 0.25 = 1.0 ; Q(other) = 0 + 1 + 0 + 1 = 2.0 (eta = 100%)
_X = np.array([[0.0], [1.0], [3.0], [4.0]])
_FITS = {
    "k-means++": _Fake(np.array([[0.5], [3.5]]), 10,
                       {"coreset": 0.0, "seeding": 2.0, "iterations": 8.0, "evaluation": 5.0},
                       {"coreset": 0, "seeding": 400, "iterations": 3600, "evaluation": 99}),
    "other": _Fake(np.array([[0.0], [3.0]]), 4,
                   {"coreset": 0.1, "seeding": 0.4, "iterations": 0.5, "evaluation": 5.0},
                   {"coreset": 4, "seeding": 6, "iterations": 30, "evaluation": 99}),
}


def _fake_row(name, G=None, n_prime=None):
    return Row(name, G, n_prime, lambda X, s, seed: _table1.measure_fit(X, _FITS[name], s.n_threads))


def test_table_arithmetic_and_alignment():
    rows = [_fake_row("k-means++"), _fake_row("other", 5, 2**10)]
    setting = Setting(n_clusters=2, seed=0, n_threads=1)
    lines = []
    results = _table1.run_rows(_X, rows, setting, repeats=2, out=lines.append)
    assert len(lines) == 4
    assert [r.seed for r in results[1].records] == [0, 1]
    cells = _table1.table_cells(_table1.summarize(results))
    # the evaluation phase is not algorithm cost
    assert cells[1][1:] == ["-", "-", "0.00% +- 0.00", "1.0x", "1.0x", "10.0", "20%", "10.00"]
    # time 10 / 1.0, distances 4000 / 40, setup share (0.1 + 0.4) / 1.0
    assert cells[2][1:] == ["5", "2^10", "100.00% +- 0.00", "10.0x", "100x", "4.0", "50%", "1.00"]
    text = _table1.format_table(cells).splitlines()
    assert len({len(line) for line in text[:2]}) == 1  # header and rule aligned
    assert text[2].index("1.0x") + 4 == text[3].index("10.0x") + 5  # right-aligned numbers


def test_summary_of_repetitions_and_of_a_peer():
    """eta mean +- SEM over seeds; a peer without setup time or distance count."""
    base = [Measurement(Q=q, seconds=2.0, setup_seconds=0.5, distances=100, iterations=3)
            for q in (9.0, 11.0)]               # mean Q 10: etas -10%, +10%
    peer = [Measurement(Q=12.0, seconds=0.5, distances=50, distances_estimated=True,
                        iterations=7)]
    results = [_table1.RowResult(Row("k-means++"), base), _table1.RowResult(Row("peer"), peer)]
    s = _table1.summarize(results)
    assert s[0]["eta"] == pytest.approx(0.0) and s[0]["eta_sem"] == pytest.approx(10.0)
    assert s[1]["eta"] == pytest.approx(20.0) and s[1]["eta_sem"] is None
    assert s[1]["speedup_time"] == pytest.approx(4.0) and s[1]["setup_share"] is None
    cells = _table1.table_cells(s, ("algorithm", "seeds", "rel. error eta", "speedup distances",
                                    "iterations", "coreset+seeding"), plus_minus="±")
    assert cells[1] == ["k-means++", "2", "0.00% ± 10.00", "1.0x", "3.0", "25%"]
    assert cells[2] == ["peer", "1", "20.00%", "~2.0x", "7", "-"]


def test_default_rows_skip_coresets_larger_than_data():
    rows = _table1.default_rows(50_000)
    assert [(r.name, r.G, r.n_prime) for r in rows] == [
        ("k-means++", None, None), ("var-GMM-S", 5, None),
        ("LWCS", None, 2**14), ("vc-GMM", 5, 2**14), ("vc-GMM", "3+1", 2**14),
    ]
    assert len(_table1.default_rows(10**6)) == 8
    assert [r.family for r in rows[3:]] == ["vc-GMM G=5", "vc-GMM G=3+1"]
    # the benchmark's variants: more var-GMM-S rows, other G, no LWCS
    rows = _table1.default_rows(10**6, (2**10,), vc_G=((10, False),), vargmm_G=(5, 7), lwcs=False)
    assert [(r.name, r.G, r.n_prime) for r in rows] == [
        ("k-means++", None, None), ("var-GMM-S", 5, None), ("var-GMM-S", 7, None),
        ("vc-GMM", 10, 2**10)]


def test_baseline_tol_and_papers_rule():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 3)) + 6 * rng.integers(0, 4, size=(400, 1))
    record = _table1.default_rows(400, ())[0].fit(X, Setting(4, n_threads=1, kmeans_tol=0.1), 0)
    assert record.iterations == vcgmm.KMeans(4, tol=0.1, random_state=0, n_threads=1).fit(X).n_iter_
    note = _table1.stop_rules(Setting(4, kmeans_tol=0.1), q_base=record.Q, shape=X.shape)
    assert "fell below 0.1 (set; the library's default is 0.0001)" in note
    # a relative change of Q of papers_kmeans_tol changes the papers' bound by 1e-4 relative
    n, d, C, Q = 1000, 8, 16, 37.0
    tol = _table1.papers_kmeans_tol(Q, n, d, C)
    F = lambda q: -n * (math.log(C) + d / 2 * math.log(2 * math.pi * math.e * q / (n * d)))
    assert abs(F(Q * (1 + tol)) - F(Q)) / abs(F(Q)) == pytest.approx(1e-4, rel=1e-3)


@pytest.fixture
def bench_table1(monkeypatch):
    """bench/table1.py, imported from the repository root (skipped outside a checkout)."""
    if not (REPO_ROOT / "bench" / "table1.py").exists():
        pytest.skip("bench/ is not next to the tests")
    monkeypatch.syspath_prepend(str(REPO_ROOT))
    return importlib.import_module("bench.table1")


def test_bench_summary_is_the_shared_one(bench_table1):
    """The benchmark's rows, peers included, go through vcgmm.cli.table1's arithmetic."""
    assert bench_table1._table1 is _table1 and not hasattr(bench_table1, "summarize")
    peer = Row("sklearn KMeans", fit=lambda X, s, seed: _table1.measurement(
        X, np.array([[0.0], [3.0]]), s.n_threads, seconds=0.25, distances=400,
        distances_estimated=True, iterations=3))
    rows = [_fake_row("k-means++"), _fake_row("other", "3+1", 2**10), peer]
    args = argparse.Namespace(threads=1, kmeans_tol=None, seeds=2, sklearn_seeds=1,
                              sklearn_max_clusters=10, kmeans_stop="library")
    summaries, raw, note = bench_table1.run_clusters(_X, 2, rows, args)
    expected = _table1.summarize([_table1.measure(r, _X, Setting(2, n_threads=1), seeds)
                                  for r, seeds in zip(rows, ([0, 1], [0, 1], [0]))])
    # the table names the baseline's stopping rule
    assert summaries[0]["algorithm"] == "k-means++ (stop: Q)"
    expected[0]["algorithm"] = "k-means++ (stop: Q)"
    for got, want in zip(summaries, expected):
        assert {k: got[k] for k in want} == want
    assert [s["C"] for s in summaries] == [2, 2, 2]
    assert summaries[2]["eta"] == pytest.approx(100.0)
    assert summaries[2]["speedup_time"] == pytest.approx(40.0)
    assert [len(v) for v in raw.values()] == [2, 2, 1]
    assert all("other_cpu_cores" in r["extra"] for v in raw.values() for r in v)
    assert "Stopping rules" in note
    cells = _table1.table_cells(summaries, bench_table1.COLUMNS, plus_minus="±")
    assert cells[3][:5] == ["2", "sklearn KMeans", "-", "-", "1"]
    assert cells[3][bench_table1.COLUMNS.index("speedup distances")] == "~10.0x"


# ---------------------------------------------------------------- the papers' rows and rules
def _grid_blobs(n=600, seed=2):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)) + 4 * rng.integers(0, 5, size=(n, 3))


def test_lloyd_bound_stop_is_kmeans_stopped_by_its_variational_bound():
    X = _grid_blobs()
    C = 12
    centers, info = _table1.lloyd_bound_stop(X, C, random_state=3, n_threads=1)
    t = info["n_iter"]
    Q, F = info["objective"], info["bound"]
    assert Q.shape == F.shape == (t,)
    # the bound of every iteration, and the first iteration where it changed by < 1e-4
    n, d = X.shape
    np.testing.assert_allclose(
        F, -n * (np.log(C) + d / 2 * np.log(2 * np.pi * np.e * Q / (n * d))), rtol=1e-12)
    rel = np.abs(np.diff(F)) / np.abs(F[1:])
    assert info["converged"] and np.all(rel[:-1] >= 1e-4)
    # the same trajectory as one KMeans run of t iterations (one Lloyd step per call)
    km = vcgmm.KMeans(C, max_iter=t, tol=0.0, n_local_trials=1, random_state=3,
                      n_threads=1).fit(X)
    np.testing.assert_array_equal(centers, km.cluster_centers_)
    np.testing.assert_array_equal(Q, km.objective_)
    assert info["n_distance_evals"]["iterations"] == km.n_distance_evals_["iterations"]
    assert info["n_distance_evals"]["seeding"] == km.n_distance_evals_["seeding"]
    # stopped by the bound rule on these data (else: a fixed point, Lloyd's own stop)
    longer = vcgmm.KMeans(C, max_iter=t + 5, tol=0.0, n_local_trials=1, random_state=3,
                          n_threads=1).fit(X)
    assert rel[-1] < 1e-4 or (longer.n_iter_ == t and longer.converged_)
    # a loose eps stops at the second iteration; max_iter caps
    _, loose = _table1.lloyd_bound_stop(X, C, random_state=3, n_threads=1, eps=1.0)
    assert loose["n_iter"] == 2 and loose["converged"]
    _, capped = _table1.lloyd_bound_stop(X, C, random_state=3, n_threads=1, eps=0.0, max_iter=3)
    assert capped["n_iter"] == 3 and not capped["converged"]


def test_baseline_bound_rule_in_the_table(bench_table1):
    X = _grid_blobs()
    setting = Setting(12, n_threads=1, kmeans_stop="bound")
    record = _table1.default_rows(600, ())[0].fit(X, setting, 0)
    _, info = _table1.lloyd_bound_stop(X, 12, random_state=0, n_threads=1)
    assert record.iterations == info["n_iter"] and record.extra["stop"] == "bound"
    note = _table1.stop_rules(setting, q_base=record.Q, shape=X.shape)
    assert "variational bound" in note and "kmeans_stop='bound'" in note
    assert "corresponds to a tolerance" not in note
    with pytest.raises(ValueError, match="kmeans_stop"):
        Setting(12, kmeans_stop="papers")
    with pytest.raises(ValueError, match="kmeans_tol"):
        Setting(12, kmeans_stop="bound", kmeans_tol=1e-3)
    args = argparse.Namespace(threads=1, kmeans_tol=None, seeds=1, sklearn_seeds=1,
                              sklearn_max_clusters=10, kmeans_stop="bound")
    rows = _table1.default_rows(600, (), vargmm_G=())
    summaries, _, note = bench_table1.run_clusters(X, 12, rows, args)
    assert summaries[0]["algorithm"] == "k-means++ (stop: bound)"
    assert summaries[0]["iterations"] == info["n_iter"]
    assert bench_table1.parse_args(["--kmeans-stop", "bound"]).kmeans_stop == "bound"
    with pytest.raises(SystemExit):
        bench_table1.parse_args(["--kmeans-stop", "bound", "--kmeans-tol", "1e-3"])


def test_vc_gmm_rows_are_the_papers_and_refined_rows_are_extra():
    rows = _table1.default_rows(10**6, (2**10,), vc_G=((5, False),), vargmm_G=(), lwcs=False,
                                vc_refine=(3,))
    assert [(r.name, r.G, r.family) for r in rows[1:]] == [
        ("vc-GMM", 5, "vc-GMM G=5"), ("vc-GMM refine=3", 5, "vc-GMM refine=3 G=5")]
    X = _grid_blobs(3000).astype(np.float32)
    setting = Setting(20, n_threads=1)
    papers = vcgmm.fit_vcgmm(X, 20, 5, 2**10, refine=0, init="afk-mc2",
                             chain_length=_table1.CHAIN_LENGTH, random_state=1, n_threads=1)
    refined = vcgmm.fit_vcgmm(X, 20, 5, 2**10, refine=3, init="afk-mc2",
                              chain_length=_table1.CHAIN_LENGTH, random_state=1, n_threads=1)
    for row, ref in zip(rows[1:], (papers, refined)):
        rec = row.fit(X, setting, 1)
        assert rec.Q == vcgmm.quantization_error(X, ref.centers, n_threads=1)
        assert rec.iterations == ref.n_iter
    # the refinement is algorithm cost
    rec = rows[2].fit(X, setting, 1)
    assert rec.distances == sum(refined.n_distance_evals[k] for k in
                                ("coreset", "seeding", "iterations", "refinement"))
