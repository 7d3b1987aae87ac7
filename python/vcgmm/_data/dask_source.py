"""Dask arrays as chunked data (imported only when a dask array is given).

The chunked coreset's steps (``chunked_coreset.hpp``) run as Dask tasks, one
per block of rows: pass 1 (moments) and pass 2 (draws) are computed on the
cluster and only their results travel to the client: d + 3 numbers per block
after pass 1, the N' drawn rows (with their indices and weights) after pass
2. The plan between the passes runs on the client. The fit then runs on the
coreset on the client; labels, distances and the quantization error of the
full data are lazy ``map_blocks`` of the core's blocked scan.

Tasks run the core on one thread each (Dask's workers and threads are the
parallelism); the results do not depend on it. Whatever scheduler is active
runs the tasks: a ``distributed.Client`` if one exists, else Dask's default
(threads for arrays).
"""

from __future__ import annotations

import time

import numpy as np

from .._base.loader import core
from .._base.metric import normalize_rows
from .._base.nearest import nearest_centers
from .._base.validation import check_sample_weight, compute_dtype
from .chunked import (CHANGED_SINCE_FIRST_PASS, CoresetDraw, check_cancelled, check_chunk_rows,
                      plan_coreset, validate_chunk)
from .._base.logs import progress_callback

try:
    import dask
    import dask.array as da
except ImportError as exc:  # pragma: no cover - vcgmm.dask reports it
    raise ImportError("vcgmm's Dask support needs dask: pip install 'vcgmm[dask]'") from exc

__all__ = ["DaskSource", "as_dask_rows"]


def _run(seed=0):
    run = core.RunOptions()
    run.seed = int(seed)
    run.n_threads = 1
    return run


def _where(name, c, r0, n):
    return f"{c} (rows {r0}:{r0 + n})" if r0 is not None else f"{c}"


def _block(block, c, r0, name):
    chunk, _ = validate_chunk(block, _where(name, c, r0, block.shape[0]), name, None, None)
    return chunk


def _block_weights(w, chunk, c):
    if w is None:
        return None
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    if not w.size:
        return w
    # Zero weights allowed (those rows are never drawn and add nothing); that
    # some weight is positive is checked over all blocks after pass 1.
    return check_sample_weight(w, chunk, name=f"sample_weight (block {c})",
                               allow_all_zero=True)


def _moments_task(block, w, c, r0, name):
    """Pass 1 on one block: (rows, weight, mean, scatter, distance evaluations,
    rows of positive weight)."""
    chunk = _block(block, c, r0, name)
    w = _block_weights(w, chunk, c)
    weight, mean, scatter, stats = core.coreset_chunk_moments(chunk, w, _run())
    n_pos = chunk.shape[0] if w is None else int(np.count_nonzero(w > 0))
    return chunk.shape[0], weight, mean, scatter, stats.n_distance_evals["coreset"], n_pos


def _draw_task(block, w, c, name, mean, plan, mass, draws, m, seed):
    """Pass 2 on one block: (indices into the block, weights, rows, evaluations)."""
    try:
        chunk = _block(block, c, None, name)
    except ValueError as exc:  # a recomputed block that differs from pass 1's
        raise ValueError(f"{exc} {CHANGED_SINCE_FIRST_PASS}") from None
    w = _block_weights(w, chunk, c)
    idx, gamma, stats = core.draw_coreset_chunk(chunk, w, c, mean, *plan, mass, draws, m,
                                                _run(seed))
    return idx, gamma, chunk[idx], stats.n_distance_evals["coreset"]


def _unit_rows_block(block, name):
    return normalize_rows(_block(block, "?", None, name), f"{name} block")


def _labels_block(block, centers):
    chunk = _block(block, "?", None, "X")
    if chunk.shape[0] == 0:
        return np.empty(0, np.int32)
    return nearest_centers(chunk, np.ascontiguousarray(centers, chunk.dtype), None,
                           n_threads=1, labels=True)[0]


def _qe_block(block, *rest):
    centers = rest[-1]
    chunk = _block(block, "?", None, "X")
    if chunk.shape[0] == 0:
        return np.zeros(1)
    w = None if len(rest) == 1 else _block_weights(rest[0], chunk, "?")
    q = nearest_centers(chunk, np.ascontiguousarray(centers, chunk.dtype), w, n_threads=1,
                        labels=False)[1]
    return np.array([q])


