"""Exact nearest-center assignment and the quantization error, on arrays or
chunked data; ``assign(exact=False)`` hands over to :mod:`.approximate`."""

from __future__ import annotations


from .._base.docs import fill_doc
from .._base.hints import ArrayLike, IntArray, ThreadsLike
from .._base.params import Boolean
from .._base.nearest import nearest_centers
from .._base.validation import as_data, check_centers, check_sample_weight
from .._data.source import as_source
from .approximate import _Like, approximate_nearest_centers

__all__ = ["assign", "quantization_error", "check_exact"]


@fill_doc
def quantization_error(X: ArrayLike, centers: ArrayLike, sample_weight: ArrayLike | None = None,
                       *, n_threads: ThreadsLike = None) -> float:
    """Weighted quantization error ``sum_n w_n min_c ||x_n - c||^2``, exact.

    Blocked and multithreaded: the nearest center comes from matrix products
    (``||x||^2 - 2 x.c + ||c||^2``), the distance to it is then recomputed
    directly and summed in double precision.

    Parameters
    ----------
    %(X_centers)s
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; None means all ones. A point of weight 0 adds
        nothing (it is still labelled).
    n_threads : int, default=None
        %(n_threads)s

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


@fill_doc
def assign(X: ArrayLike, centers: ArrayLike, *, exact: bool = True,
           n_threads: ThreadsLike = None) -> IntArray:
    """Index of the nearest center of every row of X (exact; ties: lowest index).

    Parameters
    ----------
    %(X_centers)s
    exact : bool, default=True
        True: the exact blocked scan (O(n C d)). False: the approximate
        assignment of :func:`assign_approximate` with its default parameters
        (a small fraction of labels may be a near-nearest center; X must then
        be one array, not chunked or Dask data).
    n_threads : int, default=None
        %(n_threads)s

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int32

    Examples
    --------
    >>> import vcgmm
    >>> vcgmm.assign([[0.0], [1.0], [3.0]], [[0.5], [3.0]]).tolist()
    [0, 0, 1]
    """
    exact = check_exact(exact)
    source = _source(X)
    if source is not None:
        if not exact:
            raise ValueError("exact=False takes X as one array, not chunked or Dask data.")
        centers = _centers_for(source, centers)
        if source.kind == "dask array":
            return source.labels(centers)
        return source.nearest(centers, labels=True, n_threads=n_threads)[0]
    X = as_data(X)
    centers = check_centers(centers, X)
    if not exact:
        return approximate_nearest_centers(X, centers, n_threads=n_threads)[0]
    return nearest_centers(X, centers, n_threads=n_threads)[0]


def check_exact(exact):
    """The ``exact`` flag of assign/predict: a bool (TypeError otherwise)."""
    return Boolean().check(exact, "exact")


def _source(X, sample_weight=None):
    return as_source(X, sample_weight)


def _centers_for(source, centers):
    """Centers validated for chunked X: finite, 2-D, float64 (each chunk's
    pass converts them to its dtype); the width is checked by the chunks."""
    centers = check_centers(centers, _Like(source.dtype, centers, source.n_features))
    if source.n_features is None:
        source.n_features = centers.shape[1]
        source.width_from = "the centers have"
    return centers


