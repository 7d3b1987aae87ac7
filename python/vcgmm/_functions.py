"""The functional tier: coresets, seedings, assignment and quality measures."""

from __future__ import annotations

import warnings

import numpy as np

from ._loader import core as _core
from ._logging import progress_callback
from ._validation import (
    as_data,
    check_bool,
    check_float,
    check_centers,
    check_int,
    check_n_threads,
    check_sample_weight,
    seed_from,
)

__all__ = [
    "lwcs",
    "kmeans_plusplus",
    "afkmc2",
    "quantization_error",
    "assign",
    "lloyd",
]


def _check_n_clusters(n_clusters, X, name="n_clusters"):
    n_clusters = check_int(n_clusters, name, min_value=1)
    if n_clusters > X.shape[0]:
        raise ValueError(
            f"{name}={n_clusters} must be <= n_samples={X.shape[0]}: "
            "there are fewer points than clusters."
        )
    return n_clusters


def _warn_if_duplicate_centers(centers, n_clusters, stacklevel=3):
    n_distinct = np.unique(centers, axis=0).shape[0]
    if n_distinct < n_clusters:
        warnings.warn(
            f"Only {n_distinct} distinct centers for n_clusters={n_clusters}: "
            "the data have fewer distinct points than clusters, so some centers coincide.",
            UserWarning,
            stacklevel=stacklevel,
        )


def lwcs(X, n_prime, *, sample_weight=None, random_state=None, n_threads=None):
    """Draw a lightweight coreset (Bachem, Lucic & Krause, KDD 2018).

    Two passes over the data: the (weighted) mean ``mu``, then the sampling
    distribution ``q(x) = 1/2 w(x)/sum(w) + 1/2 w(x) d(x, mu)^2 / sum w d^2``,
    from which ``n_prime`` indices are drawn i.i.d. with replacement. Each
    draw gets the weight ``gamma = w(x) / (n_prime q(x))``, so that
    ``sum(gamma * f(X[indices]))`` is an unbiased estimate of ``sum(w * f(X))``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data. float32 stays float32, other numbers become float64.
    n_prime : int
        Number of draws (the coreset size), >= 1. Draws are with replacement,
        so indices may repeat.
    sample_weight : array-like of shape (n_samples,), default=None
        Strictly positive weights of the points; None means all ones.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    n_threads : int, default=None
        Threads to use; None or -1 means all available.

    Returns
    -------
    indices : ndarray of shape (n_prime,), dtype int64
        Row indices into X, sorted ascending.
    weights : ndarray of shape (n_prime,), dtype float64
        The coreset weights ``gamma``.
    """
    X = as_data(X)
    n_prime = check_int(n_prime, "n_prime", min_value=1)
    w = check_sample_weight(sample_weight, X)
    indices, weights, _, _ = _core.lightweight_coreset(
        X, n_prime, w, seed_from(random_state), check_n_threads(n_threads)
    )
    return indices, weights


def kmeans_plusplus(
    X, n_clusters, *, sample_weight=None, n_local_trials=1, random_state=None, n_threads=None
):
    """Choose initial centers by k-means++ D^2 sampling (Arthur & Vassilvitskii, 2007).

    The first center is drawn with probability proportional to the sample
    weight, every next one proportional to ``w(x) min_c d(x, c)^2``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data. float32 stays float32, other numbers become float64.
    n_clusters : int
        Number of centers, 1 <= n_clusters <= n_samples.
    sample_weight : array-like of shape (n_samples,), default=None
        Strictly positive weights; None means all ones.
    n_local_trials : int or "auto", default=1
        Candidates drawn per step; the one lowering the potential most is kept.
        1 is the classic algorithm (the papers' baseline); "auto" is
        scikit-learn's greedy choice ``2 + int(log(n_clusters))``.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    n_threads : int, default=None
        Threads to use; None or -1 means all available.

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features)
        The chosen rows of X (X's dtype).
    indices : ndarray of shape (n_clusters,), dtype int64
        Their row indices.
    """
    X = as_data(X)
    n_clusters = _check_n_clusters(n_clusters, X)
    if isinstance(n_local_trials, str) and n_local_trials == "auto":
        n_local_trials = 2 + int(np.log(n_clusters))
    n_local_trials = check_int(n_local_trials, "n_local_trials", min_value=1)
    w = check_sample_weight(sample_weight, X)
    centers, indices, _, _ = _core.kmeans_plusplus(
        X, n_clusters, w, n_local_trials, seed_from(random_state), check_n_threads(n_threads)
    )
    _warn_if_duplicate_centers(centers, n_clusters)
    return centers, indices