def _distances_block(block, centers):
    from sklearn.metrics.pairwise import euclidean_distances

    chunk = _block(block, "?", None, "X")
    if chunk.shape[0] == 0:
        return np.empty((0, np.shape(centers)[0]), chunk.dtype)
    return euclidean_distances(chunk, np.ascontiguousarray(centers, chunk.dtype))


def as_dask_rows(X, name="X"):
    """X (a 2-D dask array) with one block along the features and a float
    dtype (``compute_dtype``: float32 for float32, float16 and small integers,
    float64 for the rest), lazily, block by block."""
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D dask array (rows, features), got {X.ndim}-D.")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} has dtype {X.dtype}; vcgmm needs real numbers.")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has no features (shape {X.shape}).")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})  # every task needs whole rows
    dtype = compute_dtype(X.dtype)
    if X.dtype != dtype:
        X = X.astype(dtype)
    return X


def _client():
    """The active distributed client, or None."""
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:
        return None


def _compute(tasks, verbose, what):
    """dask.compute of a list of delayed tasks, with Dask's progress display
    when verbose (distributed.progress under a client, else ProgressBar)."""
    if not verbose:
        return list(dask.compute(*tasks))
    progress_callback(True)(f"{what}: {len(tasks)} Dask tasks")
    client = _client()
    if client is not None:
        from distributed import progress

        futures = client.compute(tasks)
        progress(futures)
        return client.gather(futures)
    from dask.diagnostics import ProgressBar

    with ProgressBar():
        return list(dask.compute(*tasks))


