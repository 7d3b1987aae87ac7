"""Variance-reduced k-means (Zhao et al.): the estimator :class:`VRKMeans`
(VRKM and VRKM++), the function :func:`fit_vrkm` and its parameter table."""

from __future__ import annotations

from .._blocks.coreset import coreset_size_param
from .._base.docs import fill_doc
from .._base.loader import core as _core
from .._base.params import (CORE, INT32_MAX, Boolean, Integer, Options, Param, ParamTable, Real,
                            make_init)
from .._base.run import RUN_PARAMS
from .._blocks.seeding import SEEDING_PARAMS, init_param
from .base import (N_INIT_PARAM, STOCHASTIC_COMPUTE_LABELS, StochasticKMeans, auto_or,
                          fit_function)

__all__ = ["VRKMeans", "fit_vrkm", "VRKM_PARAMS"]

#: The parameters of VRKM / VRKM++, in VRKMeans' signature order.
VRKM_PARAMS = ParamTable(
    [
        Param("n_clusters", Integer(1, INT32_MAX), CORE, "number of clusters C",
              target="n_clusters", cli=("-C", "--clusters")),
        Param("variant", Options(tuple(_core.vrkm_variants())), CORE,
              "'vrkm++' (position correction by the partition means) or 'vrkm' (by the "
              "batch gradient)", target="vrkm.variant"),
        Param("learning_rate", auto_or(Real(0.0, 1.0, low_open=True)), "auto",
              "VRKM's constant learning rate eta in (0, 1]; 'auto': C / n (the paper's)",
              target="vrkm.learning_rate", cli="--learning-rate",
              core_value=lambda v: 0.0 if v == "auto" else v),
        Param("epoch_size", auto_or(Integer(1, None)), "auto",
              "VRKM's inner updates per epoch T; 'auto': n (the paper's)",
              target="vrkm.epoch_size", cli="--epoch-size",
              core_value=lambda v: 0 if v == "auto" else v),
        Param("max_epochs", Integer(1, INT32_MAX), CORE, "maximum number of VRKM epochs",
              target="vrkm.max_epochs", cli="--max-epochs"),
        Param("tol", Real(0.0), CORE,
              "stop when the relative change of the objective (Lloyd: quantization error; "
              "EM: free energy) falls below this", target="vrkm.tol", cli="--tol"),
        Param("update_rule", Options(tuple(_core.vrkm_update_rules()), renamed=(
                  ("reference-code", "svrg"), ("paper", "label-change"))), CORE,
              "VRKM when a drawn sample keeps its reference label: 'svrg' (the paper's Alg. "
              "3/4 as written and the authors' code: pull its center towards the corrected "
              "one) or 'label-change' (no change: a step only when the label changed)",
              target="vrkm.update_rule", cli="--update-rule"),
        Param("block_size", Integer(1, INT32_MAX), CORE,
              "VRKM's inner loop: 1 = the paper's sequential loop; B > 1 = nearest centers of "
              "B draws by one matrix product (our blocked variant)",
              target="vrkm.block_size", cli="--block-size"),
        Param("relocate_empty", Boolean(), CORE,
              "move clusters left empty by an epoch onto the points farthest from their "
              "centers (False: the paper's loop)", target="vrkm.relocate_empty"),
        init_param(_core.VrkmKMeansParams().seeding.method),
        N_INIT_PARAM,
        STOCHASTIC_COMPUTE_LABELS,
        coreset_size_param(None),
        *SEEDING_PARAMS,
        *RUN_PARAMS,
    ],
    core_params=_core.VrkmKMeansParams,
)


