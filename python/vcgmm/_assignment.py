"""Nearest-center assignment (exact, or approximate through coarse cells of
the centers or a graph over them) and the quantization error, at any C."""

from __future__ import annotations

import numpy as np

from ._loader import core as _core
from ._typing import ArrayLike, FloatArray, IntArray, ThreadsLike
from ._run import check_n_threads
from ._params import AnyOf, Boolean, Integer, NoneValue, Options, Real
from ._validation import as_data, check_centers, check_sample_weight

__all__ = ["assign", "assign_approximate", "ApproximateIndex", "quantization_error",
           "nearest_centers", "approximate_nearest_centers"]

#: The approximate search's parameters: name -> constraint (defaults are the
#: C++ struct's, vcgmm::ApproximateAssignmentParams).
APPROXIMATE_PARAMS = {
    "method": AnyOf(NoneValue(), Options(("gemm", "graph"))),
    "n_probe": AnyOf(NoneValue(), Integer(low=1)),
    "probe_ratio": AnyOf(NoneValue(), Real(low=1.0, allow_inf=True)),
    "coarse_iter": AnyOf(NoneValue(), Integer(low=0)),
    "screen_dims": AnyOf(NoneValue(), Integer(low=-1)),
    "graph_degree": AnyOf(NoneValue(), Integer(low=1)),
    "n_starts": AnyOf(NoneValue(), Integer(low=1)),
    "coarse_size": AnyOf(NoneValue(), Integer(low=0)),
    "beam_width": AnyOf(NoneValue(), Integer(low=1)),
}


def approximate_params(**values):
    """The core's ApproximateAssignmentParams: C++ defaults, with the given
    non-None values checked and set (ValueError/TypeError naming the one at fault)."""
    params = _core.ApproximateAssignmentParams()
    for name, value in values.items():
        if name not in APPROXIMATE_PARAMS:
            raise TypeError(f"unknown approximate-assignment parameter {name!r}; known: "
                            f"{sorted(APPROXIMATE_PARAMS)}")
        value = APPROXIMATE_PARAMS[name].check(value, name)
        if value is not None:
            setattr(params, name, value)
    return params


def approximate_default(name):
    """Default of an approximate-search parameter (read from the C++ struct)."""
    return getattr(_core.ApproximateAssignmentParams(), name)


def approximate_nearest_centers(X, centers, sample_weight=None, *, n_threads=None,
                                min_d2=False, index=None, **params):
    """(labels, min_d2 or None, stats) of validated X and centers (X's dtype)
    from the core's approximate assignment: the one place Python calls it.
    ``index``: an :class:`ApproximateIndex` over these centers to reuse (then
    ``params`` must be empty); None builds one for this call. ``stats`` is a
    dict: objective, distance evaluations (index, search, total) and seconds;
    the index's cost counts only when it was built for this call (or for X's
    dtype by it)."""
    if index is None:
        index = ApproximateIndex(centers, n_threads=n_threads, **params)
        return index._assign_validated(X, sample_weight, n_threads, min_d2, count_build=True)
    if params:
        raise TypeError("approximate_nearest_centers: pass the parameters to the index")
    return index._assign_validated(X, sample_weight, n_threads, min_d2)


