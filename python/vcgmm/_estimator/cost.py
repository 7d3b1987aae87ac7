"""The "this fit takes hours" warning: a lower bound on a fit's work at a
generous rate, and the stack level that points a warning at the user's line."""

from __future__ import annotations

import os
import sys
import warnings

from .._base.run import available_threads
from .._base.loader import core as _core
from .._blocks.seeding import local_trials

__all__ = ["FLOPS_PER_THREAD", "seeding_work", "user_stacklevel", "warn_if_huge"]

#: A generous rate (floating-point operations per second and thread) for the
#: warning on absurd sizes: a fit warned about is slower than an hour even on
#: a fast machine.
FLOPS_PER_THREAD = 5e10


def seeding_work(n, d, params):
    """(distance evaluations, lower bound on their flops) of the seeding
    of ``params`` (core params) on n points in d dimensions.

    2 d flops per evaluation, except k-means++'s bound tests (one flop per
    row and later center or candidate) and AFK-MC^2's chain comparisons (m C (C - 1)
    / 2 of them): with its principal-subspace screen (afkmc2.hpp; the core
    says whether one can run: ``Afkmc2Params.min_screen_coordinates`` < d) a
    candidate may skip all but the centers near it, so only its projection
    onto the screen's axes and one full distance are certain; without, every
    comparison is a full distance.
    """
    C = params.n_clusters
    seeding = params.seeding
    method = _core.resolve_seeding(seeding.method, C)
    if method == "k-means++":
        # Counted as the algorithm's, but only the first center's distances
        # are certain: later centers and candidates skip the rows that the
        # triangle inequality rules out (kmeans_plusplus.hpp), after one
        # comparison each.
        trials = local_trials(seeding.kmeans_plusplus.n_local_trials, C)
        evals = n * (C - 1) * trials
        return evals, 2.0 * d * n + float(evals)
    if method == "afk-mc2":
        chain = seeding.afkmc2.chain_length * C * (C - 1) // 2
        chain_dims = seeding.afkmc2.min_screen_coordinates(d)
        if chain_dims == d:
            return n + chain, 2.0 * d * (n + chain)
        candidates = seeding.afkmc2.chain_length * (C - 1)
        return n + chain, 2.0 * d * (n + candidates * (chain_dims + 1))
    return 0, 0.0


def user_stacklevel():
    """The ``stacklevel`` that makes a warning issued by the calling function
    point at the first frame outside the vcgmm package (the user's line)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def warn_if_huge(what, setup, per_iter, d, flops, hint):
    """Warns when ``flops`` (the seeding plus one iteration: ``setup`` and
    ``per_iter`` evaluations of ``what`` in d dimensions) take more than an
    hour on this machine even at FLOPS_PER_THREAD."""
    seconds = flops / (FLOPS_PER_THREAD * available_threads())
    if seconds > 3600.0:
        warnings.warn(
            f"This fit needs at least {setup + per_iter:.3g} {what} "
            f"({setup:.3g} before the first iteration, {per_iter:.3g} per iteration) in "
            f"{d} dimensions: at least {seconds / 3600.0:.1f} hours on "
            f"{available_threads()} threads. To make it feasible: {hint}.",
            UserWarning, stacklevel=user_stacklevel())
