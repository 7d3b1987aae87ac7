"""The families, one line each: what persistence, the command line and the
shared test tables iterate over (see ARCHITECTURE.md, "Adding a family")."""

from __future__ import annotations

from ._estimator import persistence
from ._kernel import FAMILY as _KERNEL
from ._kmeans import FAMILY as _KMEANS
from ._stochastic import FAMILY as _STOCHASTIC
from ._vcgmm import FAMILY as _VCGMM

__all__ = ["ALGORITHMS", "FAMILIES", "load", "saved_classes"]

#: every family, in the order of the command line's algorithm list
FAMILIES = (_KMEANS, _VCGMM, _STOCHASTIC, _KERNEL)

#: ``vcgmm fit`` algorithm name -> CliChoice
ALGORITHMS = {name: choice for family in FAMILIES for name, choice in family.cli.items()}


def saved_classes():
    """Estimator classes ``save``/``load`` know: those of the center-based families."""
    return {cls.__name__: cls for family in FAMILIES if family.has_centers
            for cls in family.estimators}


def load(path):
    """Load a model written by an estimator's ``save(path)``.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.npz`` file written by ``save`` (any vcgmm version up to this one).

    Returns
    -------
    estimator
        The saved class (``KMeans``, ``VCGMM``, ``MiniBatchKMeans``,
        ``NestedMiniBatchKMeans`` or ``VRKMeans``) with the saved parameters
        and fitted attributes: ``predict``, ``transform`` and ``score`` give
        the results of the saved model bit for bit.

    Raises
    ------
    ValueError
        If ``path`` is not a saved vcgmm model, or was written in a newer
        format than this version reads.

    Examples
    --------
    >>> import numpy as np, os, tempfile, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(500, 3)).astype(np.float32)
    >>> gmm = vcgmm.VCGMM(4, G=2, random_state=0).fit(X)
    >>> path = os.path.join(tempfile.mkdtemp(), "gmm.npz")
    >>> gmm.save(path)
    >>> loaded = vcgmm.load(path)
    >>> loaded.cluster_centers_.dtype, loaded.sigma2_ == gmm.sigma2_
    (dtype('float32'), True)
    """
    return persistence.load_model(path, saved_classes())
