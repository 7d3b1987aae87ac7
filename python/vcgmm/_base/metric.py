"""The ``metric`` parameter: Euclidean, or cosine (spherical clustering of
embeddings, as faiss's ``spherical=True``).

With ``metric="cosine"`` the rows of X are scaled to unit length once (a copy
in X's dtype: the caller's array is never modified; rows of norm zero are
refused, their direction is undefined); chunked and Dask data are scaled
chunk by chunk as each pass reads them (``ChunkSource.use_unit_rows``). The
k-means family then runs spherical k-means (Dhillon & Modha, 2001): Lloyd
with every center rescaled to unit length after each update
(``LloydParams.spherical`` in the core), and reports the objective as
``sum_n w_n (1 - cos(x_n, c))`` (half the squared
Euclidean distance between unit vectors). The mixture runs on the normalised
rows unchanged: an isotropic Gaussian approximation of a von Mises-Fisher
mixture, every quantity Euclidean on the normalised rows.
"""

from __future__ import annotations

import numpy as np

from .params import Options, Param

__all__ = ["METRICS", "metric_param", "normalize_rows", "is_cosine"]

METRICS = ("euclidean", "cosine")


def metric_param():
    """The ``metric`` entry of a family's table."""
    return Param("metric", Options(METRICS), "euclidean",
                 "'euclidean', or 'cosine': rows scaled to unit length first "
                 "(spherical clustering of embeddings)", target=None, cli="--metric")


def is_cosine(estimator_or_values):
    """True if the estimator (or dict of validated values) uses the cosine metric."""
    if isinstance(estimator_or_values, dict):
        return estimator_or_values.get("metric", "euclidean") == "cosine"
    return getattr(estimator_or_values, "metric", "euclidean") == "cosine"


def normalize_rows(X, name="X"):
    """X with every row scaled to unit Euclidean length (a new array, X's dtype).

    Raises ValueError naming the first row of norm zero.
    """
    norms = np.sqrt(np.einsum("ij,ij->i", X, X, dtype=np.float64))
    zero = np.flatnonzero(norms == 0.0)
    if zero.size:
        raise ValueError(
            f"{name} has {zero.size} row(s) of norm zero (first: row {zero[0]}); the cosine "
            "metric needs a direction for every row: drop those rows or use "
            "metric='euclidean'.")
    out = X / norms[:, None].astype(X.dtype)
    return np.ascontiguousarray(out, dtype=X.dtype)
