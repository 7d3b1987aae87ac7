"""What the stochastic k-means estimators share (mbatch: ``minibatch.py``,
nmbatch: ``nmbatch.py``, VRKM: ``vrkm.py``): their result
:class:`StochasticKMeansResult`, the estimator base that fits through the
core pipeline and sets the fitted attributes, and the functional form
``fit_<algo>(X, C, **params)``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin

from .._estimator.base import N_INIT_PARAM, PipelineEstimator, kmeans_score, warn_distinct_clusters
from .._base.docs import fill_doc
from .._base.params import CORE, INT32_MAX, AnyOf, Boolean, Integer, Options, Param
from .._base.validation import as_data, check_function_count
from .._data.source import as_source

__all__ = ["StochasticKMeansResult", "StochasticKMeans", "auto_or", "fit_function",
           "STOCHASTIC_COMPUTE_LABELS", "N_INIT_PARAM"]


def auto_or(constraint):
    """``"auto"`` or a value of ``constraint`` ("auto" is the core's 0)."""
    return AnyOf(Options(("auto",)), constraint)


def _zero_if_auto(value):
    return 0 if value == "auto" else value


#: ``compute_labels`` of the stochastic estimators (scikit-learn's
#: MiniBatchKMeans convention: without it ``labels_`` and ``inertia_`` are None).
STOCHASTIC_COMPUTE_LABELS: Param = Param(
    "compute_labels", Boolean(), True,
    "compute labels_ and inertia_ on the training data after fitting")


def batch_size_param(help_text, target):
    """The ``batch_size`` entry (mbatch's b, nmbatch's b0): "auto" or an integer."""
    return Param("batch_size", auto_or(Integer(1, None)), "auto", help_text, target=target,
                 cli="--batch-size", core_value=_zero_if_auto)


@dataclass
class StochasticKMeansResult:
    """Result of :func:`fit_mbatch`, :func:`fit_nmbatch` and :func:`fit_vrkm`.

    Attributes
    ----------
    centers : ndarray of shape (C, n_features)
        Final centers (X's dtype).
    labels : ndarray of shape (n_samples,) or None
        Exact nearest center of every row of X (``return_labels=True``).
    inertia : float or None
        ``sum_n w_n min_c ||x_n - c||^2`` on the full data (``return_labels=True``).
    n_iter : int
        Iterations run (mbatch, nmbatch) or epochs (VRKM).
    converged : bool
        Whether the algorithm stopped by its convergence rule.
    objective : ndarray
        The algorithm's objective per iteration (see the estimator's ``objective_``).
    objective_seconds : ndarray
        When each entry of ``objective`` was reached, in seconds since the
        iterations started (for energy-vs-time plots).
    n_distance_evals : dict
        Distance evaluations per phase (``coreset``, ``seeding``,
        ``iterations``, ``evaluation``); for nmbatch the computed ones.
    timings : dict
        Wall time in seconds per phase (same keys).
    coreset_indices, coreset_weights : ndarray or None
        The coreset, when one is used.
    info : dict
        What the algorithm reports besides (see the estimator's attributes).

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 4)).astype(np.float32)
    >>> r = vcgmm.fit_nmbatch(X, 16, random_state=0, return_labels=True)
    >>> r.centers.dtype, r.labels.shape, r.n_distance_evals["iterations"] > 0
    (dtype('float32'), (20000,), True)
    """

    centers: np.ndarray
    labels: Optional[np.ndarray]
    inertia: Optional[float]
    n_iter: int
    converged: bool
    objective: np.ndarray
    objective_seconds: np.ndarray
    n_distance_evals: dict
    timings: dict
    coreset_indices: Optional[np.ndarray] = None
    coreset_weights: Optional[np.ndarray] = None
    info: dict = field(default_factory=dict)


class StochasticKMeans(PipelineEstimator, ClusterMixin, TransformerMixin, BaseEstimator):
    """Base of MiniBatchKMeans, NestedMiniBatchKMeans and VRKMeans: fit
    through the core pipeline, then the attributes every k-means estimator
    has plus the family's own (``_info``)."""

    _in_memory_fit: Optional[str] = (
        "its steps sample rows from the whole data set. With coreset_size set (e.g. 'auto') "
        "it fits chunked and Dask data on a coreset drawn in two passes; MiniBatchKMeans "
        "also streams them.")

    score = kmeans_score
    _count_param = "n_clusters"

    def _empty_cluster_cause(self):
        return ("some centers ended where no sample is nearest to them (a stochastic "
                "algorithm does not move empty clusters), or the data have fewer than "
                "n_clusters distinct points; another init or random_state, or more "
                "iterations, may help.")

    def _info(self, r):  # pragma: no cover - per family
        """The family's own results, by attribute name without the trailing '_'."""
        raise NotImplementedError

    def _fit_result(self, X, sample_weight, *, return_labels):
        """The fit as a StochasticKMeansResult (shared by fit and the fit_* functions)."""
        # The best of n_init runs (by their inertia on the full training data);
        # the costs are summed over the runs.
        _, run, _, n_distance_evals, timings = self._fit(
            X, sample_weight, return_labels=return_labels, evaluate=return_labels)
        r = run.result
        scale = self._objective_scale()  # metric="cosine": sum w (1 - cos)
        return StochasticKMeansResult(
            centers=run.centers, labels=run.labels,
            inertia=scale * float(r.inertia) if return_labels else None,
            n_iter=int(r.n_iter), converged=bool(r.converged),
            objective=scale * np.asarray(r.objective),
            objective_seconds=r.seconds, n_distance_evals=n_distance_evals,
            timings=timings, coreset_indices=run.coreset_indices,
            coreset_weights=run.coreset_weights, info=self._info(r))

    def _set_fitted(self, r):
        self.cluster_centers_ = r.centers
        self.labels_ = r.labels
        self.inertia_ = r.inertia
        self.n_iter_ = r.n_iter
        self.converged_ = r.converged
        self.objective_ = r.objective
        self.objective_seconds_ = r.objective_seconds
        self.n_distance_evals_ = r.n_distance_evals
        self.timings_ = r.timings
        self.coreset_indices_ = r.coreset_indices
        self.coreset_weights_ = r.coreset_weights
        for name, value in r.info.items():
            setattr(self, name + "_", value)

    def _compute_labels(self):
        return self.compute_labels

    # n_init runs are ranked by their inertia on the full training data, which
    # the core's evaluation stage computes; runs from the same initial
    # centers differ (their batches and draws do).
    _rank_needs_evaluation = True

    def _rank_run(self, X, w, run, values):
        return float(run.result.inertia)

    def _runs_differ(self, params):
        return True

    @fill_doc
    def fit(self, X, y=None, sample_weight=None):
        """Compute the clustering.

        Parameters
        ----------
        %(fit_params_coreset)s

        Returns
        -------
        self
            Fitted estimator.
        """
        source = as_source(X, sample_weight)
        labels = Boolean().check(self._compute_labels(), "compute_labels")
        if source is None:
            X = self._validate_X(X, reset=True, fit=True)
            r = self._fit_result(X, sample_weight, return_labels=labels)
        else:
            if self._checked_params()["coreset_size"] is None:
                r = self._fit_stream(source)
            else:
                r = self._fit_result(source, None, return_labels=labels)
            self.__dict__.pop("feature_names_in_", None)
            self.n_features_in_ = int(source.n_features)
        self._set_fitted(r)
        if isinstance(r.labels, np.ndarray):  # not when lazy (Dask)
            warn_distinct_clusters(r.labels, self.n_clusters, self._empty_cluster_cause())
        return self

    def _fit_stream(self, source):
        """The fit of chunked or Dask data without a coreset (by default: refused)."""
        raise TypeError(f"{type(self).__name__}.fit needs X in memory as one array, or "
                        f"coreset_size: {self._in_memory_fit} Pass np.asarray(X) (or "
                        "X.compute()) if it fits in memory.")


def fit_function(cls, name, X, C, sample_weight, return_labels, params):
    """The body of ``fit_<algo>(X, C, *, sample_weight, return_labels, **params)``:
    the estimator ``cls`` with those parameters, fitted by its private fit."""
    if "n_clusters" in params:
        raise TypeError(f"{name} got 'n_clusters' twice (it is the positional argument C).")
    unknown = sorted(set(params) - set(cls._params.names()))
    if unknown:
        raise TypeError(f"{name} got unexpected keyword argument(s) {', '.join(unknown)}; it "
                        f"takes X, C, sample_weight, return_labels and the parameters of "
                        f"{cls.__name__}.")
    X = as_data(X)
    C, sample_weight = check_function_count(C, X, sample_weight)
    est = cls(C, **params)
    return_labels = Boolean().check(return_labels, "return_labels")
    return est._fit_result(X, sample_weight, return_labels=return_labels)


_N_CLUSTERS: Param = Param("n_clusters", Integer(1, INT32_MAX), CORE, "number of clusters C",
                    target="n_clusters", cli=("-C", "--clusters"))


_MAX_ITER: Integer = Integer(1, INT32_MAX)


def _check_batch_size(values, n_fit, low, low_name):
    b = values["batch_size"]
    if b != "auto" and not low <= b <= n_fit:
        raise ValueError(f"batch_size={b} must be in [{low}, {n_fit}]: at least {low_name} and "
                         f"at most the number of points fitted ({n_fit}).")
