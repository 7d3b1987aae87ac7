"""vcgmm: cluster very large data into very many clusters.

The headline algorithm is vc-GMM (Hirschberger, Forster & Luecke): a
lightweight coreset, AFK-MC^2 seeding and truncated variational EM with
cluster neighbourhoods, O(N' G^2 D) per iteration. Around it: the k-means
baselines of the papers and the building blocks as functions.

Functions
---------
lwcs               lightweight coreset (indices, weights)
default_coreset_size  the coreset size "auto" stands for
kmeans_plusplus    D^2 seeding
afkmc2             AFK-MC^2 seeding
quantization_error exact weighted quantization error
assign             exact nearest-center labels
assign_approximate approximate nearest-center labels (coarse cells of the centers, or a graph)
ApproximateIndex   the approximate search's index, built once, reused by every assign
lloyd              weighted Lloyd iterations from given centers
cancel_all         stop computations running in other threads (Ctrl-C stops the main thread's)
load               a model written by an estimator's save(path)
ProgressRecord     what an estimator's callback= receives (progress, and a way to stop)

vc-GMM
------
fit_vcgmm          vc-GMM: coreset + AFK-MC^2 + truncated variational EM (the headline)
fit_vargmm         var-GMM-S: the same loop on all points
VariationalLoop    the variational loop step by step (research, tests)

Stochastic k-means
------------------
fit_mbatch         mini-batch k-means (Sculley)
fit_nmbatch        nested mini-batch k-means with distance bounds (Newling & Fleuret)
fit_vrkm           variance-reduced k-means, VRKM++ and VRKM (Zhao et al.)

Kernel k-means
--------------
fit_kernel_kmeans  truncated mini-batch / mini-batch / full-batch kernel k-means

Estimators (scikit-learn compatible)
------------------------------------
VCGMM                  vc-GMM / var-GMM-S as an estimator
KMeans                 k-means++ / LWCS baselines
MiniBatchKMeans        mbatch, with partial_fit
NestedMiniBatchKMeans  nmbatch
VRKMeans               VRKM++ / VRKM
"""

from ._base.loader import available_levels
from ._base.loader import cpu_features as _cpu_features
from ._base.loader import core as _core
from ._base.loader import opt_level as _opt_level
from ._base.run import ProgressRecord, cancel_all
from ._blocks.approximate import ApproximateIndex, assign_approximate
from ._blocks.assignment import assign, quantization_error
from ._blocks.coreset import default_coreset_size, lwcs
from ._blocks.seeding import afkmc2, kmeans_plusplus
from ._estimator.persistence import VersionMismatchWarning
from ._kernel import KernelKMeans, KernelKMeansResult, fit_kernel_kmeans
from ._kmeans import KMeans, lloyd
from ._registry import load
from ._stochastic import (MiniBatchKMeans, NestedMiniBatchKMeans, StochasticKMeansResult,
                          VRKMeans, fit_mbatch, fit_nmbatch, fit_vrkm)
from ._vcgmm import VCGMM, VCGMMResult, VariationalLoop, fit_vargmm, fit_vcgmm

__version__ = _core.version()

__all__ = [
    "KMeans",
    "MiniBatchKMeans",
    "NestedMiniBatchKMeans",
    "StochasticKMeansResult",
    "VRKMeans",
    "KernelKMeans",
    "KernelKMeansResult",
    "VCGMM",
    "VCGMMResult",
    "VariationalLoop",
    "default_coreset_size",
    "fit_mbatch",
    "fit_nmbatch",
    "fit_vrkm",
    "fit_kernel_kmeans",
    "fit_vargmm",
    "fit_vcgmm",
    "afkmc2",
    "assign",
    "assign_approximate",
    "ApproximateIndex",
    "cancel_all",
    "ProgressRecord",
    "load",
    "VersionMismatchWarning",
    "kmeans_plusplus",
    "lloyd",
    "lwcs",
    "quantization_error",
    "show_build",
]


def show_build() -> dict:
    """Build information: version, instruction-set level in use, OpenMP.

    Returns
    -------
    dict
        ``version``, ``opt_level`` (the compiled copy of the core in use:
        ``generic``, ``avx2`` or ``avx512``), ``available_levels``,
        ``cpu_features`` and ``openmp``.

    Examples
    --------
    >>> import vcgmm
    >>> sorted(vcgmm.show_build())
    ['available_levels', 'cpu_features', 'openmp', 'opt_level', 'version']
    """
    return {
        "version": __version__,
        "opt_level": _opt_level,
        "available_levels": available_levels(),
        "cpu_features": _cpu_features(),
        "openmp": bool(_core.have_openmp()),
    }
