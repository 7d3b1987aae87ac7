"""Seeding: k-means++ (D^2 sampling) and AFK-MC^2, as functions and as the
``init``, ``chain_length`` and ``n_local_trials`` parameters every pipeline
shares.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._base.docs import fill_doc
from .._base.loader import core as _core
from .._base.hints import ArrayLike, LocalTrialsLike, RandomStateLike, SeedingResult, ThreadsLike
from .._base.params import CORE, AnyOf, Constraint, Integer, Options, Param
from .._base.run import run_options
from .._base.validation import (as_data, check_centers, check_n_clusters, check_sample_weight,
                          count_distinct_rows, positive_rows)

__all__ = [
    "kmeans_plusplus",
    "afkmc2",
    "init_param",
    "local_trials",
    "SEEDING_PARAMS",
    "seeding_to_core",
]

#: Seeding methods by name (the binding's table, less "given": pass an array).
INIT_METHODS = tuple(m for m in _core.seeding_methods() if m != "given")
#: Longest AFK-MC^2 chain accepted (Bachem et al. use 200, the papers 2..20).
MAX_CHAIN_LENGTH = 10_000
#: Most k-means++ candidates per step accepted (scikit-learn uses 2 + ln C).
MAX_LOCAL_TRIALS = 1_000


class InitConstraint(Constraint):
    """A seeding method's name, or an array of initial centers."""

    def accepts(self, value):
        if isinstance(value, str):
            return value in INIT_METHODS
        return hasattr(value, "__len__") or hasattr(value, "__array__")

    def error(self, value, name):
        kind = ValueError if isinstance(value, str) else TypeError
        return kind(f"{name} must be {self.describe()}, got {value!r}.")

    def describe(self):
        return ("one of " + ", ".join(repr(m) for m in INIT_METHODS)
                + " or an array of shape (n_clusters, n_features)")


def init_param(default):
    """The ``init`` entry of a family's table, with the family's default."""
    return Param("init", InitConstraint(), default,
                 "seeding: " + " or ".join(INIT_METHODS), target=None, cli=None)


def _trials_from_core(value):
    return "auto" if value == 0 else value


#: The default candidates per step: the core's (0 there is "auto").
DEFAULT_LOCAL_TRIALS = _trials_from_core(_core.KMeansPlusPlusParams().n_local_trials)

SEEDING_PARAMS: tuple[Param, ...] = (
    Param("chain_length", Integer(1, MAX_CHAIN_LENGTH), CORE,
          "AFK-MC^2 Markov chain length m (the papers use 2 to 20)",
          target="seeding.afkmc2.chain_length", cli="--chain-length"),
    Param("n_local_trials", AnyOf(Options(("auto",)), Integer(1, MAX_LOCAL_TRIALS)),
          DEFAULT_LOCAL_TRIALS,
          "k-means++ candidates per step ('auto': 2 + ln C, scikit-learn's greedy "
          "variant; 1: classic D^2 sampling, the papers')",
          target=None, cli=None),
)


def local_trials(n_local_trials, n_clusters):
    """Candidates per step: ``n_local_trials``, or for "auto" (the core's 0)
    ``2 + int(ln C)``, as the core's ``local_trials``."""
    if n_local_trials in ("auto", 0):
        return 2 + int(np.log(n_clusters))
    return n_local_trials


def seeding_to_core(values, X, n_clusters, params):
    """Writes init and n_local_trials (validated ``values``) into the core's
    ``params.seeding``; returns the initial centers for a given array, else None."""
    params.seeding.kmeans_plusplus.n_local_trials = local_trials(values["n_local_trials"],
                                                                 n_clusters)
    init = values["init"]
    if isinstance(init, str):
        params.seeding.method = init
        return None
    params.seeding.method = "given"
    return check_centers(init, X, name="init", n_clusters=n_clusters)


def _warn_if_duplicate_centers(centers, n_clusters):
    n_distinct = count_distinct_rows(centers)
    if n_distinct < n_clusters:
        warnings.warn(
            f"Only {n_distinct} distinct centers for n_clusters={n_clusters}: "
            "the data have fewer distinct points than clusters, so some centers coincide.",
            UserWarning,
            stacklevel=3,
        )


