"""The numpy reference of a hard (Lloyd) step shared by the refinement and
data-step tests."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest


def _weighted_means(X, w, labels, old_means):
    """Every cluster's weighted mean (float64); a cluster without points keeps its mean."""
    means = old_means.astype(np.float64).copy()
    for c in range(means.shape[0]):
        mask = labels == c
        if mask.any():
            means[c] = np.average(X[mask].astype(np.float64), axis=0, weights=w[mask])
    return means


def _relocated(labels, d2_of_label, C):
    """Lloyd's relocation: every cluster no point chose (ascending) goes to
    the next point farthest from its mean (ties: lower index)."""
    labels = labels.copy()
    empty = np.setdiff1d(np.arange(C), labels)
    far = np.lexsort((np.arange(labels.size), -d2_of_label))
    for c, p in zip(empty, far):
        labels[p] = c
    return labels, empty.size


@pytest.fixture(scope="session")
def hard_step():
    """``weighted_means(X, w, labels, old_means)`` and
    ``relocated(labels, d2_of_label, C) -> (labels, n_moved)``."""
    return SimpleNamespace(weighted_means=_weighted_means, relocated=_relocated)
