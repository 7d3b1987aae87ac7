"""The result of :func:`fit_vcgmm` / :func:`fit_vargmm`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np



@dataclass
class VCGMMResult:
    """Result of :func:`fit_vcgmm` / :func:`fit_vargmm`.

    Attributes
    ----------
    centers : ndarray of shape (C, n_features)
        The means of the C Gaussians (X's dtype).
    sigma2 : float
        The shared variance sigma^2 (per feature); with
        ``covariance_type="spherical"`` the pooled ``sum_c weights_c
        variances_c``.
    variances : ndarray of shape (C,)
        The variance of every component (``covariance_type="shared"``: all
        ``sigma2``).
    mixing_weights : ndarray of shape (C,)
        The mixing weight of every component (``"shared"``: all ``1 / C``,
        fixed by the model; ``"spherical"``: learned, summing to 1).
    free_energy : ndarray of shape (n_iter,)
        The free energy (eq. 10 of the paper, on the coreset or the data) of
        every iteration's E-step; non-decreasing up to rounding.
    n_iter : int
        EM iterations run.
    G : int
        The effective neighbourhood size (G clamped to C).
    converged : bool
        True if the loop stopped by its convergence rule (not by ``max_iter``).
    coreset_indices : ndarray of shape (n_prime,) or None
        Rows of X in the coreset (sorted, may repeat); None for var-GMM-S.
    coreset_weights : ndarray of shape (n_prime,) or None
        Their coreset weights; None for var-GMM-S.
    labels : ndarray of shape (n_samples,) or None
        Exact nearest center of every row of X (``return_labels=True``).
    inertia : float or None
        ``sum_n w_n min_c ||x_n - c||^2`` on the full data (``return_labels=True``).
    n_distance_evals : dict
        Distance evaluations per phase: ``coreset``, ``seeding``,
        ``iterations`` (all E-steps), ``refinement`` (the hard steps after EM,
        data steps included)
        and ``evaluation`` (labels on the full data).
    estep_distance_evals : ndarray
        ``sum_n |S(n)|`` of every E-step.
    refine_objective : ndarray of shape (n_refine_steps,)
        Weighted quantization error, on the coreset (or the data), of every
        refinement step's assignment (with the means before that step);
        non-increasing. ``refine`` steps, or more with ``split_merge``.
    refine_relocated : ndarray of shape (n_refine_steps,)
        Clusters that no point chose in each refinement step, given a half
        of a split (``split_merge``) or moved onto the points farthest from
        their means.
    refine_split_merges : ndarray of shape (n_refine_steps,)
        Split-merge pairs moved after each refinement step (``split_merge``).
    data_step_objective : ndarray of shape (data_steps,)
        Weighted quantization error on all the data of every data step's
        labels (with the means before that step).
    data_step_relocated : ndarray of shape (data_steps,)
        Clusters that no point chose in each data step, given a half of a
        split (``split_merge``) or moved onto the points farthest from their
        means.
    data_step_split_merges : ndarray of shape (data_steps,)
        Split-merge pairs moved after each data step (``split_merge``).
    timings : dict
        Wall time in seconds per phase (same keys).

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(2000, 3))
    >>> r = vcgmm.fit_vcgmm(X, 8, 3, 512, random_state=0, return_labels=True)
    >>> r.centers.shape, r.G, r.labels.shape, sorted(r.timings)
    ((8, 3), 3, (2000,), ['coreset', 'evaluation', 'iterations', 'refinement', 'seeding'])
    """

    centers: np.ndarray
    sigma2: float
    free_energy: np.ndarray
    n_iter: int
    converged: bool
    G: int
    coreset_indices: Optional[np.ndarray]
    coreset_weights: Optional[np.ndarray]
    labels: Optional[np.ndarray]
    inertia: Optional[float]
    n_distance_evals: dict = field(default_factory=dict)
    estep_distance_evals: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    timings: dict = field(default_factory=dict)
    refine_objective: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))
    refine_relocated: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    refine_split_merges: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    data_step_objective: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))
    data_step_relocated: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    data_step_split_merges: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    variances: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))
    mixing_weights: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))

    @property
    def algorithm_seconds(self):
        """Time of the algorithm itself: coreset + seeding + EM iterations + refinement."""
        return (self.timings["coreset"] + self.timings["seeding"] + self.timings["iterations"]
                + self.timings["refinement"])
