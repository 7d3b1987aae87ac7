"""``vcgmm demo``: the paper's Table 1 on the built-in image patches.

Every algorithm is one :class:`Row` (name, G, N', a callable that fits and
returns the fitted estimator); :func:`default_rows` lists them. The first row
is the baseline (k-means++). To add an algorithm, append a ``Row`` whose
callable returns an estimator with ``cluster_centers_``, ``n_iter_``,
``timings_`` and ``n_distance_evals_`` (per-phase dicts; the phase
``"evaluation"``, the final pass over the full data, is not counted as
algorithm cost, as in the paper).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable, Optional

import numpy as np

__all__ = ["Row", "Setting", "default_rows", "run_demo", "format_table", "DEFAULT_STRIDE"]

# Stride 1 is the whole data set (535,940 patches). Measured on an idle 2-core
# machine with C = 1000: k-means++ ~47 s, each LWCS row ~1-2 s, so the demo
# takes about a minute (under heavy load from other processes up to ~2 min);
# stride 2 (134,196 patches) takes ~10 s.
DEFAULT_STRIDE = 1
DEFAULT_CLUSTERS = 1000
DEFAULT_CORESET_SIZES = (2**14, 2**16)
# AFK-MC^2 chain length of the LWCS rows (the library default; the paper
# used 2 for its large sets and 20 for RNA).
LWCS_CHAIN_LENGTH = 20
# AFK-MC^2 chain length of the var-GMM-S and vc-GMM rows (the same).
VARIATIONAL_CHAIN_LENGTH = 20
QUICK = {"stride": 8, "clusters": 100, "coreset_sizes": (2**11, 2**13)}

# Phases that are not part of an algorithm's cost: the final labels /
# quantization error on the full data (the paper excludes it as well).
_EXCLUDED_PHASES = ("evaluation",)


@dataclass(frozen=True)
class Setting:
    """What every row's fit callable receives besides the data."""

    n_clusters: int
    seed: int
    n_threads: Optional[int]


@dataclass(frozen=True)
class Row:
    """One algorithm of the table.

    Parameters
    ----------
    name : str
        Shown in the "algorithm" column.
    G : int, str or None
        Neighbourhood size of the variational algorithms (None: not applicable).
    n_prime : int or None
        Coreset size (None: trains on the full data).
    fit : callable ``(X, setting, seed) -> fitted estimator``
        Fits on X (the full data) and returns the estimator; ``seed`` is the
        seed of this repetition.
    """

    name: str
    G: object
    n_prime: Optional[int]
    fit: Callable


def _fit_kmeanspp(X, setting, seed):
    from ._kmeans import KMeans

    return KMeans(setting.n_clusters, random_state=seed, n_threads=setting.n_threads).fit(X)


def _fit_lwcs(n_prime, X, setting, seed):
    from ._kmeans import KMeans

    return KMeans(
        setting.n_clusters,
        init="afk-mc2",
        coreset_size=n_prime,
        chain_length=LWCS_CHAIN_LENGTH,
        random_state=seed,
        n_threads=setting.n_threads,
    ).fit(X)


def _fit_variational(G, plus1, n_prime, X, setting, seed):
    from ._vcgmm import VCGMM

    return VCGMM(
        setting.n_clusters,
        G=G,
        plus1=plus1,
        coreset_size=n_prime,
        chain_length=VARIATIONAL_CHAIN_LENGTH,
        random_state=seed,
        n_threads=setting.n_threads,
    ).fit(X)


def default_rows(n_samples, coreset_sizes=DEFAULT_CORESET_SIZES):
    """The rows of the table, as in the paper's Table 1: k-means++ (baseline),
    var-GMM-S (G=5), then LWCS and vc-GMM (G=5 and G=3+1) for each coreset size
    that does not exceed the number of samples."""
    rows = [
        Row("k-means++", None, None, _fit_kmeanspp),
        Row("var-GMM-S", 5, None, partial(_fit_variational, 5, False, None)),
    ]
    for n_prime in coreset_sizes:
        if n_prime <= n_samples:
            rows.append(Row("LWCS", None, n_prime, partial(_fit_lwcs, n_prime)))
            rows.append(Row("vc-GMM", 5, n_prime, partial(_fit_variational, 5, False, n_prime)))
            rows.append(Row("vc-GMM", "3+1", n_prime,
                            partial(_fit_variational, 3, True, n_prime)))
    return rows


@dataclass
class RowResult:
    """Measurements of one row over the repetitions."""

    row: Row
    errors: list       # quantization error on the full data, per repetition
    seconds: list      # algorithm wall time (all phases but evaluation)
    setup_seconds: list  # coreset + seeding wall time
    distances: list    # distance evaluations (all phases but evaluation)
    iterations: list


def _cost(per_phase):
    return sum(v for k, v in per_phase.items() if k not in _EXCLUDED_PHASES)


def measure(row, X, setting, seeds, quantization_error):
    """Fit ``row`` once per seed and collect its measurements."""
    result = RowResult(row, [], [], [], [], [])
    for seed in seeds:
        est = row.fit(X, setting, seed)
        timings = dict(est.timings_)
        result.errors.append(
            float(quantization_error(X, est.cluster_centers_, n_threads=setting.n_threads))
        )
        result.seconds.append(float(_cost(timings)))
        result.setup_seconds.append(float(timings.get("coreset", 0.0) + timings.get("seeding", 0.0)))
        result.distances.append(int(_cost(dict(est.n_distance_evals_))))
        result.iterations.append(int(est.n_iter_))
    return result


