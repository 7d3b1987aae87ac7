"""Energy-vs-time traces of k-means algorithms, shared by ``bench.nmbatch``
(the nested mini-batch paper's figure) and ``bench.vrkm`` (the VRKM paper's
Table 3).

A trace is a list of ``(seconds, energy)`` pairs: the energy is the exact
quantization error ``sum_i min_j ||x_i - c_j||^2`` of the centers the
algorithm held at that moment, on the FULL data set (``vcgmm.quantization_error``,
never timed); the seconds are the algorithm's own wall time since its start
(initial centers given, so no seeding), excluding every energy evaluation.
The first pair is ``(0, E(initial centers))``.

How each algorithm is observed (all from the same initial centers, 2 threads):

- vcgmm Lloyd (``vcgmm.lloyd(..., verbose=True)``): one run; a logging
  handler stamps every iteration as it finishes (the centers of iteration t
  exist from then on) and the energy of those centers is the next
  iteration's objective (exact, computed by Lloyd anyway); at the time limit
  the handler stops the run with ``vcgmm.cancel_all()``.
- scikit-learn ``KMeans`` (Lloyd or Elkan): one run with ``verbose=1``;
  stdout is stamped line by line. Iteration i prints the inertia of the
  centers it started from, which exist from the previous print on. The
  run is stopped at the time limit by raising from the stdout writer. The
  printed inertia costs scikit-learn one extra O(n d) pass per iteration
  (its assignment is O(n C d)).
- mini-batch k-means, ours and scikit-learn's: ``partial_fit`` on the same
  batches (vcgmm's ``mbatch_batch_rows``: uniform with replacement), each
  call timed (with the gather of its rows); energies at log-spaced steps.
  ``partial_fit`` of vcgmm.MiniBatchKMeans is exactly ``fit`` on those
  batches (tested), so this is mbatch's trajectory.
- nmbatch (no partial_fit: its batches grow and its bounds persist): runs
  with max_iter = 1, 2, 4, 8, ... from scratch (each is a prefix of the
  longer ones: same seed, same order, same result); a point is the run's
  ``timings["iterations"]``. The time to reach an energy is therefore read
  at doubling resolution, i.e. overestimated by up to 2x for nmbatch.
- VRKM / VRKM++: the estimator's own trace (``objective_``,
  ``objective_seconds_``: exact energy at every epoch's full pass) plus the
  final centers at the end of the iterations.
"""

from __future__ import annotations

import logging
import math
import sys
import time

import numpy as np

import vcgmm
from vcgmm._base.loader import core
from vcgmm._base.run import seed_from

THREADS = 2


def energy(X, centers):
    """Exact quantization error of ``centers`` on X (untimed by the callers)."""
    return float(vcgmm.quantization_error(X, np.ascontiguousarray(centers, dtype=X.dtype),
                                          n_threads=THREADS))


def log_steps():
    """1, 2, 3, 4, 6, 8, 12, 16, 24, ...: about two checkpoints per doubling."""
    k = 1
    while True:
        yield k
        if k >= 2 and k * 3 // 2 != k:
            yield k * 3 // 2
        k *= 2


def paper_init(X, C, seed):
    """nmbatch's initialisation: the first C rows of its shuffle for ``seed``."""
    order = core.nmbatch_sample_order(X.shape[0], seed_from(seed))
    return np.ascontiguousarray(X[order[:C]])


# --------------------------------------------------------------------- Lloyd (vcgmm)

class _Stamps(logging.Handler):
    """Stamps every Lloyd iteration as it is logged and keeps its objective;
    past ``deadline`` it asks vcgmm to stop (the run then raises
    KeyboardInterrupt within about a second, and the logged iterations are
    the trace)."""

    def __init__(self, deadline):
        super().__init__()
        self.deadline = deadline
        self.times, self.objectives = [], []
        self.cancelled = False

    def emit(self, record):
        msg = record.getMessage()
        if not msg.startswith("lloyd iter"):
            return
        now = time.perf_counter()
        self.times.append(now)
        self.objectives.append(float(msg.split("objective")[1].split()[0]))
        if now > self.deadline and not self.cancelled:
            self.cancelled = True
            vcgmm.cancel_all()


