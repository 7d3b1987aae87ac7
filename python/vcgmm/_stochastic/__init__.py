"""Stochastic k-means: mini-batch k-means (mbatch, Sculley 2010), nested
mini-batch k-means with distance bounds (nmbatch, Newling & Fleuret 2016) and
variance-reduced k-means (VRKM / VRKM++, Zhao et al.)."""

from .._estimator.family import CliChoice, Family, seeding_text
from .base import StochasticKMeansResult
from .minibatch import MiniBatchKMeans, fit_mbatch
from .nmbatch import NestedMiniBatchKMeans, fit_nmbatch
from .vrkm import VRKMeans, fit_vrkm

__all__ = ["FAMILY", "MiniBatchKMeans", "NestedMiniBatchKMeans", "StochasticKMeansResult",
           "VRKMeans", "fit_mbatch", "fit_nmbatch", "fit_vrkm"]


def _nmbatch_text(est, n):
    return (f"nested mini-batch k-means (first batch {est.batch_size}, rho={est.rho:g}, "
            f"{est.bounds} bounds) from {seeding_text(est)}")


def _vrkm_text(est, n):
    loop = "sequential" if est.block_size == 1 else f"blocked by {est.block_size}"
    return (f"{est.variant.upper()}: {seeding_text(est)} + epochs of a full pass and "
            f"{est.epoch_size} {loop} updates (learning rate {est.learning_rate})")


FAMILY: Family = Family(
    name="stochastic",
    paper="mbatch: Sculley, WWW 2010; nmbatch: Newling & Fleuret, NIPS 2016; VRKM: Zhao et al.",
    estimators=(MiniBatchKMeans, NestedMiniBatchKMeans, VRKMeans),
    functions=(fit_mbatch, fit_nmbatch, fit_vrkm),
    cli={
        "mbatch": CliChoice(
            MiniBatchKMeans, {"compute_labels": True},
            "mini-batch k-means (Sculley): batches of b random samples, running-mean "
            "updates; stops when the smoothed batch error stops improving",
            lambda est, n: (f"mini-batch k-means (batch size {est.batch_size}) from "
                            f"{seeding_text(est)}"),
            stops=("max_iter", "max_no_improvement")),
        "nmbatch": CliChoice(
            NestedMiniBatchKMeans, {},
            "nested mini-batch k-means with Elkan/Yinyang bounds (Newling & Fleuret): "
            "growing nested batches, converges to a Lloyd fixed point",
            _nmbatch_text, stops=("max_iter", "time_budget")),
        "vrkm++": CliChoice(
            VRKMeans, {"variant": "vrkm++"},
            "variance-reduced k-means VRKM++ (Zhao et al.): full passes + single-sample "
            "updates with a constant learning rate",
            _vrkm_text, stops=("max_epochs", "tol")),
        "vrkm": CliChoice(
            VRKMeans, {"variant": "vrkm"},
            "VRKM: VRKM++ with the position correction by the batch gradient (same "
            "iterates, slower)",
            _vrkm_text, stops=("max_epochs", "tol")),
    },
    chunked=False,
    has_centers=True,
    objective="inertia_",
)