class ApproximateIndex:
    """An index over fixed centers for :func:`assign_approximate`'s search,
    built once and reused by every :meth:`assign`.

    :func:`assign_approximate` builds its index (coarse cells of the centers,
    or a graph over them) on every call; at C = 4,000 that costs about a
    tenth of a second, more than labelling a few thousand points. Keep an
    index when the same centers label data that arrive in batches (a stream,
    a data loader, a web service). Labels, distances and statistics are those
    of :func:`assign_approximate` with the same parameters, bit for bit, on
    any number of threads. The estimators' ``predict(X, exact=False)`` keeps
    one of these between calls.

    The index copies the centers (later changes to the caller's array do not
    reach it). It is built for the centers' dtype (float32, else float64) at
    construction; data of the other dtype get a second index, built on first
    use (the centers converted to the data's dtype, as :func:`assign_approximate`
    does). :meth:`assign` may be called from several threads at once.
    Pickling keeps the centers and the parameters; the index is rebuilt
    (deterministically) when unpickled.

    Parameters
    ----------
    centers : array-like of shape (n_clusters, n_features)
        Cluster centers (finite).
    method, n_probe, probe_ratio, coarse_size, coarse_iter, screen_dims, graph_degree, n_starts, beam_width
        The search and its parameters, as in :func:`assign_approximate`
        (None: the library's defaults).
    n_threads : int, default=None
        Threads for building the index and the default for :meth:`assign`;
        None or -1 means OpenMP's default. Never changes a result.

    Attributes
    ----------
    centers : ndarray of shape (n_clusters, n_features)
        The indexed centers (read-only copy, float32 or float64).
    n_clusters, n_features : int
        Their shape.
    params : dict
        The search's parameters as given (None: default).
    build_stats : dict
        Cost of building the index for the centers' dtype:
        ``index_distance_evals`` and ``index_seconds``; and ``screen_dims``,
        the dimensions of the subspace screening in use (0: off).

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> index = vcgmm.ApproximateIndex(np.arange(10.0).reshape(-1, 1))
    >>> index.assign([[0.2], [4.9]]).tolist(), index.assign([[8.6]]).tolist()
    ([0, 5], [9])
    """

    def __init__(self, centers: ArrayLike, *, method: str | None = None,
                 n_probe: int | None = None, probe_ratio: float | None = None,
                 coarse_size: int | None = None, coarse_iter: int | None = None,
                 screen_dims: int | None = None,
                 graph_degree: int | None = None, n_starts: int | None = None,
                 beam_width: int | None = None, n_threads: ThreadsLike = None):
        self.params = {"method": method, "n_probe": n_probe, "probe_ratio": probe_ratio,
                       "coarse_size": coarse_size, "coarse_iter": coarse_iter,
                       "screen_dims": screen_dims, "graph_degree": graph_degree,
                       "n_starts": n_starts, "beam_width": beam_width}
        self._core_params = approximate_params(**self.params)
        self._threads = check_n_threads(n_threads)
        self.n_threads = n_threads
        # float32 centers stay float32, others become float64; a copy of its
        # own (check_centers may return the caller's array), read-only.
        self.centers = np.array(check_centers(centers, _Like(getattr(centers, "dtype", None),
                                                             centers)))
        self.centers.flags.writeable = False
        self.n_clusters, self.n_features = self.centers.shape
        self._indexes: dict = {}
        self.build_stats = self._index_for(self.centers.dtype)[1]

    def _index_for(self, dtype):
        """(core index, its build stats, whether this call built it) for data of
        ``dtype``, built on first use."""
        key = np.dtype(dtype)
        found = self._indexes.get(key)
        if found is not None:
            return found + (False,)
        centers = check_centers(self.centers, _Like(key, self.centers))
        core_class = (_core.ApproximateIndexFloat32 if key == np.float32
                      else _core.ApproximateIndexFloat64)
        core = core_class(centers, self._core_params, self._threads)
        built = core.build_stats
        found = (core, {"index_distance_evals": int(built.index_distance_evals),
                        "index_seconds": float(built.index_seconds),
                        "screen_dims": int(core.screen_dims)})
        # Two threads building at once: both indexes are identical, one is kept.
        kept = self._indexes.setdefault(key, found)
        return kept + (kept is found,)

    def _assign_validated(self, X, sample_weight, n_threads, min_d2, count_build=False):
        """(labels, min_d2 or None, stats) of validated X (see
        approximate_nearest_centers); the index's cost counts when it is built
        here or ``count_build``."""
        if X.shape[1] != self.n_features:
            raise ValueError(f"X has {X.shape[1]} features but the index's centers have "
                             f"{self.n_features}.")
        core, built, built_now = self._index_for(X.dtype)
        first_use = built_now or count_build
        threads = self._threads if n_threads is None else check_n_threads(n_threads)
        labels, d2, stats = core.assign(X, sample_weight, bool(min_d2), threads)
        index_evals = built["index_distance_evals"] if first_use else 0
        index_seconds = built["index_seconds"] if first_use else 0.0
        search_evals = int(stats.search_distance_evals)
        info = {
            "objective": float(stats.objective),
            "index_distance_evals": index_evals,
            "search_distance_evals": search_evals,
            "n_distance_evals": index_evals + search_evals,
            "index_seconds": index_seconds,
            "search_seconds": float(stats.search_seconds),
        }
        return labels, d2, info

    def assign(self, X: ArrayLike, sample_weight: ArrayLike | None = None, *,
               return_stats: bool = False, n_threads: ThreadsLike = None):
        """Approximately nearest center of every row of X (as :func:`assign_approximate`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data (one array; float32 and float64 are used as they are).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the reported quantization error.
        return_stats : bool, default=False
            Also return the dict of :func:`assign_approximate` (the index's
            cost is counted only on the call that built it for X's dtype).
        n_threads : int, default=None
            Threads to use; None: the index's ``n_threads``.

        Returns
        -------
        labels : ndarray of shape (n_samples,), dtype int32
        stats : dict
            Only with ``return_stats=True``.
        """
        return_stats = Boolean().check(return_stats, "return_stats")
        if is_chunked_input(X):
            raise ValueError("ApproximateIndex.assign takes X as one array, not chunked or "
                             "Dask data.")
        X = as_data(X)
        w = check_sample_weight(sample_weight, X)
        labels, _, stats = self._assign_validated(X, w, n_threads, False)
        return (labels, stats) if return_stats else labels

    def matches(self, centers):
        """True if ``centers`` equal the indexed ones (same shape and values)."""
        centers = np.asarray(centers)
        return centers.shape == self.centers.shape and bool(
            np.array_equal(centers.astype(self.centers.dtype, copy=False), self.centers))

    def __getstate__(self):
        return {"centers": self.centers, "params": self.params, "n_threads": self.n_threads}

    def __setstate__(self, state):
        self.__init__(state["centers"], n_threads=state["n_threads"], **state["params"])

    def __repr__(self):
        given = ", ".join(f"{k}={v!r}" for k, v in self.params.items() if v is not None)
        return (f"ApproximateIndex(n_clusters={self.n_clusters}, n_features={self.n_features}"
                f"{', ' + given if given else ''})")


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