@fill_doc
def kmeans_plusplus(X: ArrayLike, n_clusters: int, *, sample_weight: ArrayLike | None = None,
                    n_local_trials: LocalTrialsLike = DEFAULT_LOCAL_TRIALS,
                    random_state: RandomStateLike = None,
                    n_threads: ThreadsLike = None) -> SeedingResult:
    """Choose initial centers by k-means++ D^2 sampling (Arthur & Vassilvitskii, 2007).

    The first center is drawn with probability proportional to the sample
    weight, every next one proportional to ``w(x) min_c d(x, c)^2``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data. float32 stays float32, float16 and 8/16-bit integers become
        float32, other numbers float64.
    n_clusters : int
        Number of centers, 1 <= n_clusters <= n_samples.
    sample_weight : array-like of shape (n_samples,), default=None
        %(sample_weight_draws)s
    n_local_trials : int or "auto", default="auto"
        Candidates drawn per step (at most 1000); the one lowering the
        potential most is kept. "auto" is scikit-learn's greedy choice
        ``2 + int(log(n_clusters))``; 1 is the classic algorithm (the papers'
        baseline), about 2 + ln C times cheaper but worse on well-separated clusters.
    %(draw_params)s

    Returns
    -------
    %(seeding_returns)s

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(500, 2))
    >>> centers, indices = vcgmm.kmeans_plusplus(X, 4, random_state=0)
    >>> bool((centers == X[indices]).all())
    True
    """
    X = as_data(X)
    n_clusters = check_n_clusters(n_clusters, X)
    params = _core.KMeansPlusPlusParams()
    trials = SEEDING_PARAMS[1].constraint.check(n_local_trials, "n_local_trials")
    params.n_local_trials = local_trials(trials, n_clusters)
    w = check_sample_weight(sample_weight, X)
    X, w, keep = positive_rows(X, w, n_clusters)  # rows of weight 0 do not exist
    centers, indices, _ = _core.kmeans_plusplus(X, w, n_clusters, params,
                                                run_options(n_threads, random_state))
    _warn_if_duplicate_centers(centers, n_clusters)
    return centers, (indices if keep is None else keep[indices])


@fill_doc
def afkmc2(X: ArrayLike, n_clusters: int, *,
           chain_length: int = _core.Afkmc2Params().chain_length,
           sample_weight: ArrayLike | None = None, random_state: RandomStateLike = None,
           n_threads: ThreadsLike = None) -> SeedingResult:
    """Choose initial centers by AFK-MC^2 (Bachem, Lucic, Hassani & Krause, NIPS 2016).

    A Markov chain Monte Carlo approximation of k-means++ seeding: one pass
    over the data builds a proposal distribution, then each center is the last
    state of a Metropolis-Hastings chain of ``chain_length`` states, costing
    ``O(chain_length * n_clusters^2 * n_features)`` instead of a pass over the
    data per center. From 64 centers on, the candidates' distances to their
    nearest center come from bounds in a few leading principal axes of the
    data, measured in full only where the bounds cannot rule a center out, and
    the chosen centers are grouped in the leaves of a tree so that a candidate
    reads only the centers near it: the same centers as without, and a cost
    that grows well below n_clusters^2 (see the performance page).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (or a coreset, with its weights as ``sample_weight``).
    n_clusters : int
        Number of centers, 1 <= n_clusters <= n_samples.
    chain_length : int, default=20
        Markov chain length m, 1 <= m <= 10000. The vc-GMM papers use 2 to 20;
        Bachem et al. default to 200. Longer chains approximate D^2 sampling better.
    sample_weight : array-like of shape (n_samples,), default=None
        %(sample_weight_draws)s
    %(draw_params)s

    Returns
    -------
    %(seeding_returns)s

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(800, 3))
    >>> centers, indices = vcgmm.afkmc2(X, 4, random_state=0)
    >>> centers.shape
    (4, 3)
    """
    X = as_data(X)
    n_clusters = check_n_clusters(n_clusters, X)
    params = _core.Afkmc2Params()
    params.chain_length = SEEDING_PARAMS[0].constraint.check(chain_length, "chain_length")
    w = check_sample_weight(sample_weight, X)
    X, w, keep = positive_rows(X, w, n_clusters)  # rows of weight 0 do not exist
    centers, indices, _ = _core.afkmc2(X, w, n_clusters, params,
                                       run_options(n_threads, random_state))
    _warn_if_duplicate_centers(centers, n_clusters)
    return centers, (indices if keep is None else keep[indices])