def _sem(values):
    values = np.asarray(values, dtype=np.float64)
    if values.size < 2:
        return None
    return float(values.std(ddof=1) / math.sqrt(values.size))


def _format_n_prime(n_prime):
    if n_prime is None:
        return "-"
    exponent = int(round(math.log2(n_prime)))
    return f"2^{exponent}" if 2**exponent == n_prime else f"{n_prime:,}"


def _format_speedup(value):
    return f"{value:.1f}x" if value < 100 else f"{value:.0f}x"


def table_rows(results):
    """Cells of the table (list of lists of str), the first result being the baseline.

    eta_r = (Q_r - mean Q_base) / mean Q_base for each repetition r; its mean
    and, with several repetitions, its standard error are shown (as in the
    paper's Table 1, where the baseline itself gets 0.0% +- SEM).
    """
    base = results[0]
    q_base = float(np.mean(base.errors))
    t_base = float(np.mean(base.seconds))
    d_base = float(np.mean(base.distances))
    header = ["algorithm", "G", "N'", "rel. error eta", "speedup time", "speedup distances",
              "iterations", "coreset+seeding", "time [s]"]
    cells = [header]
    for res in results:
        etas = (np.asarray(res.errors) - q_base) / q_base * 100.0
        sem = _sem(etas)
        # round before formatting so that a tiny negative mean prints as 0.00%, not -0.00%
        eta = f"{round(float(etas.mean()), 2) + 0.0:.2f}%" + (
            f" +- {sem:.2f}" if sem is not None else "")
        seconds = float(np.mean(res.seconds))
        share = float(np.sum(res.setup_seconds) / np.sum(res.seconds)) if np.sum(res.seconds) > 0 else 0.0
        share_text = "<1%" if 0 < share < 0.005 else f"{share * 100:.0f}%"
        cells.append([
            res.row.name,
            "-" if res.row.G is None else str(res.row.G),
            _format_n_prime(res.row.n_prime),
            eta,
            _format_speedup(t_base / seconds) if seconds > 0 else "inf",
            _format_speedup(d_base / float(np.mean(res.distances))),
            f"{np.mean(res.iterations):.1f}" if len(res.iterations) > 1 else str(res.iterations[0]),
            share_text,
            f"{seconds:.2f}",
        ])
    return cells


def format_table(cells):
    """Plain-text table with aligned columns (text left, numbers right)."""
    widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
    lines = []
    for i, row in enumerate(cells):
        parts = []
        for j, cell in enumerate(row):
            left = j == 0
            parts.append(cell.ljust(widths[j]) if left else cell.rjust(widths[j]))
        lines.append("  ".join(parts).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


EXPLANATION = (
    "eta is the relative quantization error (Q_algo - Q_kmpp) / Q_kmpp, where Q is the "
    "sum of squared distances of ALL {n:,} patches to their nearest center (whatever "
    "subset an algorithm trained on) and k-means++ (D^2 seeding + Lloyd on the full data) "
    "is the baseline: +10% means a 10% larger error than k-means++. The speedups are "
    "k-means++'s cost divided by the algorithm's: wall time ({threads}) and distance "
    "evaluations (one per point-center pair, however computed), both summed over coreset "
    "construction, seeding and the Lloyd/EM iterations; the final pass that labels the "
    "full data and computes Q is excluded, as in the paper. 'iterations' counts Lloyd/EM "
    "iterations until the relative change of the objective fell below 1e-4; "
    "'coreset+seeding' is the share of the algorithm's time spent before the iterations. "
    "LWCS = lightweight coreset of N' weighted points + AFK-MC^2 seeding (chain length "
    "{chain}) + weighted Lloyd on the coreset. vc-GMM = the same coreset and seeding + "
    "truncated variational EM in which each point searches only the G-neighbourhoods of its "
    "G nearest clusters (G=3+1: plus one random cluster), so an iteration costs "
    "O(N' G^2 D) instead of O(N' C D); var-GMM-S = that EM on all points. {repeat_note}"
)


def run_demo(X, rows, setting, *, repeats=1, out=print, quantization_error=None):
    """Run every row ``repeats`` times and return the results (first row = baseline).

    ``out`` receives progress lines; ``quantization_error`` defaults to
    :func:`vcgmm.quantization_error`.
    """
    if quantization_error is None:
        from ._assignment import quantization_error
    seeds = [setting.seed + r for r in range(repeats)]
    results = []
    for i, row in enumerate(rows, 1):
        label = row.name + (f" (N'={_format_n_prime(row.n_prime)})" if row.n_prime else "")
        if row.G is not None:
            label += f" (G={row.G})"
        out(f"[{i}/{len(rows)}] {label} ...")
        start = time.perf_counter()
        res = measure(row, X, setting, seeds, quantization_error)
        out(
            f"      done: {np.mean(res.seconds):.2f} s algorithm time, "
            f"{np.mean(res.iterations):.1f} iterations "
            f"({time.perf_counter() - start:.1f} s wall incl. evaluation)"
        )
        results.append(res)
    return results
