"""vc-GMM and var-GMM-S as a scikit-learn estimator: :class:`VCGMM`."""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._base.metric import is_cosine, normalize_rows
from .._base.nearest import nearest_centers
from .._estimator.base import (PipelineEstimator,
                              as_float, user_stacklevel)
from .._base.docs import fill_doc
from .._base.loader import core as _core
from .._base.params import make_init, Integer
from .._base.run import check_n_threads
from .._base.validation import check_sample_weight, count_distinct_rows
from .params import VCGMM_PARAMS, _D
from .result import VCGMMResult

__all__ = ["VCGMM"]


@fill_doc
class VCGMM(PipelineEstimator, ClusterMixin, TransformerMixin, BaseEstimator):
    """Isotropic Gaussian mixture fitted by vc-GMM (or var-GMM-S): very many clusters, fast.

    vc-GMM (Hirschberger, Forster & Luecke) = a lightweight coreset of
    ``coreset_size`` weighted points + AFK-MC^2 seeding + truncated
    variational EM with cluster neighbourhoods, O(coreset_size G^2
    n_features) per iteration. With ``coreset_size=None`` the loop runs on
    all points: var-GMM-S (Forster & Luecke, 2018). The defaults are chosen
    on users' kinds of data (k-means++ seeding at a few hundred components, G = 7,
    3 refinement steps and one data step on all points, a unit-free stop
    rule); ``init="afk-mc2", G=5, refine=0, data_steps=0, stop_rule="relative",
    tol=1e-4`` is the papers' algorithm.

    The model has ``n_components`` Gaussians with equal weights and one shared
    variance ``sigma2_``; its means are k-means quality cluster centers, and
    ``predict`` (the most probable component) is the nearest mean.
    ``labels_`` and ``inertia_`` are computed exactly on the full training
    data, at the end of ``fit`` (``compute_labels=True``, the default; at
    large ``n_components`` this pass costs more than the fit itself) or on
    their first access (``compute_labels=False``).

    Parameters
    ----------
    n_components : int, default=8
        Number of Gaussians C, 1 <= C <= n_samples.
    G : int, default=7
        Neighbourhood size: each point keeps its G nearest clusters and
        searches their G neighbours (up to G^2 distances per iteration).
        Clamped to n_components (with a warning: exact EM, the slowest
        setting); ``G_`` is the value used. The papers use 3 to 7 (``G=5``
        in their tables); 7 ends lower on well-separated and on unevenly
        dense clusters for about twice the work per iteration of 5 (see the
        performance page).
    coreset_size : int, "auto" or None, default="auto"
        %(coreset_size)s
        None is var-GMM-S.
    plus1 : bool, default=False
        Add one random cluster to every search space ("G = 3+1").
    init : {"auto", "afk-mc2", "k-means++", "random"} or array-like of shape \
            (n_components, n_features), default="auto"
        Seeding (on the coreset when there is one).
        %(init_auto)s
        (k-means++ seeds better at a few hundred clusters; its cost grows as
        C^2 on the default coreset and passes EM's at thousands.) The others:
        AFK-MC^2 (the papers'), D^2 sampling (greedy with
        ``n_local_trials``), C distinct random samples of the points fitted,
        or the initial means.
    n_init : int, default=1
        %(n_init_mixture)s
        Chunked and Dask data take ``n_init=1`` only.
    chain_length : int, default=20
        %(chain_length)s
    n_local_trials : int or "auto", default="auto"
        %(n_local_trials)s
    initial_sets : {"random", "nearest"}, default="random"
        The truncation sets K(n) EM starts from. "random": G random clusters
        per point (the papers'); on well-separated clusters the first search
        spaces rarely hold a point's own cluster, the first M-step averages
        points of other clusters and EM does not recover. "nearest": the
        same with each point's nearest initial mean first (one labelling of
        the coreset as ``refine_search`` says), so EM starts from the
        seeding's partition as exact EM does: a lower error in less time on
        the users' data suite, far lower on well-separated blobs, but higher
        on image patches and Fashion-MNIST at C >= 1000, which keeps "random"
        the default for now (bench/results/users_data/vcgmm_initial_sets.md).
    n_init_estep : int, default=0
        Extra E-steps before the first M-step; they count against ``max_iter``
        (at most ``max_iter - 1`` are run).
    tol : float, default=2e-4
        Convergence threshold of ``stop_rule`` (0: run ``max_iter``
        iterations). The default keeps EM converged; with the refinement
        (``refine > 0``) a larger ``tol`` (up to 1e-2) runs fewer EM
        iterations for a higher error, slightly so on the image patches, more
        on data of uneven density (see the performance page).
    stop_rule : {"gain", "relative"}, default="gain"
        "gain": stop when an iteration gains less than ``tol`` nats of free
        energy per unit of sample weight and per feature, ``|F_t - F_{t-1}|
        / (sum(w) n_features) < tol``: independent of the data's units, like
        scikit-learn's GaussianMixture. "relative": the papers' rule
        ``|F_t - F_{t-1}| < tol |F_t|`` (``tol=1e-4`` reproduces them); it
        depends on the units, since F has an arbitrary offset.
    max_iter : int, default=1000
        Maximum number of EM iterations, initial E-steps included.
    metric : {"euclidean", "cosine"}, default="euclidean"
        "cosine": the rows are scaled to unit length first (one copy of X;
        rows of norm zero are refused) and the mixture is fitted to them
        unchanged: an isotropic Gaussian approximation of a von Mises-Fisher
        mixture. Means are not renormalised; ``predict``, ``score_samples``
        and ``inertia_`` are Euclidean on the normalised rows. Chunked and
        Dask data are normalised chunk by chunk as they are read.
    refine : int, default=3
        Hard (Lloyd) steps on the coreset after EM (not in the papers;
        ``refine=0, data_steps=0`` is the papers' vc-GMM, and keeps EM's means): each step
        labels every coreset point (see ``refine_search``), relocates the
        means no point chose, then moves every mean to the weighted mean of
        its points; then ``sigma2_`` (spherical: the variances and weights)
        is refitted about the refined means, so that means and variances are
        one model. ``free_energy_`` stays EM's trace. With ``split_merge``
        more steps may follow. See Notes.
    refine_search : {"approx", "exact", "restricted"}, default="approx"
        How a refinement step labels a point: "approx", the nearest of all
        means by the cell index of :func:`assign_approximate` (kept when the
        previous label is nearer); "exact", the exact nearest (one
        :func:`lloyd` iteration); "restricted", the nearest in the point's
        search space S(n). "approx" ends as low as "exact" and is faster;
        "restricted" gains less.
    split_merge : bool, default=True
        Split-merge moves after every refinement step (not in the papers;
        ``refine_search="approx"`` or ``"exact"``) and after every data
        step (on all samples): the clusters whose merge
        into a neighbouring cluster costs least (Ward's cost) are paired with
        the clusters whose split in two (a few 2-means iterations) lowers the
        error most, while the gain is more than 4 times the cost; the merged
        mean and the two halves replace the three means, so the error falls
        by the difference; means that no sample chose take a half of the
        largest splits first. While a round on the coreset lowers the error
        by at least 0.1%, one more refinement step follows (at most 16 more
        than ``refine``).
        EM and Lloyd steps move means only locally: on well-separated
        clusters, where the seeding put two means in one cluster and one
        between two, they never recover (``make_blobs`` with
        ``n_components`` = its number of centers ended far above KMeans's
        error); on data without such clusters few pairs move and the error
        ends level or slightly lower (see the parameters page).
    data_steps : int or "auto", default="auto"
        Hard (Lloyd) steps on all the training data after the fit on the
        coreset and its ``refine`` steps (not in the papers; 0 is the papers'
        vc-GMM): each labels every sample by the cell index of
        :func:`assign_approximate` (probing 4 cells in the first step, fewer
        where a sample of the rows finds as near labels with 1 or 2, and 2 in
        later ones; a sample keeps its previous step's label where that is
        nearer; a later step labels every sample exactly instead, walking out
        from its previous label, where that is estimated to cost less, as on
        well-separated clusters), moves every mean to the weighted mean of its samples, then
        makes a round of ``split_merge`` moves on all samples (without
        ``split_merge``, the means no sample chose move onto the samples
        farthest from theirs first); ``sigma2_`` is then refitted on the
        coreset as after ``refine``. A step costs less than one
        :func:`assign_approximate` pass over X. "auto": 1 when X is one array
        in memory, 0 for chunked and Dask data (which are fitted on their
        coreset only; an integer > 0 is refused there) and without a coreset
        (``coreset_size=None``: the refinement already runs on all points).
        One step lowered the error on every kind of data measured for about
        a tenth more time, and at very many clusters it is the fast way to a
        low error (see the parameters and choosing pages).
    covariance_type : {"shared", "spherical"}, default="shared"
        "shared": the papers' model, one variance ``sigma2_`` and equal
        weights ``1 / n_components``. "spherical" (not in the papers; as
        ``GaussianMixture(covariance_type="spherical")``): a variance and a
        mixing weight per component, learned by the M-step at the same cost
        per iteration; a choice of model, not a way to a lower quantization
        error (see Notes).
    variance_floor : float, default=1e-6
        With ``covariance_type="spherical"``: the smallest variance of a
        component, as a fraction of the (weighted) variance per feature of the
        fitted data (>= 0; 0 leaves only a floor at rounding level). Ignored
        with "shared".
    shared_m_steps : int, default=2
        With ``covariance_type="spherical"``: the first ``shared_m_steps``
        M-steps fit one variance for all components and keep equal weights
        (the shared model, floored as a component's variance); the
        per-component M-step follows. 2 is the warm-up of the authors'
        isoflex code; without it far more means collapse on data of uneven
        density, while on image patches it is level
        (bench/results/covariance/covariance_geonames_isoflex.md,
        covariance_patches-all_isoflex.md).
        Ignored with "shared".
    compute_labels : bool, default=True
        %(compute_labels)s
    labels : {"exact", "approx"}, default="exact"
        %(labels)s
    %(run_params)s

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
        Mixing weights, all ``1 / n_components`` (``covariance_type="spherical"``:
        learned).
    covariances_ : ndarray of shape (n_components,)
        Every entry ``sigma2_``, in the layout of GaussianMixture's "spherical"
        model (``covariance_type="spherical"``: each component's own variance).
    precisions_, precisions_cholesky_ : ndarray of shape (n_components,)
        ``1 / covariances_`` and ``1 / sqrt(covariances_)``.
    free_energy_ : ndarray of shape (n_iter,)
        Free energy (eq. 10; summed over the weighted coreset or data) of every E-step.
    lower_bound_ : float
        The final free energy per unit of training weight (on the coreset
        with a coreset), a lower bound of the log-likelihood comparable to
        ``score``; recomputed for the means after ``refine`` steps.
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
    coreset_indices_, coreset_weights_ : ndarray of shape (N',) or None
        The coreset's rows of the training data and their weights (None for
        var-GMM-S).
    G_ : int
        Effective neighbourhood size.
    n_distance_evals_, timings_ : dict
        Distance evaluations and seconds per phase, summed over the runs:
        ``coreset``, ``seeding``, ``iterations`` (E-steps), ``refinement``,
        ``evaluation``.
    n_features_in_ : int
        Number of features seen during fit.

    Notes
    -----
    Against ``sklearn.mixture.GaussianMixture``: the model is
    ``covariance_type="spherical"`` with all variances tied to one
    ``sigma2_`` and the weights fixed at ``1 / n_components`` (with
    ``covariance_type="spherical"``, GaussianMixture's "spherical" model
    itself); ``weights_``, ``means_``, ``covariances_``, ``precisions_``,
    ``precisions_cholesky_``, ``score_samples``, ``score``, ``predict_proba``
    (dense, exact), ``bic``, ``aic`` and ``sample`` have GaussianMixture's
    meaning and shapes. ``predict_proba_sparse`` is the truncated
    (top-``G_``) form; ``predict`` and ``labels_`` are the nearest mean.

    Refinement (``refine``): EM's fixed point (soft means, one shared
    variance) is not a k-means fixed point, its truncated search misses the
    nearest mean of many points at large C, and it leaves means that no
    point is nearest to; the hard steps fix all three, and the coreset's
    quantization error never rises. On the image patches the default brings
    vc-GMM's full-data error below LWCS's at 1000-2000 components for a
    little more time (see the performance page). After the last step one
    E-step with EM's variances gives soft responsibilities for the refined
    means, and the variances (spherical: and weights) are refitted about
    them, which cannot lower the free energy; ``lower_bound_`` is that of the
    returned model. On held-out data (bench/results/refine_likelihood) the
    shared model with ``refine=3`` scores above ``refine=0``, while the
    spherical model scores below it: for a spherical density model, use
    ``refine=0``.

    Per-component variances (``covariance_type="spherical"``): the truncated
    E-step keeps for every point the ``G`` components of largest log joint
    probability (the first uses the shared variance); a variance is floored
    at ``variance_floor`` times the data's variance per feature, and a
    component that loses all its mass keeps weight 0. The likelihood rewards
    tight components on a few near-identical points and wide ones over
    sparse regions, so the quantization error ends above that of "shared",
    far above on data of uneven density (see the performance page).

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
    >>> gmm.predict_proba_sparse(X[:3]).nnz  # the G_ = 7 largest of each row
    21
    """

    _params = VCGMM_PARAMS
    # paper 000 (vc-GMM): AFK-MC^2 seeding (chain 20), G = 5, no refinement,
    # EM stopped at a relative free-energy change of 1e-4
    paper_params = {"init": "afk-mc2", "chain_length": 20, "G": 5, "refine": 0, "data_steps": 0,
                    "stop_rule": "relative", "tol": 1e-4, "plus1": False,
                    "covariance_type": "shared", "n_init_estep": 0, "initial_sets": "random"}
    paper_gaps = "the coreset size N' was chosen per data set (2^12 to 2^16)"
    _count_param = "n_components"
    _core_fit = staticmethod(_core.fit_vcgmm)

    __init__ = make_init(VCGMM_PARAMS)

    def _fit_run(self, X, sample_weight, *, return_labels):
        """The fit (best of n_init runs): (values, run, w, n_distance_evals, timings)."""
        checked = self._checked_params()
        steps = checked["data_steps"]
        if steps != "auto" and steps > 0:
            if not isinstance(X, np.ndarray):
                raise ValueError(
                    f"data_steps={steps} needs the training data as one array in memory (a "
                    "NumPy array or memmap); chunked and Dask data are fitted on their "
                    "coreset only: pass data_steps=0 or 'auto'.")
            if checked["coreset_size"] is None:
                raise ValueError(
                    f"data_steps={steps} runs after a fit on a coreset; with "
                    "coreset_size=None (var-GMM-S) the loop and its refine steps already run "
                    "on all points: pass data_steps=0 or 'auto', or more refine steps.")
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
            refine_relocated=r.refine_relocated, refine_split_merges=r.refine_split_merges,
            data_step_objective=r.data_step_objective,
            data_step_relocated=r.data_step_relocated,
            data_step_split_merges=r.data_step_split_merges,
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

    @fill_doc
    def fit(self, X, y=None, sample_weight=None):
        """Fit the mixture.

        Parameters
        ----------
        %(fit_params)s

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
        left_empty = r.data_step_left_empty
        self._warn_coinciding_centers(run.centers, given_init=not isinstance(self.init, str),
                                      left_empty=int(left_empty[-1]) if len(left_empty) else 0)
        return self

    @staticmethod
    def _warn_coinciding_centers(centers, given_init=False, left_empty=0):
        """Warn when fitted means coincide exactly: such components duplicate
        each other (they started from the same seed point, e.g. a coreset
        point drawn twice, or EM moved them onto each other); or when the last
        data step left ``left_empty`` clusters without a point (every point
        sat on its mean, so there was none to move them onto). Components
        that are nobody's nearest mean after EM are legitimate and not warned
        about."""
        if left_empty > 0:
            warnings.warn(
                f"{left_empty} of the {centers.shape[0]} means are no training point's nearest "
                "mean and could not be moved onto one (every point sits on its mean): the data "
                "have fewer distinct points than n_components; use fewer components.",
                ConvergenceWarning,
                stacklevel=user_stacklevel(),
            )
            return
        n_distinct = count_distinct_rows(centers)
        if n_distinct < centers.shape[0]:
            remedy = ("check the given init for repeated rows" if given_init else
                      "a larger coreset_size or a longer chain_length gives distinct seeds")
            warnings.warn(
                f"{centers.shape[0] - n_distinct} of the {centers.shape[0]} means coincide "
                "with another mean, so those components duplicate each other (they started "
                "from the same seed point or converged onto each other). If the data have "
                f"fewer distinct points than n_components, use fewer components; otherwise "
                f"{remedy}.",
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

        ``log p(x) = log sum_c weights_c N(x; mu_c, covariances_c I)`` over
        all C components (blocked, O(n_samples C n_features)).

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

    @fill_doc
    def score(self, X, y=None, sample_weight=None):
        """Mean (weighted) log-likelihood per sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        %(y)s
        sample_weight : array-like of shape (n_samples,), default=None
            %(sample_weight_score)s

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
        all components, computed in blocks of rows. The result holds
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
        most probable components of each sample (the nearest means, for the
        shared model): exact responsibilities renormalized over them, zero
        elsewhere. The time of :meth:`predict_proba`, ``n_samples * G_``
        values stored.

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

        The layout of GaussianMixture's "spherical" model, so that code
        written for it works unchanged (``covariance_type="spherical"``: each
        component's own variance).
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
        (:meth:`score_samples`) and ``k`` free parameters counted as
        ``GaussianMixture.bic`` does: the means and the shared variance
        (``covariance_type="spherical"``: a variance and a weight each, less
        one weight).

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

        ``-2 log L(X) + 2 k``, with the exact log-likelihood and ``k`` free
        parameters (see :meth:`bic`).

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

        As ``GaussianMixture.sample``: multinomial counts per component by
        ``weights_``, each sample its mean plus ``sqrt(covariances_)`` times
        a standard normal vector, grouped by component. The draws come from
        ``random_state`` (an integer gives the same samples on every call).

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


