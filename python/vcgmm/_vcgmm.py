"""vc-GMM and var-GMM-S: the functional API, the result object and the step-by-step loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ._loader import core as _core
from ._logging import progress_callback
from ._validation import (
    as_data,
    check_bool,
    check_centers,
    check_coreset_size,
    check_float,
    check_int,
    check_n_threads,
    check_sample_weight,
    seed_from,
)

__all__ = [
    "VCGMMResult",
    "VariationalLoop",
    "default_coreset_size",
    "fit_vargmm",
    "fit_vcgmm",
]

#: Coreset points per cluster of the default coreset size.
POINTS_PER_CLUSTER = 64
#: Smallest default coreset size (the papers' smallest, 2^12).
MIN_DEFAULT_CORESET = 4096


def default_coreset_size(n_samples, n_components):
    """The default coreset size N' of vc-GMM: ``min(n_samples, max(4096, 64 * C))``.

    About 64 coreset points per cluster put vc-GMM near the papers' operating
    point (roughly 10% above the k-means++ quantization error on image
    patches); never fewer than 2^12 points, never more than the data.
    """
    return int(min(n_samples, max(MIN_DEFAULT_CORESET, POINTS_PER_CLUSTER * n_components)))


@dataclass
class VCGMMResult:
    """Result of :func:`fit_vcgmm` / :func:`fit_vargmm`.

    Attributes
    ----------
    centers : ndarray of shape (C, n_features)
        The means of the C Gaussians (X's dtype).
    sigma2 : float
        The shared variance sigma^2 (per feature).
    free_energy : ndarray of shape (n_iter,)
        The free energy (eq. 10 of the paper, on the coreset or the data) of
        every iteration's E-step; non-decreasing up to rounding.
    n_iter : int
        EM iterations run.
    converged : bool
        True if the relative change of the free energy fell below ``tol``.
    coreset_indices : ndarray of shape (n_prime,) or None
        Rows of X in the coreset (sorted, may repeat); None for var-GMM-S.
    coreset_weights : ndarray of shape (n_prime,) or None
        Their coreset weights; None for var-GMM-S.
    labels : ndarray of shape (n_samples,) or None
        Exact nearest center of every row of X (``return_labels=True``).
    quantization_error : float or None
        ``sum_n w_n min_c ||x_n - c||^2`` on the full data (``return_labels=True``).
    n_distance_evals : dict
        Distance evaluations per phase: ``coreset``, ``seeding``,
        ``iterations`` (all E-steps) and ``evaluation`` (labels on the full data).
    estep_distance_evals : ndarray
        ``sum_n |S(n)|`` of every E-step.
    timings : dict
        Wall time in seconds per phase (same keys).
    """

    centers: np.ndarray
    sigma2: float
    free_energy: np.ndarray
    n_iter: int
    converged: bool
    coreset_indices: Optional[np.ndarray]
    coreset_weights: Optional[np.ndarray]
    labels: Optional[np.ndarray]
    quantization_error: Optional[float]
    n_distance_evals: dict = field(default_factory=dict)
    estep_distance_evals: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    timings: dict = field(default_factory=dict)

    @property
    def algorithm_seconds(self):
        """Time of the algorithm itself: coreset + seeding + EM iterations."""
        return self.timings["coreset"] + self.timings["seeding"] + self.timings["iterations"]


def _check_common(X, C, G, n_init_estep, tol, max_iter, chain_length):
    C = check_int(C, "C", min_value=1)
    if C > X.shape[0]:
        raise ValueError(
            f"C={C} must be <= n_samples={X.shape[0]}: there are fewer points than clusters."
        )
    G = check_int(G, "G", min_value=1)
    return (
        C,
        min(G, C),
        check_int(n_init_estep, "n_init_estep", min_value=0),
        check_float(tol, "tol", min_value=0.0),
        check_int(max_iter, "max_iter", min_value=1),
        check_int(chain_length, "chain_length", min_value=1),
    )


def _check_init(init, X, C):
    if isinstance(init, str):
        if init not in ("afk-mc2", "k-means++"):
            raise ValueError(
                f"init must be 'afk-mc2', 'k-means++' or an array of shape (C, n_features), "
                f"got {init!r}."
            )
        return init, None
    return "given", check_centers(init, X, name="init", n_clusters=C)


def _run(X, C, G, coreset_size, *, plus1, init, chain_length, n_init_estep, tol, max_iter,
         sample_weight, n_threads, random_state, return_labels, verbose):
    C, G, n_init_estep, tol, max_iter, chain_length = _check_common(
        X, C, G, n_init_estep, tol, max_iter, chain_length
    )
    init, init_means = _check_init(init, X, C)
    w = check_sample_weight(sample_weight, X)
    return_labels = check_bool(return_labels, "return_labels")
    if coreset_size is not None:
        coreset_size = check_coreset_size(coreset_size, X.shape[0], C)
    r = _core.fit_vcgmm(
        X,
        w,
        C,
        G,
        check_bool(plus1, "plus1"),
        coreset_size or 0,
        init,
        init_means,
        chain_length,
        1,
        n_init_estep,
        tol,
        max_iter,
        return_labels,
        return_labels,
        seed_from(random_state),
        check_n_threads(n_threads),
        progress_callback(check_bool(verbose, "verbose")),
    )
    return VCGMMResult(
        centers=r["means"],
        sigma2=float(r["sigma2"]),
        free_energy=r["free_energy"],
        n_iter=int(r["n_iter"]),
        converged=bool(r["converged"]),
        coreset_indices=r["coreset_indices"],
        coreset_weights=r["coreset_weights"],
        labels=r["labels"],
        quantization_error=float(r["inertia"]) if return_labels else None,
        n_distance_evals=dict(r["n_distance_evals"]),
        estep_distance_evals=r["estep_distance_evals"],
        timings=dict(r["seconds"]),
    )


def fit_vcgmm(
    X,
    C,
    G=5,
    n_prime=None,
    *,
    plus1=False,
    init="afk-mc2",
    chain_length=20,
    n_init_estep=0,
    tol=1e-4,
    max_iter=1000,
    sample_weight=None,
    n_threads=None,
    random_state=None,
    return_labels=False,
    verbose=False,
):
    """Fit a Gaussian mixture by vc-GMM: coreset + AFK-MC^2 + truncated variational EM.

    The headline algorithm of Hirschberger, Forster & Luecke ("Accelerated
    training of large-scale Gaussian mixtures by a merger of sublinear
    approaches"): a lightweight coreset of ``n_prime`` weighted points,
    AFK-MC^2 seeding on it, then the var-GMM-S variational loop on the coreset
    until the free energy converges. Each EM iteration costs
    O(n_prime G^2 n_features), independent of N and of C. The model is C
    isotropic Gaussians with equal weights and one shared variance; its means
    are good k-means centers.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data. float32 stays float32 (and is never copied when C-contiguous,
        e.g. a ``np.memmap``); other numbers become float64.
    C : int
        Number of clusters (Gaussians), 1 <= C <= n_samples.
    G : int, default=5
        Neighbourhood size: each point keeps its G nearest clusters found so
        far and searches the G neighbours of each (up to G^2 distances per
        point and iteration). Values larger than C are clamped to C (then the
        loop is exact EM). The papers use 3 to 7.
    n_prime : int or None, default=None
        Coreset size N' (C <= n_prime <= 4 * n_samples). None picks
        :func:`default_coreset_size`: ``min(n_samples, max(4096, 64 * C))``.
    plus1 : bool, default=False
        Add one uniformly random cluster to every search space ("G = 3+1" in
        the papers), which helps small G escape poor neighbourhoods.
    init : {"afk-mc2", "k-means++"} or array-like of shape (C, n_features), default="afk-mc2"
        Seeding on the coreset, or the initial means.
    chain_length : int, default=20
        AFK-MC^2 Markov chain length (the papers: 2 to 20).
    n_init_estep : int, default=0
        Extra E-steps before the first M-step (the paper found them useful on RNA).
    tol : float, default=1e-4
        Stop when the relative change of the free energy is below tol (0: run
        ``max_iter`` iterations).
    max_iter : int, default=1000
        Maximum number of EM iterations.
    sample_weight : array-like of shape (n_samples,), default=None
        Strictly positive weights of the points; None means all ones.
    n_threads : int or None, default=None
        Threads; None or -1 means all available. Results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seed of the coreset, the seeding and the variational initialisation.
    return_labels : bool, default=False
        Also compute the exact nearest center of every row of X and the
        quantization error on the full data (an O(N C n_features) pass,
        reported as the "evaluation" phase).
    verbose : bool, default=False
        Log every phase and iteration to the ``"vcgmm"`` logger.

    Returns
    -------
    VCGMMResult
        ``centers``, ``sigma2``, ``free_energy``, ``n_iter``, ``converged``,
        ``coreset_indices``, ``coreset_weights``, ``labels``,
        ``quantization_error``, ``n_distance_evals``, ``timings``.

    See Also
    --------
    fit_vargmm : the same loop on all points (no coreset).
    VCGMM : the scikit-learn style estimator.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 8)).astype(np.float32)
    >>> result = vcgmm.fit_vcgmm(X, C=100, G=5, n_prime=8192, random_state=0)
    >>> result.centers.shape
    (100, 8)
    """
    X = as_data(X)
    if n_prime is None:
        C_checked = check_int(C, "C", min_value=1)
        n_prime = default_coreset_size(X.shape[0], min(C_checked, X.shape[0]))
    return _run(
        X, C, G, n_prime, plus1=plus1, init=init, chain_length=chain_length,
        n_init_estep=n_init_estep, tol=tol, max_iter=max_iter, sample_weight=sample_weight,
        n_threads=n_threads, random_state=random_state, return_labels=return_labels,
        verbose=verbose,
    )


def fit_vargmm(
    X,
    C,
    G=5,
    *,
    plus1=False,
    init="afk-mc2",
    chain_length=20,
    n_init_estep=0,
    tol=1e-4,
    max_iter=1000,
    sample_weight=None,
    n_threads=None,
    random_state=None,
    return_labels=False,
    verbose=False,
):
    """Fit a Gaussian mixture by var-GMM-S: truncated variational EM on all points.

    Forster & Luecke, "Can clustering scale sublinearly with its clusters?"
    (AISTATS 2018): the variational loop of :func:`fit_vcgmm` without a
    coreset, on every point with its sample weight. Each iteration costs
    O(N G^2 n_features), independent of C; the quality is close to k-means++
    (within about 1% in the papers).

    Parameters
    ----------
    X, C, G, plus1, init, chain_length, n_init_estep, tol, max_iter, sample_weight, \
