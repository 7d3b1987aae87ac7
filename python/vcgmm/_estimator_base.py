"""What the scikit-learn style estimators share.

:class:`CenterBasedEstimator`: input validation and the methods that need
only the fitted centers (``predict``, ``transform``, the exact quantization
error). :class:`PipelineEstimator`: the fit of an algorithm family that runs
the core's one-call pipeline (coreset, seeding, iterations, evaluation): its
parameters are validated by the family's :class:`~vcgmm._params.ParamTable`
and written into the core's params object, and ``_fit`` is the only call of
the family's core function -- the estimator's ``fit`` and the family's
functions (``fit_vcgmm``, ...) both go through it.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Optional

import numpy as np
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ._assignment import nearest_centers
from ._coreset import resolve_coreset_size
from ._params import INT32_MAX, Boolean, Integer, Param
from ._run import available_threads, run_options, seed_from
from ._seeding import seeding_to_core
from ._validation import (
    FLOAT_DTYPES,
    check_finite_magnitude,
    check_n_clusters,
    check_sample_weight,
    friendly_array_errors,
    reject_non_numeric,
)

__all__ = ["CenterBasedEstimator", "PipelineEstimator", "FLOPS_PER_THREAD",
           "COMPUTE_LABELS_PARAM", "N_INIT_PARAM", "run_seeds"]

#: A generous rate (floating-point operations per second and thread) for the
#: warning on absurd sizes: a fit warned about is slower than an hour even on
#: a fast machine.
FLOPS_PER_THREAD = 5e10


def user_stacklevel():
    """The ``stacklevel`` that makes a warning issued by the calling function
    point at the first frame outside the vcgmm package (the user's line)."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == package:
        frame, level = frame.f_back, level + 1
    return level


class CenterBasedEstimator:
    """Mixin for estimators whose model is a set of centers ``cluster_centers_``.

    Provides input validation (float32 stays float32, everything else becomes
    float64, C order, finite) and the methods that only need the centers:
    ``predict``, ``transform`` and the exact quantization error.
    """

    def _validate_X(self, X, *, reset):
        reject_non_numeric(X, "X")
        with friendly_array_errors("X"):
            X = validate_data(
                self,
                X,
                accept_sparse=False,
                dtype=list(FLOAT_DTYPES),
                order="C",
                reset=reset,
                ensure_all_finite=False,
            )
        return check_finite_magnitude(X, "X")

    def _centers_like(self, X):
        """The fitted centers in X's dtype, C-contiguous."""
        return np.ascontiguousarray(self.cluster_centers_, dtype=X.dtype)

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit and return ``labels_`` (the nearest center of every training sample).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Strictly positive weights; None means all ones.

        Returns
        -------
        labels : ndarray of shape (n_samples,), dtype int32
        """
        return self.fit(X, sample_weight=sample_weight).labels_

    def predict(self, X):
        """Index of the nearest center of each sample (exact, ties: lowest index).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        labels : ndarray of shape (n_samples,), dtype int32
        """
        check_is_fitted(self, "cluster_centers_")
        X = self._validate_X(X, reset=False)
        return nearest_centers(X, self._centers_like(X), n_threads=self.n_threads)[0]

    def transform(self, X):
        """Euclidean distances of each sample to every center.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
        """
        check_is_fitted(self, "cluster_centers_")
        X = self._validate_X(X, reset=False)
        return euclidean_distances(X, self._centers_like(X))

    def _quantization_error(self, X, sample_weight):
        return nearest_centers(X, self._centers_like(X), sample_weight,
                               n_threads=self.n_threads, labels=False)[1]


class _FromTrainingData:
    """``labels_`` / ``inertia_`` of a fit with ``compute_labels=False``:
    computed from the training data on first access.

    A non-data descriptor: an instance attribute of the same name (set by
    ``fit`` with ``compute_labels=True``, or by the first access) shadows it,
    so after the first access it costs nothing.
    """

    def __init__(self, doc):
        self.__doc__ = doc

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        obj._evaluate_training_data()
        return obj.__dict__[self.name]


#: The parameter ``compute_labels`` of every pipeline estimator.
COMPUTE_LABELS_PARAM = Param(
    "compute_labels", Boolean(), True,
    "compute labels_ and inertia_ on the full training data at the end of fit "
    "(False: on first access)", target=None, cli=None)

#: The parameter ``n_init`` of every pipeline estimator.
N_INIT_PARAM = Param(
    "n_init", Integer(1, INT32_MAX), 1,
    "number of runs with different seeds; the best by the full-data objective is kept",
    target=None, cli=None)


def run_seeds(random_state, n_init):
    """The core seeds of ``n_init`` runs, drawn one after the other from
    ``random_state`` (the first is the seed of a single run, so run 0 of
    ``n_init`` runs is the fit ``n_init=1`` gives)."""
    rng = check_random_state(random_state)
    return [seed_from(rng) for _ in range(n_init)]


@dataclass
class _Run:
    """One run of a family's pipeline: the core's outputs, and the objective
    (lower is better) it is ranked by when there are several runs."""

    result: object
    centers: np.ndarray
    labels: Optional[np.ndarray]
    coreset_indices: Optional[np.ndarray]
    coreset_weights: Optional[np.ndarray]
    objective: float = float("nan")


class PipelineEstimator(CenterBasedEstimator):
    """Base of the estimators that run a core pipeline.

    Subclasses set ``_params`` (the family's ParamTable, whose names are the
    ``__init__`` parameters), ``_count_param`` (``"n_clusters"`` or
    ``"n_components"``) and ``_core_fit`` (the family's core function,
    ``(X, sample_weight, init_centers, params, return_labels)`` ->
    ``(result, centers, labels, coreset_indices, coreset_weights)``), and
    ``_rank_runs`` (how ``n_init`` runs are compared).

    ``labels_`` and ``inertia_`` are set by ``fit`` when ``compute_labels``
    is True; otherwise the training data are kept referenced (no copy) and
    both are computed on first access (one exact pass, reported as the
    ``evaluation`` phase of ``n_distance_evals_`` and ``timings_``).
    """

    _params = None
    _count_param = "n_clusters"

    labels_ = _FromTrainingData("Nearest center of every training sample.")
    inertia_ = _FromTrainingData("Weighted quantization error of the training data.")

    @staticmethod
    def _core_fit(X, sample_weight, init_centers, params, return_labels):  # pragma: no cover
        raise NotImplementedError

    def _checked_params(self):
        """Every parameter of the estimator, validated by the family's table."""
        table = self._params
        return table.validate({name: getattr(self, name) for name in table.names()})

    def _fit(self, X, sample_weight=None, *, return_labels=True, evaluate=True):
        """Runs the family's pipeline ``n_init`` times on validated X
        (float32/float64, C order) and keeps the best run.

        Returns ``(values, run, w, n_distance_evals, timings)``: the validated
        parameters, the best :class:`_Run`, the validated weights and the
        costs summed over all runs (the ranking of several runs counted as
        ``evaluation``).
        """
        values = self._checked_params()
        n_clusters = check_n_clusters(values[self._count_param], X, self._count_param)
        params = self._params.to_core(values)
        params.coreset_size = resolve_coreset_size(values["coreset_size"], X.shape[0], n_clusters)
        init_centers = seeding_to_core(values, X, n_clusters, params)
        w = check_sample_weight(sample_weight, X)
        n_init = values.get("n_init", 1)
        if n_init > 1 and init_centers is not None and not self._runs_differ(params):
            warnings.warn(
                f"Explicit initial centers (init=array) and coreset_size=None: every run "
                f"would give the same result, so only one is performed instead of "
                f"n_init={n_init}.", RuntimeWarning, stacklevel=user_stacklevel())
            n_init = 1
        seeds = run_seeds(values["random_state"], n_init)
        params.run = run_options(values["n_threads"], 0, values["verbose"])
        self._warn_if_huge(X, params)
        costs = {"n_distance_evals": None, "timings": None}
        best = None
        if n_init > 1 and not self._rank_needs_evaluation:
            # Runs ranked without the core's evaluation: labels of the best
            # run only, afterwards (by the caller).
            return_labels = evaluate = False
        params.evaluate = bool(evaluate) or (n_init > 1 and self._rank_needs_evaluation)
        for seed in seeds:
            params.run.seed = seed
            run = _Run(*type(self)._core_fit(X, w, init_centers, params, bool(return_labels)))
            _add_costs(costs, run.result.n_distance_evals, run.result.timings)
            if n_init > 1:
                start = time.perf_counter()
                run.objective = self._rank_run(X, w, run, values)
                _add_costs(costs, {"evaluation": self._rank_evals(X, run)},
                           {"evaluation": time.perf_counter() - start})
                if best is None or run.objective < best.objective:
                    best = run
            else:
                best = run
        return values, best, w, costs["n_distance_evals"], costs["timings"]

    # Ranking of n_init runs (lower objective is better); per family.
    _rank_needs_evaluation = False

    def _runs_differ(self, params):
        """Whether runs from the same given initial centers differ (they do
        with a coreset: each run draws its own)."""
        return params.coreset_size > 0

    def _rank_run(self, X, w, run, values):  # pragma: no cover - per family
        raise NotImplementedError

    def _rank_evals(self, X, run):
        """Distance evaluations of _rank_run beyond the core's own (0 when it
        reads the core's evaluation)."""
        return 0

    def _set_evaluation(self, X, w, run, values, n_distance_evals, timings):
        """Sets ``labels_`` and ``inertia_`` from the run (or, with
        ``compute_labels=False``, arranges their computation on first access),
        and the cost attributes."""
        for name in ("labels_", "inertia_"):
            self.__dict__.pop(name, None)
        self._training_data = None
        self.n_distance_evals_ = n_distance_evals
        self.timings_ = timings
        if not values["compute_labels"]:
            self._training_data = (X, w)
            if not np.isnan(run.result.inertia):
                self.inertia_ = float(run.result.inertia)
            return
        if run.labels is None:  # several runs ranked without labels: one exact pass now
            self._training_data = (X, w)
            self._evaluate_training_data()
            return
        self.labels_ = run.labels
        self.inertia_ = float(run.result.inertia)

    def _evaluate_training_data(self):
        """Computes ``labels_`` and ``inertia_`` from the training data kept by
        a fit with ``compute_labels=False`` (first access)."""
        check_is_fitted(self, "cluster_centers_")
        data = self.__dict__.get("_training_data")
        if data is None:
            raise AttributeError(
                f"This {type(self).__name__} has no labels_ or inertia_: it was fitted with "
                "compute_labels=False and its training data are no longer available (a "
                "pickled, saved or from_centers model). Use predict(X) and score(X).")
        X, w = data
        start = time.perf_counter()
        labels, inertia = nearest_centers(X, self._centers_like(X), w, n_threads=self.n_threads)
        seconds = time.perf_counter() - start
        self.__dict__["labels_"] = labels
        if "inertia_" not in self.__dict__:
            self.__dict__["inertia_"] = inertia
        self._training_data = None
        evals = dict(self.n_distance_evals_)
        evals["evaluation"] += X.shape[0] * self.cluster_centers_.shape[0]
        self.n_distance_evals_ = evals
        timings = dict(self.timings_)
        timings["evaluation"] += seconds
        self.timings_ = timings
        self._after_evaluation(labels)

    def _after_evaluation(self, labels):
        """Hook: checks on the labels once they exist."""

    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop("_training_data", None)  # never pickle the training data
        return state

    def _work_estimate(self, n_samples, params):
        """(distance evaluations before the first iteration, per iteration,
        hint): the family's cost model, for the warning on absurd sizes."""
        C, m = params.n_clusters, params.coreset_size
        fit_n = m or n_samples
        if params.seeding.method == "k-means++":
            seeding = fit_n * (C - 1) * max(1, params.seeding.kmeans_plusplus.n_local_trials)
        elif params.seeding.method == "afk-mc2":
            seeding = fit_n + params.seeding.afkmc2.chain_length * C * (C - 1) // 2
        else:
            seeding = 0
        return (n_samples if m else 0) + seeding, self._iteration_evals(fit_n, params), (
            "use a coreset (coreset_size='auto'), init='afk-mc2', or fewer clusters")

    def _iteration_evals(self, fit_n, params):  # pragma: no cover - per family
        raise NotImplementedError

    def _warn_if_huge(self, X, params):
        """Warn before starting a fit that needs more than an hour on this
        machine even at a generous FLOPS_PER_THREAD (the cost model of the
        family: seeding plus one iteration; more iterations only add)."""
        setup, per_iter, hint = self._work_estimate(X.shape[0], params)
        flops = 2.0 * X.shape[1] * (setup + per_iter)
        seconds = flops / (FLOPS_PER_THREAD * available_threads())
        if seconds > 3600.0:
            warnings.warn(
                f"This fit needs at least {setup + per_iter:.3g} distance evaluations "
                f"({setup:.3g} before the first iteration, {per_iter:.3g} per iteration) in "
                f"{X.shape[1]} dimensions: at least {seconds / 3600.0:.1f} hours on "
                f"{available_threads()} threads. To make it feasible: {hint}.",
                UserWarning, stacklevel=user_stacklevel())


_PHASES = ("coreset", "seeding", "iterations", "evaluation")


def _add_costs(costs, n_distance_evals, timings):
    """Adds one run's (or step's) costs per phase into ``costs``."""
    if costs["n_distance_evals"] is None:
        costs["n_distance_evals"] = dict.fromkeys(_PHASES, 0)
        costs["timings"] = dict.fromkeys(_PHASES, 0.0)
    for phase, v in n_distance_evals.items():
        costs["n_distance_evals"][phase] += int(v)
    for phase, v in timings.items():
        costs["timings"][phase] += float(v)
