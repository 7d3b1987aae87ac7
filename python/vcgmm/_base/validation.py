"""Input validation, done once in Python before the data reach C++.

Rules (the binding accepts nothing else, so a mistake raises instead of
copying silently):

- X becomes a 2-D, C-contiguous array of float32 or float64
  (:func:`compute_dtype`). float32 input stays float32; float16, bool and 8-
  and 16-bit integers, which float32 holds exactly, become float32 (one copy
  of twice their size, never a float64 copy of four times); every other
  numeric dtype (32- and 64-bit integers, float128, numeric object arrays)
  becomes float64 with one explicit copy.
  C-contiguous float32/float64 arrays (including ``np.memmap``) pass through
  without a copy; Fortran-ordered or strided views are copied once to C order.
- Strings, bytes, complex numbers, datetimes and sparse matrices are rejected
  with a TypeError; NaN/inf, empty arrays and wrong shapes with a ValueError.
- Values so large that squared distances would overflow the data's float
  type (|x| above about 1e152 / sqrt(d) in float64, 1e17 / sqrt(d) in
  float32) are refused with a ValueError naming the data's range: the core
  computes ||x - c||^2 in that type, and an overflow would give silently
  wrong labels and errors. Rescale such data first.
- sample_weight must be finite and non-negative, of shape (n_samples,), each
  positive entry at least the smallest normal double (2.2e-308), with a
  finite sum and at least one positive entry. A point of weight 0 does not
  exist, as in scikit-learn: the fitting functions drop those rows before
  the core sees the data (``positive_rows``), so fitting (X, w) gives the
  same result as fitting (X[w > 0], w[w > 0]); the samplers never return
  such a row; labels are still given to them (their nearest center) and
  they add nothing to an objective.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_array

from .inputs import is_chunked
from .loader import core as _core
from .params import INT32_MAX, Integer

__all__ = [
    "as_data",
    "check_centers",
    "check_n_clusters",
    "check_sample_weight",
    "check_weight_total",
    "compute_dtype",
    "positive_rows",
    "reject_non_numeric",
]

FLOAT_DTYPES = (np.float64, np.float32)


def compute_dtype(dtype) -> np.dtype:
    """The float type data of ``dtype`` are computed in: float32 for float32 and
    for the types float32 holds exactly in at most twice their size (float16,
    bool, 8- and 16-bit integers); float64 for every other type."""
    dtype = np.dtype(dtype)
    if dtype == np.float32 or (dtype.kind in "biuf" and dtype.itemsize <= 2):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def target_dtypes(X):
    """``dtype`` for scikit-learn's check_array / validate_data: the compute type
    of an array's dtype; float32 or float64 (the latter for non-float32 input)
    for anything else (lists, data frames)."""
    dtype = getattr(X, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        return compute_dtype(dtype)
    return list(FLOAT_DTYPES)


def reject_non_numeric(X, name="X"):
    """Raise TypeError for inputs that are not arrays of real numbers."""
    if hasattr(X, "tocsr") or hasattr(X, "toarray"):  # scipy.sparse
        raise TypeError(
            f"{name} is a sparse matrix; vcgmm needs dense data (use {name}.toarray())."
        )
    dtype = getattr(X, "dtype", None)
    if dtype is None:
        return
    kind = np.dtype(dtype).kind if not hasattr(dtype, "kind") else dtype.kind
    if kind in "USa":
        raise TypeError(f"{name} has a string dtype ({dtype}); vcgmm needs numbers.")
    if kind == "c":
        raise TypeError(f"{name} is complex ({dtype}); vcgmm needs real numbers.")
    if kind in "mMV":
        raise TypeError(f"{name} has dtype {dtype}; vcgmm needs real numbers.")
    if kind == "O" and isinstance(X, np.ndarray):
        for value in X.flat:
            if isinstance(value, (str, bytes)):
                raise TypeError(
                    f"{name} is an object array holding strings (e.g. {value!r}); "
                    "vcgmm needs numbers."
                )


#: Squared distances stay this far below the float type's largest value
#: (sums of a few of them, and of their differences, must not overflow).
_OVERFLOW_MARGIN = 1e3


def check_finite_magnitude(X, name="X", dtype=None):
    """Refuse NaN/inf and values whose squared distances would overflow.

    No copy, also for memory maps: float32/float64 arrays in C or Fortran
    order are scanned once by the compiled core on its own threads (a BLAS
    call here would wake the BLAS library's thread pool, whose threads keep
    spinning and slow the core's next parallel region); other arrays, and
    data that fail the test (to say where), by two numpy reductions (min and
    max; NaN propagates through both). ``dtype`` is the type the values will
    be computed in (default X's).
    """
    dtype = np.dtype(X.dtype if dtype is None else dtype)
    if X.size == 0:
        return X
    d = X.shape[1] if X.ndim == 2 else 1
    # |x| <= sqrt(max / (margin 4 d)): in the root domain, so the test itself
    # cannot overflow.
    limit = float(np.sqrt(float(np.finfo(dtype).max) / (_OVERFLOW_MARGIN * 4.0 * d)))
    if (X.flags.c_contiguous or X.flags.f_contiguous) and X.dtype in (np.float32, np.float64):
        flat = X.reshape(-1, order="C" if X.flags.c_contiguous else "F")  # a view
        if _core.count_outside(flat, limit) == 0:
            return X
    lo, hi = X.min(), X.max()
    if not (np.isfinite(lo) and np.isfinite(hi)):
        bad = ~np.isfinite(X)
        row, col = np.argwhere(bad)[0] if X.ndim == 2 else (int(np.flatnonzero(bad)[0]), None)
        what = "NaN" if np.isnan(X[row, col] if col is not None else X[row]) else "infinity"
        where = f"row {row}, column {col}" if col is not None else f"index {row}"
        raise ValueError(f"{name} contains {what} (first at {where}); vcgmm needs finite "
                         f"numbers: drop or impute those values first.")
    magnitude = max(abs(float(lo)), abs(float(hi)))
    if magnitude > limit:
        raise ValueError(
            f"{name} has values up to {magnitude:.3g} in magnitude, above {limit:.3g}, the "
            f"largest for which squared distances in {d} dimensions stay far from "
            f"{dtype}'s overflow ({float(np.finfo(dtype).max):.3g}). Rescale the data "
            f"(e.g. divide by {magnitude:.3g})"
            + (", or use float64." if dtype == np.float32 else "."))
    return X


def friendly_array_errors(name):
    """A context manager turning scikit-learn's array-validation errors into
    one-line messages that name the argument."""
    return _FriendlyArrayErrors(name)


class _FriendlyArrayErrors:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or not isinstance(exc, (ValueError, TypeError)):
            return False
        message = str(exc)
        name = self.name
        if "Expected 2D array" in message:
            got = "a scalar" if "scalar" in message else "a 1D array"
            raise ValueError(
                f"{name} must be a 2D array of shape (n_samples, n_features), got {got}. "
                f"Reshape your data: {name}.reshape(-1, 1) for one feature, {name}.reshape(1, -1) "
                "for one sample.") from None
        if "Found array with 0 sample" in message or "Found array with 0 feature" in message:
            # scikit-learn's wording kept (its estimator checks expect it), with the name.
            raise ValueError(f"{name} is empty: {message}") from None
        if isinstance(exc, TypeError) or "could not convert" in message:
            raise TypeError(f"{name} must hold real numbers: {message}") from None
        if name not in message:
            raise type(exc)(f"{name}: {' '.join(message.split())}") from None
        return False


def as_data(X, name="X", *, ensure_min_samples=1) -> np.ndarray:
    """X as a validated 2-D C-contiguous float32/float64 array (see module doc)."""
    if is_chunked(X):
        # Never pulled into memory silently (np.asarray of a Dask or zarr array).
        raise TypeError(
            f"{name} is chunked or Dask data, which this function does not take: it needs "
            f"{name} in memory as one array (np.asarray({name}) or {name}.compute() if it "
            "fits). fit_vcgmm, lwcs, quantization_error, assign and the estimators' fit, "
            "predict and transform take chunked data.")
    reject_non_numeric(X, name)
    with friendly_array_errors(name):
        X = check_array(
            X,
            accept_sparse=False,
            dtype=target_dtypes(X),
            order="C",
            copy=False,
            ensure_all_finite=False,
            ensure_2d=True,
            allow_nd=False,
            ensure_min_samples=ensure_min_samples,
            ensure_min_features=1,
            input_name=name,
        )
    return check_finite_magnitude(X, name)


def check_centers(centers, X, name="centers", n_clusters=None) -> np.ndarray:
    """Centers as a C-contiguous array of X's dtype, shape (n_clusters, n_features)."""
    reject_non_numeric(centers, name)
    with friendly_array_errors(name):
        centers = check_array(
            centers,
            dtype=np.float64,
            ensure_all_finite=False,
            ensure_2d=True,
            input_name=name,
        )
    # Checked before the cast to X's dtype, where 1e200 would become inf.
    check_finite_magnitude(centers, name, dtype=X.dtype)
    centers = np.ascontiguousarray(centers, dtype=X.dtype)
    if centers.shape[1] != X.shape[1]:
        raise ValueError(
            f"{name} has {centers.shape[1]} features but X has {X.shape[1]}."
        )
    if n_clusters is not None and centers.shape[0] != n_clusters:
        raise ValueError(
            f"{name} has {centers.shape[0]} rows but n_clusters={n_clusters}."
        )
    return centers


def check_n_clusters(n_clusters, X, name="n_clusters"):
    """A number of clusters 1 <= n_clusters <= n_samples (and < 2^31)."""
    n_clusters = Integer(1, INT32_MAX).check(n_clusters, name)
    if n_clusters > X.shape[0]:
        raise ValueError(
            f"{name}={n_clusters} must be <= n_samples={X.shape[0]}: "
            "there are fewer points than clusters."
        )
    return n_clusters


def check_sample_weight(sample_weight, X, name="sample_weight", refuse_zero=None,
                        allow_all_zero=False):
    """None (unit weights) or a float64 C-contiguous array of shape (n_samples,),
    finite and non-negative with at least one positive entry (zero entries:
    points that are ignored, see ``positive_rows``; refused when
    ``refuse_zero``, a phrase saying where, e.g. "in VariationalLoop"; all zero
    allowed with ``allow_all_zero``: one chunk of the data)."""
    if sample_weight is None:
        return None
    reject_non_numeric(sample_weight, name)
    if isinstance(sample_weight, numbers.Number):
        sample_weight = np.full(X.shape[0], sample_weight, dtype=np.float64)
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of numbers: {exc}") from None
    if w.ndim != 1 or w.shape[0] != X.shape[0]:
        raise ValueError(
            f"{name} must have shape ({X.shape[0]},) to match X, got {w.shape}."
        )
    if not np.all(np.isfinite(w)):
        bad = int(np.flatnonzero(~np.isfinite(w))[0])
        raise ValueError(f"{name} must be finite; {name}[{bad}] = {float(w[bad])!r}.")
    if np.any(w < 0):
        bad = int(np.flatnonzero(w < 0)[0])
        raise ValueError(
            f"{name} must be non-negative; {name}[{bad}] = {float(w[bad])!r}."
        )
    if not allow_all_zero and not np.any(w > 0):
        raise ValueError(
            f"{name} has no positive entry (all {w.shape[0]} weights are zero): a point "
            "of weight 0 is ignored, so every point would be."
        )
    if refuse_zero and np.any(w == 0):
        bad = int(np.flatnonzero(w == 0)[0])
        raise ValueError(
            f"{name} must be strictly positive {refuse_zero}; {name}[{bad}] = "
            f"{float(w[bad])!r}. Drop the points of weight 0 (they would be ignored)."
        )
    tiny = np.finfo(np.float64).tiny
    if np.any((w > 0) & (w < tiny)):
        bad = int(np.flatnonzero((w > 0) & (w < tiny))[0])
        raise ValueError(
            f"{name}[{bad}] = {float(w[bad])!r} is below {tiny:.3g}, too small to compute with "
            f"(weights are only relative: multiply all of them by a large factor).")
    with np.errstate(over="ignore"):
        w_sum = float(np.sum(w))
    check_weight_total(w_sum, X, name, f"largest weight {np.max(w):.3g}, sum {w_sum:.3g}")
    return np.ascontiguousarray(w)


def check_weight_total(total, X, name="sample_weight", detail=""):
    """Refuse weights whose ``total`` (their sum, or what a sum of them can
    reach, e.g. a mini-batch count over all batches) times squared distances
    in X's range would overflow double; ``detail`` says where ``total``
    comes from."""
    magnitude = max(abs(float(X.min())), abs(float(X.max()))) if X.size else 0.0
    with np.errstate(over="ignore"):
        reach = total * max(1.0, (2.0 * magnitude) ** 2 * X.shape[1])
    if not reach < float(np.finfo(np.float64).max) / _OVERFLOW_MARGIN:
        raise ValueError(f"{name} is too large for X's range ({detail}): weighted sums of "
                         "squared distances would overflow; weights are only relative, divide "
                         "all of them by a large factor.")




def check_function_count(C, X, sample_weight):
    """``(C, sample_weight)`` checked for a ``fit_<algo>(X, C, ...)`` function
    under the names its caller wrote (the estimator it wraps would say
    n_clusters or n_components): C <= n_samples and at least C points of
    positive weight."""
    C = check_n_clusters(C, X, "C")
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, X)
        check_enough_positive(sample_weight, C, what="C")
    return C, sample_weight


def check_enough_positive(w, n_needed, name="sample_weight", what="n_clusters", positive=None):
    """The number of positive entries of the weights ``w``; raises a
    ValueError naming ``name`` and ``what`` (the parameter that needs the
    points) when fewer than ``n_needed`` are positive. Too few rows at all is
    the caller's check (its message names n_samples)."""
    if positive is None:
        positive = w > 0
    n_pos = int(np.count_nonzero(positive))
    if n_pos < n_needed and n_pos < w.shape[0]:
        raise ValueError(
            f"{name} has {n_pos} positive entr{'y' if n_pos == 1 else 'ies'} but {what}="
            f"{n_needed} needs at least {n_needed} points: a point of weight 0 is ignored."
        )
    return n_pos


def positive_rows(X, w, n_needed=1, name="sample_weight", what="n_clusters"):
    """The rows of X that exist: those of positive weight.

    Returns ``(X, w, keep)``: X and w unchanged and ``keep`` None when there
    are no weights or none is 0; otherwise ``X[keep]`` and ``w[keep]`` (one
    copy, C order, the dtype kept) and ``keep`` the sorted indices of the
    positive-weight rows, for mapping row indices (labels, drawn rows) back.
    Fitting the compacted rows is what makes a weight of 0 mean "this point
    does not exist": every result (random draws included) equals that of a
    fit of ``X[w > 0], w[w > 0]``. Raises a ValueError naming ``name`` when
    fewer than ``n_needed`` rows have a positive weight (``what``: the
    parameter that needs them).
    """
    if w is None:
        return X, w, None
    positive = w > 0
    n_pos = check_enough_positive(w, n_needed, name, what, positive)
    if n_pos == w.shape[0]:
        return X, w, None
    keep = np.flatnonzero(positive)
    return np.ascontiguousarray(X[keep]), np.ascontiguousarray(w[keep]), keep


def expand_rows(values, keep, n, fill):
    """Values of the kept rows placed back at their rows of an (n,) array;
    the other rows get ``fill`` (an array of their values, in row order)."""
    out = np.empty((n,) + values.shape[1:], dtype=values.dtype)
    out[keep] = values
    mask = np.ones(n, dtype=bool)
    mask[keep] = False
    out[mask] = fill
    return out


def count_distinct_rows(a) -> int:
    """Number of distinct rows of a finite 2-D float array (-0.0 equals 0.0).

    Exact, without sorting whole rows: rows are grouped by a 64-bit hash of
    their bits, and only rows that share a hash are compared (``np.unique``
    with ``axis=0`` on all rows costs a large part of a fit at many clusters
    of many features).
    """
    a = np.ascontiguousarray(a) + 0.0  # a new array, -0.0 turned into 0.0
    n = a.shape[0]
    if n < 2:
        return n
    bits = a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint64).reshape(n, -1)
    mult = np.random.default_rng(0).integers(1, 2**63, size=bits.shape[1],
                                             dtype=np.uint64) | np.uint64(1)
    h = np.empty(n, dtype=np.uint64)
    for start in range(0, n, 1024):  # blocks: no (n, d) uint64 temporary
        h[start:start + 1024] = (bits[start:start + 1024].astype(np.uint64) * mult).sum(axis=1)
    _, inverse, counts = np.unique(h, return_inverse=True, return_counts=True)
    shared = counts[inverse] > 1
    n_alone = n - int(shared.sum())
    if n_alone == n:
        return n
    return n_alone + np.unique(a[shared], axis=0).shape[0]