class DaskSource:
    """A dask array as chunked data: its blocks of rows are the chunks."""

    kind = "dask array"

    def __init__(self, X, sample_weight=None, name="X"):
        self.name = name
        self.X = as_dask_rows(X, name)
        self.generation = core.cancel_generation()  # see ChunkSource
        self.n_features = int(self.X.shape[1])
        self.dtype = self.X.dtype
        self.unit_rows = False
        self.sample_weight = None
        if sample_weight is not None:
            w = sample_weight if isinstance(sample_weight, da.Array) else da.from_array(
                np.asarray(sample_weight, dtype=np.float64), chunks=-1)
            if w.ndim != 1:
                raise ValueError(f"sample_weight must be 1-D, got shape {w.shape}.")
            if any(np.isnan(c) for c in self.X.chunks[0]) or np.isnan(w.shape[0]):
                raise ValueError("sample_weight with a dask array of unknown block sizes: "
                                 "call X.compute_chunk_sizes() first.")
            if w.shape[0] != self.X.shape[0]:
                raise ValueError(f"sample_weight must have shape ({self.X.shape[0]},) to match "
                                 f"{name}, got ({w.shape[0]},).")
            self.sample_weight = w.astype(np.float64).rechunk((self.X.chunks[0],))

    def use_unit_rows(self):
        """metric="cosine": every block's rows scaled to unit length (lazily)."""
        if self.unit_rows:
            return
        self.unit_rows = True
        self.X = self.X.map_blocks(_unit_rows_block, self.name, dtype=self.dtype,
                                   meta=np.empty((0, 0), self.dtype))

    def _blocks(self):
        blocks = self.X.to_delayed().ravel()
        if self.sample_weight is None:
            return blocks, [None] * len(blocks)
        return blocks, list(self.sample_weight.to_delayed().ravel())

    def _starts(self):
        sizes = self.X.chunks[0]
        if any(np.isnan(s) for s in sizes):
            return [None] * len(sizes)
        return [int(s) for s in np.concatenate([[0], np.cumsum(sizes)[:-1]])]

    def coreset(self, coreset_size, run, *, n_clusters=None, verbose=False, resolve=None):
        """The coreset: pass 1 and pass 2 as Dask tasks, the plan here."""
        log = progress_callback(verbose)
        clock = time.perf_counter()
        blocks, wblocks = self._blocks()
        starts = self._starts()
        moments = [dask.delayed(_moments_task, pure=True)(b, w, c, r0, self.name)
                   for c, (b, w, r0) in enumerate(zip(blocks, wblocks, starts))]
        results = _compute(moments, verbose, "coreset pass 1")
        rows = [r[0] for r in results]
        n = int(sum(rows))
        # Rows of weight 0 do not exist: checked and sized by the others.
        n_pos = int(sum(r[5] for r in results))
        check_chunk_rows(self.name, rows, n_pos, n_clusters, unit="blocks")
        m = resolve(coreset_size, n_pos) if resolve else int(coreset_size)
        mean, mass, draws, plan = plan_coreset(
            [r[1] for r in results], np.vstack([r[2] for r in results]),
            [r[3] for r in results], m, run)
        evals = sum(r[4] for r in results)
        offsets = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(np.int64)
        chosen = [c for c in range(len(rows)) if draws[c] > 0]
        tasks = [dask.delayed(_draw_task, pure=True)(
            blocks[c], wblocks[c], c, self.name, mean, plan, float(mass[c]), int(draws[c]), m,
            run.seed) for c in chosen]
        parts = _compute(tasks, verbose, "coreset pass 2")
        # Assembled in place, each block's part released once copied.
        indices = np.empty(m, np.int64)
        gammas = np.empty(m, np.float64)
        points = np.empty((m, self.n_features), self.dtype)
        k = 0
        for i, c in enumerate(chosen):
            idx, gamma, rows_c, e = parts[i]
            parts[i] = None
            indices[k:k + idx.size] = idx + offsets[c]
            gammas[k:k + idx.size] = gamma
            points[k:k + idx.size] = rows_c
            evals += e
            k += idx.size
        assert k == m
        seconds = time.perf_counter() - clock
        if log:
            log(f"coreset: {m:,} draws from {n:,} rows in {len(rows)} Dask blocks "
                f"({seconds:.2f} s)")
        return CoresetDraw(
            indices=indices, weights=gammas, points=points, n_samples=n,
            n_features=self.n_features, n_chunks=len(rows), n_distance_evals=int(evals),
            seconds=seconds)

    def chunks(self, *, skip=None, log=None, what=""):
        """Yields (block id, first row, validated block, its weights), computing
        one block at a time on the client (those ``skip(c)`` is true for are
        not computed): the interface of ``ChunkSource.chunks``, for the
        algorithms that must see the rows themselves (streaming mbatch)."""
        blocks, wblocks = self._blocks()
        start = 0
        for c, (block, wblock) in enumerate(zip(blocks, wblocks)):
            check_cancelled(self.generation)
            size = self.X.chunks[0][c]
            if skip and skip(c) and not np.isnan(size):
                start += int(size)
                continue
            raw, w = dask.compute(block, wblock)
            chunk = _block(raw, c, start, self.name)
            w = _block_weights(w, chunk, c)
            if log:
                log(f"{what}block {c}: {chunk.shape[0]:,} rows")
            if not (skip and skip(c)):
                yield c, start, chunk, w
            start += chunk.shape[0]
            del raw, chunk, w
        self.last_rows = start

    # -- lazy passes with fitted centers -----------------------------------------

    def _centers(self, centers):
        # One task holding a copy of the centers, shared by all blocks' tasks:
        # the lazy result is that of the model when it was asked for, even if
        # the estimator's centers are changed in place before .compute().
        return dask.delayed(np.array(centers, self.dtype, order="C", copy=True), pure=True)

    def labels(self, centers):
        """Lazy labels, a dask array of shape (n_samples,), int32."""
        return self.X.map_blocks(_labels_block, self._centers(centers), dtype=np.int32,
                                 drop_axis=1, meta=np.empty((0,), np.int32))

    def quantization_error(self, centers):
        """Lazy quantization error, a 0-d dask array (float64)."""
        n_blocks = len(self.X.chunks[0])
        args = [self.X]
        if self.sample_weight is not None:
            args.append(self.sample_weight[:, None].rechunk((self.X.chunks[0], (1,))))
        parts = da.map_blocks(_qe_block, *args, self._centers(centers), dtype=np.float64,
                              drop_axis=1, chunks=((1,) * n_blocks,),
                              meta=np.empty((0,), np.float64))
        return parts.sum()

    def transform(self, centers):
        """Lazy distances to the centers, shape (n_samples, n_centers)."""
        C = int(np.shape(centers)[0])
        return self.X.map_blocks(_distances_block, self._centers(centers), dtype=self.dtype,
                                 chunks=(self.X.chunks[0], (C,)),
                                 meta=np.empty((0, 0), self.dtype))

    def nearest(self, centers, *, labels, n_threads=None, verbose=False):
        """(lazy labels or None, lazy quantization error, 0.0): nothing is
        computed here."""
        return (self.labels(centers) if labels else None), self.quantization_error(centers), 0.0
