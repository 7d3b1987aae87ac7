"""vc-GMM and var-GMM-S: the estimator :class:`VCGMM`, the functions
:func:`fit_vcgmm` / :func:`fit_vargmm` (thin wrappers over the estimator's
private fit, as scikit-learn's ``k_means`` wraps ``KMeans``) and their
result, :class:`VCGMMResult`."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._chunked import as_source
from ._metric import is_cosine, metric_param, normalize_rows
from ._coreset import coreset_size_param, default_coreset_size
from ._assignment import nearest_centers
from ._estimator_base import (COMPUTE_LABELS_PARAM, LABELS_PARAM, N_INIT_PARAM, PipelineEstimator,
                              as_float, user_stacklevel)
from ._loader import core as _core
from ._params import make_init, CORE, INT32_MAX, Boolean, Integer, Options, Param, ParamTable, Real
from ._run import RUN_PARAMS, check_n_threads
from ._seeding import SEEDING_PARAMS, init_param
from ._validation import as_data, check_function_count, check_sample_weight

__all__ = ["VCGMM", "VCGMMResult", "default_coreset_size", "fit_vargmm", "fit_vcgmm",
           "VCGMM_PARAMS"]

#: The parameters of the vc-GMM family, in VCGMM's signature order.
VCGMM_PARAMS = ParamTable(
    [
        Param("n_components", Integer(1, INT32_MAX), CORE, "number of Gaussians C",
              target="n_clusters", cli=("-C", "--clusters")),
        Param("G", Integer(1, INT32_MAX), CORE,
              "neighbourhood size: each point searches the G neighbours of its G nearest "
              "clusters (clamped to C)", target="em.G", cli="-G"),
        coreset_size_param("auto"),
        Param("plus1", Boolean(), CORE, "add one random cluster to every search space",
              target="em.plus1", cli="--plus1"),
        init_param(_core.VcgmmParams().seeding.method),
        N_INIT_PARAM,
        *SEEDING_PARAMS,
        Param("n_init_estep", Integer(0, INT32_MAX), CORE,
              "extra E-steps before the first M-step", target="em.n_init_estep"),
        Param("tol", Real(0.0), CORE,
              "convergence threshold (Lloyd: relative change of the quantization error; "
              "EM: see --stop-rule)",
              target="em.tol", cli="--tol"),
        Param("stop_rule", Options(tuple(_core.stop_rules())), CORE,
              "EM convergence: 'gain' = free energy gained per iteration, per point and "
              "feature, below tol (unit-free); 'relative' = relative change of the free "
              "energy below tol (the papers' rule; depends on the data's units)",
              target="em.stop_rule", cli="--stop-rule"),
        Param("max_iter", Integer(1, INT32_MAX), CORE, "maximum number of iterations (Lloyd or EM)",
              target="em.max_iter", cli="--max-iter"),
        metric_param(),
        Param("refine", Integer(0, INT32_MAX), CORE,
              "hard (Lloyd) steps on the coreset after EM, labels found as refine_search "
              "says (0: the papers' vc-GMM)",
              target="em.refine", cli="--refine"),
        Param("refine_search", Options(tuple(_core.refine_searches())), CORE,
              "the refinement's assignment: 'restricted' (the truncated search spaces), "
              "'approx' (all means, approximate cell index) or 'exact' (all means, exact scan)",
              target="em.refine_search", cli="--refine-search"),
        Param("covariance_type", Options(tuple(_core.covariance_types())), CORE,
              "'shared': one variance and equal weights (the papers' model); 'spherical': "
              "a variance and a mixing weight per component",
              target="em.covariance_type", cli="--covariance-type"),
        Param("variance_floor", Real(0.0), CORE,
              "covariance_type='spherical': smallest variance of a component, relative to "
              "the data's variance per feature",
              target="em.variance_floor", cli="--variance-floor"),
        COMPUTE_LABELS_PARAM,
        LABELS_PARAM,
        *RUN_PARAMS,
    ],
    core_params=_core.VcgmmParams,
)
_D = VCGMM_PARAMS.defaults


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
        ``iterations`` (all E-steps), ``refinement`` (the hard steps after EM)
        and ``evaluation`` (labels on the full data).
    estep_distance_evals : ndarray
        ``sum_n |S(n)|`` of every E-step.
    refine_objective : ndarray of shape (refine,)
        Weighted quantization error, on the coreset (or the data), of every
        refinement step's assignment (with the means before that step);
        non-increasing.
    refine_relocated : ndarray of shape (refine,)
        Clusters that no point chose in each refinement step, moved onto the
        points farthest from their means.
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
    variances: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))
    mixing_weights: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))

    @property
    def algorithm_seconds(self):
        """Time of the algorithm itself: coreset + seeding + EM iterations + refinement."""
        return (self.timings["coreset"] + self.timings["seeding"] + self.timings["iterations"]
                + self.timings["refinement"])


class VCGMM(PipelineEstimator, ClusterMixin, TransformerMixin, BaseEstimator):
    """Isotropic Gaussian mixture fitted by vc-GMM (or var-GMM-S): very many clusters, fast.

    vc-GMM (Hirschberger, Forster & Luecke) = a lightweight coreset of
    ``coreset_size`` weighted points + AFK-MC^2 seeding + truncated
    variational EM with cluster neighbourhoods, O(coreset_size G^2
    n_features) per iteration. With ``coreset_size=None`` the loop runs on
    all points: var-GMM-S (Forster & Luecke, 2018).

    The model has ``n_components`` Gaussians with equal weights and one shared
    variance ``sigma2_``; its means are k-means quality cluster centers, and
    ``predict`` (the most probable component) is the nearest mean.
    ``labels_`` and ``inertia_`` are computed exactly on the full training
    data, at the end of ``fit`` (``compute_labels=True``, the default) or on
    their first access (``compute_labels=False``).

    Parameters
    ----------
    n_components : int, default=8
        Number of Gaussians C, 1 <= C <= n_samples.
    G : int, default=5
        Neighbourhood size (each point keeps its G nearest clusters and
        searches their G neighbours). Larger than n_components, it is clamped
        to n_components (with a warning: the loop is then exact EM, the
        slowest setting); the effective value is ``G_``. The papers use 3 to 7.
        With thousands of components a larger G pays: on the image patches
        at n_components = 4000 (5 seeds, ``bench/results/refine_fast_em_c4000.md``)
        G = 7 with the default refinement ends 0.37% below LWCS at
        coreset_size 2^16 (G = 5: 0.31% above) for 1.2x the time of G = 5,
        1.9x faster than LWCS on a quiet machine; at 1000-2000 components
        G = 5 with the default refinement is already below LWCS. Fastest at
        equal error there (``bench/results/refine_tol_quiet.md``): G = 9 with
        ``tol=1e-2``, 0.01% / 0.54% below LWCS at coreset_size 2^14 / 2^16
        (2 / 0 of 5 seeds above it) at 2.5x / 3.3x its speed.
    coreset_size : int, "auto" or None, default="auto"
        Coreset size N' (n_components <= N' <= 4 * n_samples). "auto":
        ``min(n_samples, max(4096, 64 * n_components))``. None: no coreset
        (var-GMM-S on all points).
    plus1 : bool, default=False
        Add one random cluster to every search space ("G = 3+1").
    init : {"afk-mc2", "k-means++"} or array-like of shape (n_components, n_features), \
            default="afk-mc2"
        Seeding, or the initial means.
    n_init : int, default=1
        Number of runs, each with its own seed (drawn in turn from
        ``random_state``, so run 0 is the fit ``n_init=1`` gives); the run of
        the highest exact log-likelihood of the full training data
        (``score(X)`` times the training weight, one O(n_samples
        n_components n_features) pass per run, counted as ``evaluation``) is
        kept. The free energy is not used to rank runs: with a coreset it is
        measured on each run's own coreset, so runs are not comparable by it.
        Chunked and Dask data take ``n_init=1`` only (ValueError otherwise).
    chain_length : int, default=20
        AFK-MC^2 chain length, 1 to 10000.
    n_local_trials : int or "auto", default=1
        k-means++ candidates per step (with ``init="k-means++"``).
    n_init_estep : int, default=0
        Extra E-steps before the first M-step; they count against ``max_iter``
        (at most ``max_iter - 1`` are run).
    tol : float, default=2e-4
        Convergence threshold of ``stop_rule`` (0: run ``max_iter`` iterations).
        With the refinement (``refine`` > 0), a larger ``tol`` runs fewer EM
        iterations for an error that depends on the data (5 / 3 seeds,
        ``bench/results/refine_tol_patches.md`` and ``refine_tol_geonames.md``):
        on the image patches (D = 108, 1000-4000 components, coreset_size 2^14
        and 2^16) ``tol=2e-3`` is 1.2-1.7x faster and at most 0.18 points
        worse, ``tol=1e-2`` 1.5-2.1x faster and at most 0.32 points worse; on
        GeoNames (D = 3, very uneven density) 1.0 and 1.4-2.4 points worse.
        The default keeps EM converged.
    stop_rule : {"gain", "relative"}, default="gain"
        "gain": stop when an iteration gains less than ``tol`` nats of free
        energy per unit of sample weight and per feature,
        ``|F_t - F_{t-1}| / (sum(w) n_features) < tol``. It does not depend on
        the data's units (rescaling X only shifts F by a constant), like
        scikit-learn's GaussianMixture, which stops on the mean gain per
        sample. "relative": the papers' rule ``|F_t - F_{t-1}| < tol |F_t|``
        (use ``tol=1e-4`` to reproduce them); it depends on the units, since
        F has an arbitrary offset.
    max_iter : int, default=1000
        Maximum number of EM iterations, initial E-steps included.
    metric : {"euclidean", "cosine"}, default="euclidean"
        "cosine": the rows are scaled to unit length first (one copy of X;
        rows of norm zero are refused) and the mixture is fitted to them
        unchanged: an isotropic Gaussian approximation of a von Mises-Fisher
        mixture. Means are not renormalised; ``predict``, ``score_samples``
        and ``inertia_`` are Euclidean on the normalised rows.
    refine : int, default=3
        Hard (Lloyd) steps after EM, not in the papers: ``refine=0`` is the
        papers' vc-GMM. Each step labels every coreset point (see
        ``refine_search``), moves every cluster that no point chose onto the
        points farthest from their means (as :func:`lloyd` does), then every
        mean to the weighted mean of its points; the quantization error on the
        coreset never rises. Why: EM's fixed point (soft means, one shared
        variance) is not a k-means fixed point, its truncated search misses
        the nearest mean of many points at large C, and it leaves means that
        no point is nearest to (often duplicates of another mean).
        ``sigma2_`` (``covariances_``, ``weights_``) and ``free_energy_`` stay
        those of EM; ``lower_bound_`` is recomputed for the returned means.
        The default was chosen by measurement (image patches, 5 seeds,
        ``bench/results/refine_search_patches.md``; full-data error relative
        to LWCS, i.e. Lloyd on the same coreset size, at N' = 2^14 / 2^16):
        the papers' vc-GMM is -0.08 / -0.40% at C = 1000, +1.02 / +0.63% at
        C = 2000 and +1.78 / +2.11% at C = 4000; with 3 approximate steps
        -1.19 / -1.24%, -0.27 / -0.55% and +0.48 / +0.31%, for 10-22% more
        time (still 1.5-3.6x faster than LWCS). One step is better than three
        only with very few coreset points per cluster (4 at C = 4000, N' =
        2^14: +0.21% vs +0.48%). The held-out log-likelihood rose too
        (C = 1000 and 2000: by 0.5-1.1 nats per point). Set ``refine=0`` for
        the papers' algorithm or when the means must be EM's.
    refine_search : {"approx", "exact", "restricted"}, default="approx"
        How a refinement step labels a point. "approx": the nearest mean over
        all C by the approximate cell index of :func:`assign_approximate`
        (built on the current means each step; about ``sqrt(C)`` times
        (1 + probes) distance evaluations per point at matrix-product speed;
        the previous label is kept when it is nearer). "exact": the exact
        nearest of all C, O(coreset_size C n_features) per step: each step is
        one :func:`lloyd` iteration. "restricted": the nearest within the
        point's truncated search space S(n) (the G neighbourhoods of its G
        nearest means, O(coreset_size G^2 n_features)). Measured (same
        benchmark): "approx" and "exact" end at the same error (within 0.01
        points), the whole fit with 3 "approx" steps 1.15-1.6x faster at
        C >= 2000; "restricted" gains 10-90% as much (least at N' = 2^16),
        since the points whose nearest mean lies outside S(n) cannot move
        there.
    covariance_type : {"shared", "spherical"}, default="shared"
        "shared": the papers' model, one variance ``sigma2_`` for all
        components and equal weights ``1 / n_components``. "spherical" (not
        in the papers; the var-GMM model family with isotropic components,
        as ``GaussianMixture(covariance_type="spherical")``): every
        component has its own variance and mixing weight, learned by the M-step
        (``sum w r ||y - mu_c||^2 / (n_features sum w r)`` and ``sum w r /
        sum w``); the truncated E-step keeps for every point the ``G``
        components of largest log joint probability. Same cost per iteration.
        A component's variance is floored at ``variance_floor`` times the
        data's variance per feature (a component on one point, or on
        identical points, would otherwise collapse to variance 0); a component that loses all its
        mass keeps its mean and variance with weight 0 (unreachable from then
        on, as in exact EM). The first E-step uses the shared variance for all
        components. Use it when a mixture with per-component variances is the
        model wanted, not to lower the quantization error: on GeoNames
        (cities in xyz, very uneven density; bench/results/covariance_geonames.md,
        3 seeds) var-GMM-S ended +30% (C = 1000) and +37% (C = 2000) above
        k-means++ with it, against +19% and +20% with "shared" (the
        likelihood favours tight components on a few near-identical points
        and wide ones over sparse regions); on all 1.1 M image patches
        (even density; bench/results/covariance_patches-all.md, 5 seeds)
        +2.6% (C = 1000) and +2.7% (C = 2000) with the default refinement,
        against +0.7% and +0.9% with "shared". The likelihood-based methods
        (``score_samples``, ``score``, ``bic``, ``aic``, ``predict_proba``,
        ``predict_proba_sparse``) and the ranking of ``n_init`` runs use the
        exact likelihood of the fitted model, ``sum_c weights_c N(x;
        means_c, covariances_c I)``. ``predict`` and ``labels_`` stay the
        nearest mean.
    variance_floor : float, default=1e-6
        With ``covariance_type="spherical"``: the smallest variance of a
        component, as a fraction of the (weighted) variance per feature of the
        fitted data (>= 0; 0 leaves only a floor at rounding level). Ignored
        with "shared".
    compute_labels : bool, default=True
        Compute ``labels_`` and ``inertia_`` at the end of ``fit`` (an exact
        O(n_samples n_components n_features) pass over the training data, the
        ``evaluation`` phase; at large ``n_components`` it costs more than
        the vc-GMM fit itself). False skips it: the estimator keeps a
        reference to the training data (no copy) and computes both on their
        first access, from the data as they are then; pickling or saving
        drops the reference, after which they are unavailable
        (AttributeError). With chunked data the first access reads the chunks
        once more (Dask: lazy arrays); with ``metric="cosine"`` the rows are
        normalised again then (the normalised copy is not kept). As
        scikit-learn's ``MiniBatchKMeans(compute_labels=...)``.
    labels : {"exact", "approx"}, default="exact"
        How ``labels_`` and ``inertia_`` are computed (at the end of ``fit``
        or, with ``compute_labels=False``, on first access). "exact": the
        blocked scan over all means (O(n_samples means n_features)).
        "approx": :func:`vcgmm.assign_approximate` with its default method
        (coarse cells of the centers scored with matrix products; measured on
        200,000 image patches at 4,000 centers: 9.4x faster than the exact
        scan, 11.1x on all 535,940, 99.7% of labels exact; see
        ``bench/results/approximate_labels.md``);
        ``inertia_`` is then the quantization error of those labels: never
        below the exact one (each label's distance is computed exactly), and
        measured 0.10% above it there. Training data in memory only (chunked
        and Dask data are labelled exactly; ValueError otherwise). The fit
        itself (``cluster_centers_``) does not depend on it.
    n_threads : int or None, default=None
        Threads; None or -1 means OpenMP's default (``OMP_NUM_THREADS`` if set,
        else every CPU available). Results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seed of the coreset, the seeding and the variational initialisation.
    verbose : bool, default=False
        Log every phase and iteration to the ``"vcgmm"`` logger.
    callback : callable or None, default=None
        Called with a :class:`vcgmm.ProgressRecord` (phase, iteration,
        objective, seconds, distance evaluations) after every iteration and
        at the end of the coreset, seeding and evaluation phases, on the
        calling thread; returning True stops the iterations there (the fit
        completes with the iterations done, ``converged_`` False).
        Exceptions it raises propagate out of ``fit``.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_components, n_features)
        The means (training data's dtype).
    means_ : ndarray of shape (n_components, n_features)
        Same array as ``cluster_centers_`` (the mixture's vocabulary).
    sigma2_ : float
        Shared variance per feature (``covariance_type="spherical"``: the
        pooled ``sum_c weights_[c] covariances_[c]``).
    weights_ : ndarray of shape (n_components,)
        Mixing weights, all ``1 / n_components`` (fixed by the model;
        ``covariance_type="spherical"``: learned).
    covariances_ : ndarray of shape (n_components,)
        Every entry ``sigma2_``: the model's "tied-spherical" covariance
        ``sigma2_ I``, shared by all components, in the layout of
        ``GaussianMixture(covariance_type="spherical")``
        (``covariance_type="spherical"``: each component's own variance).
    precisions_ : ndarray of shape (n_components,)
        ``1 / covariances_``.
    precisions_cholesky_ : ndarray of shape (n_components,)
        ``1 / sqrt(covariances_)`` (GaussianMixture's "spherical" layout).
    free_energy_ : ndarray of shape (n_iter,)
        Free energy (eq. 10; summed over the weighted coreset or data) of every E-step.
    lower_bound_ : float
        A lower bound of the fitted model's log-likelihood per unit of
        training weight (on the coreset with a coreset), comparable to
        ``score``: the final free energy, recomputed for the returned means
        after ``refine`` steps (then it is not ``free_energy_[-1]``).
    n_iter_ : int
        EM iterations run.
    converged_ : bool
        Whether the free energy converged (by ``stop_rule`` and ``tol``).
    labels_ : ndarray of shape (n_samples,), dtype int32
        Nearest mean of every training sample (exact; with
        ``compute_labels=False`` computed on first access).
    inertia_ : float
        Weighted quantization error of the training data with
        ``cluster_centers_`` (with ``compute_labels=False`` computed on first access).
    coreset_indices_ : ndarray of shape (N',) or None
        Rows of the training data in the coreset (None for var-GMM-S).
    coreset_weights_ : ndarray of shape (N',) or None
        Their coreset weights.
    G_ : int
        Effective neighbourhood size.
    n_distance_evals_ : dict
        Distance evaluations per phase: ``coreset``, ``seeding``,
        ``iterations`` (E-steps), ``refinement`` (hard steps after EM),
        ``evaluation`` (``labels_``, ``inertia_``, the ranking of ``n_init``
        runs), summed over the runs.
    timings_ : dict
        Wall time in seconds per phase (same keys), summed over the runs.
    n_features_in_ : int
        Number of features seen during fit.

    Notes
    -----
    Against ``sklearn.mixture.GaussianMixture``: the model is
    ``covariance_type="spherical"`` with all variances tied to one
    ``sigma2_`` and the weights fixed at ``1 / n_components``; ``weights_``,
    ``means_``, ``covariances_``, ``precisions_``, ``precisions_cholesky_``,
    ``score_samples``, ``score``, ``predict_proba`` (dense, exact),
    ``bic``, ``aic`` and ``sample`` have GaussianMixture's meaning and
    shapes. ``predict_proba_sparse`` is the truncated (top-``G_``) form.
    With ``covariance_type="spherical"`` the model is GaussianMixture's
    "spherical" one (a variance and a weight per component, fitted by
    truncated variational EM); then ``weights_``, ``covariances_``,
    ``precisions_``, ``precisions_cholesky_``, ``means_``, ``sample`` and
    the likelihood-based methods have GaussianMixture's meaning for it, and
    ``predict`` stays the nearest mean (GaussianMixture's is the most
    probable component).

    See Also
    --------
    vcgmm.fit_vcgmm : the functional form.
    vcgmm.KMeans : the k-means++ and LWCS baselines.

    Examples
    --------
    >>> import numpy as np
    >>> from vcgmm import VCGMM
    >>> X = np.random.default_rng(0).normal(size=(20000, 4))
    >>> gmm = VCGMM(n_components=50, random_state=0).fit(X)
    >>> gmm.predict_proba(X[:3]).shape
    (3, 50)
    >>> gmm.predict_proba_sparse(X[:3]).nnz  # the G_ = 5 largest of each row
    15
    """

    _params = VCGMM_PARAMS
    _count_param = "n_components"
    _core_fit = staticmethod(_core.fit_vcgmm)

    __init__ = make_init(VCGMM_PARAMS)

    def _fit_run(self, X, sample_weight, *, return_labels):
        """The fit (best of n_init runs): (values, run, w, n_distance_evals, timings)."""
        values, run, w, n_distance_evals, timings = self._fit(
            X, sample_weight, return_labels=return_labels, evaluate=return_labels)
        if run.result.G < values["G"] and values["G"] != _D["G"]:  # the default G is clamped silently
            warnings.warn(
                f"G={values['G']} exceeds the number of components "
                f"({values[self._count_param]}) and was clamped to it: the loop is exact EM "
                "(O(N' C D) per iteration, the slowest setting). Did you mean a coreset size? "
                "fit_vcgmm's arguments are (X, C, G, coreset_size).",
                UserWarning, stacklevel=user_stacklevel())
        return values, run, w, n_distance_evals, timings

    def _fit_result(self, X, sample_weight, *, return_labels):
        """The fit as a VCGMMResult (for fit_vcgmm and fit_vargmm)."""
        values, run, w, n_distance_evals, timings = self._fit_run(
            X, sample_weight, return_labels=return_labels)
        r = run.result
        labels, inertia = run.labels, (as_float(r.inertia) if return_labels else None)
        if return_labels and labels is None:  # several runs, ranked without labels
            start = time.perf_counter()
            rows = normalize_rows(X, "X") if is_cosine(values) else X  # as _fit saw them
            labels, inertia = nearest_centers(rows, run.centers, w, n_threads=values["n_threads"])
            n_distance_evals["evaluation"] += X.shape[0] * run.centers.shape[0]
            timings["evaluation"] += time.perf_counter() - start
        return VCGMMResult(
            centers=run.centers, sigma2=float(r.sigma2), free_energy=r.free_energy,
            n_iter=int(r.n_iter), converged=bool(r.converged), G=int(r.G),
            coreset_indices=run.coreset_indices, coreset_weights=run.coreset_weights,
            labels=labels, inertia=inertia,
            n_distance_evals=n_distance_evals, estep_distance_evals=r.estep_distance_evals,
            timings=timings, refine_objective=r.refine_objective,
            refine_relocated=r.refine_relocated,
            variances=r.variances, mixing_weights=r.mixing_weights)

    # The exact likelihood of a fitted model, shared or spherical: the one
    # place that picks the core function for the model.
    @staticmethod
    def _components(variances, mixing_weights):
        """(variances, weights) as the core takes them, or None for the shared model."""
        if variances is None:
            return None
        return (np.ascontiguousarray(variances, dtype=np.float64),
                np.ascontiguousarray(mixing_weights, dtype=np.float64))

    @staticmethod
    def _log_likelihood(X, centers, sigma2, components, n_threads):
        if components is None:
            return _core.gmm_log_likelihood(X, centers, float(sigma2), n_threads)
        return _core.gmm_log_likelihood_spherical(X, centers, *components, n_threads)

    @staticmethod
    def _posteriors(X, centers, sigma2, components, k, n_threads):
        if components is None:
            return _core.gmm_truncated_posteriors(X, centers, float(sigma2), k, n_threads)
        return _core.gmm_truncated_posteriors_spherical(X, centers, *components, k, n_threads)

    def _fitted_components(self):
        return self._components(getattr(self, "_variances", None),
                                getattr(self, "_mixing_weights", None))

    # n_init runs are ranked by the exact log-likelihood of the full training
    # data (an O(N C D) pass per run, reported as "evaluation").
    def _rank_run(self, X, w, run, values):
        r = run.result
        components = (self._components(r.variances, r.mixing_weights)
                      if values["covariance_type"] == "spherical" else None)
        log_likelihood = self._log_likelihood(X, run.centers, r.sigma2, components,
                                              check_n_threads(values["n_threads"]))
        total = float(np.sum(log_likelihood) if w is None else np.dot(w, log_likelihood))
        return -total

    def _runs_differ(self, params):
        return True  # the initial truncation sets K(n) are drawn from the seed

    def _rank_evals(self, X, run):
        return X.shape[0] * run.centers.shape[0]

    def _iteration_evals(self, fit_n, params):
        G = min(params.em.G, params.n_clusters)
        if G >= params.n_clusters:
            return fit_n * params.n_clusters  # exact EM
        return fit_n * (G * G + int(params.em.plus1))  # |S(n)| <= G^2 (+1)

    def fit(self, X, y=None, sample_weight=None):
        """Fit the mixture.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or chunked data
            Training data. float32 stays float32, other numbers become float64;
            C-contiguous float arrays (and memory maps) are used without a copy.
            Chunked data (lists of arrays or ``.npy`` paths, chunk functions,
            zarr or Dask arrays) are fitted on a coreset drawn in two passes,
            then read once more for ``labels_`` and ``inertia_`` (lazy dask
            arrays for Dask input); see :func:`fit_vcgmm`.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None means all ones. Zero entries are ignored: such a
            point does not exist for the fit (the result is that of the fit without it;
            it is still labelled with its nearest center); at least n_clusters
            entries must be positive.

        Returns
        -------
        self : VCGMM
            Fitted estimator.
        """
        X, sample_weight, source = self._training_input(X, sample_weight)
        values, run, w, n_distance_evals, timings = self._fit_run(
            X, sample_weight, return_labels=self._exact_labels_at_fit())
        if source is not None:
            self.n_features_in_ = source.n_features
        r = run.result
        self.cluster_centers_ = run.centers
        self.sigma2_ = float(r.sigma2)
        spherical = self.covariance_type == "spherical"
        self._variances = np.asarray(r.variances) if spherical else None
        self._mixing_weights = np.asarray(r.mixing_weights) if spherical else None
        self.free_energy_ = r.free_energy
        if run.coreset_weights is not None:
            fit_weight = float(np.sum(run.coreset_weights))
        else:
            fit_weight = float(X.shape[0] if w is None else np.sum(w))
        self.lower_bound_ = float(r.final_free_energy / fit_weight)
        self.n_iter_ = int(r.n_iter)
        self.converged_ = bool(r.converged)
        self.coreset_indices_ = run.coreset_indices
        self.coreset_weights_ = run.coreset_weights
        self.G_ = int(r.G)
        self._set_evaluation(X, w, run, values, n_distance_evals, timings)
        self._warn_coinciding_centers(run.centers)
        return self

    @staticmethod
    def _warn_coinciding_centers(centers):
        """Warn when fitted means coincide exactly: such components duplicate
        each other (they started from the same seed point, e.g. a coreset
        point drawn twice, or EM moved them onto each other). Components that
        are nobody's nearest mean are legitimate and not warned about."""
        n_distinct = np.unique(centers, axis=0).shape[0]
        if n_distinct < centers.shape[0]:
            warnings.warn(
                f"{centers.shape[0] - n_distinct} of the {centers.shape[0]} means coincide "
                "with another mean, so those components duplicate each other (they started "
                "from the same seed point or converged onto each other). If the data have "
                "fewer distinct points than n_components, use fewer components; otherwise a "
                "larger coreset_size or a longer chain_length gives distinct seeds.",
                ConvergenceWarning,
                stacklevel=user_stacklevel(),
            )

    @classmethod
    def from_centers(cls, centers, sigma2=None, **params):
        """A fitted mixture with means ``centers`` and shared variance ``sigma2``.

        ``predict``, ``predict_proba``, ``score_samples``, ``score``,
        ``sample`` and ``transform`` work at once (equal mixing weights, one
        shared isotropic variance: the vc-GMM model).

        Parameters
        ----------
        centers : array-like of shape (n_components, n_features)
            Finite means; float32 stays float32, others become float64.
        sigma2 : float
            The shared variance, finite and > 0.
        **params
            Other constructor parameters (``G`` for ``predict_proba_sparse``).

        Returns
        -------
        VCGMM
            Fitted (``cluster_centers_``, ``sigma2_``, ``G_``, ``n_features_in_``).

        Examples
        --------
        >>> import numpy as np, vcgmm
        >>> gmm = vcgmm.VCGMM.from_centers([[0.0], [4.0]], sigma2=1.0)
        >>> gmm.predict_proba(np.array([[2.0]])).round(3).tolist()
        [[0.5, 0.5]]
        """
        if sigma2 is None:
            raise ValueError("sigma2: VCGMM.from_centers needs the shared variance of the "
                             "components (a float > 0)")
        if isinstance(sigma2, bool) or not isinstance(sigma2, (int, float, np.integer,
                                                               np.floating)):
            raise TypeError(f"sigma2 must be a number, got {type(sigma2).__name__}")
        if not (np.isfinite(sigma2) and sigma2 > 0):
            raise ValueError(f"sigma2 must be finite and > 0, got {sigma2!r}")
        est = super().from_centers(centers, **params)
        if est.covariance_type != "shared":
            raise ValueError("VCGMM.from_centers builds the shared model (one sigma2): "
                             "covariance_type must be 'shared'")
        est.sigma2_ = float(sigma2)
        est.G_ = int(min(VCGMM_PARAMS.check("G", est.G), est.cluster_centers_.shape[0]))
        return est

    @property
    def means_(self):
        """The means, shape (n_components, n_features); alias of ``cluster_centers_``."""
        check_is_fitted(self, "cluster_centers_")
        return self.cluster_centers_

    def score_samples(self, X):
        """Exact log-likelihood of each sample under the fitted mixture.

        ``log p(x) = log(1/C sum_c N(x; mu_c, sigma2 I))``, over all C
        components (blocked, O(n_samples C n_features)); with
        ``covariance_type="spherical"`` ``log sum_c weights_c N(x; mu_c,
        covariances_c I)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_likelihood : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "cluster_centers_")
        X = self._validate_X(X, reset=False)
        return self._log_likelihood(X, self._centers_like(X), self.sigma2_,
                                    self._fitted_components(), check_n_threads(self.n_threads))

    def score(self, X, y=None, sample_weight=None):
        """Mean (weighted) log-likelihood per sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None means all ones (a point of weight 0 adds
            nothing).

        Returns
        -------
        float
        """
        log_likelihood = self.score_samples(X)
        sample_weight = check_sample_weight(sample_weight, log_likelihood[:, None])
        return float(np.average(log_likelihood, weights=sample_weight))

    def predict_proba(self, X):
        """Posterior probability of every component for each sample (dense, exact).

        As ``GaussianMixture.predict_proba``: the exact responsibilities over
        all ``n_components`` components, ``p(c | x) = N(x; mu_c, sigma2 I) /
        sum_k N(x; mu_k, sigma2 I)`` (equal weights; with
        ``covariance_type="spherical"`` each term ``weights_c N(x; mu_c,
        covariances_c I)``), computed in blocks of rows. The result holds
        n_samples x n_components doubles: at large ``n_components`` use
        :meth:`predict_proba_sparse`, which keeps the ``G_`` largest per row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_components), dtype float64
            Rows sum to 1.
        """
        check_is_fitted(self, "cluster_centers_")
        X = self._validate_X(X, reset=False)
        centers = self._centers_like(X)
        C = centers.shape[0]
        n_threads = check_n_threads(self.n_threads)
        components = self._fitted_components()
        proba = np.zeros((X.shape[0], C), dtype=np.float64)
        block = max(1, _PROBA_BLOCK_ELEMENTS // C)
        for start in range(0, X.shape[0], block):
            rows = slice(start, min(X.shape[0], start + block))
            idx, resp = self._posteriors(X[rows], centers, self.sigma2_, components, C,
                                         n_threads)
            np.put_along_axis(proba[rows], idx.astype(np.intp), resp, axis=1)
        return proba

    def predict_proba_sparse(self, X):
        """Posterior probabilities restricted to the G most probable components (sparse).

        The truncated posterior of the paper (eq. 6) with K(n) = the ``G_``
        nearest means of each sample (``covariance_type="spherical"``: the
        ``G_`` components of largest ``weights_c N(x; mu_c, covariances_c
        I)``): exact responsibilities renormalized over those G components,
        zero elsewhere. O(n_samples n_components
        n_features) time like :meth:`predict_proba`, but only
        ``n_samples * G_`` values stored.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : scipy.sparse.csr_matrix of shape (n_samples, n_components)
            ``G_`` non-zeros per row, summing to 1.
        """
        check_is_fitted(self, "cluster_centers_")
        X = self._validate_X(X, reset=False)
        idx, resp = self._posteriors(X, self._centers_like(X), self.sigma2_,
                                     self._fitted_components(), self.G_,
                                     check_n_threads(self.n_threads))
        n, k = idx.shape
        indptr = np.arange(0, n * k + 1, k, dtype=np.int64)
        proba = sp.csr_matrix(
            (resp.ravel(), idx.ravel().astype(np.int64), indptr),
            shape=(n, self.cluster_centers_.shape[0]),
        )
        proba.sort_indices()
        return proba

    # -- GaussianMixture's attributes and model-selection methods -------------

    @property
    def weights_(self):
        """Mixing weights, shape (n_components,): all ``1 / n_components``
        (the model's components have equal, fixed weights), or with
        ``covariance_type="spherical"`` the learned weights (summing to 1)."""
        check_is_fitted(self, "cluster_centers_")
        if getattr(self, "_mixing_weights", None) is not None:
            return np.array(self._mixing_weights, dtype=np.float64)
        C = self.cluster_centers_.shape[0]
        return np.full(C, 1.0 / C)

    @property
    def covariances_(self):
        """Variances, shape (n_components,): every entry ``sigma2_``.

        The model is "tied-spherical": one variance ``sigma2_ I`` shared by all
        components. It is given in the layout of
        ``GaussianMixture(covariance_type="spherical")`` (one variance per
        component, here all equal), so that code written for that layout
        (and a spherical GaussianMixture given these attributes) works unchanged.
        With ``covariance_type="spherical"``: each component's own variance.
        """
        check_is_fitted(self, "cluster_centers_")
        if getattr(self, "_variances", None) is not None:
            return np.array(self._variances, dtype=np.float64)
        return np.full(self.cluster_centers_.shape[0], float(self.sigma2_))

    @property
    def precisions_(self):
        """Precisions ``1 / sigma2_``, shape (n_components,) ("spherical" layout)."""
        return 1.0 / self.covariances_

    @property
    def precisions_cholesky_(self):
        """Cholesky factors of the precisions, ``1 / sqrt(sigma2_)``, shape
        (n_components,) (the "spherical" layout of GaussianMixture)."""
        return 1.0 / np.sqrt(self.covariances_)

    def _n_parameters(self):
        """Free parameters of the model: the means (n_components x
        n_features) and the one shared variance; the weights are fixed
        (``covariance_type="spherical"``: C variances and C - 1 weights)."""
        check_is_fitted(self, "cluster_centers_")
        C, D = self.cluster_centers_.shape
        if getattr(self, "_variances", None) is not None:
            return C * D + C + C - 1
        return C * D + 1

    def bic(self, X):
        """Bayesian information criterion for the current model on X.

        ``-2 log L(X) + k log(n_samples)``, with the exact log-likelihood
        (:meth:`score_samples`) and ``k = n_components * n_features + 1`` free
        parameters (the means and the shared variance; the weights are fixed
        at ``1 / n_components``), as ``GaussianMixture.bic`` counts its own
        (``covariance_type="spherical"``: ``k = n_components * (n_features +
        2) - 1``, the means, a variance each and the free weights).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        bic : float
            Lower is better.
        """
        log_likelihood = self.score_samples(X)
        return float(-2.0 * np.sum(log_likelihood)
                     + self._n_parameters() * np.log(log_likelihood.shape[0]))

    def aic(self, X):
        """Akaike information criterion for the current model on X.

        ``-2 log L(X) + 2 k``, with the exact log-likelihood and ``k =
        n_components * n_features + 1`` free parameters (see :meth:`bic`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        aic : float
            Lower is better.
        """
        log_likelihood = self.score_samples(X)
        return float(-2.0 * np.sum(log_likelihood) + 2.0 * self._n_parameters())

    def sample(self, n_samples=1):
        """Generate random samples from the fitted mixture.

        As ``GaussianMixture.sample``: the number of samples of each
        component is multinomial with the weights ``weights_``, each sample
        is its mean plus the square root of its component's variance
        (``covariances_``; ``sigma2_`` for the shared model) times a
        standard normal vector,
        and the samples come grouped by component (in component order). The
        draws come from ``random_state`` (an integer gives the same samples
        on every call; a RandomState instance advances).

        Parameters
        ----------
        n_samples : int, default=1
            Number of samples to generate (>= 1).

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            The samples, in the dtype of ``means_`` (the training data's).
        y : ndarray of shape (n_samples,), dtype int64
            The component of each sample.
        """
        check_is_fitted(self, "cluster_centers_")
        n_samples = Integer(1, None).check(n_samples, "n_samples")
        rng = check_random_state(self.random_state)
        means = self.cluster_centers_
        C, D = means.shape
        counts = rng.multinomial(n_samples, self.weights_)
        y = np.repeat(np.arange(C, dtype=np.int64), counts)
        # One call draws what GaussianMixture draws component by component
        # (the legacy generator's normal stream does not depend on the split).
        noise = rng.standard_normal(size=(n_samples, D))
        if getattr(self, "_variances", None) is not None:
            scale = np.sqrt(np.asarray(self._variances, dtype=np.float64))[y, None]
        else:
            scale = np.sqrt(float(self.sigma2_))
        X = means[y].astype(np.float64) + scale * noise
        return X.astype(means.dtype, copy=False), y


#: Entries of the (rows, n_components) blocks in which predict_proba computes
#: the dense posterior (the core returns indices and values of that size).
_PROBA_BLOCK_ELEMENTS = 1 << 22


class _Unset:
    """Default of fit_vcgmm's n_prime: not given (coreset_size applies)."""

    def __repr__(self):
        return "<coreset_size>"


class _DefaultCoresetSize(str):
    """fit_vcgmm's default coreset_size: the string "auto", but recognisable
    as not given (so that coreset_size and its alias n_prime cannot both be)."""


_UNSET = _Unset()
_AUTO = _DefaultCoresetSize(_D["coreset_size"])


def fit_vcgmm(X, C, G=_D["G"], coreset_size=_AUTO, *, sample_weight=None,
              return_labels=False, n_prime=_UNSET, **params):
    """Fit a Gaussian mixture by vc-GMM: coreset + AFK-MC^2 + truncated variational EM.

    The headline algorithm of Hirschberger, Forster & Luecke ("Accelerated
    training of large-scale Gaussian mixtures by a merger of sublinear
    approaches"): a lightweight coreset of ``n_prime`` weighted points,
    AFK-MC^2 seeding on it, then the var-GMM-S variational loop on the coreset
    until the free energy converges. Each EM iteration costs
    O(n_prime G^2 n_features), independent of N and of C. The model is C
    isotropic Gaussians with equal weights and one shared variance (with
    ``covariance_type="spherical"``: a variance and a weight each); its means
    are good k-means centers.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or chunked data
        Data. float32 stays float32 (and is never copied when C-contiguous,
        e.g. a ``np.memmap``); other numbers become float64. Data larger than
        memory can come in chunks: a list of arrays or ``.npy`` paths, a
        function returning an iterable of chunks, a zarr array, or a Dask
        array (see :mod:`vcgmm.dask`). The coreset is then drawn in two
        passes over the chunks, holding one chunk plus the coreset in memory
        (the same chunks and seed give the same result on any threads or
        workers); ``return_labels`` reads the chunks once more (lazily for
        Dask). Chunked data need a coreset (``coreset_size`` not None).
    C : int
        Number of clusters (Gaussians), 1 <= C <= n_samples.
    G : int, default=5
        Neighbourhood size: each point keeps its G nearest clusters found so
        far and searches the G neighbours of each (up to G^2 distances per
        point and iteration). Values larger than C are clamped to C with a
        warning (the loop is then exact EM, the slowest setting). The papers
        use 3 to 7.
    coreset_size : int, "auto" or None, default="auto"
        Coreset size N' (C <= N' <= 4 * n_samples). "auto" picks
        :func:`default_coreset_size`: ``min(n_samples, max(4096, 64 * C))``.
        None: no coreset (var-GMM-S, as :func:`fit_vargmm`).
    n_prime : int, "auto" or None
        Alias of ``coreset_size`` (the papers' name N'); give one of the two.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the points; None means all ones. Zero entries are ignored: such a
        point does not exist for the fit (the result is that of the fit without it;
        it is still labelled with its nearest center); at least n_clusters
        entries must be positive.
    return_labels : bool, default=False
        Also compute the exact nearest center of every row of X and the
        quantization error on the full data (an O(N C n_features) pass,
        reported as the "evaluation" phase).
    **params
        Every other parameter of :class:`VCGMM`, by keyword, with the same
        meaning and default: ``plus1``, ``init``, ``chain_length``,
        ``n_local_trials``, ``n_init_estep``, ``tol``, ``stop_rule``,
        ``max_iter``, ``refine``, ``refine_search``, ``covariance_type``,
        ``variance_floor``, ``n_threads``, ``random_state``, ``verbose``.

    Returns
    -------
    VCGMMResult
        ``centers``, ``sigma2``, ``variances``, ``mixing_weights``,
        ``free_energy``, ``n_iter``, ``converged``, ``G``, ``coreset_indices``, ``coreset_weights``, ``labels``,
        ``inertia``, ``n_distance_evals``, ``timings``.

    See Also
    --------
    fit_vargmm : the same loop on all points (no coreset).
    VCGMM : the scikit-learn style estimator.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 8)).astype(np.float32)
    >>> result = vcgmm.fit_vcgmm(X, 100, 5, 8192, random_state=0)
    >>> result.centers.shape
    (100, 8)
    """
    if n_prime is not _UNSET:
        if coreset_size is not _AUTO:
            raise TypeError("fit_vcgmm got both coreset_size and its alias n_prime; give one.")
        coreset_size = n_prime
    for name in ("n_components", "G", "coreset_size"):
        if name in params:
            raise TypeError(f"fit_vcgmm got {name!r} twice (it is a positional argument).")
    for name in ("compute_labels", "labels"):
        if name in params:
            raise TypeError("fit_vcgmm takes return_labels (exact labels, part of the result), "
                            f"not {name}; for approximate labels call "
                            "vcgmm.assign_approximate(X, result.centers).")
    unknown = sorted(set(params) - set(VCGMM_PARAMS.names()))
    if unknown:
        raise TypeError(f"fit_vcgmm got unexpected keyword argument(s) {', '.join(unknown)}; "
                        f"it takes X, C, G, coreset_size, sample_weight, return_labels and "
                        f"the parameters of VCGMM.")
    source = as_source(X, sample_weight)
    if source is None:
        X = as_data(X)
        C, sample_weight = check_function_count(C, X, sample_weight)
    else:  # chunked or Dask data: C <= n_samples is checked after the first pass
        X, sample_weight = source, None
        C = Integer(1, INT32_MAX).check(C, "C")
    est = VCGMM(C, G=G, coreset_size=str(coreset_size) if coreset_size is _AUTO else coreset_size,
                **params)
    return_labels = Boolean().check(return_labels, "return_labels")
    return est._fit_result(X, sample_weight, return_labels=return_labels)


def fit_vargmm(X, C, G=_D["G"], *, sample_weight=None, return_labels=False, **params):
    """Fit a Gaussian mixture by var-GMM-S: truncated variational EM on all points.

    Forster & Luecke, "Can clustering scale sublinearly with its clusters?"
    (AISTATS 2018): the variational loop of :func:`fit_vcgmm` without a
    coreset, on every point with its sample weight. Each iteration costs
    O(N G^2 n_features), independent of C; the quality is close to k-means++
    (within about 1% in the papers).

    Parameters
    ----------
    X, C, G, sample_weight, return_labels, **params
        As in :func:`fit_vcgmm` (every parameter of :class:`VCGMM` but
        ``coreset_size``).

    Returns
    -------
    VCGMMResult
        With ``coreset_indices`` and ``coreset_weights`` set to None.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(500, 2))
    >>> r = vcgmm.fit_vargmm(X, 4, G=2, random_state=0)
    >>> r.centers.shape, r.coreset_indices is None
    ((4, 2), True)
    """
    if "coreset_size" in params or "n_prime" in params:
        raise TypeError("fit_vargmm fits on all points: use fit_vcgmm for a coreset.")
    return fit_vcgmm(X, C, G, None, sample_weight=sample_weight, return_labels=return_labels,
                     **params)
