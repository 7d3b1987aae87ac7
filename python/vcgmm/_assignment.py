"""Exact nearest-center assignment and the quantization error, at any C."""

from __future__ import annotations

import numpy as np

from ._loader import core as _core
from ._typing import ArrayLike, FloatArray, IntArray, ThreadsLike
from ._run import check_n_threads
from ._validation import as_data, check_centers, check_sample_weight

__all__ = ["assign", "quantization_error", "nearest_centers"]


def nearest_centers(X, centers, sample_weight=None, *, n_threads=None, labels=True):
    """(labels or None, quantization error) of validated X and centers (X's
    dtype): the one place Python calls the core's blocked assignment."""
    labels, _, objective = _core.assign_nearest(X, sample_weight, centers, labels, False,
                                                check_n_threads(n_threads))
    return labels, float(objective)


def quantization_error(X: ArrayLike, centers: ArrayLike, sample_weight: ArrayLike | None = None,
                       *, n_threads: ThreadsLike = None) -> float:
    """Weighted quantization error ``sum_n w_n min_c ||x_n - c||^2``, exact.

    Blocked and multithreaded: the nearest center comes from matrix products
    (``||x||^2 - 2 x.c + ||c||^2``), the distance to it is then recomputed
    directly and summed in double precision.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    centers : array-like of shape (n_clusters, n_features)
        Cluster centers (converted to X's dtype).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; None means all ones. A point of weight 0 adds
        nothing (it is still labelled).
    n_threads : int, default=None
        Threads to use; None or -1 means OpenMP's default (``OMP_NUM_THREADS``
        if set, else every CPU available).

    Returns
    -------
    float
        The quantization error (``inertia`` in scikit-learn's terms).

    Examples
    --------
    >>> import vcgmm
    >>> vcgmm.quantization_error([[0.0], [1.0], [3.0]], [[0.5], [3.0]])
    0.5
    """
    source = _source(X, sample_weight)
    if source is not None:
        return source.nearest(_centers_for(source, centers), labels=False,
                              n_threads=n_threads)[1]
    X = as_data(X)
    centers = check_centers(centers, X)
    w = check_sample_weight(sample_weight, X)
    return nearest_centers(X, centers, w, n_threads=n_threads, labels=False)[1]


def assign(X: ArrayLike, centers: ArrayLike, *, n_threads: ThreadsLike = None) -> IntArray:
    """Index of the nearest center of every row of X (exact; ties: lowest index).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    centers : array-like of shape (n_clusters, n_features)
        Cluster centers (converted to X's dtype).
    n_threads : int, default=None
        Threads to use; None or -1 means OpenMP's default (``OMP_NUM_THREADS``
        if set, else every CPU available).

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int32

    Examples
    --------
    >>> import vcgmm
    >>> vcgmm.assign([[0.0], [1.0], [3.0]], [[0.5], [3.0]]).tolist()
    [0, 0, 1]
    """
    source = _source(X)
    if source is not None:
        centers = _centers_for(source, centers)
        if source.kind == "dask array":
            return source.labels(centers)
        return source.nearest(centers, labels=True, n_threads=n_threads)[0]
    X = as_data(X)
    centers = check_centers(centers, X)
    return nearest_centers(X, centers, n_threads=n_threads)[0]


def _source(X, sample_weight=None):
    from ._chunked import as_source

    return as_source(X, sample_weight)


def _centers_for(source, centers):
    """Centers validated for chunked X: finite, 2-D, float64 (each chunk's
    pass converts them to its dtype); the width is checked by the chunks."""
    centers = check_centers(centers, _Like(source, centers))
    if source.n_features is None:
        source.n_features = centers.shape[1]
        source.width_from = "the centers have"
    return centers


class _Like:
    """What check_centers needs of X (dtype and width) for chunked data."""

    def __init__(self, source, centers):
        self.dtype = np.dtype(np.float32 if source.dtype == np.float32 else np.float64)
        width = source.n_features
        if width is None:  # not read yet: the chunks are checked against the centers
            width = np.shape(centers)[-1] if np.ndim(centers) == 2 else 0
        self.shape = (0, width)
