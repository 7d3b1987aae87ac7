"""k-means: the papers' "k-means++" and "LWCS" baselines (estimator
:class:`KMeans`) and weighted Lloyd iterations from given centers (:func:`lloyd`)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._chunked import as_source
from ._coreset import coreset_size_param
from ._estimator_base import (COMPUTE_LABELS_PARAM, LABELS_PARAM, N_INIT_PARAM,
                              PipelineEstimator, user_stacklevel)
from ._loader import core as _core
from ._metric import metric_param, normalize_rows
from ._params import make_init, CORE, INT32_MAX, Boolean, Integer, Param, ParamTable, Real
from ._run import RUN_PARAMS, run_options
from ._seeding import SEEDING_PARAMS, init_param
from ._validation import as_data, check_centers, check_sample_weight, positive_rows

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
    init : {"k-means++", "afk-mc2"} or array-like of shape (n_clusters, n_features), \
            default="k-means++"
        Seeding: D^2 sampling, AFK-MC^2, or the given initial centers.
    n_init : int, default=1
        Number of runs, each with its own seed (drawn in turn from
        ``random_state``, so run 0 is the fit ``n_init=1`` gives); the run of
        the lowest ``inertia_`` (weighted quantization error on the full
        training data) is kept. Each extra run costs a whole fit plus one
        exact pass over the training data. With explicit initial centers and
        no coreset every run would be the same, so one is done (with a
        RuntimeWarning), as in scikit-learn. Chunked and Dask data take
        ``n_init=1`` only (ValueError otherwise).
    coreset_size : int, "auto" or None, default=None
        Fit on a lightweight coreset of this many points (n_clusters <=
        coreset_size <= 4 * n_samples); "auto" is
        ``min(n_samples, max(4096, 64 * n_clusters))``
        (:func:`vcgmm.default_coreset_size`); None fits on all points.
    chain_length : int, default=20
        AFK-MC^2 Markov chain length, 1 to 10000 (used when ``init="afk-mc2"``).
    n_local_trials : int or "auto", default=1
        k-means++ candidates per step (1 to 1000); 1 is classic D^2 sampling,
        larger values give scikit-learn's greedy variant ("auto": ``2 + ln C``).
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
        "cosine": spherical k-means (Dhillon & Modha, 2001) for embeddings:
        the rows are scaled to unit length (one copy of X; rows of norm zero
        are refused), centers are rescaled to unit length after every update,
        ``inertia_``/``score`` are ``sum_n w_n (1 - cos(x_n, c))`` and
        ``transform`` gives cosine distances ``1 - cos``.
    compute_labels : bool, default=True
        Compute ``labels_`` and ``inertia_`` at the end of ``fit`` (an exact
        O(n_samples n_clusters n_features) pass over the training data, the
        ``evaluation`` phase). False skips that pass: the estimator keeps a
        reference to the training data (no copy) and computes both on their
        first access, from the data as they are then (or never, when only
        ``predict``/``transform`` are needed); pickling or saving drops the
        reference, after which they are unavailable (AttributeError). With
        ``n_init > 1``, ``inertia_`` is always known (it ranks the runs).
        With chunked data the first access reads the chunks once more (Dask:
        lazy arrays). With ``metric="cosine"`` the rows are normalised again
        on first access (the normalised copy is not kept). As
        scikit-learn's ``MiniBatchKMeans(compute_labels=...)``.
    labels : {"exact", "approx"}, default="exact"
        How ``labels_`` and ``inertia_`` are computed (at the end of ``fit``
        or, with ``compute_labels=False``, on first access). "exact": the
        blocked scan over all centers (O(n_samples centers n_features)).
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
        Threads to use; None or -1 means OpenMP's default (``OMP_NUM_THREADS``
        if set, else every CPU available). Results do not depend on the number
        of threads.
    random_state : int, RandomState instance or None, default=None
        Seed of the coreset and the seeding.
    verbose : bool, default=False
        Log each phase and iteration to the ``"vcgmm"`` logger.
    callback : callable or None, default=None
        Called with a :class:`vcgmm.ProgressRecord` (phase, iteration,
        objective, seconds, distance evaluations) after every iteration and
        at the end of the coreset, seeding and evaluation phases, on the
        calling thread; returning True stops the iterations there (the fit
        completes with the iterations done, ``converged_`` False).
        Exceptions it raises propagate out of ``fit``.

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
    _count_param = "n_clusters"
    _core_fit = staticmethod(_core.fit_kmeans)
    _spherical_centers = True

    __init__ = make_init(KMEANS_PARAMS)

    def _iteration_evals(self, fit_n, params):
        return fit_n * params.n_clusters  # Lloyd: all n C distances

    def fit(self, X, y=None, sample_weight=None):
        """Compute the clustering.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or chunked data
            Training data. float32 stays float32, other numbers become float64;
            C-contiguous float arrays (and memory maps) are used without a copy.
            Chunked data (lists of arrays or ``.npy`` paths, chunk functions,
            zarr or Dask arrays) need a coreset (``coreset_size`` set): it is
            drawn in two passes, then the chunks are read once more for
            ``labels_`` and ``inertia_`` (lazy for Dask); see
            :func:`vcgmm.fit_vcgmm`.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None means all ones. Zero entries are ignored: such a
            point does not exist for the fit (the result is that of the fit without it;
            it is still labelled with its nearest center); at least n_clusters
            entries must be positive.

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
        self._warn_distinct_clusters(labels, self.cluster_centers_.shape[0])

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the quantization error of X (higher is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None means all ones (a point of weight 0 adds
            nothing).

        Returns
        -------
        score : float
            ``-sum_n w_n min_c ||x_n - c||^2``.
        """
        check_is_fitted(self, "cluster_centers_")
        if as_source(X) is None:
            X = self._validate_X(X, reset=False)
            sample_weight = check_sample_weight(sample_weight, X)
        return -self._quantization_error(X, sample_weight)

    @staticmethod
    def _warn_distinct_clusters(labels, n_clusters):
        import warnings

        import numpy as np
        from sklearn.exceptions import ConvergenceWarning

        n_distinct = np.unique(labels).shape[0]
        if n_distinct < n_clusters:
            warnings.warn(
                f"Number of distinct clusters ({n_distinct}) found smaller than "
                f"n_clusters ({n_clusters}): the data have too few distinct points, "
                "so some centers coincide or hold no points.",
                ConvergenceWarning,
                stacklevel=user_stacklevel(),
            )


def lloyd(X, centers, *, sample_weight=None, max_iter=_D["max_iter"], tol=_D["tol"],
          relocate_empty=_D["relocate_empty"], metric="euclidean", n_threads=None,
          verbose=False):
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
        Threads to use; None or -1 means OpenMP's default (``OMP_NUM_THREADS``
        if set, else every CPU available).
    verbose : bool, default=False
        Log every iteration to the ``"vcgmm"`` logger.

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