def trace_vcgmm_lloyd(X, init, time_limit, *, tol=0.0, max_iter=100000):
    """vcgmm.lloyd from ``init`` until convergence under ``tol`` or until
    ``time_limit`` seconds have passed (then cancelled after the iteration
    in progress)."""
    logger = logging.getLogger("vcgmm")
    start = time.perf_counter()
    stamps = _Stamps(start + time_limit)
    old_level = logger.level
    logger.addHandler(stamps)
    logger.setLevel(logging.INFO)
    centers = None
    try:
        centers, info = vcgmm.lloyd(X, init, max_iter=max_iter, tol=tol, verbose=True,
                                    n_threads=THREADS)
    except KeyboardInterrupt:
        if not stamps.cancelled:
            raise
    finally:
        logger.removeHandler(stamps)
        logger.setLevel(old_level)
    total = time.perf_counter() - start
    times = [t - start for t in stamps.times]
    # iteration i's objective is the energy of the centers iteration i - 1
    # produced (logged when it finished); exact values when the run returned,
    # the logged ones (8 significant digits) when it was stopped
    obj = np.asarray(info["objective"]) if centers is not None else np.asarray(stamps.objectives)
    n_iter = len(times)
    trace = [(0.0, float(obj[0]))]
    trace += [(times[t - 1], float(obj[t])) for t in range(1, min(n_iter, obj.size))]
    if centers is not None:
        trace.append((times[-1], energy(X, centers)))
    return trace, {"n_iter": n_iter, "converged": centers is not None and bool(info["converged"]),
                   "seconds": times[-1] if times else total,
                   "seconds_per_iter": (times[-1] if times else total) / max(1, n_iter)}


def trace_scalar_lloyd(X, init, time_limit, *, level=None, chunk=8192):
    """Lloyd without matrix-matrix products, as the VRKM paper's baseline
    (sofia-ml's batch k-means: for each point and center ||x||^2 + ||c||^2 -
    2 <x, c>, one inner product at a time): per block of rows, one
    matrix-vector product per center (numpy, X's dtype), then the means by
    per-feature bincounts (float64); one BLAS thread. Runs until the exact
    energy of its centers (untimed) is <= ``level``, no label changes, or
    ``time_limit`` seconds of its own work have passed."""
    from threadpoolctl import threadpool_limits

    centers = np.array(init, dtype=np.float64)
    n, d, C = X.shape[0], X.shape[1], centers.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    trace, n_iter, converged, work = [(0.0, energy(X, centers))], 0, False, 0.0
    while not (level is not None and trace[-1][1] <= level) and work <= time_limit:
        with threadpool_limits(1):
            t0 = time.perf_counter()
            cs = centers.astype(X.dtype)
            c_norms = np.einsum("ij,ij->i", centers, centers)
            new_labels = np.empty(n, dtype=np.int64)
            for r0 in range(0, n, chunk):
                rows = X[r0:r0 + chunk]
                dist = np.empty((rows.shape[0], C))
                for c in range(C):
                    dist[:, c] = c_norms[c] - 2.0 * (rows @ cs[c])
                new_labels[r0:r0 + chunk] = dist.argmin(1)
            converged = bool(np.array_equal(new_labels, labels))
            labels = new_labels
            if not converged:
                counts = np.bincount(labels, minlength=C)
                nonempty = counts > 0
                for j in range(d):
                    centers[nonempty, j] = (np.bincount(labels, weights=X[:, j],
                                                        minlength=C)[nonempty] / counts[nonempty])
                n_iter += 1
            work += time.perf_counter() - t0
        if converged:
            break
        trace.append((work, energy(X, centers)))
    return trace, {"n_iter": n_iter, "converged": converged, "seconds": work,
                   "seconds_per_iter": work / max(1, n_iter)}


