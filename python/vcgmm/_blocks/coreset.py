"""The lightweight coreset (LWCS): the function ``lwcs`` and the
``coreset_size`` parameter every pipeline shares.

``coreset_size`` has one meaning everywhere: ``"auto"`` (about 64 coreset
points per cluster, :func:`default_coreset_size`), an integer N', or None (no
coreset: fit on all points).
"""

from __future__ import annotations

from .._base.hints import ArrayLike, FloatArray, IntArray, RandomStateLike, ThreadsLike
from .._base.loader import core as _core
from .._data.source import as_source
from .._base.params import AnyOf, Boolean, Integer, NoneValue, Options, Param
from .._base.run import run_options
from .._base.validation import as_data, check_sample_weight, positive_rows

__all__ = ["lwcs", "default_coreset_size", "coreset_size_param", "resolve_coreset_size"]

#: Coreset points per cluster of the default coreset size.
POINTS_PER_CLUSTER = 64
#: Smallest default coreset size (the papers' smallest, 2^12).
MIN_DEFAULT_CORESET = 4096
#: A coreset may hold at most this many times n_samples draws.
MAX_CORESET_FACTOR = 4


def default_coreset_size(n_samples: int, n_clusters: int) -> int:
    """The default coreset size N' (``coreset_size="auto"``): ``min(n_samples, max(4096, 64 C))``.

    About 64 coreset points per cluster put vc-GMM near the papers' operating
    point (roughly 10% above the k-means++ quantization error on image
    patches); never fewer than 2^12 points, never more than the data.

    Parameters
    ----------
    n_samples : int
        Number of points N.
    n_clusters : int
        Number of clusters C.

    Returns
    -------
    int

    Examples
    --------
    >>> import vcgmm
    >>> vcgmm.default_coreset_size(535_940, 1000)  # 64 points per cluster
    64000
    >>> vcgmm.default_coreset_size(10_000, 10)     # at least 4096, at most N
    4096
    """
    n_samples = Integer(1, None).check(n_samples, "n_samples")
    n_clusters = Integer(1, None).check(n_clusters, "n_clusters")
    return int(min(n_samples, max(MIN_DEFAULT_CORESET, POINTS_PER_CLUSTER * n_clusters)))


def coreset_size_param(default):
    """The ``coreset_size`` entry of a family's table, with its own default."""
    return Param(
        "coreset_size", AnyOf(Options(("auto",)), Integer(1, None), NoneValue()), default,
        "coreset size N': an integer, 'auto' = min(n, max(4096, 64*C)), or None = no "
        "coreset (all points)", target=None, cli="--coreset-size")


def resolve_coreset_size(coreset_size, n_samples, n_clusters, name="coreset_size"):
    """The core's coreset size: 0 for None, the default for "auto", else the
    validated N' (n_clusters <= N' <= 4 n_samples)."""
    if coreset_size is None:
        return 0
    if coreset_size == "auto":
        return default_coreset_size(n_samples, n_clusters)
    if coreset_size < n_clusters:
        raise ValueError(f"{name}={coreset_size} must be >= the number of clusters "
                         f"({n_clusters}): one draw per cluster at least.")
    if coreset_size > MAX_CORESET_FACTOR * n_samples:
        raise ValueError(
            f"{name}={coreset_size} exceeds {MAX_CORESET_FACTOR} * n_samples = "
            f"{MAX_CORESET_FACTOR * n_samples}: a coreset larger than the data only costs time.")
    return int(coreset_size)


def lwcs(X: ArrayLike, coreset_size: int, *, sample_weight: ArrayLike | None = None,
         random_state: RandomStateLike = None,
         n_threads: ThreadsLike = None,
         return_points: bool = False) -> tuple[IntArray, FloatArray]:
    """Draw a lightweight coreset (Bachem, Lucic & Krause, KDD 2018).

    Two passes over the data: the (weighted) mean ``mu``, then the sampling
    distribution ``q(x) = 1/2 w(x)/sum(w) + 1/2 w(x) d(x, mu)^2 / sum w d^2``,
    from which ``coreset_size`` indices are drawn i.i.d. with replacement.
    Each draw gets the weight ``gamma = w(x) / (coreset_size q(x))``, so that
    ``sum(gamma * f(X[indices]))`` is an unbiased estimate of ``sum(w * f(X))``.

    X may also be chunked data (a list of arrays or ``.npy`` files, a
    function returning an iterable of chunks, a zarr array, a Dask array):
    the coreset is then drawn by the chunked steps, reading every chunk
    twice and holding one chunk plus the coreset in memory (on Dask, the
    passes run on the cluster and only the drawn rows reach the client). It
    has the same distribution; the draws depend on the chunking and the seed
    (not on threads or workers).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or chunked data
        Data. float32 stays float32, float16 and 8/16-bit integers become
        float32, other numbers float64.
    coreset_size : int
        Number of draws N', 1 <= N' <= 4 n_samples. Draws are with replacement,
        so indices may repeat.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the points; None means all ones. Zero entries are
        ignored: such a row is never drawn (the draws are those without it, and
        ``coreset_size`` is at most 4 times the number of positive entries).
        For chunked and Dask data, those rows are never drawn either (the draws
        have the distribution without them).
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    n_threads : int, default=None
        Threads to use; None or -1 means OpenMP's default (``OMP_NUM_THREADS``
        if set, else every CPU available). Dask tasks run on one thread each.
    return_points : bool, default=False
        Also return the drawn rows (for chunked data, where ``X[indices]``
        would read the data again).

    Returns
    -------
    indices : ndarray of shape (coreset_size,), dtype int64
        Row indices into X (of the chunks concatenated), sorted ascending.
    weights : ndarray of shape (coreset_size,), dtype float64
        The coreset weights ``gamma``.
    points : ndarray of shape (coreset_size, n_features)
        The rows ``X[indices]`` (only with ``return_points=True``).

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(1000, 3))
    >>> idx, w = vcgmm.lwcs(X, 100, random_state=0)
    >>> idx.shape, round(float(w.sum()) / 1000, 1)
    ((100,), 1.0)
    """
    return_points = Boolean().check(return_points, "return_points")
    source = as_source(X, sample_weight)
    if source is not None:
        coreset_size = Integer(1, None).check(coreset_size, "coreset_size")

        def resolve(m, n_samples):
            return Integer(1, MAX_CORESET_FACTOR * n_samples).check(m, "coreset_size")

        draw = source.coreset(coreset_size, run_options(n_threads, random_state),
                              resolve=resolve)
        return (draw.indices, draw.weights) + ((draw.points,) if return_points else ())
    X_all = as_data(X)
    w = check_sample_weight(sample_weight, X_all)
    # Rows of weight 0 do not exist: the draws are those from X[w > 0].
    X_fit, w, keep = positive_rows(X_all, w)
    coreset_size = Integer(1, MAX_CORESET_FACTOR * X_fit.shape[0]).check(coreset_size,
                                                                         "coreset_size")
    indices, weights, _ = _core.lightweight_coreset(
        X_fit, w, coreset_size, run_options(n_threads, random_state))
    if keep is not None:
        indices = keep[indices]
    return (indices, weights) + ((X_all[indices],) if return_points else ())
