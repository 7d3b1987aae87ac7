"""What a family declares once: its record for the registry (``vcgmm._registry``).

Each family subpackage (``_kmeans``, ``_vcgmm``, ``_stochastic``, ``_kernel``)
defines one :class:`Family`; persistence, the command line and the shared
test tables iterate over the registry instead of naming every class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .._base.loader import core as _core
from .._blocks.coreset import resolve_coreset_size

__all__ = ["CliChoice", "Family", "chain_text", "coreset_text", "seeding_text"]


@dataclass(frozen=True)
class CliChoice:
    """A ``vcgmm fit`` algorithm: an estimator with some parameters fixed.

    ``estimator`` is the estimator class (its ``_params`` table gives the
    flags), ``fixed`` the parameters the choice sets itself (their flags do
    not apply), ``defaults`` the family defaults it replaces, ``unused``
    parameters it does not use, ``summary`` one line for ``--help``,
    ``describe(est, n)`` what the fit will do (for the report), ``stops`` the
    parameters that end the fit (the first: the iteration limit).
    """

    estimator: type
    fixed: dict
    summary: str
    describe: Callable
    defaults: dict = field(default_factory=dict)
    unused: tuple = ()
    stops: tuple = ("max_iter", "tol")
    objective: str = "quantization error (full data)"
    costs: tuple = ("n_distance_evals_", "distance evaluations")
    writes_centers: bool = True


@dataclass(frozen=True)
class Family:
    """One algorithm family: its paper, estimators, functions and CLI choices.

    ``chunked``: its estimators take chunked / Dask data; ``has_centers``:
    its models are ``cluster_centers_`` (saved by ``save``/``load``);
    ``objective``: the fitted attribute a fit minimises or maximises.
    """

    name: str
    paper: str
    estimators: tuple
    functions: tuple
    cli: dict
    chunked: bool
    has_centers: bool
    objective: str


def chain_text(est):
    return f"AFK-MC^2 seeding (chain length {est.chain_length})"


def coreset_text(est, n_samples):
    count = getattr(est, est._count_param)
    m = resolve_coreset_size(est.coreset_size, n_samples, count)
    origin = "default min(n, max(4096, 64*C))" if est.coreset_size == "auto" else "--coreset-size"
    return f"lightweight coreset of N'={m:,} points ({origin})"


def seeding_text(est):
    if not isinstance(est.init, str):
        return "given initial centers"
    method = _core.resolve_seeding(est.init, getattr(est, est._count_param))
    text = {"random": "random samples as initial centers", "k-means++": "k-means++ seeding",
            "afk-mc2": chain_text(est)}[method]
    if est.init == "auto":
        text += (f" (init='auto': k-means++ up to {_core.AUTO_SEEDING_MAX_CLUSTERS} "
                 "clusters, AFK-MC^2 above)")
    return text