n_threads, random_state, return_labels, verbose
        As in :func:`fit_vcgmm`.

    Returns
    -------
    VCGMMResult
        With ``coreset_indices`` and ``coreset_weights`` set to None.
    """
    X = as_data(X)
    return _run(
        X, C, G, None, plus1=plus1, init=init, chain_length=chain_length,
        n_init_estep=n_init_estep, tol=tol, max_iter=max_iter, sample_weight=sample_weight,
        n_threads=n_threads, random_state=random_state, return_labels=return_labels,
        verbose=verbose,
    )


class VariationalLoop:
    """The var-GMM-S variational loop, step by step (for research and tests).

    Wraps the C++ object that :func:`fit_vargmm` runs, so that the free
    energy, the truncation sets K(n) and the neighbourhoods G_c can be
    inspected between steps. X (and the weights) are kept referenced, not copied.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Points (for vc-GMM: the coreset points).
    means : array-like of shape (C, n_features)
        Initial means.
    G : int, default=5
        Neighbourhood size (clamped to C).
    sample_weight : array-like of shape (n_samples,), default=None
        Strictly positive weights (coreset weights); None means all ones.
    plus1, n_init_estep, tol, max_iter, random_state, n_threads
        As in :func:`fit_vcgmm`.

    Examples
    --------
    >>> loop = VariationalLoop(X, means, G=5)              # doctest: +SKIP
    >>> F1 = loop.e_step(); loop.m_step()                  # doctest: +SKIP
    >>> loop.free_energy() <= loop.e_step()                # doctest: +SKIP
    True
    """

    def __init__(self, X, means, G=5, *, sample_weight=None, plus1=False, n_init_estep=0,
                 tol=1e-4, max_iter=1000, random_state=None, n_threads=None):
        X = as_data(X)
        means = check_centers(means, X, name="means")
        if means.shape[0] > X.shape[0]:
            raise ValueError(f"means has {means.shape[0]} rows but X only {X.shape[0]} samples.")
        w = check_sample_weight(sample_weight, X)
        cls = _core.VariationalLoop32 if X.dtype == np.float32 else _core.VariationalLoop64
        self._loop = cls(
            X, w, means, check_int(G, "G", min_value=1), check_bool(plus1, "plus1"),
            check_int(n_init_estep, "n_init_estep", min_value=0),
            check_float(tol, "tol", min_value=0.0), check_int(max_iter, "max_iter", min_value=1),
            seed_from(random_state), check_n_threads(n_threads),
        )

    def e_step(self, estimate_sigma=False):
        """One variational E-step; returns the free energy with the new K(n)
        and the current parameters. ``estimate_sigma`` re-estimates sigma^2 by
        eq. 12 first (always done before sigma^2 is known)."""
        return self._loop.e_step(bool(estimate_sigma))

    def m_step(self):
        """Means and sigma^2 from the responsibilities of the last E-step."""
        self._loop.m_step()

    def free_energy(self):
        """Free energy of the current K(n) and parameters (changes nothing)."""
        return self._loop.free_energy()

    def fit(self):
        """Run the loop to convergence; returns a dict (free_energy trace, n_iter, ...)."""
        return self._loop.fit()

    @property
    def means(self):
        """Current means, shape (C, n_features) (a copy)."""
        return self._loop.means

    @property
    def sigma2(self):
        """Current shared variance (0 before the first E-step)."""
        return self._loop.sigma2

    @property
    def G(self):
        """Effective neighbourhood size (G clamped to C)."""
        return self._loop.G

    @property
    def truncation_sets(self):
        """K(n) of every point, shape (n_samples, G), nearest cluster first (a copy)."""
        return self._loop.truncation_sets

    @property
    def neighbourhoods(self):
        """G_c of every cluster, shape (C, G), c itself first (a copy)."""
        return self._loop.neighbourhoods

    @property
    def n_distance_evals(self):
        """Distance evaluations of all E-steps so far."""
        return self._loop.n_distance_evals
