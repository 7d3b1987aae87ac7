"""Pieces shared by the scikit-learn style estimators (KMeans, VCGMM)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils.validation import check_is_fitted, validate_data

from ._loader import core as _core
from ._validation import FLOAT_DTYPES, check_n_threads, reject_non_numeric

__all__ = ["CenterBasedEstimator"]


class CenterBasedEstimator:
    """Mixin for estimators whose model is a set of centers ``cluster_centers_``.

    Provides input validation (float32 stays float32, everything else becomes
    float64, C order, finite) and the methods that only need the centers:
    ``predict``, ``transform`` and the exact quantization error.
    """

    def _validate_X(self, X, *, reset):
        reject_non_numeric(X, "X")
        return validate_data(
            self,
            X,
            accept_sparse=False,
            dtype=list(FLOAT_DTYPES),
            order="C",
            reset=reset,
            ensure_all_finite=True,
        )

    def _centers_like(self, X):
        """The fitted centers in X's dtype, C-contiguous."""
        return np.ascontiguousarray(self.cluster_centers_, dtype=X.dtype)

    def _check_n_clusters_fit(self, n_clusters, X, name):
        if n_clusters > X.shape[0]:
            raise ValueError(
                f"{name}={n_clusters} must be <= n_samples={X.shape[0]}: "
                "there are fewer points than clusters."
            )

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
        labels, _, _ = _core.assign_nearest(
            X, self._centers_like(X), None, True, False, check_n_threads(self.n_threads)
        )
        return labels

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
        _, _, objective = _core.assign_nearest(
            X, self._centers_like(X), sample_weight, False, False, check_n_threads(self.n_threads)
        )
        return float(objective)

    def _warn_coinciding_centers(self, centers):
        """Warn when fitted centers coincide: the data have fewer distinct
        points than components (mixture components that are nobody's nearest
        mean are legitimate and not warned about)."""
        n_distinct = np.unique(centers, axis=0).shape[0]
        if n_distinct < centers.shape[0]:
            warnings.warn(
                f"Only {n_distinct} distinct means for n_components={centers.shape[0]}: "
                "the data have too few distinct points, so some components coincide.",
                ConvergenceWarning,
                stacklevel=3,
            )

    def _warn_distinct_clusters(self, labels, n_clusters):
        n_distinct = np.unique(labels).shape[0]
        if n_distinct < n_clusters:
            warnings.warn(
                f"Number of distinct clusters ({n_distinct}) found smaller than "
                f"n_clusters ({n_clusters}): the data have too few distinct points, "
                "so some centers coincide or hold no points.",
                ConvergenceWarning,
                stacklevel=3,
            )
