"""Approximate nearest-center assignment: coarse cells of the centers scored
with matrix products (``gemm``) or a best-first search over a graph of the
centers (``graph``); :class:`ApproximateIndex` keeps the index between calls."""

from __future__ import annotations

import numpy as np

from .._base.loader import core as _core
from .._base.hints import ArrayLike, ThreadsLike
from .._base.run import check_n_threads
from .._base.params import AnyOf, Boolean, Integer, NoneValue, Options, Real
from .._base.inputs import is_chunked
from .._base.validation import as_data, check_centers, check_sample_weight


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
    or a graph over them) on every call, which costs more than labelling a
    small batch (see the performance page). Keep an index when the same
    centers label data that arrive in batches (a stream, a data loader, a
    web service). Labels, distances and statistics are those
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
        if is_chunked(X):
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
    ``sqrt(n_clusters)`` coarse cells (a few Lloyd iterations over the
    centers themselves, or a sample of them at large C); every point goes to
    the cells of its nearest coarse centers
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

    At its defaults gemm is several times faster than the exact
    :func:`assign`, the more so the larger C, with nearly all labels exact
    and a quantization error a fraction of a percent above the exact one;
    graph runs at about the exact scan's speed or slower (see the
    performance page).
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
        centers (0: a strided subset of the centers; each iteration over a
        strided sample of at most 64 centers per coarse center, then every
        center to its nearest; a cell of more than 3 times the mean size is
        then split by the same iterations among its own centers); None:
        default (5).
    screen_dims : int, default=None
        gemm: dimensions of the centers' principal subspace whose distances,
        lower bounds of the full ones, skip probed centers without reading
        their coordinates; each label stays the exact nearest of the probed
        cells. None or -1: automatic (the smallest multiple of 8 up to 32
        holding 97% of the centers' variance, else 32 if that holds 80%, else
        off; off below 16 features); 0: off. It pays when the points lie near
        their centers, as a fit's data do (see the performance page).
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
    if is_chunked(X):
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
