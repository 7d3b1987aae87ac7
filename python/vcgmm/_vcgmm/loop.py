"""The var-GMM-S variational loop, step by step (research, tests)."""

from __future__ import annotations

import numpy as np

from .._base.loader import core as _core
from .._base.params import Boolean
from .._base.run import run_options
from .._base.validation import as_data, check_centers, check_sample_weight
from .params import VCGMM_PARAMS

__all__ = ["VariationalLoop"]

_D = VCGMM_PARAMS.defaults
# The loop's own parameters: those of VCGMM that live in the core's `em`.
_LOOP_PARAMS = [p.name for p in VCGMM_PARAMS if p.target and p.target.startswith("em.")
                and p.name != "G"]
_RUN = ["n_threads", "random_state", "verbose"]


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
    G : int, default=7
        Neighbourhood size (clamped to C).
    sample_weight : array-like of shape (n_samples,), default=None
        Strictly positive weights (coreset weights); None means all ones. Zero
        weights are refused here (the loop reports per-row state): drop those
        rows first, as :func:`fit_vargmm` does.
    **params
        The loop's parameters of :class:`VCGMM`, by keyword: ``plus1``,
        ``n_init_estep``, ``tol``, ``stop_rule``, ``max_iter``, ``refine``, ``refine_search``,
        ``covariance_type``, ``variance_floor``, ``shared_m_steps``, ``random_state``,
        ``n_threads``, ``verbose``.

    Examples
    --------
    >>> loop = VariationalLoop(X, means, G=5)              # doctest: +SKIP
    >>> F1 = loop.e_step(); loop.m_step()                  # doctest: +SKIP
    >>> loop.free_energy() <= loop.e_step()                # doctest: +SKIP
    True
    """

    def __init__(self, X, means, G=_D["G"], *, sample_weight=None, **params):
        X = as_data(X)
        means = check_centers(means, X, name="means")
        if means.shape[0] > X.shape[0]:
            raise ValueError(f"means has {means.shape[0]} rows but X only {X.shape[0]} samples.")
        # The loop keeps X referenced and reports per-row state (truncation
        # sets): rows of weight 0 are not dropped here, so they are refused.
        w = check_sample_weight(sample_weight, X, refuse_zero="in VariationalLoop")
        unknown = sorted(set(params) - set(_LOOP_PARAMS) - set(_RUN))
        if unknown:
            raise TypeError(f"VariationalLoop got unexpected keyword argument(s) "
                            f"{', '.join(unknown)}; it takes {', '.join(_LOOP_PARAMS + _RUN)}.")
        values = VCGMM_PARAMS.validate({"G": G, **{n: params.get(n, _D[n]) for n in _LOOP_PARAMS}})
        run = {n: VCGMM_PARAMS.check(n, params.get(n, _D[n])) for n in _RUN}
        cls = _core.VariationalLoop32 if X.dtype == np.float32 else _core.VariationalLoop64
        self._loop = cls(X, w, means, VCGMM_PARAMS.to_core(values).em,
                         run_options(run["n_threads"], run["random_state"], run["verbose"]))

    def e_step(self, estimate_sigma=False):
        """One variational E-step; returns the free energy with the new K(n)
        and the current parameters. ``estimate_sigma`` re-estimates sigma^2 by
        eq. 12 first (always done before sigma^2 is known; with
        ``covariance_type="spherical"`` every component then gets it, with
        weight 1 / C)."""
        return self._loop.e_step(Boolean().check(estimate_sigma, "estimate_sigma"))

    def m_step(self):
        """Means and sigma^2 (``covariance_type="spherical"``: every
        component's variance and mixing weight) from the responsibilities of
        the last E-step."""
        self._loop.m_step()

    def refine_step(self, split_merge=False):
        """One hard refinement step (the assignment of ``refine_search``,
        empty clusters onto far points, then weighted means); returns the weighted quantization error of the assignment with
        the means before the update. The labels are ``truncation_sets[:, 0]``.
        ``split_merge=True``: then one round of split-merge moves on the new
        partition (see :class:`VCGMM`'s ``split_merge``)."""
        return self._loop.refine_step(bool(split_merge))

    def free_energy(self):
        """Free energy of the current K(n) and parameters (changes nothing)."""
        return self._loop.free_energy()

    def fit(self):
        """Run the loop to convergence; returns a dict (``free_energy`` trace,
        ``n_iter``, ``converged``, ``sigma2``, ``variances``, ``mixing_weights``,
        ``G``, ``estep_distance_evals``,
        ``n_distance_evals``, ``timings``, ``refine_objective``, ``refine_relocated``,
        ``refine_split_merges``)."""
        r = self._loop.fit()
        return {
            "free_energy": r.free_energy, "n_iter": int(r.n_iter), "converged": bool(r.converged),
            "sigma2": float(r.sigma2), "G": int(r.G), "estep_distance_evals": r.estep_distance_evals,
            "n_distance_evals": r.n_distance_evals, "timings": r.timings,
            "refine_objective": r.refine_objective, "refine_relocated": r.refine_relocated,
            "refine_split_merges": r.refine_split_merges,
            "variances": r.variances,
            "mixing_weights": r.mixing_weights,
        }

    @property
    def means(self):
        """Current means, shape (C, n_features) (a copy)."""
        return self._loop.means

    @property
    def sigma2(self):
        """Current shared variance (0 before the first E-step)."""
        return self._loop.sigma2

    @property
    def variances(self):
        """Current variance of every component, shape (C,) (shared: all
        ``sigma2``; a copy)."""
        return self._loop.variances

    @property
    def mixing_weights(self):
        """Current mixing weight of every component, shape (C,) (shared: all
        1 / C; a copy)."""
        return self._loop.mixing_weights

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
