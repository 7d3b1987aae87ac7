"""Nested mini-batch k-means with distance bounds (nmbatch, Newling & Fleuret
2016): :class:`NestedMiniBatchKMeans`, :func:`fit_nmbatch` and its parameter table."""

from __future__ import annotations

from .._blocks.coreset import coreset_size_param
from .._base.docs import fill_doc
from .._base.loader import core as _core
from .._base.metric import metric_param
from .._base.params import CORE, INT32_MAX, Integer, NoneValue, AnyOf, Options, Param, \
    ParamTable, Real, make_init
from .._base.run import RUN_PARAMS
from .._blocks.seeding import SEEDING_PARAMS, init_param
from .base import (N_INIT_PARAM, STOCHASTIC_COMPUTE_LABELS, StochasticKMeans, auto_or,
                          batch_size_param, fit_function)
from .base import _MAX_ITER, _N_CLUSTERS, _check_batch_size

__all__ = ["NestedMiniBatchKMeans", "fit_nmbatch", "NMBATCH_PARAMS"]

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
        Param("doubling", Options(tuple(_core.nmbatch_doubling())), CORE,
              "nmbatch's doubling test: 'paper' (the smallest sigma_C(j)/p(j), sigma_C the "
              "standard error of center j) or 'median' (the authors' code: the median over "
              "the clusters of rms distance / p(j))", target="nmbatch.doubling",
              cli="--doubling"),
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


@fill_doc
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
    init : {"random", "k-means++", "afk-mc2", "auto"} or array-like of shape \
            (n_clusters, n_features), default="random"
        "random": the first C samples of the shuffled order (the paper's);
        k-means++ / AFK-MC^2 run on the first batch; or the initial centers.
        %(init_auto)s
    batch_size : int or "auto", default="auto"
        First batch b0, n_clusters to n_samples; "auto": max(C, min(5000, n_samples)).
    rho : float, default=100.0
        Doubling threshold (> 0; ``np.inf``: double only once no center moves).
    doubling : {"paper", "median"}, default="paper"
        The doubling test. "paper" (Alg. 5): the batch doubles when
        min_j sigma_C(j) / p(j) > rho, with sigma_C(j) = sqrt(sse(j) /
        (v(j) (v(j) - 1))), the standard error of center j, and p(j) its
        move. "median" (the authors' code, eakmeans): when the median over
        the clusters of sqrt(sse(j) / v(j)) / p(j) > rho (the rms distance of
        the rows to their center, sqrt(v) times larger, and a vote of half
        the clusters instead of all).
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
        %(metric_spherical)s
    %(stochastic_params)s

    Attributes
    ----------
    %(stochastic_attributes)s
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
    %(cost_attributes)s

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(20000, 4))
    >>> km = vcgmm.NestedMiniBatchKMeans(8, batch_size=1000, random_state=0).fit(X)
    >>> km.converged_, km.n_distances_skipped_ > 0
    (True, True)
    """

    _params = NMBATCH_PARAMS
    # paper 002: random samples as initial centers, b0 = max(C, 5000), rho =
    # 100, Elkan's bounds (n C floats), no time budget
    paper_params = {"init": "random", "batch_size": "auto", "rho": 100.0, "bounds": "elkan",
                    "time_budget": None}
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


@fill_doc
def fit_nmbatch(X, C, *, sample_weight=None, return_labels=False, **params):
    """Fit C centers by nested mini-batch k-means with distance bounds (nmbatch).

    Parameters
    ----------
    %(fit_function_params)s
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
