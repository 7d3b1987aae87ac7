"""scikit-learn compatible estimator for vc-GMM (and var-GMM-S)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._estimator_base import CenterBasedEstimator
from ._loader import core as _core
from ._logging import progress_callback
from ._validation import (
    check_bool,
    check_coreset_size,
    check_float,
    check_int,
    check_n_threads,
    check_sample_weight,
    seed_from,
)
from ._vcgmm import _check_init, default_coreset_size

__all__ = ["VCGMM"]


class VCGMM(CenterBasedEstimator, ClusterMixin, TransformerMixin, BaseEstimator):
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
    data after the fit.

    Parameters
    ----------
    n_components : int, default=8
        Number of Gaussians C, 1 <= C <= n_samples.
    G : int, default=5
        Neighbourhood size (each point keeps its G nearest clusters and
        searches their G neighbours). Clamped to n_components (then the loop
        is exact EM). The papers use 3 to 7.
    coreset_size : int, "auto" or None, default="auto"
        Coreset size N' (n_components <= N' <= 4 * n_samples). "auto":
        ``min(n_samples, max(4096, 64 * n_components))``. None: no coreset
        (var-GMM-S on all points).
    plus1 : bool, default=False
        Add one random cluster to every search space ("G = 3+1").
    init : {"afk-mc2", "k-means++"} or array-like of shape (n_components, n_features), \
            default="afk-mc2"
        Seeding, or the initial means.
    chain_length : int, default=20
        AFK-MC^2 chain length.
    n_init_estep : int, default=0
        Extra E-steps before the first M-step.
    tol : float, default=1e-4
        Relative change of the free energy that stops the iterations (0: run max_iter).
    max_iter : int, default=1000
        Maximum number of EM iterations.
    n_threads : int or None, default=None
        Threads; None or -1 means all available. Results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seed of the coreset, the seeding and the variational initialisation.
    verbose : bool, default=False
        Log every phase and iteration to the ``"vcgmm"`` logger.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_components, n_features)
        The means (training data's dtype).
    means_ : ndarray of shape (n_components, n_features)
        Same array as ``cluster_centers_`` (the mixture's vocabulary).
    sigma2_ : float
        Shared variance per feature.
    free_energy_ : ndarray of shape (n_iter_,)
        Free energy (eq. 10; summed over the weighted coreset or data) of every E-step.
    lower_bound_ : float
        Final free energy per unit of training weight, comparable to ``score``.
    n_iter_ : int
        EM iterations run.
    converged_ : bool
        Whether the free energy converged (relative change < tol).
    labels_ : ndarray of shape (n_samples,), dtype int32
        Nearest mean of every training sample (exact).
    inertia_ : float
        Weighted quantization error of the training data with ``cluster_centers_``.
    coreset_indices_ : ndarray of shape (N',) or None
        Rows of the training data in the coreset (None for var-GMM-S).
    coreset_weights_ : ndarray of shape (N',) or None
        Their coreset weights.
    G_ : int
        Effective neighbourhood size.
    n_distance_evals_ : dict
        Distance evaluations per phase: ``coreset``, ``seeding``,
        ``iterations`` (E-steps), ``evaluation`` (labels_/inertia_).
    timings_ : dict
        Wall time in seconds per phase (same keys).
    n_features_in_ : int
        Number of features seen during fit.

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
    """

    def __init__(
        self,
        n_components=8,
        *,
        G=5,
        coreset_size="auto",
        plus1=False,
        init="afk-mc2",
        chain_length=20,
        n_init_estep=0,
        tol=1e-4,
        max_iter=1000,
        n_threads=None,
        random_state=None,
        verbose=False,
    ):
        self.n_components = n_components
        self.G = G
        self.coreset_size = coreset_size
        self.plus1 = plus1
        self.init = init
        self.chain_length = chain_length
        self.n_init_estep = n_init_estep
        self.tol = tol
        self.max_iter = max_iter
        self.n_threads = n_threads
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None, sample_weight=None):
        """Fit the mixture.

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
        self : VCGMM
            Fitted estimator.
        """
        X = self._validate_X(X, reset=True)
        C = check_int(self.n_components, "n_components", min_value=1)
        self._check_n_clusters_fit(C, X, "n_components")
        G = check_int(self.G, "G", min_value=1)
        sample_weight = check_sample_weight(sample_weight, X)
        if self.coreset_size is None:
            coreset_size = 0
        elif isinstance(self.coreset_size, str):
            if self.coreset_size != "auto":
                raise ValueError(
                    f"coreset_size must be an int, 'auto' or None, got {self.coreset_size!r}."
                )
            coreset_size = default_coreset_size(X.shape[0], C)
        else:
            coreset_size = check_coreset_size(self.coreset_size, X.shape[0], C, "coreset_size")
        init, init_means = _check_init(self.init, X, C)
        r = _core.fit_vcgmm(
            X,
            sample_weight,
            C,
            G,
            check_bool(self.plus1, "plus1"),
            coreset_size,
            init,
            init_means,
            check_int(self.chain_length, "chain_length", min_value=1),
            1,
            check_int(self.n_init_estep, "n_init_estep", min_value=0),
            check_float(self.tol, "tol", min_value=0.0),
            check_int(self.max_iter, "max_iter", min_value=1),
            True,
            True,
            seed_from(self.random_state),
            check_n_threads(self.n_threads),
            progress_callback(check_bool(self.verbose, "verbose")),
        )
        self.cluster_centers_ = r["means"]
        self.sigma2_ = float(r["sigma2"])
        self.free_energy_ = r["free_energy"]
        if coreset_size:
            fit_weight = float(np.sum(r["coreset_weights"]))
        else:
            fit_weight = float(X.shape[0] if sample_weight is None else np.sum(sample_weight))
        self.lower_bound_ = float(self.free_energy_[-1] / fit_weight)
        self.n_iter_ = int(r["n_iter"])
        self.converged_ = bool(r["converged"])
        self.labels_ = r["labels"]
        self.inertia_ = float(r["inertia"])
        self.coreset_indices_ = r["coreset_indices"]
        self.coreset_weights_ = r["coreset_weights"]
        self.G_ = min(G, C)
        self.n_distance_evals_ = dict(r["n_distance_evals"])
        self.timings_ = dict(r["seconds"])
        self._warn_coinciding_centers(self.cluster_centers_)
        return self

    @property
    def means_(self):
        """The means, shape (n_components, n_features); alias of ``cluster_centers_``."""
        check_is_fitted(self, "cluster_centers_")
        return self.cluster_centers_

    def score_samples(self, X):
        """Exact log-likelihood of each sample under the fitted mixture.

        ``log p(x) = log(1/C sum_c N(x; mu_c, sigma2 I))``, over all C
        components (blocked, O(n_samples C n_features)).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_likelihood : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "cluster_centers_")
        X = self._validate_X(X, reset=False)
        return _core.gmm_log_likelihood(
            X, self._centers_like(X), self.sigma2_, check_n_threads(self.n_threads)
        )

    def score(self, X, y=None, sample_weight=None):
        """Mean (weighted) log-likelihood per sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Strictly positive weights; None means all ones.

        Returns
        -------
        float
        """
        log_likelihood = self.score_samples(X)
        sample_weight = check_sample_weight(sample_weight, log_likelihood[:, None])
        return float(np.average(log_likelihood, weights=sample_weight))

    def predict_proba(self, X):
        """Posterior probabilities restricted to the G most probable components.

        The truncated posterior of the paper (eq. 6) with K(n) = the ``G_``
        nearest means of each sample: exact responsibilities renormalized over
        those G components, zero elsewhere.

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
        idx, resp = _core.gmm_truncated_posteriors(
            X, self._centers_like(X), self.sigma2_, self.G_, check_n_threads(self.n_threads)
        )
        n, k = idx.shape
        indptr = np.arange(0, n * k + 1, k, dtype=np.int64)
        proba = sp.csr_matrix(
            (resp.ravel(), idx.ravel().astype(np.int64), indptr),
            shape=(n, self.cluster_centers_.shape[0]),
        )
        proba.sort_indices()
        return proba
