"""Data that arrive in chunks: out-of-core fits on one machine.

A *chunked* input is a data matrix X given as a sequence of row chunks
instead of one array:

- a list (or tuple) of 2-D arrays, or of paths of ``.npy`` files (each
  memory-mapped while it is read, so only one chunk is in memory at a time);
- a function returning a fresh iterable of 2-D arrays on every call (it is
  called once per pass: a generator itself can be read only once, so it is
  refused);
- a zarr array (read in blocks of its chunk rows);
- a Dask array (handled by :mod:`vcgmm.dask`, with the same chunk steps run
  on the cluster).

The lightweight coreset of such an input is drawn by the core's chunked
steps (``chunked_coreset.hpp``): pass 1 reads every chunk once for its
weight, mean and scatter; a plan splits the N' draws over the chunks
(multinomial); pass 2 reads each chunk with draws once more and draws its
share. The two passes hold one chunk (plus its per-row squared distances,
8 bytes a row) and the coreset (N' rows) in memory, never more. The fit
then runs on the coreset in memory; labels and the quantization error of
the full data take a third pass (only when asked for).

The chunking is part of the seed: the same chunks and seed give the same
coreset on any number of threads or workers; another chunking gives another
coreset of the same distribution.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from .._base.inputs import is_zarr_array
from .._base.loader import core as _core
from .._base.metric import normalize_rows
from .._base.nearest import nearest_centers
from .._base.logs import progress_callback
from .files import _read_npy
from .._base.validation import (check_finite_magnitude, check_sample_weight, compute_dtype,
                                reject_non_numeric)

__all__ = ["CoresetDraw", "ChunkSource", "plan_coreset", "validate_chunk"]


@dataclass
class CoresetDraw:
    """A coreset drawn from chunked data, with the rows it drew."""

    indices: np.ndarray   # (m,) int64 global row indices, sorted
    weights: np.ndarray   # (m,) float64 coreset weights gamma
    points: np.ndarray    # (m, d) the drawn rows (the data's dtype)
    n_samples: int
    n_features: int
    n_chunks: int
    n_distance_evals: int  # one per row in pass 1, one per row read in pass 2
    seconds: float         # wall time of both passes (reading included)


def check_cancelled(generation):
    """KeyboardInterrupt when cancel_all() was called since ``generation``
    (``_core.cancel_generation()`` at the start of a computation)."""
    if _core.cancel_generation() != generation:
        raise KeyboardInterrupt


#: Said of a chunk a later pass refuses although the first pass accepted it.
CHANGED_SINCE_FIRST_PASS = ("The first pass accepted this chunk: the chunks must not change "
                            "between passes.")


def validate_chunk(raw, c, name, dtype, n_features, *, width_from="chunk 0 has"):
    """One chunk as a C-contiguous float32/float64 array, checked against the
    first chunk's dtype and width; NaN/inf and overflowing values refused,
    with the chunk named in every message (on every pass: a value that
    changed between passes must not reach a result).

    Returns (chunk, raw dtype): the raw dtype of chunk 0 fixes the others'."""
    where = f"{name} chunk {c}"
    if not hasattr(raw, "ndim") or not hasattr(raw, "dtype"):
        raw = np.asarray(raw)
    reject_non_numeric(raw, where)
    if raw.ndim != 2:
        raise ValueError(f"{where} must be a 2-D array (rows, features), got shape "
                         f"{tuple(raw.shape)}.")
    if raw.dtype.kind not in "biuf":
        raise TypeError(f"{where} has dtype {raw.dtype}; vcgmm needs real numbers.")
    if dtype is not None and raw.dtype != dtype:
        raise ValueError(f"{where} has dtype {raw.dtype} but chunk 0 has {dtype}: all chunks "
                         "must have the same dtype.")
    if raw.shape[1] == 0:
        raise ValueError(f"{where} has no features (shape {tuple(raw.shape)}).")
    if n_features is not None and raw.shape[1] != n_features:
        raise ValueError(f"{where} has {raw.shape[1]} features but {width_from} {n_features}: "
                         "all chunks must have the same width.")
    arr = np.ascontiguousarray(raw, dtype=compute_dtype(raw.dtype))
    if arr.size:
        check_finite_magnitude(arr, where)
    return arr, raw.dtype


