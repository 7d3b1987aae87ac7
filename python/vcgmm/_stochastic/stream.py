"""Mini-batch k-means over chunked and Dask data, read chunk by chunk
(streaming): the loop over the chunks of ``MiniBatchKMeans.fit``.

The C++ core owns the algorithm (``vcgmm/minibatch.hpp``, "Streaming"):
which rows seed the centers, which chunk each batch draws from, and the
batches themselves with their early stop and reassignment. This module only
reads the chunks and hands them over:

1. one pass for the rows of positive weight per chunk and their weight;
2. one pass gathering the seeding rows the core names (skipped for
   ``init=array``);
3. passes of ``ceil(n / batch_size)`` batches (one epoch in expectation),
   each reading only the chunks that hold batches, until the early stop or
   ``max_iter`` batches;
4. one pass for ``labels_`` and ``inertia_`` (``compute_labels=True``).

Only one chunk is in memory at a time (plus the seeding rows, the centers
and one batch). With a single chunk the fit equals the in-memory fit bit for
bit.
"""

from __future__ import annotations

import math
import time

import numpy as np

from .._base.inputs import is_dask_array
from .._base.loader import core as _core
from .._base.logs import progress_callback
from .._data.chunked import check_chunk_rows
from .._blocks.seeding import seeding_to_core
from .base import StochasticKMeansResult

__all__ = ["fit_mbatch_stream"]


def _positive(chunk, w):
    """The rows of positive weight of one chunk (and their weights)."""
    if w is None:
        return chunk, None
    keep = w > 0
    if keep.all():
        return chunk, w
    return np.ascontiguousarray(chunk[keep]), np.ascontiguousarray(w[keep])


def _count(source, log):
    """Pass 1: (rows of positive weight per chunk, all rows per chunk, their
    total weight, the compute dtype, the width)."""
    positive, rows, total = [], [], 0.0
    dtype, width = None, None
    for _, _, chunk, w in source.chunks(log=log, what="mbatch pass 1 (rows): "):
        rows.append(chunk.shape[0])
        _, wp = _positive(chunk, w)
        positive.append(chunk.shape[0] if w is None else wp.shape[0])
        # Summed in row order, as the in-memory fit sums its weights.
        if w is None:
            total += chunk.shape[0]
        elif wp.size:
            total = float(np.cumsum(np.concatenate(([total], wp)))[-1])
        dtype, width = chunk.dtype, chunk.shape[1]
    return positive, rows, total, dtype, width


def _gather(source, wanted, positive, dtype, width, log):
    """Pass 2: the rows ``wanted`` (indices into the concatenated rows of
    positive weight), in that order, with their weights (None without)."""
    ends = np.cumsum(positive)
    starts = ends - np.asarray(positive)
    chunk_of = np.searchsorted(ends, wanted, side="right")
    needed = set(np.unique(chunk_of).tolist())
    out = np.empty((wanted.size, width), dtype)
    weights = None
    for c, _, chunk, w in source.chunks(skip=lambda c: c not in needed, log=log,
                                        what="mbatch pass 2 (seeding rows): "):
        xp, wp = _positive(chunk, w)
        at = np.flatnonzero(chunk_of == c)
        local = wanted[at] - starts[c]
        out[at] = xp[local]
        if wp is not None:
            if weights is None:
                weights = np.ones(wanted.size)
            weights[at] = wp[local]
    return out, weights


def fit_mbatch_stream(estimator, source):
    """Fits ``estimator`` (a MiniBatchKMeans) on a chunk source; returns the
    StochasticKMeansResult its ``fit`` sets the attributes from."""
    values = estimator._checked_params()
    C = values["n_clusters"]
    params = estimator._source_params(values, source)
    run = params.run
    log = progress_callback(values["verbose"])
    clock = time.perf_counter()
    positive, rows, total, dtype, width = _count(source, log)
    n_weights = None if is_dask_array(source.X) or source.sample_weight is None else len(
        source.sample_weight)
    check_chunk_rows(source.name, rows, int(sum(positive)), C, n_weights)
    if hasattr(source, "rows"):  # later passes check that the chunks did not change
        source.rows = list(rows)
    n = int(sum(positive))
    if values["batch_size"] != "auto" and values["batch_size"] > n:
        raise ValueError(f"batch_size={values['batch_size']} must be in [1, {n}]: at most "
                         f"the number of points fitted ({n}).")
    read_seconds = time.perf_counter() - clock

    init_centers = seeding_to_core(values, np.empty((0, width), dtype), C, params)
    seeding = {"evals": 0, "seconds": 0.0}
    if init_centers is not None:
        centers = init_centers
    else:
        start = time.perf_counter()
        wanted = np.asarray(_core.mbatch_stream_seeding_rows(n, params), np.int64)
        sample, sample_w = _gather(source, wanted, positive, dtype, width, log)
        centers, stats = _core.mbatch_stream_seed(sample, sample_w, params)
        del sample, sample_w
        seeding = {"evals": int(stats.n_distance_evals["seeding"]),
                   "seconds": time.perf_counter() - start}

    state = _core.mbatch_stream_start(n, total, C, params.mbatch)
    batch_size = int(state.result.batch_size)
    per_pass = max(1, math.ceil(n / batch_size))
    chunk_rows = np.asarray(positive, np.int64)
    max_iter, planned, n_pass = values["max_iter"], 0, 0
    while planned < max_iter and not state.stopped:
        k = min(per_pass, max_iter - planned)
        plan = _core.mbatch_stream_plan(chunk_rows, run.seed, planned + 1, k)
        batches = np.arange(planned + 1, planned + k + 1, dtype=np.int64)
        by_chunk = {int(c): batches[plan == c] for c in np.unique(plan)}
        n_pass += 1
        for c, _, chunk, w in source.chunks(skip=lambda c: c not in by_chunk, log=log,
                                            what=f"mbatch pass {n_pass + 2} (batches): "):
            xp, wp = _positive(chunk, w)
            centers = _core.mbatch_stream_batches(xp, wp, by_chunk[c], params.mbatch, run,
                                                  centers, state)
            if state.stopped:
                break
        planned += k

    r = state.result
    labels, inertia, eval_seconds, eval_evals = None, None, 0.0, 0
    if values["compute_labels"]:
        labels, inertia, eval_seconds = source.nearest(
            centers, labels=True, n_threads=values["n_threads"], verbose=values["verbose"])
        if is_dask_array(inertia):  # inertia_ is a float, as scikit-learn's
            start = time.perf_counter()
            inertia = float(inertia.compute())
            eval_seconds += time.perf_counter() - start
        eval_evals = int(sum(rows)) * C
    scale = estimator._objective_scale()
    evals = dict(r.n_distance_evals)
    evals.update(seeding=seeding["evals"], evaluation=eval_evals)
    timings = dict(r.timings)
    timings.update(coreset=read_seconds, seeding=seeding["seconds"], evaluation=eval_seconds)
    return StochasticKMeansResult(
        centers=centers, labels=labels,
        inertia=None if inertia is None else scale * float(inertia),
        n_iter=int(r.n_iter), converged=bool(r.converged),
        objective=scale * np.asarray(r.objective), objective_seconds=np.asarray(r.seconds),
        n_distance_evals=evals, timings=timings,
        info=estimator._info(r))
