"""vc-GMM, the lightweight coreset and k-means on Dask arrays.

An optional part of vcgmm: ``pip install "vcgmm[dask]"`` (``dask[array]``
and ``distributed``). Importing this module without Dask raises an
ImportError saying so.

How it works. The lightweight coreset is two map-reduce passes and a
sample, so it runs where the data are: pass 1 computes every block's weight,
mean and scatter (d + 3 numbers per block reach the client); the client
splits the N' draws over the blocks (multinomial over their masses); pass 2
draws each block's share on the cluster, and only the N' drawn rows reach
the client. vc-GMM (or AFK-MC^2 + Lloyd for :class:`KMeans`) then runs on
the coreset on the client, in memory, and returns the same result types as
for numpy data. ``predict``, ``transform``, :func:`assign`,
:func:`quantization_error`, and ``labels`` / ``inertia`` of a fit are lazy
``map_blocks`` of the core's blocked scan: nothing is gathered and nothing
is computed until you call ``.compute()``.

The coreset depends on the seed and on the blocks along the rows (a
block's random stream is keyed by its position), never on the number of
workers or threads: the same array, chunking and ``random_state`` give the
same coreset and the same fit with the threaded scheduler, a
``distributed.LocalCluster`` or any cluster, and the same as
``vcgmm.fit_vcgmm(list_of_blocks, ...)`` in memory.

Whatever scheduler is active runs the tasks: a ``distributed.Client`` when
one exists (its dashboard shows the passes; with ``verbose=True`` the
passes also print ``distributed.progress`` bars), else Dask's default
threaded scheduler (with ``verbose=True``, Dask's ``ProgressBar``). Each
task runs the core on one thread. Memory: each task holds one block (and
8 bytes per row of it); the client holds the per-block moments and the
coreset. A worker lost during a pass is handled by Dask (the pure tasks
are recomputed elsewhere); nothing is written anywhere.

The functions here only take Dask arrays; the package-level functions
(:func:`vcgmm.fit_vcgmm`, :func:`vcgmm.lwcs`, ...) and the estimators
accept Dask arrays too and call the same code.

Examples
--------
>>> import dask.array as da                                   # doctest: +SKIP
>>> import vcgmm.dask                                         # doctest: +SKIP
>>> X = da.random.default_rng(0).normal(size=(10**6, 16), chunks=(100_000, 16))  # doctest: +SKIP
>>> result = vcgmm.dask.fit_vcgmm(X, 100, random_state=0)   # doctest: +SKIP
>>> labels = vcgmm.dask.assign(X, result.centers)           # lazy  # doctest: +SKIP
"""

from __future__ import annotations

try:
    import dask.array as _da  # noqa: F401
except ImportError as exc:
    raise ImportError(
        "vcgmm.dask needs Dask: pip install 'vcgmm[dask]' (dask[array] and distributed)."
    ) from exc

from ._base.docs import fill_doc
from ._base.inputs import is_dask_array
from ._blocks import assignment as _assignment
from ._blocks import coreset as _coreset
from ._vcgmm import functions as _vcgmm
from ._kmeans import KMeans
from ._vcgmm import VCGMM, VCGMMResult

__all__ = ["VCGMM", "KMeans", "VCGMMResult", "assign", "fit_vcgmm", "lwcs",
           "quantization_error"]


def _require_dask(X, what):
    if not is_dask_array(X):
        raise TypeError(f"vcgmm.dask.{what} takes a dask array, got {type(X).__name__}; use "
                        f"vcgmm.{what} for numpy arrays (or da.from_array(X)).")


def fit_vcgmm(X, C, G=_vcgmm._D["G"], coreset_size=_vcgmm._AUTO, *, sample_weight=None,
              return_labels=False, n_prime=_vcgmm._UNSET, **params):
    """Fit vc-GMM to a Dask array: the coreset on the cluster, the fit here.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Data. Blocks along the features are merged (``rechunk({1: -1})``):
        every task needs whole rows. float32 stays float32, other numbers
        become float64 (per block).
    C, G, coreset_size, n_prime, return_labels, **params
        As in :func:`vcgmm.fit_vcgmm`. ``coreset_size=None`` (all points)
        is refused: Dask data are fitted on a coreset.
    sample_weight : array-like or dask.array.Array of shape (n_samples,), default=None
        Non-negative weights (rechunked like X's rows); a point of weight 0 is
        ignored (never drawn into the coreset, still labelled); at least C
        entries must be positive.

    Returns
    -------
    VCGMMResult
        As for numpy data; ``labels`` (with ``return_labels=True``) is a lazy
        dask array of int32 and ``inertia`` a lazy 0-d dask array.
        ``timings["coreset"]`` is the wall time of both passes on the cluster.
    """
    _require_dask(X, "fit_vcgmm")
    return _vcgmm.fit_vcgmm(X, C, G, coreset_size, sample_weight=sample_weight,
                            return_labels=return_labels, n_prime=n_prime, **params)


def lwcs(X, coreset_size, *, sample_weight=None, random_state=None, return_points=False):
    """Draw a lightweight coreset of a Dask array (two passes on the cluster).

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Data.
    coreset_size : int
        Number of draws N', 1 <= N' <= 4 n_samples.
    sample_weight : array-like or dask.array.Array of shape (n_samples,), default=None
        Non-negative weights; a row of weight 0 is never drawn.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    return_points : bool, default=False
        Also return the drawn rows (gathered with the draws).

    Returns
    -------
    indices : ndarray of shape (coreset_size,), dtype int64
        Row indices into X, sorted ascending.
    weights : ndarray of shape (coreset_size,), dtype float64
        The coreset weights.
    points : ndarray of shape (coreset_size, n_features)
        The drawn rows (only with ``return_points=True``).
    """
    _require_dask(X, "lwcs")
    return _coreset.lwcs(X, coreset_size, sample_weight=sample_weight,
                         random_state=random_state, return_points=return_points)


@fill_doc
def assign(X, centers):
    """Nearest center of every row, lazily (``map_blocks`` of the exact scan).

    Parameters
    ----------
    %(dask_X_centers)s

    Returns
    -------
    labels : dask.array.Array of shape (n_samples,), dtype int32
    """
    _require_dask(X, "assign")
    return _assignment.assign(X, centers)


@fill_doc
def quantization_error(X, centers, sample_weight=None):
    """Weighted quantization error of a Dask array, lazily.

    One scalar per block, summed by Dask; nothing else leaves the workers.

    Parameters
    ----------
    %(dask_X_centers)s
    sample_weight : array-like or dask.array.Array of shape (n_samples,), default=None
        Non-negative weights; a point of weight 0 adds nothing.

    Returns
    -------
    dask.array.Array
        A 0-d float64 array; ``float(result)`` or ``result.compute()`` computes it.
    """
    _require_dask(X, "quantization_error")
    return _assignment.quantization_error(X, centers, sample_weight)
