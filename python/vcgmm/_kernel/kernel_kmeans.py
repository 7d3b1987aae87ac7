"""Kernel k-means: the truncated mini-batch algorithm of "Mini-batch kernel
k-means", its untruncated mini-batch and full-batch baselines (estimator
:class:`KernelKMeans`, function :func:`fit_kernel_kmeans`)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Optional

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._base.docs import fill_doc
from .._estimator.paper import PaperSettings
from .._base.inputs import is_chunked
from .._base.loader import core as _core
from .._estimator.base import N_INIT_PARAM, run_seeds, warn_distinct_clusters
from .._estimator.cost import warn_if_huge
from .._base.params import (
    CORE,
    INT32_MAX,
    AnyOf,
    Boolean,
    Constraint,
    Integer,
    NoneValue,
    Options,
    Param,
    ParamTable,
    Real,
    make_init,
)
from .._base.run import RUN_PARAMS, run_options
from .._base.validation import (
    check_finite_magnitude,
    check_n_clusters,
    check_sample_weight,
    expand_rows,
    positive_rows,
    friendly_array_errors,
    target_dtypes,
    reject_non_numeric,
)

#: batch_size="auto": min(this, n_samples) (the core's own default batch).
_DEFAULT_BATCH = int(_core.KernelKMeansParams().batch_size)

__all__ = ["KernelKMeans", "KernelKMeansResult", "fit_kernel_kmeans", "KERNEL_KMEANS_PARAMS"]

#: Kernels computed by the core from X, and the graph kernels built from X's
#: k-nn graph and then used as precomputed.
_POINT_KERNELS = tuple(_core.kernel_types())
_GRAPH_KERNELS = tuple(_core.graph_kernels())
_GRAPH = _core.GraphKernelParams()


class IndexInit(Constraint):
    """'k-means++' or an array-like of n_clusters row indices of the training data
    (checked against the data in fit)."""

    def accepts(self, value):
        if isinstance(value, str):
            return value == "k-means++"
        return hasattr(value, "__len__") or hasattr(value, "__array__")

    def error(self, value, name):
        kind = ValueError if isinstance(value, str) else TypeError
        return kind(f"{name} must be 'k-means++' or an array of n_clusters row indices of X, "
                    f"got {value!r}.")

    def describe(self):
        return "'k-means++' or an array of n_clusters row indices"


#: The parameters of the kernel k-means family, in KernelKMeans' signature order.
KERNEL_KMEANS_PARAMS = ParamTable(
    [
        Param("n_clusters", Integer(1, INT32_MAX), CORE, "number of clusters k",
              target="n_clusters", cli=("-C", "--clusters")),
        Param("kernel", Options(_POINT_KERNELS + _GRAPH_KERNELS), "rbf",
              "kernel: rbf, laplacian, poly, linear, precomputed (X is the kernel matrix), or "
              "the graph kernels knn / heat built from X's k-nn graph",
              cli="--kernel"),
        Param("gamma", AnyOf(Options(("auto",)), Real(0.0, low_open=True)), "auto",
              "kernel coefficient: exp(-gamma d) for rbf/laplacian, (gamma <x,y> + coef0)^degree "
              "for poly; 'auto': 1 / median pairwise distance (rbf, laplacian), 1 / n_features "
              "(poly)", cli="--gamma"),
        Param("kappa", AnyOf(NoneValue(), Real(0.0, low_open=True)), None,
              "the paper's Gaussian bandwidth, exp(-||x-y||^2 / kappa): gamma = 1 / kappa",
              cli="--kappa"),
        Param("degree", Integer(1, 1000), CORE, "degree of the poly kernel",
              target="kernel.degree", cli="--degree"),
        Param("coef0", Real(), CORE, "offset of the poly kernel", target="kernel.coef0",
              cli="--coef0"),
        Param("n_neighbors", Integer(1, INT32_MAX), _GRAPH.n_neighbors,
              "neighbours of each point in the k-nn graph (kernel knn / heat)",
              cli="--n-neighbors"),
        Param("t", Real(0.0, low_open=True), _GRAPH.t, "time of the heat kernel exp(-t L)",
              cli="--heat-t"),
        Param("n_modes", AnyOf(NoneValue(), Integer(1, INT32_MAX)), None,
              "kernel knn: None for the paper's dense D^-1 A D^-1; m for its m slowest graph "
              "modes as features (the normalized-cut relaxation; m = n_clusters is spectral "
              "clustering), O(n m) memory", cli="--n-modes"),
        Param("algorithm", Options(tuple(_core.kernel_kmeans_algorithms())), CORE,
              "truncated (mini-batch with truncated centers, the paper's), minibatch "
              "(untruncated, O(n b) per iteration) or full (O(n^2) per iteration)",
              target="algorithm", cli="--kernel-algorithm"),
        Param("batch_size", AnyOf(Options(("auto",)), Integer(1, None)), "auto",
              f"points per mini-batch b (drawn with replacement), 1 <= b <= n_samples; "
              f"'auto': min({_DEFAULT_BATCH}, n_samples)",
              target="batch_size", cli="--batch-size"),
        Param("tau", Integer(1, None), CORE,
              "points each truncated center keeps (its most recent batches)",
              target="tau", cli="--tau"),
        Param("renormalize", Boolean(), CORE,
              "truncated: rescale each center's kept window to weight 1 (False: the paper's "
              "Eq. (1) as written, the dropped weight lost)",
              target="renormalize", cli="--renormalize"),
        Param("learning_rate", Options(tuple(_core.learning_rates())), CORE,
              "beta: sqrt(b_j / b) (Schwartzman 2023, the paper's); sklearn: b_j / points "
              "assigned so far", target="learning_rate", cli="--learning-rate"),
        Param("init", IndexInit(), "k-means++",
              "'k-means++' (D^2 sampling in feature space) or n_clusters row indices of X"),
        Param("max_iter", Integer(1, INT32_MAX), CORE,
              "iterations (mini-batch: batches; full: Lloyd iterations)",
              target="max_iter", cli="--max-iter"),
        Param("tol", Real(0.0), CORE,
              "stop when the mean objective (mini-batch: on the batch) improves by less "
              "than this (0: off)", target="tol", cli="--tol"),
        N_INIT_PARAM,
        Param("compute_labels", Boolean(), True,
              "compute labels_ and inertia_ on all training points after fitting"),
        *RUN_PARAMS,
    ],
    core_params=_core.KernelKMeansParams,
)
_D = KERNEL_KMEANS_PARAMS.defaults


def _check_symmetric(K, name="X"):
    """A precomputed kernel must be symmetric (checked in row blocks: no n x n
    temporary)."""
    n = K.shape[0]
    scale = float(np.max(np.abs(np.diagonal(K)))) if n else 0.0
    tol = 1e3 * float(np.finfo(K.dtype).eps) * max(scale, float(np.finfo(K.dtype).tiny))
    step = max(1, (1 << 22) // max(n, 1))
    for r0 in range(0, n, step):
        block = K[r0:r0 + step]
        dev = np.abs(block - K[:, r0:r0 + step].T)
        if dev.size and float(dev.max()) > tol:
            i, j = np.unravel_index(int(np.argmax(dev)), dev.shape)
            raise ValueError(
                f"{name} must be a symmetric kernel matrix for kernel='precomputed': "
                f"{name}[{r0 + i}, {j}] = {float(K[r0 + i, j])!r} but {name}[{j}, {r0 + i}] = "
                f"{float(K[j, r0 + i])!r}.")


def _refuse_chunked(X, where):
    """TypeError for chunked or Dask X, raised before any conversion (np.asarray
    of a Dask or zarr array would compute or read all of it)."""
    if not is_chunked(X):
        return
    if where.endswith(".predict"):
        why = ("it evaluates the kernel between X, one array in memory, and the training "
               "points the model keeps")
        todo = ("Pass np.asarray(X) (or X.compute()) if it fits in memory, or predict block "
                "by block: X.map_blocks(est.predict, drop_axis=1, dtype=np.int32) for a Dask "
                "array.")
    else:
        why = ("kernel k-means keeps training points as its model (each center is a window "
               "of training points), so it needs X in memory")
        todo = ("Pass np.asarray(X) (or X.compute()) if it fits in memory; or cluster with "
                "VCGMM, KMeans(coreset_size='auto') or MiniBatchKMeans, which stream chunked "
                "and Dask data.")
    raise TypeError(f"{where} does not take chunked or Dask data as X: {why}. {todo}")


def _kernel_params(kernel, gamma, degree, coef0):
    """The core's KernelParams for a point kernel (gamma 0: the core's 'auto')."""
    p = _core.KernelParams()
    p.type = kernel
    p.gamma = 0.0 if gamma is None else float(gamma)
    p.degree = int(degree)
    p.coef0 = float(coef0)
    return p


@dataclass
class KernelKMeansResult:
    """Result of :func:`fit_kernel_kmeans`.

    Its fields are the fitted attributes of :class:`KernelKMeans` without
    the trailing underscore (``labels``, ``inertia``, ``objective``,
    ``n_iter``, ``converged``, ``gamma``, ``init_indices``, ``support``,
    ``center_indptr``, ``center_indices``, ``center_coef``,
    ``center_sqnorms``, ``n_kernel_evals``, ``timings``), with the same
    meaning; center j is ``sum_t center_coef[t]
    phi(X[support[center_indices[t]]])`` over ``t`` in
    ``[center_indptr[j], center_indptr[j + 1])``.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> import vcgmm
    >>> X, y = make_circles(1000, factor=0.3, noise=0.05, random_state=0)
    >>> r = vcgmm.fit_kernel_kmeans(X, 2, gamma=10.0, batch_size=256, tau=100, random_state=0)
    >>> r.labels.shape, r.center_indptr.shape, bool(r.inertia >= 0)
    ((1000,), (3,), True)
    """

    labels: np.ndarray
    inertia: float
    objective: np.ndarray
    n_iter: int
    converged: bool
    gamma: Optional[float]
    init_indices: np.ndarray
    support: np.ndarray
    center_indptr: np.ndarray
    center_indices: np.ndarray
    center_coef: np.ndarray
    center_sqnorms: np.ndarray
    n_kernel_evals: dict
    timings: dict


@fill_doc
class KernelKMeans(PaperSettings, ClusterMixin, BaseEstimator):
    """Kernel k-means: truncated mini-batch, mini-batch or full-batch.

    Clusters in the feature space of a kernel: each center is a convex
    combination of training points, ``C_j = sum_p a_jp phi(x_p)``, and points
    go to the center nearest in feature space,
    ``||phi(x) - C_j||^2 = K(x, x) - 2 <phi(x), C_j> + <C_j, C_j>``. Finds
    clusters that are not linearly separable (rings, moons).

    Three algorithms (``algorithm``):

    - ``"truncated"`` (default; "Mini-batch kernel k-means", Alg. 2): each
      iteration draws ``batch_size`` points with replacement, assigns them
      and moves each center towards the mean of its batch points,
      ``C_j <- (1 - alpha) C_j + alpha cm(B_j)``; each center keeps only its
      most recent batches, about ``tau`` points (older terms are dropped and
      the rest rescaled to sum 1). An iteration costs O(b (k tau + b))
      kernel evaluations, independent of n_samples.
    - ``"minibatch"`` (Alg. 1): the same without truncation, O(n b) per
      iteration (the recursion of the paper's Appendix A).
    - ``"full"``: Lloyd's algorithm in feature space (Dhillon et al. 2004),
      O(n^2) per iteration, until no label changes.

    All start from kernel k-means++ (D^2 sampling in feature space) or from
    given training points. Results do not depend on the number of threads.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters k, 1 <= k <= n_samples.
    kernel : {"rbf", "laplacian", "poly", "linear", "precomputed", "knn", "heat"}, default="rbf"
        ``rbf`` ``exp(-gamma ||x - y||^2)``, ``laplacian`` ``exp(-gamma ||x -
        y||_1)``, ``poly`` ``(gamma <x, y> + coef0)^degree``, ``linear`` ``<x,
        y>`` (scikit-learn's ``pairwise_kernels``); ``precomputed``: X is the
        symmetric kernel matrix (``predict`` takes the kernel between new and
        training points); ``knn`` and ``heat``: the paper's graph kernels,
        on the training points only (see Notes).
    gamma : float or "auto", default="auto"
        Kernel coefficient of rbf, laplacian and poly. "auto": for rbf and
        laplacian 1 / the median of the pairwise squared Euclidean (laplacian:
        L1) distances among up to 1000 training points drawn without
        replacement (a median heuristic; the paper tunes kappa by hand, and
        scaling this value often helps); for poly ``1 / n_features``.
    kappa : float or None, default=None
        The paper's bandwidth of the Gaussian kernel ``exp(-||x - y||^2 /
        kappa)``, an alternative to ``gamma`` (``gamma = 1 / kappa``); give
        one of the two.
    degree : int, default=3
        Degree of the poly kernel.
    coef0 : float, default=1.0
        Offset of the poly kernel.
    n_neighbors : int, default=10
        Neighbours per point of the k-nn graph (knn and heat kernels).
    t : float, default=1000.0
        Time of the heat kernel ``exp(-t L)``, which keeps the graph's modes
        of eigenvalue well below ``1 / t``: large t (hundreds to thousands)
        approaches spectral clustering, small t finds no clusters. Modes
        weighted below 1e-12 of the slowest are dropped.
    n_modes : int or None, default=None
        Kernel ``knn`` only. None: the paper's kernel ``D^-1 A D^-1``, a
        dense n x n matrix that is zero between non-neighbours, so that
        kernel k-means from point seeds moves labels by about one graph hop
        per iteration and often stays at its seeds (it does not separate
        two noisy rings). An integer m: the same kernel restricted to its m slowest
        graph modes, ``Z Z^T`` with ``Z = D^-1/2 V_m Lambda_m^1/2`` (V_m,
        Lambda_m the top eigenpairs of ``D^-1/2 A D^-1/2``), the spectral
        relaxation of the normalized cut (Dhillon, Guan & Kulis 2004): with
        ``m = n_clusters`` kernel k-means on it is spectral clustering's
        k-means step, and every center sees every point, so truncation works
        (bench/results/kernel_kmeans/kernel_kmeans_circles_ncut.md). It
        needs O(n m) memory instead of n^2. Unlike Dhillon et al.'s weighted
        kernel k-means, points are not weighted by their degree (as in
        scikit-learn's ``SpectralClustering``).
    algorithm : {"truncated", "minibatch", "full"}, default="truncated"
        See above.
    batch_size : int or "auto", default="auto"
        Points per mini-batch b (drawn with replacement), 1 <= b <= n_samples
        (mini-batch algorithms); "auto": ``min(1024, n_samples)`` (as
        scikit-learn's ``MiniBatchKMeans`` clips its default).
    tau : int, default=200
        Points each truncated center keeps: its most recent batches until
        they hold at least ``tau`` points (truncated algorithm). The paper
        uses 50 to 300.
    renormalize : bool, default=True
        Truncated algorithm: after dropping a center's old terms, rescale the
        kept ones to weight 1, so every center stays a convex combination of
        points (as the paper's analysis assumes). False keeps the weights of
        the paper's Eq. (1) as written (``KernelKMeans.paper``): the dropped
        weight is lost and the center shrinks towards the origin of the
        feature space, which collapses the fit when a center's newest batch
        alone holds more than ``tau`` points
        (bench/results/kernel_kmeans/kernel_kmeans_eq1_rates.md).
    learning_rate : {"beta", "sklearn"}, default="beta"
        ``"beta"``: ``alpha = sqrt(b_j / b)`` (Schwartzman 2023, the paper's;
        does not decay); ``"sklearn"``: ``alpha = b_j / (points assigned to j
        so far)`` (Sculley 2010, as scikit-learn's MiniBatchKMeans), where
        ``b_j`` is the number of batch points assigned to center j. With
        ``algorithm="truncated"`` the sklearn rate warns: it leaves the
        window's newest batches almost no weight, so the truncated center
        lags (the paper analyses truncation with the beta rate).
    init : "k-means++" or array-like of shape (n_clusters,), default="k-means++"
        Kernel k-means++ (D^2 sampling in feature space), or the row indices
        of the training points the centers start at.
    max_iter : int, default=200
        Iterations: mini-batches (the paper runs 200), or full-batch Lloyd
        iterations.
    tol : float, default=0.0
        Stop when the mean squared feature-space distance (mini-batch: over
        the batch before and after the update, the paper's epsilon, one more
        pass of the batch; full: over all points) improves by less than
        ``tol``; 0 turns it off. A batch's gain does not fall below its own
        noise, so ``tol`` must exceed that: the paper's analysis takes
        ``batch_size`` of order ``k / tol^2``.
    n_init : int, default=1
        %(n_init)s
        With given ``init`` and ``algorithm="full"`` one run is done
        (RuntimeWarning).
    compute_labels : bool, default=True
        %(compute_labels_after)s
    %(run_params)s

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,), dtype int32, or None
        Nearest final center of every training point (in feature space;
        None without compute_labels).
    inertia_ : float or None
        ``sum_x w_x min_j ||phi(x) - C_j||^2`` over the training data (w:
        sample_weight, ones without), computed as ``K(x,x) - 2 <phi(x), C_j>
        + <C_j, C_j>`` without clamping (negative for kernels that are not
        positive semidefinite).
    objective_ : ndarray of shape (n_iter,)
        Weighted mean squared feature-space distance to the nearest center at
        each iteration's assignment step (over the batch; full: all points).
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the iterations stopped by ``tol`` or a fixed point rather
        than ``max_iter``.
    gamma_ : float or None
        The kernel coefficient used ("auto" resolved); None for linear,
        precomputed and graph kernels.
    init_indices_ : ndarray of shape (n_clusters,)
        Training rows the centers started at.
    support_ : ndarray of shape (n_support,)
        Training rows the final centers are combinations of (the model keeps
        these points only; the full algorithm's centers use them all).
    support_vectors_ : ndarray of shape (n_support, n_features) or None
        Those training points (None for precomputed and graph kernels).
    center_indptr_, center_indices_, center_coef_ : ndarray
        Center j is ``sum_t center_coef_[t] phi(support_vectors_[center_indices_[t]])``
        over ``t`` in ``[center_indptr_[j], center_indptr_[j + 1])``; the
        coefficients of a center are positive and sum to 1.
    center_sqnorms_ : ndarray of shape (n_clusters,)
        ``<C_j, C_j>``. A cluster that ``algorithm="full"`` could not fill
        (fewer distinct points in feature space than ``n_clusters``, which
        the fit warns about) has no terms and ``inf`` here: it is never a
        point's nearest center.
    n_kernel_evals_, timings_ : dict
        Kernel evaluations K(x, y), x != y, and seconds per phase:
        ``seeding`` (gamma heuristic, kernel k-means++), ``iterations``,
        ``evaluation``, and for graph kernels ``graph`` (the k-nn graph).
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    vcgmm.KMeans : k-means in input space (linearly separable clusters), far cheaper.
    fit_kernel_kmeans : the same fit as a function.

    Notes
    -----
    Kernel evaluations per iteration (b = ``batch_size``): truncated about
    ``b (k tau + b)`` plus ``sum_j b_j (tau + b_j)`` for the centers'
    updates; minibatch ``n`` times the distinct batch points; full ``n^2``.
    Unlike the paper's Eq. (1), the kept coefficients of a truncated center
    are rescaled to sum 1 after old terms are dropped (``renormalize``), so
    every center stays a convex combination of points, as the paper's
    analysis assumes (without it a center shrinks towards the origin). With
    ``tau`` at least the
    number of points drawn, the truncated algorithm is the untruncated one.

    The graph kernels are ``D^-1 A D^-1`` (knn) and ``exp(-t L)`` with ``L =
    I - D^-1/2 A D^-1/2`` (heat), from the symmetrised
    ``n_neighbors``-nearest-neighbour graph A of X: a dense n x n matrix (8
    n^2 bytes in float64). The heat kernel is built from the graph's m
    slowest modes (those weighted at least 1e-12 of the slowest), found by
    Chebyshev-filtered subspace iteration on the sparse graph: O(n^2 m) for
    the matrix, with m in the tens at the default t; only when more than a
    quarter of all modes weigh that much (small t) does it fall back to a
    dense O(n^3) eigendecomposition, practical up to a few thousand points.
    They exist on the training points only: ``predict`` refuses them. With
    ``n_modes`` the knn kernel is not built: its m slowest modes come from
    the same filtered subspace iteration, and kernel k-means runs with the
    linear kernel on those m features (``n_kernel_evals_`` and ``timings_``
    count the graph under ``graph``).

    References
    ----------
    "Mini-batch kernel k-means", anonymous preprint. G. Schwartzman,
    "Mini-batch k-means terminates within O(d/eps) iterations", ICLR 2023.
    D. Sculley, "Web-scale k-means clustering", WWW 2010. I. Dhillon, Y.
    Guan, B. Kulis, "Kernel k-means, spectral clustering and normalized
    cuts", KDD 2004.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> from vcgmm import KernelKMeans
    >>> X, y = make_circles(2000, factor=0.3, noise=0.05, random_state=0)
    >>> km = KernelKMeans(2, gamma=10.0, batch_size=256, tau=100, random_state=0).fit(X)
    >>> km.labels_.shape
    (2000,)
    """

    _params = KERNEL_KMEANS_PARAMS
    # paper 003: truncated mini-batch with the beta learning rate, kernel
    # k-means++, the window weights of Eq. (1) as written
    paper_params = {"algorithm": "truncated", "learning_rate": "beta", "init": "k-means++",
                    "renormalize": False}

    __init__ = make_init(KERNEL_KMEANS_PARAMS)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # ------------------------------------------------------------------ validation

    def _validate_X(self, X, *, reset):
        reject_non_numeric(X, "X")
        with friendly_array_errors("X"):
            X = validate_data(self, X, accept_sparse=False, dtype=target_dtypes(X), order="C",
                              reset=reset, ensure_all_finite=False)
        return check_finite_magnitude(X, "X")

    def _checked_params(self):
        table = self._params
        return table.validate({name: getattr(self, name) for name in table.names()})

    def _core_params(self, values, X):
        """The core's KernelKMeansParams (and the kernel used on X)."""
        n = X.shape[0]
        check_n_clusters(values["n_clusters"], X)
        if values["kappa"] is not None and values["gamma"] != "auto":
            raise ValueError("Give gamma or kappa (gamma = 1 / kappa), not both.")
        if values["batch_size"] == "auto":
            values = {**values, "batch_size": min(_DEFAULT_BATCH, n)}
        if values["algorithm"] != "full" and values["batch_size"] > n:
            raise ValueError(
                f"batch_size={values['batch_size']} must be <= n_samples={n} (batches are "
                f"drawn from the training points); use batch_size={n} or less, or "
                "algorithm='full'.")
        params = self._params.to_core(values)
        kernel = values["kernel"]
        if kernel in _GRAPH_KERNELS:
            if values["n_neighbors"] >= n:
                raise ValueError(f"n_neighbors={values['n_neighbors']} must be < "
                                 f"n_samples={n} for kernel={kernel!r}.")
            params.kernel.type = "precomputed"
        else:
            params.kernel.type = kernel
        gamma = values["gamma"]
        if values["kappa"] is not None:
            with np.errstate(over="ignore"):
                gamma = 1.0 / np.float64(values["kappa"])
            if not np.isfinite(gamma):
                raise ValueError(f"kappa={values['kappa']!r} is too small: gamma = 1 / kappa "
                                 "overflows; kappa is a squared distance scale of the data.")
        params.kernel.gamma = 0.0 if gamma == "auto" else float(gamma)
        params.run = run_options(values["n_threads"], values["random_state"], values["verbose"],
                                 values["callback"])
        return params

    @staticmethod
    def _check_init(init, n_clusters, n):
        if isinstance(init, str):
            return None
        with friendly_array_errors("init"):
            a = np.asarray(init)
        if a.dtype.kind not in "iu":
            integral = (a.dtype.kind == "f" and bool(np.all(np.isfinite(a)))
                        and bool(np.all(a == np.round(a))))
            if not integral:
                raise TypeError(f"init must be an array of integer row indices of X, got "
                                f"dtype {a.dtype}.")
        if a.shape != (n_clusters,):
            raise ValueError(f"init must have shape (n_clusters,) = ({n_clusters},), got "
                             f"{a.shape}.")
        if a.size and (a.min() < 0 or a.max() >= n):
            raise ValueError(f"init must hold row indices in [0, {n}), got values in "
                             f"[{a.min()}, {a.max()}].")
        return np.ascontiguousarray(a, dtype=np.int64)

    def _precomputed(self, X):
        if X.shape[0] != X.shape[1]:
            raise ValueError(f"X must be a square kernel matrix for kernel='precomputed', got "
                             f"shape {X.shape}.")
        _check_symmetric(X)
        return X

    # ------------------------------------------------------------------------- fit

    def _fit_result(self, X, sample_weight=None):
        """Validated parameters, X and weights -> (KernelKMeansResult, support
        vectors). Rows of weight 0 do not exist for the fit: it runs on the
        others (and the square submatrix of a precomputed kernel), and the
        dropped rows get their nearest center afterwards."""
        values = self._checked_params()
        if values["algorithm"] == "truncated" and values["learning_rate"] == "sklearn":
            import warnings

            warnings.warn(
                "algorithm='truncated' with learning_rate='sklearn': that rate decays as 1 / "
                "(points assigned so far), so a window of recent batches holds almost none of a "
                "center's mass, and truncation (the kept terms rescaled to weight 1) makes the "
                "center lag behind the untruncated one; the paper's analysis of truncation "
                "assumes learning_rate='beta'. Use learning_rate='beta', or "
                "algorithm='minibatch' for the sklearn rate.", UserWarning, stacklevel=3)
        X = self._validate_X(X, reset=True)
        kernel = values["kernel"]
        if kernel == "precomputed":
            X = self._precomputed(X)
        n_all = X.shape[0]
        init = self._check_init(values["init"], values["n_clusters"], n_all)
        w = check_sample_weight(sample_weight, X)
        X_all, keep = X, None
        if w is not None:
            check_n_clusters(values["n_clusters"], X)
            X, w, keep = positive_rows(X, w, values["n_clusters"])
        if keep is not None:
            if kernel in _GRAPH_KERNELS:
                raise ValueError(
                    f"sample_weight has zero entries, which kernel={kernel!r} cannot take: a "
                    "point of weight 0 does not exist for the fit, and a graph kernel has no "
                    "value for points outside its graph, so it could not be labelled. Drop "
                    "those rows (X[sample_weight > 0]).")
            if kernel == "precomputed":
                X = np.ascontiguousarray(X[:, keep])
            if init is not None:
                where = np.searchsorted(keep, init)
                bad = (where >= keep.size) | (keep[np.minimum(where, keep.size - 1)] != init)
                if np.any(bad):
                    raise ValueError(f"init row {int(init[np.flatnonzero(bad)[0]])} has "
                                     "sample_weight 0: a point of weight 0 does not exist for "
                                     "the fit, so no center can start there.")
                init = np.ascontiguousarray(where, dtype=np.int64)
        params = self._core_params(values, X)
        graph_evals = graph_seconds = None
        fit_X = X
        if kernel in _GRAPH_KERNELS:
            self._warn_if_huge_graph(X.shape[0], X.shape[1], kernel, values["t"],
                                     values["n_modes"])
            g = _core.GraphKernelParams()
            g.type = kernel
            g.n_neighbors = values["n_neighbors"]
            g.t = values["t"]
            n_modes = values["n_modes"]
            if kernel == "knn" and n_modes is not None:
                if n_modes > X.shape[0]:
                    raise ValueError(f"n_modes={n_modes} must be <= n_samples={X.shape[0]}.")
                fit_X, costs = _core.graph_modes(X, g, n_modes, params.run)
                params.kernel.type = "linear"
            else:
                fit_X, costs = _core.graph_kernel(X, g, params.run)
            graph_evals = costs.n_distance_evals["seeding"]
            graph_seconds = costs.timings["seeding"]
        self._warn_if_huge(X.shape[0], X.shape[1], params)
        r, labels, evals, timings = self._best_run(fit_X, w, params, init, values)
        support, init_indices = r.support, r.init_indices
        if keep is not None:
            if labels is not None:
                dropped = np.setdiff1d(np.arange(n_all), keep)
                rows = X_all[dropped] if kernel != "precomputed" else X_all[dropped][:, keep]
                sv = None if kernel == "precomputed" else np.ascontiguousarray(X[r.support])
                fill = _core.kernel_kmeans_predict(
                    np.ascontiguousarray(rows), r.kernel, r.support, r.indptr, r.index, r.coef,
                    r.sqnorm, sv, params.run, False)[0]
                labels = expand_rows(labels, keep, n_all, fill)
            support, init_indices = keep[r.support], keep[r.init_indices]
        if graph_evals is not None:
            evals = {"graph": graph_evals, **evals}
            timings = {"graph": graph_seconds, **timings}
        gamma = float(r.kernel.gamma) if kernel in ("rbf", "laplacian", "poly") else None
        result = KernelKMeansResult(
            labels=labels, inertia=float(r.inertia) if labels is not None else None,
            objective=r.objective,
            n_iter=int(r.n_iter), converged=bool(r.converged), gamma=gamma,
            init_indices=init_indices, support=support, center_indptr=r.indptr,
            center_indices=r.index, center_coef=r.coef, center_sqnorms=r.sqnorm,
            n_kernel_evals=evals, timings=timings)
        support_vectors = None
        if kernel in ("rbf", "laplacian", "poly", "linear"):
            support_vectors = np.ascontiguousarray(X_all[support])
        return result, support_vectors

    @staticmethod
    def _best_run(fit_X, w, params, init, values):
        """The fit of lowest inertia (on all training points) among n_init runs
        with seeds drawn in turn from random_state (run 0 is the n_init=1
        fit): (core result, labels or None, kernel evaluations and timings
        per phase summed over the runs)."""
        import warnings

        n_init, compute = values["n_init"], values["compute_labels"]
        if n_init > 1 and init is not None and values["algorithm"] == "full":
            warnings.warn(
                f"Explicit initial centers (init=array) and algorithm='full': every run would "
                f"give the same result, so only one is performed instead of n_init={n_init}.",
                RuntimeWarning, stacklevel=5)
            n_init = 1
        params.evaluate = bool(compute) or n_init > 1  # the runs are ranked by inertia
        best = None
        evals: dict = {}
        timings: dict = {}
        for seed in run_seeds(values["random_state"], n_init):
            params.run.seed = seed
            r, labels = _core.fit_kernel_kmeans(fit_X, w, params, init, bool(compute))
            for phase, v in r.n_distance_evals.items():
                if phase != "coreset":
                    evals[phase] = evals.get(phase, 0) + v
            for phase, v in r.timings.items():
                if phase != "coreset":
                    timings[phase] = timings.get(phase, 0.0) + v
            if best is None or r.inertia < best[0].inertia:
                best = (r, labels)
            # One kernel for all runs: gamma="auto" is resolved by run 0
            # (its heuristic draws pairs with run 0's seed), so the runs'
            # inertias compare.
            params.kernel.gamma = r.kernel.gamma
        return best[0], best[1], evals, timings

    @staticmethod
    def _warn_if_huge_graph(n, d, kernel, t, n_modes=None):
        """Warn before building a graph kernel that needs more than an hour:
        the k-nn scan of all n^2 pairs, and for heat at small t (t <=
        ``_core.HEAT_DENSE_MAX_T``, where the core decomposes densely) the dense
        eigendecomposition of the n x n graph (about 10 n^3
        flops) and the product of its factors (2 n^3). At larger t the heat
        kernel's m slow modes cost O(n^2 m), m unknown beforehand: counted as
        one mode (a lower bound). The knn kernel's n_modes: the scan alone."""
        pairs = float(n) * n
        if kernel == "knn" and n_modes is not None:
            warn_if_huge("distance evaluations", pairs, 0.0, d, 2.0 * d * pairs,
                         "fewer points (the k-nn graph scans all n^2 pairs), or a point "
                         "kernel such as 'rbf'")
            return
        dense = kernel == "heat" and t <= _core.HEAT_DENSE_MAX_T
        flops = (2.0 * d + 20.0) * pairs + (12.0 * float(n) ** 3 if dense else 0.0)
        warn_if_huge("distance evaluations", pairs, 0.0, d, flops,
                     f"fewer points (kernel={kernel!r} is a dense n x n matrix"
                     + (", built by an O(n^3) eigendecomposition at this small t" if dense else "")
                     + "), or a point kernel such as 'rbf'")

    def _warn_if_huge(self, n, d, params):
        """Warn before a fit whose seeding and first iteration alone need more
        than an hour (the family's cost model)."""
        k, b = params.n_clusters, params.batch_size
        if params.algorithm == "full":
            per_iter, hint = float(n) * n, "use algorithm='truncated'"
        elif params.algorithm == "minibatch":
            per_iter, hint = float(n) * b, "use algorithm='truncated'"
        else:
            per_iter = float(b) * (k * params.tau + b)
            hint = "use a smaller batch_size or tau"
        setup = float(n) * k
        flops = (2.0 * d + 20.0) * (setup + per_iter)
        warn_if_huge("kernel evaluations", setup, per_iter, d, flops, hint)

    @fill_doc
    def fit(self, X, y=None, sample_weight=None):
        """Compute the clustering.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data; for ``kernel="precomputed"`` the symmetric kernel
            matrix. float32 stays float32, float16 and 8/16-bit integers become
            float32, other numbers float64. One array in memory: the model keeps
            training points, so chunked and Dask data raise TypeError (VCGMM,
            KMeans(coreset_size="auto") and MiniBatchKMeans take them).
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            %(sample_weight)s
            The objective becomes ``sum_x w_x min_j ||phi(x) - C_j||^2``:
            full-batch centers are weighted means (Dhillon, Guan & Kulis's
            weighted kernel k-means), kernel k-means++ draws proportionally
            to ``w D^2``, and mini-batches are still drawn uniformly, each
            point counting with its weight in its center's mean and learning
            rate (scikit-learn's ``MiniBatchKMeans`` convention). The graph
            kernels refuse weights of 0 (a point outside the graph has no
            kernel value).

        Returns
        -------
        self : KernelKMeans
            Fitted estimator.
        """
        _refuse_chunked(X, "KernelKMeans.fit")
        r, support_vectors = self._fit_result(X, sample_weight)
        self.labels_ = r.labels
        self.inertia_ = r.inertia
        self.objective_ = r.objective
        self.n_iter_ = r.n_iter
        self.converged_ = r.converged
        self.gamma_ = r.gamma
        self.init_indices_ = r.init_indices
        self.support_ = r.support
        self.support_vectors_ = support_vectors
        self.center_indptr_ = r.center_indptr
        self.center_indices_ = r.center_indices
        self.center_coef_ = r.center_coef
        self.center_sqnorms_ = r.center_sqnorms
        self.n_kernel_evals_ = r.n_kernel_evals
        self.timings_ = r.timings
        # predict uses the kernel of the fit, whatever set_params changes later.
        self._fit_kernel = (self.kernel, r.gamma, self.degree, self.coef0)
        if r.labels is not None:
            self._warn_distinct_clusters()
        return self

    def _warn_distinct_clusters(self):
        if self.algorithm == "full":  # it moves empty clusters onto far points
            cause = ("the data have fewer than n_clusters distinct points in feature space, so "
                     "some centers coincide or hold no points.")
        else:
            cause = ("some centers ended where no point is nearest to them in feature space "
                     "(mini-batch updates move centers; only algorithm='full' moves empty "
                     "clusters onto far points), or the data have fewer than n_clusters "
                     "distinct points; more iterations (max_iter), a larger batch_size or "
                     "algorithm='full' may help.")
        warn_distinct_clusters(self.labels_, self.n_clusters, cause)

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training data (the kernel matrix for ``kernel="precomputed"``).
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`fit`.

        Returns
        -------
        labels : ndarray of shape (n_samples,), dtype int32
        """
        return self.fit(X, sample_weight=sample_weight).labels_

    def _predict_core(self, X, want_distances):
        check_is_fitted(self, "labels_")
        _refuse_chunked(X, "KernelKMeans.predict")
        # a model pickled by an older version has no _fit_kernel: its current parameters
        kernel_name, gamma, degree, coef0 = getattr(
            self, "_fit_kernel", (self.kernel, self.gamma_, self.degree, self.coef0))
        if kernel_name in _GRAPH_KERNELS:
            raise ValueError(
                f"kernel={kernel_name!r} is defined on the training points only (a graph "
                "kernel): there is no kernel value for new points. Use labels_ for the "
                "training points.")
        X = self._validate_X(X, reset=False)
        kernel = _kernel_params(kernel_name, gamma, degree, coef0)
        sv = None
        if self.support_vectors_ is not None:
            sv = np.ascontiguousarray(self.support_vectors_, dtype=X.dtype)
        return _core.kernel_kmeans_predict(
            X, kernel, self.support_, self.center_indptr_, self.center_indices_,
            self.center_coef_, self.center_sqnorms_, sv, run_options(self.n_threads, 0),
            want_distances)

    def predict(self, X):
        """Nearest center in feature space of each sample.

        One blocked pass of ``n_new * n_support`` kernel evaluations.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features), or (n_new, n_samples_fit)
            New data; for ``kernel="precomputed"`` the kernel between the new
            and the training points. One array in memory: chunked and Dask
            data raise TypeError (unlike the k-means estimators' predict);
            for a Dask array use ``X.map_blocks(est.predict, drop_axis=1,
            dtype=np.int32)``.

        Returns
        -------
        labels : ndarray of shape (n_new,), dtype int32

        Notes
        -----
        The kernel is the one of the fit (``kernel``, ``gamma_``, ``degree``,
        ``coef0`` as they were then): parameters changed by ``set_params``
        after the fit take effect at the next fit.
        """
        return self._predict_core(X, False)[0]


def fit_kernel_kmeans(X, n_clusters, *, sample_weight=None, **params):
    """Kernel k-means as a function: the fit of :class:`KernelKMeans`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
        Training data (the symmetric kernel matrix for ``kernel="precomputed"``),
        one array in memory (chunked and Dask data raise TypeError).
    n_clusters : int
        Number of clusters k, 1 <= k <= n_samples.
    sample_weight : array-like of shape (n_samples,), default=None
        As in :meth:`KernelKMeans.fit`.
    **params
        Every other parameter of :class:`KernelKMeans`, by keyword, with the
        same meaning and default.

    Returns
    -------
    KernelKMeansResult
        The labels, inertia, centers and costs of the fit.

    See Also
    --------
    KernelKMeans : the estimator (with ``predict``).

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> import vcgmm
    >>> X, y = make_moons(1000, noise=0.05, random_state=0)
    >>> r = vcgmm.fit_kernel_kmeans(X, 2, kernel="knn", n_neighbors=10,
    ...                             algorithm="full", random_state=0)
    >>> r.labels.shape
    (1000,)
    """
    unknown = sorted(set(params) - set(KERNEL_KMEANS_PARAMS.names()))
    if unknown:
        raise TypeError(f"fit_kernel_kmeans got unexpected keyword argument(s) "
                        f"{', '.join(unknown)}; it takes X, n_clusters and the parameters of "
                        "KernelKMeans.")
    if not isinstance(n_clusters, numbers.Integral) or isinstance(n_clusters, bool):
        KERNEL_KMEANS_PARAMS.check("n_clusters", n_clusters)
    _refuse_chunked(X, "fit_kernel_kmeans")
    return KernelKMeans(n_clusters, **params)._fit_result(X, sample_weight)[0]
