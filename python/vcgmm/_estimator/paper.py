"""Each estimator as its paper ran it: ``Estimator.paper(n, **params)``.

The library's defaults are chosen on users' data (``bench/results``); the
estimator's ``paper_params`` holds the paper's settings, so that the paper's
algorithm is one call away.
"""

from __future__ import annotations

import inspect

__all__ = ["PaperSettings"]


class PaperSettings:
    """Mixin: ``paper_params`` (class attribute) and the ``paper`` constructor."""

    #: the paper's settings of the constructor parameters it fixes (some equal
    #: the library's defaults; the others are where the defaults differ)
    paper_params: dict = {}
    #: what the paper ran that no parameter reproduces ("" when nothing)
    paper_gaps: str = ""

    @classmethod
    def paper(cls, n, **params):
        """The estimator with the settings of its paper.

        ``paper_params`` holds the paper's settings of the parameters it
        fixes (where they differ from the library's defaults, the parameter's
        documentation says why); ``paper_gaps`` says what, if anything, no
        parameter reproduces.

        Parameters
        ----------
        n : int
            The number of clusters (components).
        **params
            Other constructor parameters; they override the paper's settings.

        Returns
        -------
        estimator
            Unfitted, ``cls(n, **{**paper_params, **params})``.

        Examples
        --------
        >>> import vcgmm
        >>> vcgmm.VRKMeans.paper(10).get_params()["init"]
        'random'
        """
        count = next(iter(inspect.signature(cls).parameters))
        return cls(**{count: n, **cls.paper_params, **params})
