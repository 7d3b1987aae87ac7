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
        Naming ``path`` and what is wrong, if it cannot be read, is not a
        saved vcgmm model (a pickle, for one: ``load`` never unpickles), was
        written in a newer format than this version reads, or is damaged or
        altered: an archive that does not open, an entry the format does not
        define (``attr:predict``, ...), parameters the saved class does not
        accept, or a fitted attribute of the wrong dtype or shape for the
        saved centers (``n_features_in_`` other than their columns, ...), or
        not finite. Centers are held to the rule ``fit`` applies to data:
        finite, and small enough that squared distances cannot overflow. Each
        entry is checked before its data are read, so a file cannot make
        ``load`` allocate more than it stores.

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
