"""Input validation, done once in Python before the data reach C++.

Rules (the binding accepts nothing else, so a mistake raises instead of
copying silently):

- X becomes a 2-D, C-contiguous array of float32 or float64. float32 input
  stays float32; every other numeric dtype (integers, bool, float16, float128,
  numeric object arrays) is converted to float64 with one explicit copy.
  C-contiguous float32/float64 arrays (including ``np.memmap``) pass through
  without a copy; Fortran-ordered or strided views are copied once to C order.
- Strings, bytes, complex numbers, datetimes and sparse matrices are rejected
  with a TypeError; NaN/inf, empty arrays and wrong shapes with a ValueError.
- sample_weight must be finite and strictly positive, of shape (n_samples,).
"""

from __future__ import annotations

import numbers
import os

import numpy as np
from sklearn.utils import check_array, check_random_state

__all__ = [
    "as_data",
    "check_centers",
    "check_coreset_size",
    "check_sample_weight",
    "check_n_threads",
    "check_int",
    "check_bool",
    "check_float",
    "seed_from",
    "reject_non_numeric",
]

FLOAT_DTYPES = (np.float64, np.float32)


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


def as_data(X, name="X", *, ensure_min_samples=1):
    """X as a validated 2-D C-contiguous float32/float64 array (see module doc)."""
    reject_non_numeric(X, name)
    return check_array(
        X,
        accept_sparse=False,
        dtype=list(FLOAT_DTYPES),
        order="C",
        copy=False,
        ensure_all_finite=True,
        ensure_2d=True,
        allow_nd=False,
        ensure_min_samples=ensure_min_samples,
        ensure_min_features=1,
        input_name=name,
    )


def check_centers(centers, X, name="centers", n_clusters=None):
    """Centers as a C-contiguous array of X's dtype, shape (n_clusters, n_features)."""
    reject_non_numeric(centers, name)
    try:
        centers = check_array(
            centers,
            dtype=X.dtype,
            order="C",
            ensure_all_finite=True,
            ensure_2d=True,
            input_name=name,
        )
    except ValueError as exc:
        message = str(exc)
        if name not in message:
            message = f"{name}: {message}"
        raise ValueError(message) from None
    if centers.shape[1] != X.shape[1]:
        raise ValueError(
            f"{name} has {centers.shape[1]} features but X has {X.shape[1]}."
        )
    if n_clusters is not None and centers.shape[0] != n_clusters:
        raise ValueError(
            f"{name} has {centers.shape[0]} rows but n_clusters={n_clusters}."
        )
    return centers


#: A coreset may hold at most this many times n_samples draws.
MAX_CORESET_FACTOR = 4


def check_coreset_size(n_prime, n_samples, C, name="n_prime"):
    """Validated coreset size: C <= n_prime <= 4 * n_samples."""
    n_prime = check_int(n_prime, name, min_value=1)
    if n_prime < C:
        raise ValueError(f"{name}={n_prime} must be >= n_clusters={C} (one draw per cluster at least).")
    if n_prime > MAX_CORESET_FACTOR * n_samples:
        raise ValueError(
            f"{name}={n_prime} exceeds {MAX_CORESET_FACTOR} * n_samples = "
            f"{MAX_CORESET_FACTOR * n_samples}: a coreset larger than the data only costs time."
        )
    return n_prime


def check_sample_weight(sample_weight, X, name="sample_weight"):
    """None (unit weights) or a float64 C-contiguous array of shape (n_samples,),
    finite and strictly positive."""
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
        raise ValueError(f"{name} contains NaN or infinity.")
    if np.any(w <= 0):
        bad = int(np.flatnonzero(w <= 0)[0])
        raise ValueError(
            f"{name} must be strictly positive; {name}[{bad}] = {w[bad]!r}. "
            "Drop points with zero weight instead."
        )
    return np.ascontiguousarray(w)


def check_int(value, name, *, min_value=None, max_value=None, allow_none=False):
    """An integer parameter (not bool) within [min_value, max_value]."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__}).")
    value = int(value)
    if min_value is not None and value < min_value:
        raise ValueError(f"{name} must be >= {min_value}, got {value}.")
    if max_value is not None and value > max_value:
        raise ValueError(f"{name} must be <= {max_value}, got {value}.")
    return value


def check_float(value, name, *, min_value=None, allow_none=False):
    """A finite real parameter >= min_value."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}.")
    if min_value is not None and value < min_value:
        raise ValueError(f"{name} must be >= {min_value}, got {value}.")
    return value


def check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


def check_n_threads(n_threads):
    """None or -1: all available threads (0 for the core); else a positive int."""
    if n_threads is None:
        return 0
    n_threads = check_int(n_threads, "n_threads")
    if n_threads == -1:
        return 0
    if n_threads < 1:
        raise ValueError(f"n_threads must be a positive integer, -1 or None, got {n_threads}.")
    return n_threads


def seed_from(random_state):
    """A 63-bit seed for the C++ core from a scikit-learn style random_state."""
    rng = check_random_state(random_state)
    return int(rng.randint(0, np.iinfo(np.int64).max, dtype=np.int64))


def available_threads():
    """Number of CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
