"""The one entry from chunked data to its source: a :class:`ChunkSource` on
this machine or a :class:`DaskSource` on a Dask scheduler, with one interface
(``coreset``, ``nearest``)."""

from __future__ import annotations

import types

from .._base.inputs import is_chunked, is_dask_array
from .chunked import ChunkSource

__all__ = ["as_source"]


def as_source(X, sample_weight=None, name="X"):
    """The chunk source of a chunked X (a :class:`ChunkSource`, or a Dask
    source), or None when X is one array."""
    if is_dask_array(X):
        from .dask_source import DaskSource  # dask is optional: imported once X is one

        return DaskSource(X, sample_weight, name)
    if is_chunked(X):
        return ChunkSource(X, sample_weight, name)
    if isinstance(X, (types.GeneratorType, map, filter, zip)) or (
            hasattr(X, "__next__") and not hasattr(X, "__array__")):
        raise TypeError(f"{name} is an iterator, which can be read only once; a fit reads "
                        "the chunks more than once (a coreset twice). Pass a list of arrays "
                        "or .npy paths, or a function returning a new iterator of chunks on "
                        "every call.")
    return None
