"""Mini-batch k-means (Sculley's mbatch) and nested mini-batch k-means
(nmbatch, Newling & Fleuret): the estimators :class:`MiniBatchKMeans` (with
``partial_fit``) and :class:`NestedMiniBatchKMeans`, the functions
:func:`fit_mbatch` and :func:`fit_nmbatch`, and their parameter tables."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from ._assignment import nearest_centers
from ._coreset import coreset_size_param
from ._loader import core as _core
from ._metric import is_cosine, metric_param, normalize_rows
from ._params import CORE, INT32_MAX, Integer, NoneValue, AnyOf, Options, Param, \
    ParamTable, Real, make_init
from ._run import RUN_PARAMS, check_n_threads
from ._seeding import SEEDING_PARAMS, afkmc2, init_param, kmeans_plusplus, seeding_to_core
from ._stochastic import (N_INIT_PARAM, STOCHASTIC_COMPUTE_LABELS, StochasticKMeans, auto_or,
                          batch_size_param, fit_function)
from ._validation import check_n_clusters, check_sample_weight, positive_rows

__all__ = ["MiniBatchKMeans", "NestedMiniBatchKMeans", "fit_mbatch", "fit_nmbatch",
           "MBATCH_PARAMS", "NMBATCH_PARAMS"]

_N_CLUSTERS = Param("n_clusters", Integer(1, INT32_MAX), CORE, "number of clusters C",
                    target="n_clusters", cli=("-C", "--clusters"))
_MAX_ITER = Integer(1, INT32_MAX)

#: The parameters of mbatch, in MiniBatchKMeans' signature order.
MBATCH_PARAMS = ParamTable(
    [
        _N_CLUSTERS,
        init_param(_core.MbatchKMeansParams().seeding.method),
        batch_size_param("mini-batch size b (mbatch) or first batch b0 (nmbatch); 'auto': "
                         "min(5000, n), at least C for nmbatch", "mbatch.batch_size"),
        Param("max_iter", _MAX_ITER, CORE, "maximum number of iterations (mbatch: batches)",
              target="mbatch.max_iter", cli="--max-iter"),
        metric_param(),
        N_INIT_PARAM,
        STOCHASTIC_COMPUTE_LABELS,
        coreset_size_param(None),
        *SEEDING_PARAMS,
        *RUN_PARAMS,
    ],
    core_params=_core.MbatchKMeansParams,
)

#: The parameters of nmbatch, in NestedMiniBatchKMeans' signature order.
NMBATCH_PARAMS = ParamTable(
    [
        _N_CLUSTERS,
        init_param(_core.NmbatchKMeansParams().seeding.method),
        batch_size_param("mini-batch size b (mbatch) or first batch b0 (nmbatch); 'auto': "
                         "min(5000, n), at least C for nmbatch", "nmbatch.batch_size"),
        Param("rho", Real(0.0, low_open=True, allow_inf=True), CORE,
              "nmbatch doubles its batch when min_j sigma_C(j)/p(j) > rho (inf: only once "
              "no center moves)", target="nmbatch.rho", cli="--rho"),
        Param("bounds", Options(tuple(_core.nmbatch_bounds())), CORE,
              "nmbatch's distance bounds: 'auto' (elkan if it fits bounds_memory, else "
              "yinyang), 'elkan', 'yinyang' or 'none'", target="nmbatch.bounds", cli="--bounds"),
        Param("n_groups", auto_or(Integer(1, INT32_MAX)), "auto",
              "Yinyang groups of centers ('auto': min(ceil(C/10), what bounds_memory holds))",
              target="nmbatch.n_groups", core_value=lambda v: 0 if v == "auto" else v),
        Param("bounds_memory", Real(0.0, low_open=True), CORE,
              "bytes the automatic choice of bounds may use", target="nmbatch.bounds_memory"),
        Param("max_iter", _MAX_ITER, CORE, "maximum number of iterations (mbatch: batches)",
              target="nmbatch.max_iter", cli="--max-iter"),
        Param("time_budget", AnyOf(NoneValue(), Real(0.0, low_open=True)), None,
              "stop nmbatch after this many seconds of iterations (None: no limit)",
              target="nmbatch.time_budget", cli="--time-budget",
              core_value=lambda v: 0.0 if v is None else v),
        metric_param(),
        N_INIT_PARAM,
        STOCHASTIC_COMPUTE_LABELS,
        coreset_size_param(None),
        *SEEDING_PARAMS,
        *RUN_PARAMS,
    ],
    core_params=_core.NmbatchKMeansParams,
)


def _check_batch_size(values, n_fit, low, low_name):
    b = values["batch_size"]
    if b != "auto" and not low <= b <= n_fit:
        raise ValueError(f"batch_size={b} must be in [{low}, {n_fit}]: at least {low_name} and "
                         f"at most the number of points fitted ({n_fit}).")


class MiniBatchKMeans(StochasticKMeans):
    """Mini-batch k-means (Sculley, "Web-scale k-means clustering", 2010).

    Each iteration draws ``batch_size`` samples uniformly (with replacement),
    assigns each to its nearest center (exact, blocked matrix products) and
    moves every center to the running mean of all samples ever assigned to
    it (per-center learning rate 1 / count; the initial center counts as one
    sample). Runs ``max_iter`` batches (no convergence test). ``partial_fit``
    runs one iteration on the batch it is given.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters C, 1 <= C <= n_samples.
    init : {"random", "k-means++", "afk-mc2"} or array-like of shape (n_clusters, n_features), \
            default="random"
        "random": C distinct samples (the paper's); k-means++ / AFK-MC^2 run on
        min(n, 3 * batch_size) distinct random samples (as scikit-learn's
        init_size); or the initial centers.
    batch_size : int or "auto", default="auto"
        Samples per batch, 1 to n_samples; "auto": min(5000, n_samples) (the paper's 5000).
    max_iter : int, default=100
        Number of batches.
    metric : {"euclidean", "cosine"}, default="euclidean"
        "cosine": spherical mini-batch k-means for embeddings (as
        ``KMeans(metric="cosine")``): the rows are scaled to unit length (one
        copy of X; rows of norm zero are refused), centers are rescaled to
        unit length after every update, ``inertia_``, ``objective_`` and
        ``score`` are ``sum_n w_n (1 - cos(x_n, c))`` and ``transform`` gives
        cosine distances ``1 - cos``.
    n_init : int, default=1
        Number of runs, each with its own seed (drawn in turn from
        ``random_state``, so run 0 is the fit ``n_init=1`` gives); the run of
        the lowest ``inertia_`` (weighted quantization error on the full
        training data) is kept. Each extra run costs a whole fit plus one
        exact pass over the training data. Runs differ also from the same
        initial centers (their batches and draws do). ``partial_fit`` ignores it.
    compute_labels : bool, default=True
        Compute ``labels_`` and ``inertia_`` on the training data after fitting
        (one exact pass, reported as the "evaluation" phase); False: both are
        None (scikit-learn's ``MiniBatchKMeans`` convention).
    coreset_size : int, "auto" or None, default=None
        Fit on a lightweight coreset of this many points; None: all points.
    chain_length : int, default=20
        AFK-MC^2 chain length (``init="afk-mc2"``).
    n_local_trials : int or "auto", default=1
        k-means++ candidates per step (``init="k-means++"``).
    n_threads : int or None, default=None
        Threads; None or -1: OpenMP's default. Results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seed of the batches and the seeding.
    verbose : bool, default=False
        Log every iteration to the ``"vcgmm"`` logger.
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
    labels_ : ndarray of shape (n_samples,), dtype int32, or None
        Nearest center of every training sample (None without compute_labels).
    inertia_ : float or None
        Quantization error of the training data (None without compute_labels).
    n_iter_ : int
        Batches processed (fit: this fit's; partial_fit: all calls').
    converged_ : bool
        Always False (mbatch has no convergence test).
    objective_ : ndarray of shape (n_iter,)
        Each batch's quantization error (before its update), scaled to the
        total sample weight: an estimate of the energy.
    objective_seconds_ : ndarray of shape (n_iter,)
        When each batch finished, in seconds since the iterations started.
    counts_ : ndarray of shape (n_clusters,)
        Weight of all assignments per center (+1 for the initial center):
        the state ``partial_fit`` continues from.
    batch_size_ : int
        The batch size used.
    n_distance_evals_, timings_ : dict
        Distance evaluations and seconds per phase.
    coreset_indices_, coreset_weights_ : ndarray or None
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 4))
    >>> km = vcgmm.MiniBatchKMeans(8, batch_size=1000, random_state=0).fit(X)
    >>> km.cluster_centers_.shape
    (8, 4)
    """

    _params = MBATCH_PARAMS
    _core_fit = staticmethod(_core.fit_mbatch)
    __init__ = make_init(MBATCH_PARAMS)
    _spherical_centers = True

    @staticmethod
    def _set_spherical(params):
        params.mbatch.spherical = True

    def _check_sizes(self, values, n_fit, n_clusters):
        _check_batch_size(values, n_fit, 1, "1")

    def _iteration_evals(self, fit_n, params):
        return min(params.mbatch.batch_size or 5000, fit_n) * params.n_clusters

    def _info(self, r):
        return {"batch_size": int(r.batch_size), "counts": r.counts, "n_steps": int(r.n_iter)}

    def partial_fit(self, X, y=None, sample_weight=None):
        """One mbatch iteration on the batch X (the first call also seeds).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The batch (at least n_clusters samples on the first call).
        y : Ignored
            Not used, present for API consistency.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None means all ones. Zero entries are ignored (the
            step sees the other rows; they are still labelled).

        Returns
        -------
        self
        """
        first = not hasattr(self, "cluster_centers_")
        X = self._validate_X(X, reset=first)  # later batches: normalised here if cosine
        values = self._checked_params()
        if first and is_cosine(values):
            X = normalize_rows(X, "X")
        w = check_sample_weight(sample_weight, X)
        # Rows of weight 0 do not exist: the step (and the first call's
        # seeding) sees X[w > 0]; they are still labelled below.
        Xp, wp, _ = positive_rows(X, w, values["n_clusters"] if first else 1)
        if first:
            self._seed_partial(Xp, wp, values)
        centers = np.ascontiguousarray(self.cluster_centers_, dtype=X.dtype)
        centers, counts, _, _ = _core.mbatch_step(Xp, wp, centers, self.counts_, False,
                                                  check_n_threads(values["n_threads"]),
                                                  is_cosine(values))
        self.cluster_centers_, self.counts_ = centers, counts
        self.n_steps_ += 1
        self.n_iter_ = self.n_steps_
        if values["compute_labels"]:
            self.labels_, inertia = nearest_centers(X, centers, w,
                                                    n_threads=values["n_threads"])
            self.inertia_ = self._objective_scale() * inertia
        return self

    def _seed_partial(self, X, w, values):
        """The initial centers from the first batch; counts one each (Alg. 2)."""
        C = check_n_clusters(values["n_clusters"], X)
        init, seed = values["init"], values["random_state"]
        if not isinstance(init, str):
            centers = seeding_to_core(values, X, C, _core.MbatchKMeansParams())
        elif init == "random":
            centers = X[check_random_state(seed).permutation(X.shape[0])[:C]]
        elif init == "k-means++":
            centers = kmeans_plusplus(X, C, sample_weight=w, random_state=seed,
                                      n_local_trials=values["n_local_trials"],
                                      n_threads=values["n_threads"])[0]
        else:
            centers = afkmc2(X, C, sample_weight=w, random_state=seed,
                             chain_length=values["chain_length"], n_threads=values["n_threads"])[0]
        self.cluster_centers_ = np.ascontiguousarray(centers, dtype=X.dtype)
        self.counts_ = np.ones(C)
        self.n_steps_ = 0
        self.batch_size_ = X.shape[0]
        self.converged_ = False


class NestedMiniBatchKMeans(StochasticKMeans):
    """Nested mini-batch k-means with distance bounds (nmbatch; Newling & Fleuret, NIPS 2016).

    The samples are shuffled once; iteration t uses the first b_t of them
    (nested batches: b_1 = ``batch_size``, doubled when the centers' moves
    become small against their standard errors, min_j sigma_C(j)/p(j) >
    ``rho``). Reused samples are reassigned with Elkan's bound test (or
    Yinyang's group bounds when Elkan's n C bounds exceed ``bounds_memory``)
    and contribute only their latest assignment to their center (one sample,
    one vote). Stops when the batch holds all samples and no assignment
    changes (a fixed point of Lloyd), after ``max_iter`` iterations or after
    ``time_budget`` seconds. The bounds only skip distances: every choice of
    ``bounds`` gives the same result.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters C, 1 <= C <= n_samples.
    init : {"random", "k-means++", "afk-mc2"} or array-like of shape (n_clusters, n_features), \
            default="random"
        "random": the first C samples of the shuffled order (the paper's);
        k-means++ / AFK-MC^2 run on the first batch; or the initial centers.
    batch_size : int or "auto", default="auto"
        First batch b0, n_clusters to n_samples; "auto": max(C, min(5000, n_samples)).
    rho : float, default=100.0
        Doubling threshold (> 0; ``np.inf``: double only once no center moves).
    bounds : {"auto", "elkan", "yinyang", "none"}, default="auto"
        Distance bounds: "elkan" (C float32 per sample), "yinyang" (one per
        group of centers), "none" (every distance computed), "auto" (elkan if
        4 n C bytes fit in ``bounds_memory``, else yinyang).
    n_groups : int or "auto", default="auto"
        Yinyang groups; "auto": min(ceil(C / 10), bounds_memory / (4 n)).
    bounds_memory : float, default=2147483648.0
        Bytes the automatic choice may spend on bounds (2 GiB).
    max_iter : int, default=1000
        Maximum number of iterations.
    time_budget : float or None, default=None
        Stop after this many seconds of iterations (the result then depends
        on the machine's speed).
    metric : {"euclidean", "cosine"}, default="euclidean"
        "cosine": spherical nmbatch for embeddings (as
        ``KMeans(metric="cosine")``): the rows are scaled to unit length (one
        copy of X; rows of norm zero are refused), centers are rescaled to
        unit length after every update, ``inertia_``, ``objective_`` and
        ``score`` are ``sum_n w_n (1 - cos(x_n, c))`` and ``transform`` gives
        cosine distances ``1 - cos``.
    n_init : int, default=1
        Number of runs, each with its own seed (drawn in turn from
        ``random_state``, so run 0 is the fit ``n_init=1`` gives); the run of
        the lowest ``inertia_`` (weighted quantization error on the full
        training data) is kept. Each extra run costs a whole fit plus one
        exact pass over the training data. Runs differ also from the same
        initial centers (their batches and draws do).
    compute_labels : bool, default=True
        Compute ``labels_`` and ``inertia_`` on the training data after fitting
        (one exact pass, reported as the "evaluation" phase); False: both are
        None (scikit-learn's ``MiniBatchKMeans`` convention).
    coreset_size : int, "auto" or None, default=None
        Fit on a lightweight coreset of this many points; None: all points.
    chain_length : int, default=20
        AFK-MC^2 chain length (``init="afk-mc2"``).
    n_local_trials : int or "auto", default=1
        k-means++ candidates per step (``init="k-means++"``).
    n_threads : int or None, default=None
        Threads; None or -1: OpenMP's default. Results do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffle, the seeding and the grouping.
    verbose : bool, default=False
        Log every iteration to the ``"vcgmm"`` logger.
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
    labels_ : ndarray of shape (n_samples,), dtype int32, or None
        Nearest center of every training sample (None without compute_labels).
    inertia_ : float or None
        Quantization error of the training data with the final centers
        (None without compute_labels).
    n_iter_ : int
    converged_ : bool
        Whether it stopped at a fixed point on all samples.
    objective_ : ndarray of shape (n_iter,)
        Quantization error of each iteration's batch (each sample to its new
        center), scaled to the total sample weight.
    objective_seconds_ : ndarray of shape (n_iter,)
        When each iteration finished, in seconds since the iterations started.
    batch_sizes_ : ndarray of shape (n_iter,)
        b_t of each iteration.
    distances_computed_, distances_skipped_ : ndarray of shape (n_iter,)
        Distances computed, and ruled out by the bounds, per iteration.
    n_distances_skipped_ : int
        All distances the bounds ruled out (``n_distance_evals_["iterations"]``
        counts the computed ones).
    bounds_ : str
        The bounds used ("elkan", "yinyang" or "none").
    n_bound_groups_ : int
        Bounds per sample (C for elkan).
    bounds_bytes_ : float
        Memory of the bounds for all samples.
    batch_size_ : int
        b0 used.
    n_distance_evals_, timings_ : dict
    coreset_indices_, coreset_weights_ : ndarray or None
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 4))
    >>> km = vcgmm.NestedMiniBatchKMeans(8, batch_size=1000, random_state=0).fit(X)
    >>> km.converged_, km.n_distances_skipped_ > 0
    (True, True)
    """

    _params = NMBATCH_PARAMS
    _core_fit = staticmethod(_core.fit_nmbatch)
    __init__ = make_init(NMBATCH_PARAMS)
    _spherical_centers = True

    @staticmethod
    def _set_spherical(params):
        params.nmbatch.spherical = True

    def _check_sizes(self, values, n_fit, n_clusters):
        _check_batch_size(values, n_fit, n_clusters, f"n_clusters ({n_clusters})")

    def _iteration_evals(self, fit_n, params):
        return fit_n * params.n_clusters  # the full batch without any bound skipping

    def _info(self, r):
        return {"batch_sizes": r.batch_sizes, "distances_computed": r.computed,
                "distances_skipped": r.skipped, "n_distances_skipped": int(r.n_skipped),
                "bounds": r.bounds, "n_bound_groups": int(r.n_groups),
                "bounds_bytes": float(r.bounds_bytes), "batch_size": int(r.batch_size)}


def fit_mbatch(X, C, *, sample_weight=None, return_labels=False, **params):
    """Fit C centers by mini-batch k-means (Sculley's mbatch).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data. float32 stays float32; other numbers become float64.
    C : int
        Number of clusters.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; None means all ones. Zero entries are ignored: such a
        point does not exist for the fit (the result is that of the fit without it;
        it is still labelled with its nearest center); at least C entries must be
        positive.
    return_labels : bool, default=False
        Also compute the labels and the quantization error on the full data.
    **params
        Every other parameter of :class:`MiniBatchKMeans`, by keyword.

    Returns
    -------
    StochasticKMeansResult
        ``info`` holds ``batch_size``, ``counts`` and ``n_steps``.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 4))
    >>> r = vcgmm.fit_mbatch(X, 8, batch_size=1000, random_state=0, return_labels=True)
    >>> r.centers.shape, r.labels.shape, int(r.info["counts"].sum()) > 0
    ((8, 4), (20000,), True)
    """
    return fit_function(MiniBatchKMeans, "fit_mbatch", X, C, sample_weight, return_labels,
                        params)


def fit_nmbatch(X, C, *, sample_weight=None, return_labels=False, **params):
    """Fit C centers by nested mini-batch k-means with distance bounds (nmbatch).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data. float32 stays float32; other numbers become float64.
    C : int
        Number of clusters.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; None means all ones. Zero entries are ignored: such a
        point does not exist for the fit (the result is that of the fit without it;
        it is still labelled with its nearest center); at least C entries must be
        positive.
    return_labels : bool, default=False
        Also compute the labels and the quantization error on the full data.
    **params
        Every other parameter of :class:`NestedMiniBatchKMeans`, by keyword.

    Returns
    -------
    StochasticKMeansResult
        ``info`` holds ``batch_sizes``, ``distances_computed``,
        ``distances_skipped``, ``n_distances_skipped``, ``bounds``,
        ``n_bound_groups``, ``bounds_bytes`` and ``batch_size``.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 4)).astype(np.float32)
    >>> r = vcgmm.fit_nmbatch(X, 16, random_state=0, return_labels=True)
    >>> r.centers.shape, r.converged
    ((16, 4), True)
    """
    return fit_function(NestedMiniBatchKMeans, "fit_nmbatch", X, C, sample_weight,
                        return_labels, params)
