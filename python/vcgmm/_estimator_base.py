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

import warnings

import numpy as np
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils.validation import check_is_fitted, validate_data

from ._assignment import nearest_centers
from ._coreset import resolve_coreset_size
from ._metric import is_cosine, normalize_rows
from ._run import available_threads, run_options
from ._seeding import seeding_to_core
from ._validation import (
    FLOAT_DTYPES,
    check_finite_magnitude,
    check_n_clusters,
    check_sample_weight,
    friendly_array_errors,
    reject_non_numeric,
)

__all__ = ["CenterBasedEstimator", "PipelineEstimator", "FLOPS_PER_THREAD"]

#: A generous rate (floating-point operations per second and thread) for the
#: warning on absurd sizes: a fit warned about is slower than an hour even on
#: a fast machine.
FLOPS_PER_THREAD = 5e10


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
        X = check_finite_magnitude(X, "X")
        # metric="cosine": new data are normalised here; training data in
        # PipelineEstimator._fit (the one path of fit and the functions).
        return normalize_rows(X, "X") if is_cosine(self) and not reset else X

    #: True for families whose centers are means that metric="cosine" keeps at
    #: unit length (spherical k-means): their objective is then reported as
    #: sum w (1 - cos), half the squared distance between unit vectors.
    _spherical_centers = False

    def _objective_scale(self):
        return 0.5 if self._spherical_centers and is_cosine(self) else 1.0

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
        """Distances of each sample to every center: Euclidean, or with
        ``metric="cosine"`` (k-means) the cosine distance ``1 - cos``.

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
        centers = self._centers_like(X)
        if self._objective_scale() != 1.0:  # unit rows and unit centers
            return np.clip(1.0 - X @ centers.T, 0.0, 2.0)
        return euclidean_distances(X, centers)

    def _quantization_error(self, X, sample_weight):
        return self._objective_scale() * nearest_centers(
            X, self._centers_like(X), sample_weight, n_threads=self.n_threads, labels=False)[1]


class PipelineEstimator(CenterBasedEstimator):
    """Base of the estimators that run a core pipeline.

    Subclasses set ``_params`` (the family's ParamTable, whose names are the
    ``__init__`` parameters), ``_count_param`` (``"n_clusters"`` or
    ``"n_components"``) and ``_core_fit`` (the family's core function,
    ``(X, sample_weight, init_centers, params, return_labels)`` ->
    ``(result, centers, labels, coreset_indices, coreset_weights)``).
    """

    _params = None
    _count_param = "n_clusters"

    @staticmethod
    def _core_fit(X, sample_weight, init_centers, params, return_labels):  # pragma: no cover
        raise NotImplementedError

    def _checked_params(self):
        """Every parameter of the estimator, validated by the family's table."""
        table = self._params
        return table.validate({name: getattr(self, name) for name in table.names()})

    def _fit(self, X, sample_weight=None, *, return_labels=True, evaluate=True):
        """Runs the family's pipeline on validated X (float32/float64, C order).

        Returns ``(values, result, centers, labels, coreset_indices,
        coreset_weights)``; ``values`` are the validated parameters.
        """
        values = self._checked_params()
        if is_cosine(values):
            X = normalize_rows(X, "X")
        n_clusters = check_n_clusters(values[self._count_param], X, self._count_param)
        params = self._params.to_core(values)
        params.coreset_size = resolve_coreset_size(values["coreset_size"], X.shape[0], n_clusters)
        self._check_sizes(values, params.coreset_size or X.shape[0], n_clusters)
        init_centers = seeding_to_core(values, X, n_clusters, params)
        params.run = run_options(values["n_threads"], values["random_state"], values["verbose"])
        params.evaluate = bool(evaluate)
        if self._spherical_centers and is_cosine(values):
            params.lloyd.spherical = True
        w = check_sample_weight(sample_weight, X)
        self._warn_if_huge(X, params)
        out = type(self)._core_fit(X, w, init_centers, params, bool(return_labels))
        return (values, *out)

    def _check_sizes(self, values, n_fit, n_clusters):
        """Checks of parameters against the points fitted (``n_fit``: the
        samples, or the coreset size), raising ValueError naming the
        parameter; none by default (e.g. a batch size at most n_fit)."""

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
                UserWarning, stacklevel=4)
