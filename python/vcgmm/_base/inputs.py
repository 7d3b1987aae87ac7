"""What kind of input X is: one array, or chunked data (lists of arrays or
``.npy`` paths, chunk functions, zarr arrays, Dask arrays). Type checks only:
nothing here reads the data or imports dask or zarr."""

from __future__ import annotations

import os
import sys

import numpy as np

__all__ = ["is_chunked", "is_dask_array", "is_zarr_array"]


def is_dask_array(X):
    """True for a dask array (without importing dask when it is not loaded)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(X, da.Array)


def is_zarr_array(X):
    return type(X).__module__.split(".")[0] == "zarr" and hasattr(X, "chunks") and hasattr(
        X, "shape")


def _is_chunk_list(X):
    # A list whose first item is a 2-D array or a path (as one array-like it
    # would be 3-D or strings: invalid), made of arrays and paths only; each
    # chunk is then checked on its own, so a bad one is named.
    if not isinstance(X, (list, tuple)) or len(X) == 0:
        return False
    first = X[0]
    if not (isinstance(first, (str, os.PathLike))
            or (isinstance(first, np.ndarray) and first.ndim == 2)):
        return False
    return all(isinstance(c, (str, os.PathLike, np.ndarray)) for c in X)


def is_chunked(X):
    """True when X is a chunked input (see the module docstring), not one array."""
    return (is_dask_array(X) or is_zarr_array(X) or _is_chunk_list(X)
            or (callable(X) and not hasattr(X, "__array__")))