def plan_coreset(weights, means, scatters, coreset_size, run):
    """Step 2 (the core's plan_chunked_coreset): (mean, chunk_mass,
    chunk_draws, (a, b, total_mass))."""
    mean, mass, draws, a, b, total = _core.plan_chunked_coreset(
        np.ascontiguousarray(weights, np.float64), np.ascontiguousarray(means, np.float64),
        np.ascontiguousarray(scatters, np.float64), int(coreset_size), run)
    return mean, mass, draws, (a, b, total)


class ChunkSource:
    """A chunked data matrix read chunk by chunk on this machine.

    Every pass calls :meth:`chunks`, which reads the chunks again (from the
    list, the files, the zarr array or a new call of the function).
    ``sample_weight`` is None or an array of shape (n_samples,) (sliced per
    chunk as the chunks go by).
    """

    def __init__(self, X, sample_weight=None, name="X"):
        self.X = X
        self.name = name
        self.sample_weight = None
        if sample_weight is not None:
            reject_non_numeric(sample_weight, "sample_weight")
            sw = np.asarray(sample_weight, dtype=np.float64) if not hasattr(
                sample_weight, "dtype") else sample_weight
            if np.ndim(sw) != 1:
                raise ValueError("sample_weight must be a 1-D array of shape (n_samples,) "
                                 f"with chunked X, got shape {np.shape(sw)}.")
            self.sample_weight = sw
        self.dtype = None        # the raw dtype of chunk 0
        self.n_features = None   # chunk 0's width, or the model's (set by the caller)
        self.width_from = "chunk 0 has"
        self.rows = None         # rows per chunk, known after the first pass
        self.unit_rows = False   # metric="cosine": every chunk's rows scaled to unit length
        # cancel_all() during the fit, also while Python code reads a chunk
        # (between core calls, where the core's own check cannot see it)
        self.generation = _core.cancel_generation()
        if is_zarr_array(X):
            if len(X.shape) != 2:
                raise ValueError(f"{name} is a zarr array of shape {X.shape}; expected 2-D.")
            self.kind = "zarr array"
        elif callable(X):
            self.kind = "function"
        else:
            self.kind = "list"

    def use_unit_rows(self):
        """metric="cosine": every chunk's rows scaled to unit length as it is read."""
        self.unit_rows = True

    # -- reading ---------------------------------------------------------------

    def _label(self, c):
        if self.kind == "list" and isinstance(self.X[c], (str, os.PathLike)):
            return f" ({os.fspath(self.X[c])})"
        return ""

    def _read(self, item):
        if isinstance(item, (str, os.PathLike)):
            path = os.fspath(item)
            if not os.path.exists(path):
                raise FileNotFoundError(f"no such file: {path}")
            if os.path.splitext(path)[1].lower() != ".npy":
                raise ValueError(f"{path}: chunk files must be .npy files")
            return _read_npy(path, [])
        return item

    def raw_chunks(self, skip=None):
        """Yields (chunk id, raw chunk or None when ``skip(c)``) in order;
        raises KeyboardInterrupt once cancel_all() was called during the fit."""
        X = self.X
        if self.kind == "zarr array":
            n, step = int(X.shape[0]), max(1, int(X.chunks[0]))
            for c, r0 in enumerate(range(0, n, step)):
                check_cancelled(self.generation)
                yield c, None if skip and skip(c) else X[r0:min(n, r0 + step)]
            return
        items = X() if self.kind == "function" else X
        if self.kind == "function" and (items is X or isinstance(items, np.ndarray)):
            raise TypeError(f"{self.name} must return an iterable of chunks (a new one per "
                            "call), not an array.")
        for c, item in enumerate(items):
            check_cancelled(self.generation)
            yield c, None if skip and skip(c) else self._read(item)
        check_cancelled(self.generation)

    def chunk_weights(self, c, start, chunk):
        """The weights of chunk c (rows start..start+len), validated, or None."""
        if self.sample_weight is None:
            return None
        n = chunk.shape[0]
        w = np.asarray(self.sample_weight[start:start + n], dtype=np.float64)
        if w.shape[0] != n:
            raise ValueError(f"sample_weight has {len(self.sample_weight)} entries but "
                             f"{self.name} has more rows (chunk {c} ends at row {start + n}).")
        if not n:
            return w
        # Zero weights are allowed (those rows are never drawn); that some
        # weight is positive is checked over all chunks after pass 1.
        return check_sample_weight(w, chunk, name=f"sample_weight (chunk {c})",
                                   allow_all_zero=True)

    def chunks(self, *, skip=None, log=None, what=""):
        """Yields (chunk id, first row, validated chunk, its weights), reading
        every chunk (but those ``skip(c)`` is true for) once."""
        start, count = 0, 0
        # A chunk beyond the first pass's is read (not skipped), to be refused below.
        n_known = None if self.rows is None else len(self.rows)
        for c, raw in self.raw_chunks(None if skip is None else (
                lambda c: (n_known is None or c < n_known) and skip(c))):
            count += 1
            if self.rows is not None and c >= len(self.rows):
                raise ValueError(f"{self.name} gave more chunks on this pass than on the "
                                 f"first ({len(self.rows)}): the chunks must not change "
                                 "between passes.")
            if raw is None:
                start += self.rows[c]
                continue
            try:
                chunk, dtype = validate_chunk(raw, f"{c}{self._label(c)}", self.name,
                                              self.dtype, self.n_features,
                                              width_from=self.width_from)
            except ValueError as exc:
                if self.rows is None:
                    raise
                raise ValueError(f"{exc} {CHANGED_SINCE_FIRST_PASS}") from None
            if self.dtype is None:
                self.dtype, self.n_features = dtype, chunk.shape[1]
            if self.unit_rows:
                chunk = normalize_rows(chunk, f"{self.name} chunk {c}{self._label(c)}")
            if self.rows is not None and chunk.shape[0] != self.rows[c]:
                raise ValueError(f"{self.name} chunk {c} has {chunk.shape[0]} rows on this "
                                 f"pass but had {self.rows[c]} on the first: the chunks must "
                                 "not change between passes.")
            w = self.chunk_weights(c, start, chunk)
            if log:
                log(f"{what}chunk {c}{self._label(c)}: {chunk.shape[0]:,} rows")
            n_rows = chunk.shape[0]
            yield c, start, chunk, w
            # Drop this frame's references before the next chunk is read, so
            # that one chunk (e.g. one memory-mapped file) is resident at a time.
            del raw, chunk, w
            start += n_rows
        self.last_rows = start
        if self.rows is not None and count != len(self.rows):
            raise ValueError(f"{self.name} gave {count} chunks on this pass but "
                             f"{len(self.rows)} on the first: the chunks must not change "
                             "between passes.")

    # -- the coreset -----------------------------------------------------------

    def coreset(self, coreset_size, run, *, n_clusters=None, verbose=False, resolve=None):
        """Draws the coreset in two passes (see the module docstring).

        ``coreset_size`` is resolved after pass 1 (when N is known) by
        ``resolve(coreset_size, n_samples)``; ``n_clusters`` (if given) is
        checked against N.
        """
        log = progress_callback(verbose)
        clock = time.perf_counter()
        weights, means, scatters, rows = [], [], [], []
        evals = 0
        for c, _, chunk, w in self.chunks(log=log, what="coreset pass 1: "):
            weight, mean, scatter, stats = _core.coreset_chunk_moments(chunk, w, run)
            weights.append(weight)
            means.append(mean)
            scatters.append(scatter)
            rows.append(chunk.shape[0])
            evals += stats.n_distance_evals["coreset"]
            del chunk
        self._check_after_first_pass(rows, n_clusters)
        n = int(sum(rows))
        # Sized by the points that exist (rows of weight 0 do not).
        m = resolve(coreset_size, self.n_positive(n)) if resolve else int(coreset_size)
        mean, mass, draws, plan = plan_coreset(weights, np.vstack(means), scatters, m, run)
        # The coreset's rows go straight into their place (no second copy).
        indices = np.empty(m, np.int64)
        gammas = np.empty(m, np.float64)
        points = np.empty((m, self.n_features),
                          compute_dtype(self.dtype))
        k = 0
        for c, start, chunk, w in self.chunks(skip=lambda c: draws[c] == 0,
                                              log=log, what="coreset pass 2: "):
            idx, gamma, stats = _core.draw_coreset_chunk(
                chunk, w, c, mean, *plan, float(mass[c]), int(draws[c]), m, run)
            indices[k:k + idx.size] = idx + start
            gammas[k:k + idx.size] = gamma
            np.take(chunk, idx, axis=0, out=points[k:k + idx.size])
            k += idx.size
            evals += stats.n_distance_evals["coreset"]
            del chunk
        assert k == m
        seconds = time.perf_counter() - clock
        if log:
            log(f"coreset: {m:,} draws from {n:,} rows in {len(rows)} chunks ({seconds:.2f} s)")
        return CoresetDraw(
            indices=indices, weights=gammas, points=points, n_samples=n, n_features=int(self.n_features), n_chunks=len(rows),
            n_distance_evals=int(evals), seconds=seconds)

    def _check_after_first_pass(self, rows, n_clusters):
        n_weights = None if self.sample_weight is None else len(self.sample_weight)
        n_pos = self.n_positive(int(sum(rows))) if rows else 0
        check_chunk_rows(self.name, rows, n_pos, n_clusters, n_weights)
        self.rows = list(rows)

    def n_positive(self, n):
        """The points that exist: rows of positive weight (n without weights)."""
        if self.sample_weight is None:
            return n
        return int(np.count_nonzero(np.asarray(self.sample_weight[:n], dtype=np.float64) > 0))

    # -- passes with fitted centers --------------------------------------------

    def nearest(self, centers, *, labels, n_threads=None, verbose=False):
        """(labels or None, quantization error, seconds) of the full data: one
        more pass over the chunks."""
        log = progress_callback(verbose)
        clock = time.perf_counter()
        parts, total = [], 0.0
        for c, _, chunk, w in self.chunks(log=log, what="evaluation: "):
            if chunk.shape[0] == 0:
                lab, q = np.empty(0, np.int32), 0.0
            else:
                lab, q = nearest_centers(chunk, np.ascontiguousarray(centers, chunk.dtype), w,
                                         n_threads=n_threads, labels=labels)
            total += q
            if labels:
                parts.append(lab)
            del chunk
        if start_rows(self) == 0:
            raise ValueError(f"{self.name} is empty: its chunks have no rows.")
        out = np.concatenate(parts) if labels else None
        return out, total, time.perf_counter() - clock

    def map_chunks(self, fn):
        """fn(chunk) of every chunk, concatenated along the rows."""
        parts = [fn(chunk) for _, _, chunk, _ in self.chunks()]
        if start_rows(self) == 0:
            raise ValueError(f"{self.name} is empty: its chunks have no rows.")
        return np.concatenate(parts)


