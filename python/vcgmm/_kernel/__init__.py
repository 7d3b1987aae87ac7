"""Kernel k-means ("Mini-batch kernel k-means"): mini-batch with truncated
centers, untruncated mini-batch, and full batch."""

from .._estimator.family import CliChoice, Family
from .kernel_kmeans import _DEFAULT_BATCH, KernelKMeans, KernelKMeansResult, fit_kernel_kmeans

__all__ = ["FAMILY", "KernelKMeans", "KernelKMeansResult", "fit_kernel_kmeans"]


def _describe(est, n):
    kernel = est.kernel
    if kernel in ("rbf", "laplacian", "poly"):
        coef = f"kappa={est.kappa:g}" if est.kappa is not None else f"gamma={est.gamma}"
        kernel = f"{kernel} kernel ({coef})"
    elif kernel in ("knn", "heat"):
        kernel = (f"{kernel} graph kernel ({est.n_neighbors}-nn graph, dense {n:,} x {n:,}"
                  + (f", t={est.t:g})" if est.kernel == "heat" else ")"))
    else:
        kernel = f"{kernel} kernel"
    batch = (f"{est.batch_size}" if est.batch_size != "auto" else
             f"{min(_DEFAULT_BATCH, n)} = min({_DEFAULT_BATCH}, n)")
    seeding = ("kernel k-means++ seeding" if isinstance(est.init, str)
               else "given initial points")
    if est.algorithm == "full":
        loop = "full-batch kernel k-means (O(n^2) kernel evaluations per iteration)"
    elif est.algorithm == "minibatch":
        loop = (f"untruncated mini-batch kernel k-means (batch {batch}, "
                f"{est.learning_rate} learning rate)")
    else:
        loop = (f"mini-batch kernel k-means with truncated centers (batch {batch}, "
                f"tau={est.tau}, {est.learning_rate} learning rate)")
    return f"{loop}, {kernel}, from {seeding}"


FAMILY: Family = Family(
    name="kernel",
    paper="Mini-batch kernel k-means (paper 003; learning rate of Schwartzman 2023)",
    estimators=(KernelKMeans,),
    functions=(fit_kernel_kmeans,),
    cli={
        "kernel-kmeans": CliChoice(
            KernelKMeans, {},
            "kernel k-means in the feature space of a kernel (--kernel): mini-batch with "
            "truncated centers (the default, O(k (tau + b)^2) per iteration independent of "
            "n), untruncated mini-batch or full batch (--kernel-algorithm)",
            _describe, objective="feature-space inertia (full data)",
            costs=("n_kernel_evals_", "kernel evaluations"), writes_centers=False),
    },
    chunked=False,
    has_centers=False,
    objective="inertia_",
)