@fill_doc
class VRKMeans(StochasticKMeans):
    """Variance-reduced k-means: VRKM and VRKM++ (Zhao et al., "Large-scale
    k-means clustering via variance reduction").

    Epochs of: a full assignment pass (exact, blocked matrix products), which
    also measures the energy; a position correction (VRKM++: the partition
    means; VRKM: the centers minus the batch gradient -- the same centers up
    to rounding, at a higher cost); ``epoch_size`` single-sample updates with
    the constant learning rate ``learning_rate``. Stops when the energy
    changes by less than ``tol`` (relative) between epochs, or after
    ``max_epochs``.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters C, 1 <= C <= n_samples.
    variant : {"vrkm++", "vrkm"}, default="vrkm++"
        Alg. 4 (VRKM++) or Alg. 3 (VRKM) of the paper.
    learning_rate : float or "auto", default="auto"
        Constant learning rate in (0, 1]; "auto": C / n_samples (the paper's
        conservative default; it reports larger rates help on large data).
        Ten times that ends lower on the large image-patch sets
        (bench/results/vrkm/vrkm_table3_random_patches-sklearn.md,
        bench/results/vrkm_rules/) but higher, and slower where C / n_samples
        is large, on the users'-data sets
        (bench/results/users_data/users_data_vrkm_step.md), so C / n_samples
        stays the default.
    epoch_size : int or "auto", default="auto"
        Single-sample updates per epoch; "auto": n_samples.
    max_epochs : int, default=100
        Maximum number of epochs.
    tol : float, default=1e-4
        Relative change of the energy between epochs that stops.
    update_rule : {"svrg", "label-change"}, default="svrg"
        When a drawn sample's nearest center is its reference one: "svrg"
        pulls that center towards its corrected position (Alg. 3/4 as
        written, whose test compares center vectors, and the authors' code);
        "label-change" leaves it (a step only when the label changed; our
        earlier reading of the paper). The former names "reference-code" and
        "paper" are accepted with a FutureWarning.
    block_size : int, default=1
        1: the paper's sequential inner loop (each draw searches all C
        centers). B > 1: our blocked variant, the nearest centers of B draws
        from one matrix product against the centers at the block's start,
        the updates then applied in order (faster; results within noise).
    relocate_empty : bool, default=True
        After each epoch's full pass, move every empty cluster onto one of
        the points farthest from their centers (as ``KMeans`` does; not in
        the paper). Without it, learning rates near 1 can empty most
        clusters for good. False: the paper's loop.
    init : {"k-means++", "afk-mc2", "random", "auto"} or array-like of shape \
            (n_clusters, n_features), default="k-means++"
        Seeding, or the initial centers. The paper starts from random rows
        (``init="random"``, as ``paper_params``); k-means++ ends lower from
        the paper's step size
        (bench/results/vrkm_rules/vrkm_rules_patches.md).
        %(init_auto)s
    %(stochastic_params)s

    Attributes
    ----------
    %(stochastic_attributes)s
    n_iter_ : int
        Epochs (inner loops) run.
    converged_ : bool
        Whether the energy's relative change fell below ``tol``.
    objective_ : ndarray
        Exact energy of the centers at the start of every epoch (the initial
        centers first), from the full passes.
    objective_seconds_ : ndarray
        When those centers were reached (0 for the initial ones), in seconds
        since the iterations started.
    learning_rate_ : float
        The learning rate used.
    epoch_size_ : int
        The epoch size used.
    n_updates_ : ndarray of shape (n_iter,)
        Inner steps that moved centers, per epoch.
    n_relocated_ : int
        Empty clusters relocated, summed over the epochs.
    epoch_timings_ : dict
        Seconds spent in the full passes (``full_pass``), the position
        corrections (``correction``) and the inner loops (``inner_loop``).
    %(cost_attributes)s

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(5000, 4))
    >>> km = vcgmm.VRKMeans(8, random_state=0).fit(X)
    >>> bool(km.objective_[-1] <= km.objective_[0])
    True
    """

    _params = VRKM_PARAMS
    # paper 004: random initial instances, eta = C / n, T = n, the sequential
    # inner loop, Alg. 3/4's rule, empty clusters left where they are
    paper_params = {"init": "random", "learning_rate": "auto", "epoch_size": "auto",
                    "update_rule": "svrg", "block_size": 1, "relocate_empty": False}
    _core_fit = staticmethod(_core.fit_vrkm)
    __init__ = make_init(VRKM_PARAMS)

    def _iteration_evals(self, fit_n, params):
        return (fit_n + (params.vrkm.epoch_size or fit_n)) * params.n_clusters

    def _empty_cluster_cause(self):
        if not self.relocate_empty:
            return ("relocate_empty=False keeps the clusters an epoch empties (the paper's "
                    "loop), or the data have fewer than n_clusters distinct points; "
                    "relocate_empty=True moves them onto far points.")
        return ("the last epoch's updates (learning_rate="
                f"{self.learning_rate!r}) moved centers away from every sample after the "
                "last relocation, or the data have fewer than n_clusters distinct points; a "
                "smaller learning_rate or more epochs (max_epochs) may help.")

    def _info(self, r):
        return {"learning_rate": float(r.learning_rate), "epoch_size": int(r.epoch_size),
                "n_updates": r.n_updates, "n_relocated": int(r.n_relocated),
                "epoch_timings": {"full_pass": r.full_pass_seconds,
                                  "correction": r.correction_seconds,
                                  "inner_loop": r.inner_loop_seconds}}


@fill_doc
def fit_vrkm(X, C, *, sample_weight=None, return_labels=False, **params):
    """Fit C centers by VRKM++ (default) or VRKM.

    The inner loop draws samples in proportion to ``sample_weight``.

    Parameters
    ----------
    %(fit_function_params)s
    **params
        Every other parameter of :class:`VRKMeans`, by keyword (``variant``,
        ``learning_rate``, ``epoch_size``, ...).

    Returns
    -------
    StochasticKMeansResult
        ``info`` holds ``learning_rate``, ``epoch_size``, ``n_updates`` and
        ``epoch_timings``.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(5000, 4))
    >>> r = vcgmm.fit_vrkm(X, 8, random_state=0, return_labels=True)
    >>> r.centers.shape, bool(r.objective[-1] <= r.objective[0])
    ((8, 4), True)
    """
    return fit_function(VRKMeans, "fit_vrkm", X, C, sample_weight, return_labels, params)