def assign(X: ArrayLike, centers: ArrayLike, *, exact: bool = True,
           n_threads: ThreadsLike = None) -> IntArray:
    """Index of the nearest center of every row of X (exact; ties: lowest index).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    centers : array-like of shape (n_clusters, n_features)
        Cluster centers (converted to X's dtype).
    exact : bool, default=True
        True: the exact blocked scan (O(n C d)). False: the approximate
        assignment of :func:`assign_approximate` with its default parameters
        (a small fraction of labels may be a near-nearest center; X must then
        be one array, not chunked or Dask data).
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


def assign_approximate(X: ArrayLike, centers: ArrayLike, sample_weight: ArrayLike | None = None,
                       *, method: str | None = None, n_probe: int | None = None,
                       probe_ratio: float | None = None, coarse_size: int | None = None,
                       coarse_iter: int | None = None, screen_dims: int | None = None,
                       graph_degree: int | None = None, n_starts: int | None = None,
                       beam_width: int | None = None,
                       return_stats: bool = False, n_threads: ThreadsLike = None):
    """Approximately nearest center of every row of X, in far fewer than
    ``n_samples * n_clusters`` distance evaluations.

    Two methods. ``"gemm"`` (the default) clusters the centers into about
    ``sqrt(n_clusters)`` coarse cells (a few Lloyd iterations over the centers
    themselves); every point goes to the cells of its nearest coarse centers
    (those within ``probe_ratio`` of the nearest squared distance, at most
    ``n_probe``), and each cell's points are scored against the cell's
    centers with one matrix product per block, like the exact scan; every
    point keeps the nearest center found (an inverted-file index whose probes
    are batched into matrix products; with ``screen_dims``, on by default,
    only the probed centers that a lower bound from the centers' leading
    principal axes does not rule out are measured in full). ``"graph"``
    builds the exact k-nearest-neighbour graph of the centers
    (``n_clusters**2`` evaluations) and a coarse level, and searches it
    best-first from every point's nearest coarse centers (Malkov & Yashunin's
    HNSW search, two levels), one distance at a time.

    Either way every label's distance is that of a real center, reported
    exactly (double precision), so it is never below the exact nearest
    distance; a label is wrong only where the nearest center lies in a cell
    the point did not probe (gemm) or the search stops in a local minimum
    (graph). Exact (up to ties within rounding) with ``n_probe >= cells`` and
    ``probe_ratio=inf`` (gemm), or ``graph_degree >= n_clusters - 1`` or
    ``n_starts >= n_clusters`` (graph). Deterministic on any number of threads.

    Measured on the image patches (D = 108, float32, centers of a vc-GMM fit,
    200,000 points, 2 threads, index build included;
    ``bench/results/approximate_labels.md``): gemm at its defaults is 4.0x,
    9.4x and 21.7x faster than the exact :func:`assign` at C = 1,000, 4,000
    and 16,384, with 99.7% of the labels exact and a quantization error
    0.10-0.12% above the exact assignment's (without the subspace screening,
    ``screen_dims=0``: 2.5x, 4.9x, 9.8x); labelling all 535,940 patches at
    C = 4,000: 11.1x (``approximate_labels_full.md``); Fashion-MNIST (784
    features) at C = 1,000 / 4,000: 4.7x / 6.6x; graph is 0.3-1.3x.
    Use it for labels of many points at large C when a few near-nearest
    labels are acceptable; report objectives (``inertia_``) from the exact
    scan. It builds its index on every call: to label data arriving in
    batches against the same centers, keep an :class:`ApproximateIndex`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (one array).
    centers : array-like of shape (n_clusters, n_features)
        Cluster centers (converted to X's dtype).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the reported quantization error (rows of
        weight 0 are labelled and add nothing); None means all ones.
    method : {"gemm", "graph"}, default=None
        The search; None: the library's default ("gemm").
    n_probe : int, default=None
        gemm: at most this many cells probed per point; None: default (12).
    probe_ratio : float, default=None
        gemm: a point probes the cells whose coarse center is at most this
        many times as far (squared distance) as its nearest one (>= 1;
        ``inf``: all ``n_probe``); None: default (2.0).
    coarse_size : int, default=None
        Centers of the coarse level; None or 0: ``ceil(sqrt(n_clusters))``
        (gemm) or ``ceil(2 sqrt(n_clusters))`` (graph).
    coarse_iter : int, default=None
        gemm: Lloyd iterations over the centers that place the coarse
        centers (0: a strided subset of the centers); None: default (5).
    screen_dims : int, default=None
        gemm: dimensions of the principal subspace of the centers used to
        screen the probed cells' centers. Distances in that subspace never
        exceed the full ones, so a center whose subspace distance exceeds the
        best full distance found so far is skipped without reading its
        ``n_features`` coordinates; only the others are measured in full.
        Each label is the exact nearest center of the cells the point probed
        (the bound is exact, rounding included), as without screening; the
        probed cells are then chosen by subspace estimates, so a few points
        probe other cells. None or -1: automatic, the smallest multiple of 8
        up to 32 whose axes hold 97% of the centers' variance (24 of 108 on
        the image patches), else 32 if those hold 80% (Fashion-MNIST, 784
        features: 84-91%), else off (nearly isotropic centers gain nothing);
        off for ``n_features < 16``; 0: off (every probed cell scored by
        matrix products). It pays when the points lie near their centers, as
        labelling a fit's data does (image patches 1.6-2.2x, Fashion-MNIST
        1.6-1.9x faster, index build included); points as far from every
        center as the centers are from each other leave most probed centers
        unscreened (synthetic low-rank data: 10-20% slower than
        ``screen_dims=0``).
    graph_degree : int, default=None
        graph: neighbours per center (capped at ``n_clusters - 1``); None:
        default (32).
    n_starts : int, default=None
        graph: nearest coarse centers each search starts from; None: default (4).
    beam_width : int, default=None
        graph: best centers the search keeps (HNSW's ``ef``); None: default (16).
    return_stats : bool, default=False
        Also return a dict with the weighted quantization error of the labels
        (``objective``), the distance evaluations (``index_distance_evals``,
        ``search_distance_evals``, ``n_distance_evals`` = both) and the
        seconds spent (``index_seconds``, ``search_seconds``).
    n_threads : int, default=None
        Threads to use; None or -1 means OpenMP's default.

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int32
    stats : dict
        Only with ``return_stats=True``.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> centers = np.arange(10.0).reshape(-1, 1)
    >>> vcgmm.assign_approximate([[0.2], [4.9], [8.6]], centers).tolist()
    [0, 5, 9]
    """
    return_stats = Boolean().check(return_stats, "return_stats")
    if is_chunked_input(X):
        raise ValueError("assign_approximate takes X as one array, not chunked or Dask data.")
    X = as_data(X)
    centers = check_centers(centers, X)
    w = check_sample_weight(sample_weight, X)
    labels, _, stats = approximate_nearest_centers(
        X, centers, w, n_threads=n_threads, method=method, n_probe=n_probe,
        probe_ratio=probe_ratio, coarse_size=coarse_size, coarse_iter=coarse_iter,
        screen_dims=screen_dims, graph_degree=graph_degree, n_starts=n_starts,
        beam_width=beam_width)
    return (labels, stats) if return_stats else labels


def is_chunked_input(X):
    """True for chunked (lists of arrays, .npy paths, zarr) or Dask X."""
    from ._chunked import is_chunked, is_dask_array

    return is_chunked(X) or is_dask_array(X)


def _source(X, sample_weight=None):
    from ._chunked import as_source

    return as_source(X, sample_weight)


def _centers_for(source, centers):
    """Centers validated for chunked X: finite, 2-D, float64 (each chunk's
    pass converts them to its dtype); the width is checked by the chunks."""
    centers = check_centers(centers, _Like(source.dtype, centers, source.n_features))
    if source.n_features is None:
        source.n_features = centers.shape[1]
        source.width_from = "the centers have"
    return centers


class _Like:
    """What check_centers needs of X (dtype and width) where there is no X
    array: an index's own centers, or chunked data. The width is ``width``,
    else that of the centers (0 when they are not 2-D: check_centers then
    rejects them)."""

    def __init__(self, dtype, centers, width=None):
        self.dtype = np.dtype(np.float32 if dtype == np.float32 else np.float64)
        if width is None:  # chunks not read yet: they are checked against the centers
            try:
                shape = np.shape(centers)
            except ValueError:  # ragged nested lists
                shape = ()
            width = shape[1] if len(shape) == 2 else 0
        self.shape = (0, width)
