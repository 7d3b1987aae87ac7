"""The one place Python calls the core's exact blocked assignment."""

from __future__ import annotations

from .loader import core as _core
from .run import check_n_threads

__all__ = ["nearest_centers"]


def nearest_centers(X, centers, sample_weight=None, *, n_threads=None, labels=True):
    """(labels or None, quantization error) of validated X and centers (X's
    dtype): the one place Python calls the core's blocked assignment."""
    labels, _, objective = _core.assign_nearest(X, sample_weight, centers, labels, False,
                                                check_n_threads(n_threads))
    return labels, float(objective)