# --------------------------------------------------------------- scikit-learn KMeans

class _StopRun(Exception):
    pass


class _StampedStdout:
    """Collects (perf_counter, line) of what is printed; raises _StopRun once
    ``deadline`` has passed (at a line boundary)."""

    def __init__(self, deadline):
        self.deadline = deadline
        self.lines = []
        self._buf = ""

    def write(self, text):
        self._buf += text
        while "\n" in self._buf:
            line, self._buf = self._buf.split("\n", 1)
            now = time.perf_counter()
            self.lines.append((now, line))
            if now > self.deadline and line.startswith("Iteration"):
                raise _StopRun()
        return len(text)

    def flush(self):
        pass


def trace_sklearn_kmeans(X, init, time_limit, *, algorithm="lloyd", tol=0.0, max_iter=100000):
    """scikit-learn KMeans(init=init, n_init=1) with verbose per-iteration
    inertia, stopped after ``time_limit`` seconds (or its own convergence)."""
    from sklearn.cluster import KMeans

    km = KMeans(init.shape[0], init=init, n_init=1, algorithm=algorithm, tol=tol,
                max_iter=max_iter, verbose=1)
    start = time.perf_counter()
    out = _StampedStdout(start + time_limit)
    saved, sys.stdout = sys.stdout, out
    finished = False
    try:
        km.fit(X)
        finished = True
    except _StopRun:
        pass
    finally:
        sys.stdout = saved
    end = time.perf_counter()
    # "Iteration 3, inertia 123.4" (Elkan) or "... inertia 123.4." (Lloyd)
    its = [(t - start, float(line.split("inertia")[1].strip().rstrip(".")))
           for t, line in out.lines if line.startswith("Iteration")]
    trace = [(0.0, its[0][1])] if its else [(0.0, energy(X, init))]
    trace += [(its[i - 1][0], its[i][1]) for i in range(1, len(its))]
    if finished:  # the final centers exist when fit returns
        trace.append((end - start, energy(X, km.cluster_centers_)))
    return trace, {"n_iter": len(its), "converged": finished and km.n_iter_ < max_iter,
                   "seconds": end - start, "seconds_per_iter": (end - start) / max(1, len(its))}


# ---------------------------------------------------------------- mini-batch k-means

def trace_partial_fit(X, est, batch_size, seed, time_limit):
    """``est.partial_fit`` on the batches fit_mbatch draws for ``seed``, timed
    per call (with the gather), until ``time_limit`` seconds."""
    n = X.shape[0]
    s = seed_from(seed)
    steps = log_steps()
    next_check = next(steps)
    elapsed = 0.0
    trace = []
    t = 0
    while elapsed < time_limit:
        t += 1
        rows = core.mbatch_batch_rows(n, batch_size, s, t)
        t0 = time.perf_counter()
        est.partial_fit(X[rows])
        elapsed += time.perf_counter() - t0
        if t == next_check:
            trace.append((elapsed, energy(X, est.cluster_centers_)))
            next_check = next(steps)
    if not trace or trace[-1][0] != elapsed:
        trace.append((elapsed, energy(X, est.cluster_centers_)))
    return trace, {"n_iter": t, "seconds": elapsed, "seconds_per_iter": elapsed / t}


def trace_mbatch(X, init, batch_size, seed, time_limit):
    est = vcgmm.MiniBatchKMeans(init.shape[0], init=init, batch_size=batch_size,
                                compute_labels=False, random_state=seed, n_threads=THREADS)
    trace, info = trace_partial_fit(X, est, batch_size, seed, time_limit)
    return [(0.0, energy(X, init))] + trace, info


def trace_sklearn_minibatch(X, init, batch_size, seed, time_limit):
    from sklearn.cluster import MiniBatchKMeans

    est = MiniBatchKMeans(init.shape[0], init=init, n_init=1, batch_size=batch_size,
                          compute_labels=False, random_state=seed)
    trace, info = trace_partial_fit(X, est, batch_size, seed, time_limit)
    return [(0.0, energy(X, init))] + trace, info


