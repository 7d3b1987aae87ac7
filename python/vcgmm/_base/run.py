"""How to run: the threads, random seed and progress output of every call.

The parameters every estimator and function shares (``n_threads``,
``random_state``, ``verbose``, ``callback``) and their conversion to the
core's ``RunOptions`` (seed, threads, progress lines, structured progress).
One owner: the tables of the algorithm families include :data:`RUN_PARAMS`.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from .loader import core as _core
from .logs import progress_callback
from .params import INT32_MAX, Boolean, Constraint, Param

__all__ = ["RUN_PARAMS", "run_options", "check_n_threads", "seed_from", "available_threads",
           "cancel_all", "ProgressRecord"]


@dataclass(frozen=True)
class ProgressRecord:
    """What a ``callback`` receives after every iteration and at the end of
    the coreset, seeding and evaluation phases.

    Attributes
    ----------
    algorithm : str
        ``"lloyd"``, ``"vc-gmm"`` (also var-GMM-S), ``"mbatch"``,
        ``"nmbatch"``, ``"vrkm"`` or ``"kernel-kmeans"`` for iterations; the
        pipeline's name (``"k-means"``, ``"vc-gmm"``, ...) at a phase's end.
    phase : str
        ``"coreset"``, ``"seeding"``, ``"iterations"``, ``"refinement"``
        (vc-GMM's hard steps after EM) or ``"evaluation"``.
    iteration : int
        1-based iteration (VRKM: epoch) of ``"iterations"`` or
        ``"refinement"``; 0 at the end of the other phases.
    objective : float
        The loop's objective after the iteration: the quantization error
        (Lloyd, nmbatch, vc-GMM's refinement; mbatch: of its batch, scaled to
        the data's weight; VRKM: measured at the epoch's start), the free
        energy (vc-GMM's EM), the (batch) objective (kernel k-means); the
        quantization error at ``"evaluation"``; NaN at ``"coreset"`` and
        ``"seeding"``.
    seconds : float
        Wall time since the phase started.
    distance_evals : int
        Distance (kernel k-means: kernel) evaluations of the phase so far.

    Examples
    --------
    >>> import numpy as np, vcgmm
    >>> X = np.random.default_rng(0).normal(size=(1000, 2))
    >>> seen = []
    >>> km = vcgmm.KMeans(5, random_state=0, callback=seen.append).fit(X)
    >>> [r.phase for r in seen][:2], seen[1].iteration
    (['seeding', 'iterations'], 1)
    """

    algorithm: str
    phase: str
    iteration: int
    objective: float
    seconds: float
    distance_evals: int


class Callback(Constraint):
    """None or a callable taking a :class:`ProgressRecord`."""

    def accepts(self, value):
        return value is None or callable(value)

    def describe(self):
        return "None or a callable taking a ProgressRecord"


class Threads(Constraint):
    """None or -1 (all available threads) or a positive integer."""

    def accepts(self, value):
        if value is None:
            return True
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            return False
        return int(value) == -1 or 1 <= int(value) <= INT32_MAX

    def normalise(self, value):
        return None if value is None or int(value) == -1 else int(value)

    def error(self, value, name):
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
            return ValueError(f"{name} must be an integer in [1, {INT32_MAX}], -1 or None, "
                              f"got {value}.")
        return TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__}).")

    def parse(self, text):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"expected a positive integer or -1 (all), got {text!r}") from None

    def describe(self):
        return "a positive integer, -1 or None"


class RandomState(Constraint):
    """None, an integer seed in [0, 2^32) or a numpy RandomState."""

    def accepts(self, value):
        if value is None or isinstance(value, np.random.RandomState):
            return True
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            return False
        return 0 <= int(value) < 2**32

    def error(self, value, name):
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
            return ValueError(f"{name} must be in [0, 2^32), got {value}.")
        return TypeError(f"{name} must be None, an integer or a numpy RandomState, got {value!r}.")

    def parse(self, text):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"expected an integer seed, got {text!r}") from None

    def describe(self):
        return "None, an integer in [0, 2^32) or a numpy RandomState"


RUN_PARAMS: tuple[Param, ...] = (
    Param("n_threads", Threads(), None,
          "threads (default: OpenMP's default: OMP_NUM_THREADS if set, else all CPUs "
          "available), at most 4 per CPU (fewer under an address-space limit); results do not "
          "depend on it", target=None, cli="--threads"),
    Param("random_state", RandomState(), None,
          "random seed (default: a fresh random seed)", target=None, cli="--seed"),
    Param("verbose", Boolean(), False,
          "log every phase and iteration to the 'vcgmm' logger", target=None, cli=None),
    Param("callback", Callback(), None,
          "called with a ProgressRecord after every iteration and phase; returning True "
          "stops the iterations", target=None, cli=None),
)


def check_n_threads(n_threads):
    """The core's thread count: 0 (all) for None or -1, else the positive count."""
    n_threads = Threads().check(n_threads, "n_threads")
    return 0 if n_threads is None else n_threads


def seed_from(random_state):
    """A 63-bit seed for the C++ core from a scikit-learn style random_state."""
    rng = check_random_state(random_state)
    return int(rng.randint(0, np.iinfo(np.int64).max, dtype=np.int64))


_warned_fork = False


def _warn_if_forked(n_threads):
    global _warned_fork
    if _warned_fork or n_threads == 1 or not _core.single_threaded_after_fork():
        return
    _warned_fork = True
    warnings.warn(
        "vcgmm runs on one thread in this process: it was forked (multiprocessing's 'fork' "
        "start method) after its parent had started OpenMP threads, which do not survive "
        "fork. Results are the same, only slower; for parallel fits in child processes use "
        "multiprocessing.get_context('spawn') or 'forkserver'.",
        RuntimeWarning, stacklevel=4)


def run_options(n_threads=None, random_state=None, verbose=False, callback=None):
    """The core's RunOptions from validated run parameters."""
    run = _core.RunOptions()
    run.n_threads = check_n_threads(n_threads)
    _warn_if_forked(run.n_threads)
    # Validated here too: lwcs and the seeding functions pass random_state
    # straight through (True once seeded silently, 'x' gave numpy's message).
    run.seed = seed_from(RandomState().check(random_state, "random_state"))
    log = progress_callback(Boolean().check(verbose, "verbose"))
    if log is not None:
        run.log = log
    callback = Callback().check(callback, "callback")
    if callback is not None:
        run.progress = lambda record: callback(ProgressRecord(**record))
    return run


def available_threads() -> int:
    """The threads ``n_threads=None`` uses: OpenMP's default (``OMP_NUM_THREADS``
    if set, else the CPUs this process may run on; 1 in a child forked after
    OpenMP started)."""
    return int(_core.default_threads())


def cancel_all() -> None:
    """Stop every vcgmm computation running in any thread of this process.

    Ctrl-C stops a fit running in the main thread. A fit running in another
    thread (``threading``, ``concurrent.futures``) cannot see Ctrl-C, since
    Python delivers signals to the main thread only; call this function
    there instead (e.g. in the main thread's ``except KeyboardInterrupt:``).
    Each running computation stops within about a second and raises
    KeyboardInterrupt in its own thread (also one that returned in the
    meantime, before its next check: its result is dropped, so a loop of
    calls in that thread stops too); computations started afterwards run
    normally.

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> import vcgmm
    >>> with ThreadPoolExecutor() as pool:                     # doctest: +SKIP
    ...     future = pool.submit(vcgmm.KMeans(1000).fit, X)
    ...     try:
    ...         model = future.result()
    ...     except KeyboardInterrupt:
    ...         vcgmm.cancel_all()
    ...         raise
    """
    _core.cancel_all()