def afkmc2(X, n_clusters, *, chain_length=20, sample_weight=None, random_state=None, n_threads=None):
    """Choose initial centers by AFK-MC^2 (Bachem, Lucic, Hassani & Krause, NIPS 2016).

    A Markov chain Monte Carlo approximation of k-means++ seeding: one pass
    over the data builds a proposal distribution, then each center is the last
    state of a Metropolis-Hastings chain of ``chain_length`` states, costing
    ``O(chain_length * n_clusters^2 * n_features)`` instead of a pass over the
    data per center.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (or a coreset, with its weights as ``sample_weight``).
    n_clusters : int
        Number of centers, 1 <= n_clusters <= n_samples.
    chain_length : int, default=20
        Markov chain length m >= 1. The vc-GMM papers use 2 to 20; Bachem et
        al. default to 200. Longer chains approximate D^2 sampling better.
    sample_weight : array-like of shape (n_samples,), default=None
        Strictly positive weights; None means all ones.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    n_threads : int, default=None
        Threads to use; None or -1 means all available.

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features)
        The chosen rows of X (X's dtype).
    indices : ndarray of shape (n_clusters,), dtype int64
        Their row indices.
    """
    X = as_data(X)
    n_clusters = _check_n_clusters(n_clusters, X)
    chain_length = check_int(chain_length, "chain_length", min_value=1)
    w = check_sample_weight(sample_weight, X)
    centers, indices, _, _ = _core.afkmc2(
        X, n_clusters, w, chain_length, seed_from(random_state), check_n_threads(n_threads)
    )
    _warn_if_duplicate_centers(centers, n_clusters)
    return centers, indices


def quantization_error(X, centers, sample_weight=None, *, n_threads=None):
    """Weighted quantization error ``sum_n w_n min_c ||x_n - c||^2``, exact.

    Blocked and multithreaded: the nearest center comes from matrix products
    (``||x||^2 - 2 x.c + ||c||^2``), the distance to it is then recomputed
    directly and summed in double precision.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    centers : array-like of shape (n_clusters, n_features)
        Cluster centers (converted to X's dtype).
    sample_weight : array-like of shape (n_samples,), default=None
        Strictly positive weights; None means all ones.
    n_threads : int, default=None
        Threads to use; None or -1 means all available.

    Returns
    -------
    float
        The quantization error (``inertia`` in scikit-learn's terms).
    """
    X = as_data(X)
    centers = check_centers(centers, X)
    w = check_sample_weight(sample_weight, X)
    _, _, objective = _core.assign_nearest(X, centers, w, False, False, check_n_threads(n_threads))
    return float(objective)


def assign(X, centers, *, n_threads=None):
    """Index of the nearest center of every row of X (exact; ties: lowest index).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data.
    centers : array-like of shape (n_clusters, n_features)
        Cluster centers (converted to X's dtype).
    n_threads : int, default=None
        Threads to use; None or -1 means all available.

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int32
    """
    X = as_data(X)
    centers = check_centers(centers, X)
    labels, _, _ = _core.assign_nearest(X, centers, None, True, False, check_n_threads(n_threads))
    return labels


def lloyd(
    X,
    centers,
    *,
    sample_weight=None,
    max_iter=300,
    tol=1e-4,
    relocate_empty=True,
    n_threads=None,
    verbose=False,
):
    """Weighted Lloyd iterations (k-means) from given initial centers.

    Each iteration assigns every point to its nearest center (exact, blocked
    matrix products) and moves every center to the weighted mean of its
    points. Stops when the relative change of the quantization error is below
    ``tol``, when no label changes, or after ``max_iter`` iterations.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (or a coreset, with its weights as ``sample_weight``).
    centers : array-like of shape (n_clusters, n_features)
        Initial centers (converted to X's dtype; not modified).
    sample_weight : array-like of shape (n_samples,), default=None
        Strictly positive weights; None means all ones.
    max_iter : int, default=300
        Maximum number of iterations (>= 1).
    tol : float, default=1e-4
        Relative change of the quantization error that counts as converged.
    relocate_empty : bool, default=True
        Move empty clusters onto the points farthest from their centers.
    n_threads : int, default=None
        Threads to use; None or -1 means all available.
    verbose : bool, default=False
        Log every iteration to the ``"vcgmm"`` logger.

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features)
        Final centers.
    info : dict
        ``objective`` (quantization error of each iteration's assignment),
        ``n_iter``, ``converged``, ``n_relocated``, ``n_distance_evals``,
        ``seconds``.
    """
    X = as_data(X)
    centers = check_centers(centers, X)
    if centers.shape[0] > X.shape[0]:
        raise ValueError(
            f"centers has {centers.shape[0]} rows but X only {X.shape[0]} samples."
        )
    w = check_sample_weight(sample_weight, X)
    result = _core.lloyd(
        X,
        w,
        centers,
        check_int(max_iter, "max_iter", min_value=1),
        check_float(tol, "tol", min_value=0.0),
        check_bool(relocate_empty, "relocate_empty"),
        check_n_threads(n_threads),
        progress_callback(check_bool(verbose, "verbose")),
    )
    centers = result.pop("centers")
    return centers, result