def check_chunk_rows(name, rows, n_positive, n_clusters=None, n_weights=None, unit="chunks"):
    """The checks once the first pass has counted the rows of every chunk
    (``rows``) and those of positive weight (``n_positive``): some chunk,
    some row, ``n_weights`` (the length of sample_weight, when known) equal
    to the rows, and enough points of positive weight for ``n_clusters``.
    ``unit`` names the chunks in messages (a Dask array's: "blocks")."""
    if not rows:
        raise ValueError(f"{name} has no {unit}.")
    n = int(sum(rows))
    if n == 0:
        raise ValueError(f"{name} is empty: its {len(rows)} {unit} have no rows.")
    if n_weights is not None and n_weights != n:
        raise ValueError(f"sample_weight must have shape ({n},) to match {name}, got "
                         f"({n_weights},).")
    if n_clusters is not None and n_clusters > n:
        raise ValueError(f"n_clusters={n_clusters} must be <= n_samples={n}: there are "
                         "fewer points than clusters.")
    if n_positive == 0:
        raise ValueError(f"sample_weight has no positive entry (all {n} weights are "
                         "zero): a point of weight 0 is ignored, so every point would be.")
    if n_clusters is not None and n_positive < n_clusters:
        raise ValueError(f"sample_weight has {n_positive} positive entr"
                         f"{'y' if n_positive == 1 else 'ies'} but n_clusters={n_clusters} "
                         f"needs at least {n_clusters} points: a point of weight 0 is "
                         "ignored.")


def start_rows(source):
    """Rows read by the source's last complete pass."""
    return source.last_rows
