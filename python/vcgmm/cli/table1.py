"""The papers' Table 1, for ``vcgmm demo`` and ``bench/table1.py`` alike.

Table 1 of the vc-GMM paper compares, per algorithm row, the relative
quantization error eta = (Q - Q_kmpp) / Q_kmpp on the FULL data with the cost
relative to k-means++ (the first row, the baseline). This module owns

- the rows of vcgmm's own algorithms (:class:`Row`, :func:`default_rows`):
  k-means++, var-GMM-S, LWCS and vc-GMM (with G and the "+1" option);
- the measurement of one fit (:func:`measure_fit`, :func:`measurement`):
  Q on the full data by :func:`vcgmm.quantization_error`; algorithm time =
  coreset + seeding + iterations from the per-phase ``timings`` (the final
  "evaluation" pass over the full data is not algorithm cost, as in the
  paper); distance evaluations from ``n_distance_evals`` (the same phases);
  iterations; the share of time spent in coreset + seeding;
- the repetition over seeds (:func:`measure`, :func:`run_rows`);
- the summary arithmetic (:func:`summarize`: eta mean +- SEM, speedups over
  the baseline) and the tables (:func:`table_cells`, :func:`format_table`).

Other algorithms (the benchmark's peers) plug in as a ``Row`` whose ``fit``
returns a :class:`Measurement` (see :func:`measurement`).

Stopping rules: every row uses the library's defaults. The k-means++ baseline
(``vcgmm.KMeans``) stops when the relative change of its quantization error
falls below ``tol`` (1e-4); ``Setting.kmeans_tol`` changes that ``tol``. The
papers (000, Suppl. F) stop k-means on the relative change of its
variational bound instead (k-means as truncated EM, Luecke & Forster 2017):
``Setting(kmeans_stop="bound")`` runs the baseline that way, Lloyd iteration
by iteration from the same seeding (:func:`lloyd_bound_stop`; the bound is
computed between iterations and not timed, as in the papers). The library's
``KMeans`` keeps its own rule. :func:`stop_rules` states in every table which
rule was used (and, for the library's rule, which ``tol`` on Q corresponds to
the papers' rule on these data, :func:`papers_kmeans_tol`).

vc-GMM rows: "vc-GMM" is the papers' algorithm (``refine=0``); rows
"vc-GMM refine=k" (``default_rows(..., vc_refine=(k,))``) add k hard
refinement steps after EM (the library's default ``refine_search``), so the
table shows both; ``vcgmm demo`` adds them with the library's default k
(``DEFAULT_REFINE``), and a row for vc-GMM at all of the library's defaults
(``library_defaults=True``). The papers' rows seed by AFK-MC^2 whatever the
library's default ``init``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Optional

import numpy as np

from .._blocks.assignment import quantization_error
from .._kmeans.kmeans import KMeans, lloyd
from .._vcgmm import VCGMM, fit_vargmm, fit_vcgmm
from .._vcgmm.params import VCGMM_PARAMS

__all__ = ["Row", "Setting", "Measurement", "RowResult", "default_rows", "measure_fit",
           "measurement", "measure", "run_rows", "summarize", "table_cells", "format_table",
           "stop_rules", "papers_kmeans_tol", "kmeans_bound", "lloyd_bound_stop", "format_n_prime", "format_speedup",
           "DEMO_COLUMNS", "DEFAULT_CORESET_SIZES", "CHAIN_LENGTH", "DEFAULT_REFINE", "LIBRARY_DEFAULTS"]

# ------------------------------------------------------------------ rows
# Coreset sizes N' of the LWCS and vc-GMM rows (``vcgmm demo``'s default).
DEFAULT_CORESET_SIZES = (2**14, 2**16)
# AFK-MC^2 chain length of the LWCS, var-GMM-S and vc-GMM rows (the library
# default; the paper used 2 for its large sets and 20 for RNA).
CHAIN_LENGTH = 20
# vc-GMM rows per coreset size, (G, plus1): the paper's G=5 and G=3+1.
DEFAULT_VC_G = ((5, False), (3, True))
# The library's default number of refinement steps (VCGMM().refine), for the
# demo's "vc-GMM refine=k" rows.
DEFAULT_REFINE = int(VCGMM_PARAMS.defaults["refine"])
# The papers' threshold on the relative change of the objective (Suppl. F).
PAPERS_TOL = 1e-4
# Stopping rules of the k-means++ baseline (Setting.kmeans_stop).
KMEANS_STOP_RULES = ("library", "bound")


@dataclass(frozen=True)
class Setting:
    """What every row's fit receives besides the data and the seed.

    ``kmeans_tol``: ``tol`` of the k-means++ baseline (None: the library's
    default, 1e-4 on the relative change of the quantization error).
    ``kmeans_stop``: "library" (the library's rule with ``kmeans_tol``) or
    "bound" (the papers' rule: relative change of the k-means variational
    bound below 1e-4, see :func:`lloyd_bound_stop`).
    """

    n_clusters: int
    seed: int = 0
    n_threads: Optional[int] = None
    kmeans_tol: Optional[float] = None
    kmeans_stop: str = "library"

    def __post_init__(self):
        if self.kmeans_stop not in KMEANS_STOP_RULES:
            raise ValueError(f"kmeans_stop must be one of {', '.join(KMEANS_STOP_RULES)}, "
                             f"got {self.kmeans_stop!r}.")
        if self.kmeans_stop == "bound" and self.kmeans_tol is not None:
            raise ValueError("kmeans_tol applies to the library's rule, not to kmeans_stop='bound'.")


@dataclass(frozen=True)
class Row:
    """One algorithm of the table.

    Parameters
    ----------
    name : str
        Shown in the "algorithm" column.
    G : int, str or None
        Neighbourhood size of the variational algorithms ("3+1" with the
        random extra cluster; None: not applicable).
    n_prime : int or None
        Coreset size (None: trains on the full data).
    fit : callable ``(X, setting, seed) -> Measurement``
        Fits on X (the full data) with the seed of one repetition.
    family : str, optional
        Groups rows of one curve (plots, target checks); defaults to ``name``,
        and for vc-GMM to ``"vc-GMM G=<G>"``.
    """

    name: str
    G: object = None
    n_prime: Optional[int] = None
    fit: Optional[Callable] = None
    family: Optional[str] = None

    def __post_init__(self):
        if self.family is None:
            family = f"{self.name} G={self.G}" if self.name == "vc-GMM" else self.name
            object.__setattr__(self, "family", family)

    @property
    def label(self):
        """The row as one progress line names it."""
        text = self.name + (f" (N'={format_n_prime(self.n_prime)})" if self.n_prime else "")
        return text + (f" (G={self.G})" if self.G is not None else "")


@dataclass
class Measurement:
    """One fit. ``None`` where an algorithm does not report a quantity."""

    Q: float                    # quantization error on the full data
    seconds: float              # algorithm wall time (coreset + seeding + iterations)
    setup_seconds: Optional[float] = None   # coreset + seeding
    em_seconds: Optional[float] = None      # iterations
    distances: Optional[int] = None         # distance evaluations (same phases)
    distances_estimated: bool = False       # True: an estimate, not a count
    iterations: Optional[int] = None
    seed: Optional[int] = None
    extra: dict = field(default_factory=dict)  # anything else a caller records


def measurement(X, centers, n_threads=None, **fields):
    """A :class:`Measurement` with Q = the quantization error of ``centers`` on X."""
    centers = np.asarray(centers, dtype=X.dtype)
    return Measurement(Q=float(quantization_error(X, centers, n_threads=n_threads)), **fields)


def _attribute(fitted, name):
    """``name_`` of an estimator or ``name`` of a result (VCGMMResult)."""
    value = getattr(fitted, name + "_", None)
    return getattr(fitted, name) if value is None else value


def measure_fit(X, fitted, n_threads=None):
    """Measure a fitted vcgmm estimator (or a ``fit_vcgmm`` / ``fit_vargmm`` result)."""
    timings = dict(_attribute(fitted, "timings"))
    evals = dict(_attribute(fitted, "n_distance_evals"))
    setup = timings.get("coreset", 0.0) + timings.get("seeding", 0.0)
    em = timings.get("iterations", 0.0) + timings.get("refinement", 0.0)
    centers = getattr(fitted, "cluster_centers_", None)
    return measurement(
        X, fitted.centers if centers is None else centers, n_threads,
        seconds=float(setup + em), setup_seconds=float(setup), em_seconds=float(em),
        distances=int(sum(evals.get(k, 0) for k in ("coreset", "seeding", "iterations", "refinement"))),
        iterations=int(_attribute(fitted, "n_iter")),
    )


def kmeans_bound(Q, n_samples, n_features, n_clusters):
    """The variational bound of k-means (Luecke & Forster 2017) at quantization error Q.

    k-means is truncated variational EM (one cluster per point) of an
    isotropic GMM with equal priors and shared variance sigma^2 = Q / (N D):
    F = -N (ln C + D/2 ln(2 pi e Q / (N D))). The papers (000, Suppl. F) stop
    their k-means baseline on its relative change.
    """
    n, d = float(n_samples), float(n_features)
    return -n * (math.log(n_clusters) + 0.5 * d * math.log(2.0 * math.pi * math.e * Q / (n * d)))


def lloyd_bound_stop(X, n_clusters, *, random_state=None, n_threads=None, eps=PAPERS_TOL,
                     max_iter=None):
    """k-means++ + Lloyd stopped the papers' way (relative change of the bound below ``eps``).

    The seeding (the papers' plain D^2 sampling, ``n_local_trials=1``) and the
    first iteration are ``vcgmm.KMeans(max_iter=1)``'s,
    each further iteration one ``vcgmm.lloyd(max_iter=1)`` call (the same
    Lloyd step as inside KMeans, so the trajectory is KMeans's); after every
    iteration's assignment F_t = :func:`kmeans_bound` of its Q_t, and the run
    stops after the first iteration t > 1 with |F_t - F_{t-1}| < eps |F_t|
    (its mean update included, as Lloyd does), at a fixed point (no label
    changed, as Lloyd does), or after ``max_iter`` (default: KMeans's).

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features)
    info : dict
        ``objective`` (Q of every iteration), ``bound``, ``n_iter``,
        ``converged``, ``timings`` and ``n_distance_evals`` (phases coreset,
        seeding, iterations: the library's own timers and counts; the bound's
        arithmetic and the per-call argument checks are not timed).
    """
    if max_iter is None:
        max_iter = KMeans().max_iter
    n, d = X.shape
    est = KMeans(n_clusters, max_iter=1, tol=0.0, n_local_trials=1, random_state=random_state,
                 n_threads=n_threads).fit(X)
    timings = {k: float(est.timings_[k]) for k in ("coreset", "seeding", "iterations")}
    evals = {k: int(est.n_distance_evals_[k]) for k in ("coreset", "seeding", "iterations")}
    centers = est.cluster_centers_
    objective = [float(est.objective_[0])]
    bound = [kmeans_bound(objective[0], n, d, n_clusters)]
    converged = False
    while len(objective) < max_iter:
        previous = centers
        centers, info = lloyd(X, centers, max_iter=1, tol=0.0, n_threads=n_threads)
        timings["iterations"] += float(info["timings"]["iterations"])
        evals["iterations"] += int(info["n_distance_evals"]["iterations"])
        objective.append(float(info["objective"][0]))
        bound.append(kmeans_bound(objective[-1], n, d, n_clusters))
        # Lloyd's own fixed-point stop (no label changed: the same means again)
        if abs(bound[-1] - bound[-2]) < eps * abs(bound[-1]) or np.array_equal(centers, previous):
            converged = True
            break
    return centers, {"objective": np.array(objective), "bound": np.array(bound),
                     "n_iter": len(objective), "converged": converged, "timings": timings,
                     "n_distance_evals": evals}


def _fit_kmeanspp(X, setting, seed):
    if setting.kmeans_stop == "bound":
        centers, info = lloyd_bound_stop(X, setting.n_clusters, random_state=seed,
                                         n_threads=setting.n_threads)
        t = info["timings"]
        setup = t["coreset"] + t["seeding"]
        return measurement(X, centers, setting.n_threads, seconds=setup + t["iterations"],
                           setup_seconds=setup, em_seconds=t["iterations"],
                           distances=sum(info["n_distance_evals"].values()),
                           iterations=info["n_iter"], extra={"stop": "bound"})
    tol = {} if setting.kmeans_tol is None else {"tol": setting.kmeans_tol}
    est = KMeans(setting.n_clusters, n_local_trials=1, random_state=seed,
                 n_threads=setting.n_threads, **tol)
    return measure_fit(X, est.fit(X), setting.n_threads)


def _fit_lwcs(n_prime, X, setting, seed):
    est = KMeans(setting.n_clusters, init="afk-mc2", coreset_size=n_prime,
                 chain_length=CHAIN_LENGTH, random_state=seed, n_threads=setting.n_threads)
    return measure_fit(X, est.fit(X), setting.n_threads)


def _fit_variational(G, plus1, n_prime, refine, X, setting, seed):
    """var-GMM-S (n_prime None) or vc-GMM; the functions skip the labelling pass.
    ``refine=0``: the papers' algorithm."""
    options = dict(plus1=plus1, init="afk-mc2", chain_length=CHAIN_LENGTH, random_state=seed,
                   n_threads=setting.n_threads, refine=refine, initial_sets="random")
    if n_prime is None:
        result = fit_vargmm(X, setting.n_clusters, G, **options)
    else:
        result = fit_vcgmm(X, setting.n_clusters, G, n_prime, **options)
    return measure_fit(X, result, setting.n_threads)


def _fit_library_defaults(n_prime, X, setting, seed):
    """vc-GMM at the library's defaults (seeding, G, refinement, stop rule)
    on a coreset of n_prime points."""
    result = fit_vcgmm(X, setting.n_clusters, coreset_size=n_prime, random_state=seed,
                       n_threads=setting.n_threads)
    return measure_fit(X, result, setting.n_threads)


#: The row name of vc-GMM at the library's defaults.
LIBRARY_DEFAULTS = "VCGMM() defaults"


def _variational_row(name, G, plus1, n_prime, refine=0):
    G_text = f"{G}+1" if plus1 else G
    if refine:
        name = f"{name} refine={refine}"
        return Row(name, G_text, n_prime, partial(_fit_variational, G, plus1, n_prime, refine),
                   family=f"{name} G={G_text}")
    return Row(name, G_text, n_prime, partial(_fit_variational, G, plus1, n_prime, 0))


def default_rows(n_samples, coreset_sizes=DEFAULT_CORESET_SIZES, *, vc_G=DEFAULT_VC_G,
                 vargmm_G=(5,), lwcs=True, vc_refine=(), library_defaults=False):
    """The rows of vcgmm's algorithms, as in the paper's Table 1.

    k-means++ (the baseline), var-GMM-S for each G in ``vargmm_G``, then for
    each coreset size N' that does not exceed ``n_samples``: LWCS (unless
    ``lwcs`` is False) and vc-GMM for each ``(G, plus1)`` in ``vc_G``. The
    var-GMM-S and vc-GMM rows are the papers' algorithms (``refine=0``); for
    each k in ``vc_refine`` a row "vc-GMM refine=k" follows each vc-GMM row.
    With ``library_defaults`` a row :data:`LIBRARY_DEFAULTS` (VCGMM's default
    seeding, G and refinement on that coreset) ends each coreset size's rows.
    """
    rows = [Row("k-means++", fit=_fit_kmeanspp)]
    rows += [_variational_row("var-GMM-S", G, False, None) for G in vargmm_G]
    for n_prime in coreset_sizes:
        if n_prime > n_samples:
            continue
        if lwcs:
            rows.append(Row("LWCS", None, n_prime, partial(_fit_lwcs, n_prime)))
        for G, plus1 in vc_G:
            rows.append(_variational_row("vc-GMM", G, plus1, n_prime))
            rows += [_variational_row("vc-GMM", G, plus1, n_prime, k) for k in vc_refine if k]
        if library_defaults:
            rows.append(Row(LIBRARY_DEFAULTS, int(VCGMM_PARAMS.defaults["G"]), n_prime,
                            partial(_fit_library_defaults, n_prime)))
    return rows


# ------------------------------------------------------------------ repetitions
@dataclass
class RowResult:
    """The measurements of one row, one per seed."""

    row: Row
    records: list

    def values(self, name):
        return [getattr(r, name) for r in self.records]


def measure(row, X, setting, seeds, *, fit=None):
    """Fit ``row`` once per seed. ``fit(row, X, setting, seed) -> Measurement``
    replaces the plain ``row.fit(X, setting, seed)`` (e.g. to watch the machine)."""
    result = RowResult(row, [])
    for seed in seeds:
        record = row.fit(X, setting, seed) if fit is None else fit(row, X, setting, seed)
        record.seed = seed
        result.records.append(record)
    return result


def run_rows(X, rows, setting, *, repeats=1, out=print):
    """Run every row with seeds ``setting.seed .. + repeats - 1``, reporting
    progress to ``out``; the first row is the baseline."""
    seeds = [setting.seed + r for r in range(repeats)]
    results = []
    for i, row in enumerate(rows, 1):
        out(f"[{i}/{len(rows)}] {row.label} ...")
        start = time.perf_counter()
        result = measure(row, X, setting, seeds)
        out(f"      done: {np.mean(result.values('seconds')):.2f} s algorithm time, "
            f"{np.mean(result.values('iterations')):.1f} iterations "
            f"({time.perf_counter() - start:.1f} s wall incl. evaluation)")
        results.append(result)
    return results


# ------------------------------------------------------------------ summary
def _mean(values):
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def _sem(values):
    values = np.asarray([v for v in values if v is not None], dtype=np.float64)
    return float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else None


def _ratio(base, value):
    if base is None or value is None:
        return None
    return base / value if value > 0 else math.inf


def summarize(results):
    """One dict per row, relative to the first (the baseline).

    eta_r = (Q_r - mean Q_base) / mean Q_base in percent for every repetition
    r: its mean and standard error (None for one repetition; as in the paper's
    Table 1 the baseline itself gets 0 +- SEM). Speedups are the baseline's
    mean cost (time, distances) over the row's; ``setup_share`` is the share
    of the time spent in coreset + seeding.
    """
    base = results[0]
    q_base = _mean(base.values("Q"))
    t_base, d_base = _mean(base.values("seconds")), _mean(base.values("distances"))
    rows = []
    for res in results:
        etas = [100.0 * (q - q_base) / q_base for q in res.values("Q")]
        t, d, setup = (_mean(res.values(k)) for k in ("seconds", "distances", "setup_seconds"))
        rows.append({
            "algorithm": res.row.name, "family": res.row.family,
            "G": "-" if res.row.G is None else str(res.row.G), "n_prime": res.row.n_prime,
            "seeds": len(res.records), "Q": _mean(res.values("Q")),
            "eta": _mean(etas), "eta_sem": _sem(etas),
            "seconds": t, "seconds_sem": _sem(res.values("seconds")),
            "em_seconds": _mean(res.values("em_seconds")),
            "speedup_time": _ratio(t_base, t),
            "distances": d, "distances_estimated": any(res.values("distances_estimated")),
            "speedup_distances": _ratio(d_base, d),
            "iterations": _mean(res.values("iterations")),
            "setup_share": None if setup is None or t is None else (setup / t if t > 0 else 0.0),
        })
    return rows


# ------------------------------------------------------------------ tables
def format_n_prime(n_prime):
    if n_prime is None:
        return "-"
    exponent = int(round(math.log2(n_prime)))
    return f"2^{exponent}" if 2**exponent == n_prime else f"{n_prime:,}"


def format_speedup(value, estimated=False):
    if value is None:
        return "-"
    if math.isinf(value):
        return "inf"
    return ("~" if estimated else "") + (f"{value:.1f}x" if value < 100 else f"{value:.0f}x")


def _format_eta(s, plus_minus):
    # round before formatting so that a tiny negative mean prints as 0.00%, not -0.00%
    text = f"{round(s['eta'], 2) + 0.0:.2f}%"
    return text + (f" {plus_minus} {s['eta_sem']:.2f}" if s["eta_sem"] is not None else "")


def _format_share(share):
    if share is None:
        return "-"
    return "<1%" if 0 < share < 0.005 else f"{share * 100:.0f}%"


def _format_iterations(s):
    if s["iterations"] is None:
        return "-"
    return f"{s['iterations']:.1f}" if s["seeds"] > 1 else str(int(round(s["iterations"])))


_CELLS = {
    "G": lambda s, pm: s["G"],
    "N'": lambda s, pm: format_n_prime(s["n_prime"]),
    "rel. error eta": _format_eta,
    "speedup time": lambda s, pm: format_speedup(s["speedup_time"]),
    "speedup distances": lambda s, pm: format_speedup(s["speedup_distances"],
                                                      s["distances_estimated"]),
    "iterations": lambda s, pm: _format_iterations(s),
    "coreset+seeding": lambda s, pm: _format_share(s["setup_share"]),
    "time [s]": lambda s, pm: f"{s['seconds']:.2f}",
}
DEMO_COLUMNS = ("algorithm", "G", "N'", "rel. error eta", "speedup time", "speedup distances",
                "iterations", "coreset+seeding", "time [s]")


def table_cells(summaries, columns=DEMO_COLUMNS, *, plus_minus="+-"):
    """The table as a list of rows of str, the header first. A column not
    formatted here shows ``str(summary[column])`` (e.g. "algorithm", "C")."""
    cells = [list(columns)]
    for s in summaries:
        cells.append([_CELLS[c](s, plus_minus) if c in _CELLS else str(s[c]) for c in columns])
    return cells


def format_table(cells):
    """Plain-text table with aligned columns (the first left, the others right)."""
    widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
    lines = []
    for i, row in enumerate(cells):
        parts = [cell.ljust(widths[j]) if j == 0 else cell.rjust(widths[j])
                 for j, cell in enumerate(row)]
        lines.append("  ".join(parts).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ------------------------------------------------------------------ stopping rules
def papers_kmeans_tol(Q, n_samples, n_features, n_clusters, eps=PAPERS_TOL):
    """The ``tol`` on the relative change of Q equivalent to the papers' rule.

    The papers stop k-means when the relative change of its variational bound
    (k-means as truncated EM of an isotropic GMM with equal priors, Luecke and
    Forster 2017) F = -N (ln C + D/2 ln(2 pi e Q / (N D))) falls below
    ``eps``. Since dF = -(N D / 2) dQ / Q, that is |dQ| / Q < eps
    |2 ln C / D + ln(2 pi e Q / (N D))|, evaluated here at the final Q. It
    depends on the data's units, as the papers' rule does.
    """
    sigma2 = Q / (n_samples * n_features)
    return eps * abs(2.0 * math.log(n_clusters) / n_features
                     + math.log(2.0 * math.pi * math.e * sigma2))


def stop_rules(setting, *, q_base=None, shape=None):
    """The stopping rules of the rows, as one paragraph for under a table.

    With the baseline's mean Q and the data's ``shape``, also the ``tol`` that
    would reproduce the papers' rule for the baseline (see :func:`papers_kmeans_tol`).
    """
    kmeans_tol = KMeans().tol
    base_tol = kmeans_tol if setting.kmeans_tol is None else setting.kmeans_tol
    vc = VCGMM()
    if setting.kmeans_stop == "bound":
        text = (f"Stopping rules: the k-means++ baseline stopped the papers' way (Suppl. F): "
                f"when the relative change of its variational bound (k-means as truncated EM, "
                f"F = -N (ln C + D/2 ln(2 pi e Q/(N D)))) fell below {PAPERS_TOL:g} "
                f"(kmeans_stop='bound'; the library's KMeans stops on the relative change of Q "
                f"below {kmeans_tol:g}); LWCS stopped by the library's rule, below {kmeans_tol:g}")
    else:
        text = (f"Stopping rules: the k-means++ baseline stopped when the relative change of "
                f"its quantization error fell below {base_tol:g}"
                + (" (the library's rule)" if setting.kmeans_tol is None else
                   f" (set; the library's default is {kmeans_tol:g})")
                + f", LWCS likewise below {kmeans_tol:g}; the papers (Suppl. F) stop k-means on "
                f"the relative change of its variational bound below {PAPERS_TOL:g}")
    if q_base is not None and shape is not None and setting.kmeans_stop != "bound":
        tol = papers_kmeans_tol(q_base, shape[0], shape[1], setting.n_clusters)
        text += f", which on these data corresponds to a tolerance of ~{tol:.1e} on Q"
    rule = ("gained less than {tol:g} nats of free energy per point and feature"
            if vc.stop_rule == "gain" else "changed the free energy by less than {tol:g} relative")
    return (text + ". var-GMM-S and vc-GMM stopped when an EM iteration "
            + rule.format(tol=vc.tol) + f" (stop_rule={vc.stop_rule!r}; the papers: relative "
            f"change of the free energy below {PAPERS_TOL:g}).")
