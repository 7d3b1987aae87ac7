"""k-means: the papers' "k-means++" and "LWCS" baselines (estimator
:class:`KMeans`) and weighted Lloyd iterations from given centers (:func:`lloyd`)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin

from .._blocks.coreset import coreset_size_param
from .._estimator.base import (kmeans_score, warn_distinct_clusters, COMPUTE_LABELS_PARAM, LABELS_PARAM, N_INIT_PARAM,
                              PipelineEstimator)
from .._base.docs import fill_doc
from .._base.loader import core as _core
from .._base.metric import metric_param, normalize_rows
from .._base.params import make_init, CORE, INT32_MAX, Boolean, Integer, Param, ParamTable, Real
from .._base.run import RUN_PARAMS, run_options
from .._blocks.seeding import SEEDING_PARAMS, init_param
from .._base.validation import as_data, check_centers, check_sample_weight, positive_rows

__all__ = ["KMeans", "lloyd", "KMEANS_PARAMS"]

#: Lloyd's own parameters (also those of :func:`lloyd`).
LLOYD_PARAMS = (
    Param("tol", Real(0.0), CORE,
          "stop when the relative change of the objective (Lloyd: quantization error; "
          "EM: free energy) falls below this",
          target="lloyd.tol", cli="--tol"),
    Param("max_iter", Integer(1, INT32_MAX), CORE, "maximum number of iterations (Lloyd or EM)",
          target="lloyd.max_iter", cli="--max-iter"),
    Param("relocate_empty", Boolean(), CORE,
          "move empty clusters onto the points farthest from their centers",
          target="lloyd.relocate_empty"),
)

#: The parameters of the k-means family, in KMeans' signature order.
KMEANS_PARAMS = ParamTable(
    [
        Param("n_clusters", Integer(1, INT32_MAX), CORE, "number of clusters C",
              target="n_clusters", cli=("-C", "--clusters")),
        init_param(_core.KMeansParams().seeding.method),
        N_INIT_PARAM,
        coreset_size_param(None),
        *SEEDING_PARAMS,
        *LLOYD_PARAMS,
        metric_param(),
        COMPUTE_LABELS_PARAM,
        LABELS_PARAM,
        *RUN_PARAMS,
    ],
    core_params=_core.KMeansParams,
)
_D = KMEANS_PARAMS.defaults


@fill_doc
class KMeans(PipelineEstimator, ClusterMixin, TransformerMixin, BaseEstimator):
    """K-means clustering with fast seeding and optional lightweight coresets.

    Two configurations reproduce the baselines of the vc-GMM papers:

    - ``KMeans(C)`` ("k-means++"): k-means++ seeding (D^2 sampling) and
      Lloyd iterations on the full data;
    - ``KMeans(C, init="afk-mc2", coreset_size=m)`` ("LWCS"): a lightweight
      coreset of ``m`` weighted points, AFK-MC^2 seeding and weighted Lloyd
      iterations on the coreset.

    The Lloyd iterations stop when the relative change of the (weighted)
    quantization error falls below ``tol``, when no label changes, or after
    ``max_iter`` iterations. ``inertia_`` and ``labels_`` are computed on the
    full training data with the final centers: at the end of ``fit``
    (``compute_labels=True``, the default) or on their first access
    (``compute_labels=False``).

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters C, 1 <= C <= n_samples.
    init : {"k-means++", "afk-mc2", "random", "auto"} or array-like of shape \
            (n_clusters, n_features), default="k-means++"
        Seeding: D^2 sampling, AFK-MC^2, C distinct random samples of the
        points fitted, or the given initial centers.
        %(init_auto)s
    n_init : int, default=1
        %(n_init)s
        With given initial centers and no coreset one run is done
        (RuntimeWarning); chunked and Dask data take ``n_init=1`` only.
    coreset_size : int, "auto" or None, default=None
        %(coreset_size)s
    chain_length : int, default=20
        %(chain_length)s
    n_local_trials : int or "auto", default="auto"
        %(n_local_trials)s
    tol : float, default=1e-4
        Relative change of the quantization error below which the iterations
        stop (0: run until no label changes or ``max_iter``).
    max_iter : int, default=300
        Maximum number of Lloyd iterations.
    relocate_empty : bool, default=True
        Move empty clusters onto the points farthest from their centers (as
        scikit-learn does), so that n_clusters non-empty clusters come back
        whenever the data have enough distinct points.
    metric : {"euclidean", "cosine"}, default="euclidean"
        %(metric_spherical)s
    compute_labels : bool, default=True
        %(compute_labels)s
    labels : {"exact", "approx"}, default="exact"
        %(labels)s
    %(run_params)s

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Final centers (the training data's dtype).
    labels_ : ndarray of shape (n_samples,), dtype int32
        Nearest final center of every training sample (with
        ``compute_labels=False``: computed on first access).
    inertia_ : float
        Weighted quantization error of the training data with the final
        centers (with ``compute_labels=False``: computed on first access).
    n_iter_ : int
        Lloyd iterations run (of the run kept, with ``n_init > 1``).
    converged_ : bool
        Whether the iterations stopped by ``tol`` (or a fixed point) rather than ``max_iter``.
    objective_ : ndarray of shape (n_iter,)
        Quantization error at each iteration's assignment step (on the coreset
        when one is used).
    n_relocated_ : int
        Empty clusters relocated during the iterations.
    n_distance_evals_ : dict
        Distance evaluations per phase: ``coreset``, ``seeding``, ``iterations``
        and ``evaluation`` (the final labels/inertia on the full data), summed
        over the ``n_init`` runs.
    timings_ : dict
        Wall time in seconds per phase (same keys), summed over the runs.
    coreset_indices_ : ndarray of shape (coreset_size,) or None
        Rows of the training data in the coreset.
    coreset_weights_ : ndarray of shape (coreset_size,) or None
        Their coreset weights.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    vcgmm.VCGMM : truncated variational EM on a coreset (vc-GMM), much faster at large C.

    Examples
    --------
    >>> import numpy as np
    >>> from vcgmm import KMeans
    >>> X = np.random.default_rng(0).normal(size=(1000, 2))
    >>> km = KMeans(n_clusters=4, random_state=0).fit(X)
    >>> km.cluster_centers_.shape
    (4, 2)
    """

    _params = KMEANS_PARAMS
    # the vc-GMM papers' k-means++ baseline: classic D^2 seeding, then Lloyd
    paper_params = {"init": "k-means++", "n_local_trials": 1, "coreset_size": None}
    _count_param = "n_clusters"
    _core_fit = staticmethod(_core.fit_kmeans)
    _spherical_centers = True

    __init__ = make_init(KMEANS_PARAMS)

    def _iteration_evals(self, fit_n, params):
        return fit_n * params.n_clusters  # Lloyd: all n C distances

    @fill_doc
    def fit(self, X, y=None, sample_weight=None):
        """Compute the clustering.

        Parameters
        ----------
        %(fit_params)s

        Returns
        -------
        self : KMeans
            Fitted estimator.
        """
        X, sample_weight, source = self._training_input(X, sample_weight)
        exact = self._exact_labels_at_fit()
        values, run, w, n_distance_evals, timings = self._fit(
            X, sample_weight, return_labels=exact, evaluate=exact)
        if source is not None:
            self.n_features_in_ = source.n_features
        r = run.result
        self.cluster_centers_ = run.centers
        self.n_iter_ = int(r.n_iter)
        self.converged_ = bool(r.converged)
        self.objective_ = self._objective_scale() * r.objective
        self.n_relocated_ = int(r.n_relocated)
        self.coreset_indices_ = run.coreset_indices
        self.coreset_weights_ = run.coreset_weights
        self._set_evaluation(X, w, run, values, n_distance_evals, timings)
        if isinstance(run.labels, np.ndarray):  # not when lazy (Dask) or left to first access
            self._after_evaluation(run.labels)
        return self

    # n_init runs are ranked by their inertia on the full training data,
    # which the core's evaluation stage computes.
    _rank_needs_evaluation = True

    def _rank_run(self, X, w, run, values):
        return float(run.result.inertia)

    def _after_evaluation(self, labels):
        if self.relocate_empty:
            warn_distinct_clusters(labels, self.cluster_centers_.shape[0])
        else:
            warn_distinct_clusters(labels, self.cluster_centers_.shape[0], (
                "relocate_empty=False keeps the clusters Lloyd's iterations empty (the default "
                "relocate_empty=True moves them onto the farthest points), or the data have "
                "too few distinct points."))

    score = kmeans_score


@fill_doc
def lloyd(X, centers, *, sample_weight=None, max_iter=_D["max_iter"], tol=_D["tol"],
          relocate_empty=_D["relocate_empty"], metric="euclidean", n_threads=None,
          verbose=False):
    """Weighted Lloyd iterations (k-means) from given initial centers.

    Each iteration assigns every point to its nearest center (exact, blocked
    matrix products) and moves every center to the weighted mean of its
    points. From the second iteration on, each point's search starts from its
    last label and measures only the centers that could be nearer (the same
    result, often far fewer distances on clustered data with many points per
    center; ``info["n_distance_evals"]`` counts them). Stops when the
    relative change of the quantization error is below ``tol``, when no label
    changes, or after ``max_iter`` iterations.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (or a coreset, with its weights as ``sample_weight``).
    centers : array-like of shape (n_clusters, n_features)
        Initial centers (converted to X's dtype; not modified).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; None means all ones. Zero entries are ignored (the
        result is that of Lloyd without those rows); at least as many entries
        as centers must be positive.
    max_iter : int, default=300
        Maximum number of iterations (>= 1).
    tol : float, default=1e-4
        Relative change of the quantization error that counts as converged.
    relocate_empty : bool, default=True
        Move empty clusters onto the points farthest from their centers.
    metric : {"euclidean", "cosine"}, default="euclidean"
        "cosine": spherical k-means: X and the centers are scaled to unit
        length (copies), the centers are rescaled to unit length after every
        update, and ``info["objective"]`` is ``sum_n w_n (1 - cos(x_n, c))``.
    n_threads : int, default=None
        %(n_threads)s
    verbose : bool, default=False
        %(verbose)s

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features)
        Final centers.
    info : dict
        ``objective`` (quantization error of each iteration's assignment),
        ``n_iter``, ``converged``, ``n_relocated``, ``n_distance_evals`` and
        ``timings`` (per phase, as in every result).

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.array([[0.0], [1.0], [10.0], [11.0]])
    >>> centers, info = vcgmm.lloyd(X, [[0.0], [1.0]])
    >>> centers.ravel().tolist(), info["converged"]
    ([0.5, 10.5], True)
    """
    X = as_data(X)
    centers = check_centers(centers, X)
    if centers.shape[0] > X.shape[0]:
        raise ValueError(f"centers has {centers.shape[0]} rows but X only {X.shape[0]} samples.")
    w = check_sample_weight(sample_weight, X)
    # Rows of weight 0 do not exist: Lloyd runs on X[w > 0] (the same result).
    X, w, _ = positive_rows(X, w, centers.shape[0], what="len(centers)")
    values = KMEANS_PARAMS.validate({"max_iter": max_iter, "tol": tol,
                                     "relocate_empty": relocate_empty, "metric": metric})
    params = KMEANS_PARAMS.to_core(values).lloyd
    scale = 1.0
    if values["metric"] == "cosine":  # spherical k-means, objective sum w (1 - cos)
        X, centers = normalize_rows(X, "X"), normalize_rows(centers, "centers")
        params.spherical, scale = True, 0.5
    centers, r = _core.lloyd(X, w, centers, params, run_options(n_threads, 0, verbose))  # Lloyd draws nothing
    info = {
        "objective": scale * r.objective,
        "n_iter": int(r.n_iter),
        "converged": bool(r.converged),
        "n_relocated": int(r.n_relocated),
        "n_distance_evals": r.n_distance_evals,
        "timings": r.timings,
    }
    return centers, info