# -------------------------------------------------------------------------- nmbatch

def trace_nmbatch(X, C, seed, time_limit, *, rho=100.0, batch_size=5000, bounds="auto",
                  init=None, doubling="paper"):
    """nmbatch from ``init`` (default: its own initialisation, paper_init(X,
    C, seed)) at max_iter = 1, 2, 4, ...: each run's iteration time and final
    energy.

    Every run is held to ``time_limit`` seconds of iterations by nmbatch's
    own ``time_budget`` (the other algorithms' limit), so the last point is
    never later than the limit plus one iteration."""
    start = paper_init(X, C, seed) if init is None else init
    trace = [(0.0, energy(X, start))]
    m, last = 1, None
    while True:
        r = vcgmm.fit_nmbatch(X, C, init="random" if init is None else init, rho=rho,
                              doubling=doubling, batch_size=batch_size, bounds=bounds, max_iter=m,
                              time_budget=time_limit, random_state=seed, n_threads=THREADS)
        # a longer prefix cannot take less time: timing noise of the
        # independent runs is removed by a running maximum
        seconds = max(r.timings["iterations"] + r.timings["seeding"], trace[-1][0])
        trace.append((seconds, energy(X, r.centers)))
        last = r
        if r.converged or r.n_iter < m or seconds >= time_limit:
            break
        m *= 2
    computed = int(last.n_distance_evals["iterations"])
    skipped = int(last.info["n_distances_skipped"])
    return trace, {"n_iter": int(last.n_iter), "converged": bool(last.converged),
                   "seconds": seconds, "final_batch": int(last.info["batch_sizes"][-1]),
                   "bounds": last.info["bounds"], "distances_computed": computed,
                   "distances_skipped": skipped}


# ----------------------------------------------------------------------------- VRKM

def trace_vrkm(X, init, time_limit, *, tol=1e-4, max_epochs=None, seed=0, **params):
    """VRKMeans from ``init``, stopped by its progress callback at the first
    epoch that ends after ``time_limit`` seconds of iterations (unless ``tol``
    or ``max_epochs``, default 10,000, stops it first).

    (Sizing ``max_epochs`` from a timed probe run overestimated the epoch
    time, so runs stopped well before the limit.)"""
    def past_limit(record):
        return record.phase == "iterations" and record.seconds >= time_limit

    r = vcgmm.fit_vrkm(X, init.shape[0], init=init,
                       max_epochs=10_000 if max_epochs is None else max_epochs, tol=tol,
                       random_state=seed, n_threads=THREADS, return_labels=True,
                       callback=past_limit, **params)
    trace = [(float(s), float(e)) for s, e in zip(r.objective_seconds, r.objective)]
    trace.append((float(r.timings["iterations"]), float(r.inertia)))
    et = r.info["epoch_timings"]
    n_inner = int(r.info["epoch_size"]) * r.n_iter
    n_full = len(r.objective) * X.shape[0]
    return trace, {"n_iter": int(r.n_iter), "converged": bool(r.converged),
                   "seconds": float(r.timings["iterations"]),
                   "learning_rate": float(r.info["learning_rate"]),
                   "epoch_size": int(r.info["epoch_size"]),
                   "full_pass_seconds": et["full_pass"], "correction_seconds": et["correction"],
                   "inner_loop_seconds": et["inner_loop"],
                   "inner_seconds_per_point": et["inner_loop"] / max(1, n_inner),
                   "full_pass_seconds_per_point": et["full_pass"] / max(1, n_full),
                   "n_updates": int(np.sum(r.info["n_updates"]))}


# -------------------------------------------------------------------------- reading

def time_to(trace, target):
    """First time at which the trace's energy is <= target (None: never)."""
    for t, e in trace:
        if e <= target:
            return t
    return None


def best(trace):
    return min(e for _, e in trace)
