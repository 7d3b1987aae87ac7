"""scikit-learn compatible k-means: the papers' "k-means++" and "LWCS" baselines."""

from __future__ import annotations


from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._estimator_base import CenterBasedEstimator
from ._loader import core as _core
from ._logging import progress_callback
from ._validation import (
    check_bool,
    check_centers,
    check_coreset_size,
    check_float,
    check_int,
    check_n_threads,
    check_sample_weight,
    seed_from,
)

__all__ = ["KMeans"]

_INIT_METHODS = ("k-means++", "afk-mc2")


class KMeans(CenterBasedEstimator, ClusterMixin, TransformerMixin, BaseEstimator):
    """K-means clustering with fast seeding and optional lightweight coresets.

    Two configurations reproduce the baselines of the vc-GMM papers:

    - ``KMeans(C)`` ("k-means++"): k-means++ seeding (D^2 sampling) and
      Lloyd iterations on the full data;
    - ``KMeans(C, init="afk-mc2", coreset_size=m)`` ("LWCS"): a lightweight
      coreset of ``m`` weighted points, AFK-MC^2 seeding and weighted Lloyd
      iterations on the coreset.

    The Lloyd iterations stop when the relative change of the (weighted)
    quantization error falls below ``tol``, when no label changes, or after
    ``max_iter`` iterations. ``inertia_`` and ``labels_`` are always computed
    on the full training data with the final centers.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters C, 1 <= C <= n_samples.
    init : {"k-means++", "afk-mc2"} or array-like of shape (n_clusters, n_features), \
            default="k-means++"
        Seeding: D^2 sampling, AFK-MC^2, or the given initial centers.
    coreset_size : int or None, default=None
        Fit on a lightweight coreset of this many points (n_clusters <=
        coreset_size <= 4 * n_samples); None fits on all points.
    chain_length : int, default=20
        AFK-MC^2 Markov chain length (used when ``init="afk-mc2"``).
    n_local_trials : int, default=1
        k-means++ candidates per step; 1 is classic D^2 sampling, larger values
        give scikit-learn's greedy variant.
    tol : float, default=1e-4
        Relative change of the quantization error below which the iterations
        stop (0: run until no label changes or ``max_iter``).
    max_iter : int, default=300
        Maximum number of Lloyd iterations.
    relocate_empty : bool, default=True
        Move empty clusters onto the points farthest from their centers (as
        scikit-learn does), so that n_clusters non-empty clusters come back
        whenever the data have enough distinct points.
    n_threads : int or None, default=None
        Threads to use; None or -1 means all available. Results do not depend
        on the number of threads.
    random_state : int, RandomState instance or None, default=None
        Seed of the coreset and the seeding.
    verbose : bool, default=False
        Log each phase and iteration to the ``"vcgmm"`` logger.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Final centers (the training data's dtype).
    labels_ : ndarray of shape (n_samples,), dtype int32
        Nearest final center of every training sample.
    inertia_ : float
        Weighted quantization error of the training data with the final centers.
    n_iter_ : int
        Lloyd iterations run.
    converged_ : bool
        Whether the iterations stopped by ``tol`` (or a fixed point) rather than ``max_iter``.
    objective_ : ndarray of shape (n_iter_,)
        Quantization error at each iteration's assignment step (on the coreset
        when one is used).
    n_relocated_ : int
        Empty clusters relocated during the iterations.
    n_distance_evals_ : dict
        Distance evaluations per phase: ``coreset``, ``seeding``, ``iterations``
        and ``evaluation`` (the final labels/inertia on the full data).
    timings_ : dict
        Wall time in seconds per phase (same keys).
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

    def __init__(
        self,
        n_clusters=8,
        *,
        init="k-means++",
        coreset_size=None,
        chain_length=20,
        n_local_trials=1,
        tol=1e-4,
        max_iter=300,
        relocate_empty=True,
        n_threads=None,
        random_state=None,
        verbose=False,
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.coreset_size = coreset_size
        self.chain_length = chain_length
        self.n_local_trials = n_local_trials
        self.tol = tol
        self.max_iter = max_iter
        self.relocate_empty = relocate_empty
        self.n_threads = n_threads
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None, sample_weight=None):
        """Compute the clustering.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data. float32 stays float32, other numbers become float64;
            C-contiguous float arrays (and memory maps) are used without a copy.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Strictly positive weights; None means all ones.

        Returns
        -------
        self : KMeans
            Fitted estimator.
        """
        X = self._validate_X(X, reset=True)
        n_clusters = check_int(self.n_clusters, "n_clusters", min_value=1)
        self._check_n_clusters_fit(n_clusters, X, "n_clusters")
        sample_weight = check_sample_weight(sample_weight, X)
        init_centers = None
        if isinstance(self.init, str):
            if self.init not in _INIT_METHODS:
                raise ValueError(
                    f"init must be one of {_INIT_METHODS} or an array of shape "
                    f"(n_clusters, n_features), got {self.init!r}."
                )
            init = self.init
        else:
            init_centers = check_centers(self.init, X, name="init", n_clusters=n_clusters)
            init = "given"
        coreset_size = None
        if self.coreset_size is not None:
            coreset_size = check_coreset_size(self.coreset_size, X.shape[0], n_clusters,
                                              "coreset_size")
        result = _core.fit_kmeans(
            X,
            sample_weight,
            n_clusters,
            init,
            init_centers,
            coreset_size or 0,
            check_int(self.chain_length, "chain_length", min_value=1),
            check_int(self.n_local_trials, "n_local_trials", min_value=1),
            check_int(self.max_iter, "max_iter", min_value=1),
            check_float(self.tol, "tol", min_value=0.0),
            check_bool(self.relocate_empty, "relocate_empty"),
            True,
            True,
            seed_from(self.random_state),
            check_n_threads(self.n_threads),
            progress_callback(check_bool(self.verbose, "verbose")),
        )
        self.cluster_centers_ = result["centers"]
        self.labels_ = result["labels"]
        self.inertia_ = float(result["inertia"])
        self.n_iter_ = int(result["n_iter"])
        self.converged_ = bool(result["converged"])
        self.objective_ = result["objective"]
        self.n_relocated_ = int(result["n_relocated"])
        self.n_distance_evals_ = dict(result["n_distance_evals"])
        self.timings_ = dict(result["seconds"])
        self.coreset_indices_ = result["coreset_indices"]
        self.coreset_weights_ = result["coreset_weights"]
        self._warn_distinct_clusters(self.labels_, n_clusters)
        return self

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the quantization error of X (higher is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Strictly positive weights; None means all ones.

        Returns
        -------
        score : float
            ``-sum_n w_n min_c ||x_n - c||^2``.
        """
        check_is_fitted(self, "cluster_centers_")
        X = self._validate_X(X, reset=False)
        sample_weight = check_sample_weight(sample_weight, X)
        return -self._quantization_error(X, sample_weight)
