"""Frontier: every vcgmm algorithm along its speed knob against the peers, at very many clusters.

The issue "vc-GMM on big machines and very many clusters" asks, for every
peer, whether some vcgmm setting is both faster and at least as good, and
which peers cannot finish at all. For each data set and each C, every point
below is fitted in a child process with a wall-clock limit; a fit past the
limit is killed and reported as "did not finish within N s".

Data sets (``--datasets``; all float32)
---------------------------------------
patches-all    1,117,389 x 108, 6x6x3 image patches of ten photos, stride 2
               (``bench/datasets.py``, needs scikit-image)
fashion-mnist  70,000 x 784 (Debian ``dataset-fashion-mnist``)
blobs2m        ``sklearn.datasets.make_blobs(2_000_000, 128, centers=1000,
               cluster_std=1.0, random_state=0)``, fixed across seeds

``--rows`` keeps a fixed random subset of the real sets (users_data's
``_subsample``) and generates blobs2m at that size (smoke tests). A set that
cannot be loaded (package or files missing) is skipped with a note.

Points (rows; ``--points`` keeps a subset by key)
-------------------------------------------------
vcgmm, the table ``VCGMM_POINTS`` (edit it there): every estimator a user
can pick at its defaults, and settings along its speed/quality knob.
Settings other than the defaults pass ``compute_labels=False`` (centers
only, as faiss and SuperKMeans return); the defaults keep the exact
labelling pass of ``fit``.

vcgmm              ``VCGMM()``
vcgmm-centers      ``VCGMM(compute_labels=False)``
vcgmm-4C           ``VCGMM(coreset_size=4*C)`` (the default is 64*C; all at most N)
vcgmm-16C          ``VCGMM(coreset_size=16*C)``
vcgmm-16C-coreset  ``VCGMM(coreset_size=16*C, data_steps=0)``: the fit on the coreset only
vcgmm-256C         ``VCGMM(coreset_size=256*C)``
vcgmm-8steps       ``VCGMM(data_steps=8)``: the defaults with eight steps on all rows
vcgmm-4C-step      ``VCGMM(coreset_size=4*C, data_steps=1, refine=0, tol=5e-3)``: EM on
                   a small coreset, then one hard step on all rows
vcgmm-1C-steps     ``VCGMM(coreset_size=C, init="random", max_iter=3, data_steps=2,
                   refine=0)``: random seeds, a few EM iterations, two steps on all rows
vcgmm-1C-1step     the same with ``data_steps=1``
vcgmm-1C-1step-plain  the same with ``split_merge=False``: the data step moves empty
                   clusters onto far points but makes no split-merge moves
vcgmm-1C-2it-plain the same with ``max_iter=2``
vcgmm-1C-4steps    the same with ``data_steps=4``
vcgmm-1C-32steps   the same with ``data_steps=32`` (approximate Lloyd on all rows)
vcgmm-16C-nearest  ``VCGMM(coreset_size=16*C, initial_sets="nearest", data_steps=4,
                   refine=0, tol=5e-3)``: EM from the seeding's partition (for
                   well-separated clusters), then four steps on all rows
kmeans             ``KMeans()`` (k-means++ and Lloyd on all rows)
kmeans-it10        ``KMeans(max_iter=10)``
kmeans-it5         ``KMeans(max_iter=5)``
lwcs               ``KMeans(init="afk-mc2", coreset_size="auto")``
minibatch          ``MiniBatchKMeans()``
nested-minibatch   ``NestedMiniBatchKMeans()``

Peers, the table ``PEERS``:

faiss              ``faiss.Kmeans(D, C, seed=seed)`` (users_data's ``FaissKMeans``)
faiss-afkmc2       the same from ``vcgmm.afkmc2`` seeds (the seeding timed too)
superkmeans        ``superkmeans.SuperKMeans(C, D, hierarchical=False)``
superkmeans-hier   ``superkmeans.SuperKMeans(C, D, hierarchical=True)`` (its
                   default, None, picks hierarchical above 100,000 rows)
sklearnex          ``sklearnex.cluster.KMeans(C, n_init=1)``
sklearn-minibatch  ``sklearn.cluster.MiniBatchKMeans(C)``

All get ``random_state``/``seed`` = the seed and ``--threads`` threads (vcgmm
and SuperKMeans ``n_threads``, scikit-learn-intelex ``n_jobs``, faiss
``omp_set_num_threads``, every BLAS and OpenMP pool by threadpoolctl: see
``_harness.thread_limits``, entered in every child).

Measured per fit
----------------
Data are loaded once; each fit then runs in a forked child (the data shared
copy-on-write; the parent starts no OpenMP thread, so every library keeps its
threads in the child, which checks it for vcgmm). The child fits the point
once on small random data (untimed: imports, thread pools), then

- time: wall time of one ``fit(X)`` (``time.perf_counter``), nothing else;
- error/point: ``users_data.quantization`` on all rows (exact, float64), the
  same routine for every point, after the timing;
- clusters used, other processes' CPU during the fit (``_harness.OtherCpu``).

A fit whose time passes ``--time-limit`` is killed. A point is not started
(and reported so) at a C where it is bound to pass the limit: when it did
not finish at a smaller C, or when its time at the largest smaller C, scaled
by ``(C / C') ** grows`` (``grows``: a lower bound of the exponent of C in
its cost, given in the tables; 0 for points whose cost may grow more slowly
than C), exceeds ``SKIP_FACTOR`` times the limit.

Reported per data set and C: every point's mean time and error over the
seeds, and for every peer "dominated by": the fastest vcgmm point with an
error <= the peer's and a time < the peer's, or "none (gap: error +x% / time
y.yyx vs P)", P being the vcgmm point nearest to dominating it (smallest
larger-of-the-two log ratios). A summary row per data set and C, and a plot
``<name>_<dataset>_C<C>.png`` (time, log, vs error) beside the results.

Run from the repository root::

    python -m bench.frontier       # the whole grid, 1 seed, 1800 s limit (about a day, 2 cores)
    python -m bench.frontier --datasets blobs2m --rows 20000 --clusters 50 \\
        --time-limit 60 --name frontier_smoke          # smoke run, under a minute
    python -m bench.frontier --resume  # go on after an interruption (finished fits are kept)
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import multiprocessing
import statistics
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from bench import _harness
from bench.datasets import load
from bench.users_data import (FaissKMeans, _num, _one_line, _subsample, centers_of,
                               quantization)

NAME = "frontier"
DEFAULT_CLUSTERS = [1000, 4000, 16384, 65536]
DEFAULT_TIME_LIMIT = 1800.0
#: a point is not started when its projected time exceeds this many limits
SKIP_FACTOR = 2.0
#: seconds a child may take to import, warm up and build its estimator
SETUP_TIMEOUT = 600.0
BLOBS_ROWS, BLOBS_FEATURES, BLOBS_CENTERS, BLOBS_STD = 2_000_000, 128, 1000, 1.0


class PerCluster:
    """A coreset size of ``k`` points per cluster, clipped to [C, n_samples]."""

    def __init__(self, k):
        self.k = k

    def __repr__(self):
        return f"{self.k}*C"

    def __call__(self, C, n_samples):
        return int(max(C, min(n_samples, self.k * C)))


_ONLY_CENTERS = {"compute_labels": False}


def _random_seeds_then_steps(k, max_iter=3, **extra):
    """Random seeds, ``max_iter`` EM iterations on C coreset points, then k data steps."""
    return ("VCGMM", {"coreset_size": PerCluster(1), "init": "random", "max_iter": max_iter,
                      "data_steps": k, "refine": 0, **extra, **_ONLY_CENTERS}, 0)


#: vcgmm's points: key -> (estimator, keyword arguments, grows). A callable
#: value (PerCluster) is resolved per fit from (C, n_samples); ``grows`` is a
#: lower bound of the exponent of C in the fit's cost (0: none known).
VCGMM_POINTS = {
    "vcgmm": ("VCGMM", {}, 0),
    "vcgmm-centers": ("VCGMM", {**_ONLY_CENTERS}, 0),
    "vcgmm-4C": ("VCGMM", {"coreset_size": PerCluster(4), **_ONLY_CENTERS}, 0),
    "vcgmm-16C": ("VCGMM", {"coreset_size": PerCluster(16), **_ONLY_CENTERS}, 0),
    "vcgmm-16C-coreset": ("VCGMM", {"coreset_size": PerCluster(16), "data_steps": 0,
                                    **_ONLY_CENTERS}, 0),
    "vcgmm-256C": ("VCGMM", {"coreset_size": PerCluster(256), **_ONLY_CENTERS}, 0),
    "vcgmm-8steps": ("VCGMM", {"data_steps": 8, **_ONLY_CENTERS}, 0),
    "vcgmm-4C-step": ("VCGMM", {"coreset_size": PerCluster(4), "data_steps": 1, "refine": 0,
                                "tol": 5e-3, **_ONLY_CENTERS}, 0),
    "vcgmm-1C-1step": _random_seeds_then_steps(1),
    "vcgmm-1C-1step-plain": _random_seeds_then_steps(1, split_merge=False),
    "vcgmm-1C-2it-plain": _random_seeds_then_steps(1, max_iter=2, split_merge=False),
    "vcgmm-1C-steps": _random_seeds_then_steps(2),
    "vcgmm-1C-4steps": _random_seeds_then_steps(4),
    "vcgmm-1C-32steps": _random_seeds_then_steps(32),
    "vcgmm-16C-nearest": ("VCGMM", {"coreset_size": PerCluster(16), "initial_sets": "nearest",
                                    "data_steps": 4, "refine": 0, "tol": 5e-3,
                                    **_ONLY_CENTERS}, 0),
    "kmeans": ("KMeans", {}, 1),
    "kmeans-it10": ("KMeans", {"max_iter": 10, **_ONLY_CENTERS}, 1),
    "kmeans-it5": ("KMeans", {"max_iter": 5, **_ONLY_CENTERS}, 1),
    "lwcs": ("KMeans", {"init": "afk-mc2", "coreset_size": "auto", **_ONLY_CENTERS}, 1),
    "minibatch": ("MiniBatchKMeans", {}, 1),
    "nested-minibatch": ("NestedMiniBatchKMeans", {}, 0),
}


class SuperKMeansFit:
    """``superkmeans.SuperKMeans(...).train(X32)`` behind ``fit(X)``, its stdout captured."""

    def __init__(self, n_clusters, random_state, n_threads, hierarchical):
        self.n_clusters = n_clusters
        self.random_state = random_state
        self.n_threads = n_threads
        self.hierarchical = hierarchical

    def __repr__(self):
        return (f"superkmeans.SuperKMeans({self.n_clusters}, d, hierarchical={self.hierarchical}, "
                f"n_threads={self.n_threads}, seed={self.random_state}, defaults)")

    def fit(self, X):
        import superkmeans

        X32 = np.ascontiguousarray(X, dtype=np.float32)
        model = superkmeans.SuperKMeans(self.n_clusters, X32.shape[1],
                                        hierarchical=self.hierarchical,
                                        n_threads=self.n_threads, seed=int(self.random_state))
        with _harness.capture_fd_output(1) as log:
            centers = model.train(X32)
        self.log_ = log
        self.cluster_centers_ = np.asarray(centers)
        return self


def _sklearnex_kmeans(C, seed, threads):
    from sklearnex.cluster import KMeans

    return KMeans(C, n_init=1, random_state=seed, n_jobs=threads)


def _sklearn_minibatch(C, seed, threads):
    from sklearn.cluster import MiniBatchKMeans

    return MiniBatchKMeans(C, random_state=seed)


#: the peers: key -> (method, setting, build(C, seed, threads), grows)
PEERS = {
    "faiss": ("faiss.Kmeans", "defaults (25 iterations on <= 256*C sampled rows)",
              lambda C, s, t: FaissKMeans(C, s, t), 1),
    "faiss-afkmc2": ("faiss.Kmeans", "init_centroids=vcgmm.afkmc2(X, C) (chain 20, timed)",
                     lambda C, s, t: FaissKMeans(C, s, t, afkmc2_init=True), 1),
    "superkmeans": ("superkmeans.SuperKMeans", "hierarchical=False",
                    lambda C, s, t: SuperKMeansFit(C, s, t, hierarchical=False), 0),
    "superkmeans-hier": ("superkmeans.SuperKMeans", "hierarchical=True",
                         lambda C, s, t: SuperKMeansFit(C, s, t, hierarchical=True), 0),
    "sklearnex": ("sklearnex.cluster.KMeans", "n_init=1", _sklearnex_kmeans, 1),
    "sklearn-minibatch": ("sklearn.cluster.MiniBatchKMeans", "defaults", _sklearn_minibatch, 1),
}


@dataclass(frozen=True)
class Point:
    """One row: ``build(C, n_samples, seed, threads)`` gives a fresh, unfitted estimator."""

    key: str
    kind: str  # "vcgmm" or "peer"
    method: str
    setting: str
    build: Callable = field(repr=False)
    grows: float = 0.0


def _vcgmm_point(key, estimator, kwargs, grows):
    def build(C, n_samples, seed, threads):
        import vcgmm

        count = "n_components" if estimator == "VCGMM" else "n_clusters"
        resolved = {k: v(C, n_samples) if callable(v) else v for k, v in kwargs.items()}
        return getattr(vcgmm, estimator)(**{count: C}, random_state=seed, n_threads=threads,
                                         **resolved)

    setting = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "defaults"
    return Point(key, "vcgmm", f"vcgmm.{estimator}", setting, build, grows)


def all_points():
    """Every point of the two tables, vcgmm's first."""
    points = [_vcgmm_point(key, *spec) for key, spec in VCGMM_POINTS.items()]
    for key, (method, setting, make, grows) in PEERS.items():
        points.append(Point(key, "peer", method, setting,
                            lambda C, n, s, t, make=make: make(C, s, t), grows))
    return points


def label(point):
    """The point's name in the plots' legends."""
    return f"{point.key}: {point.method}, {point.setting}"


# --------------------------------------------------------------------------- data
def load_data(name, rows):
    """(X float32 C-contiguous, description) of a data set, cut or generated at ``rows``."""
    if name == "blobs2m":
        from sklearn.datasets import make_blobs

        X, _ = make_blobs(n_samples=rows or BLOBS_ROWS, n_features=BLOBS_FEATURES,
                          centers=BLOBS_CENTERS, cluster_std=BLOBS_STD, random_state=0)
        desc = (f"make_blobs({rows or BLOBS_ROWS}, {BLOBS_FEATURES}, centers={BLOBS_CENTERS}, "
                f"cluster_std={BLOBS_STD}, random_state=0)")
        return np.ascontiguousarray(X, dtype=np.float32), desc
    X = _subsample(load(name, dtype=np.float32), rows)
    return X, f"bench/datasets.py {name!r}" + (f", a fixed random subset of {rows:,} rows"
                                                 if rows else "")


DATASETS = ("patches-all", "fashion-mnist", "blobs2m")


# --------------------------------------------------------------------------- one fit
class _LogLines(logging.Handler):
    """Collects the records of one logger (scikit-learn-intelex says whether it
    ran its oneDAL code or fell back to scikit-learn's)."""

    def __init__(self, name):
        super().__init__(logging.INFO)
        self.lines = []
        self.logger = logging.getLogger(name)

    def emit(self, record):
        self.lines.append(record.getMessage())

    def __enter__(self):
        self._saved = (self.logger.level, self.logger.handlers, self.logger.propagate)
        self.logger.setLevel(logging.INFO)
        self.logger.handlers = [self]  # recorded, not printed
        self.logger.propagate = False
        return self

    def __exit__(self, *exc):
        self.logger.level, self.logger.handlers, self.logger.propagate = self._saved
        return False


def _warm_up(point, threads):
    """One untimed fit on small random data: imports, thread pools, first-call costs."""
    X = np.random.default_rng(12345).standard_normal((2000, 8)).astype(np.float32)
    with contextlib.suppress(Exception), warnings.catch_warnings(), \
            _harness.capture_fd_output(1):
        warnings.simplefilter("ignore")
        point.build(8, X.shape[0], 0, threads).fit(X)


def _child(conn, point, X, C, seed, threads):
    """The forked child: warm up, one timed fit, the exact error; messages to ``conn``."""
    try:
        with _harness.thread_limits(threads):
            import vcgmm

            if vcgmm._core.single_threaded_after_fork():
                raise RuntimeError("the parent started OpenMP threads before forking: vcgmm "
                                   "would run on one thread in this child")
            _warm_up(point, threads)
            est = point.build(C, X.shape[0], seed, threads)
            conn.send(("started", _one_line(repr(est), 400)))
            with warnings.catch_warnings(record=True) as caught, _LogLines("sklearnex") as log:
                warnings.simplefilter("always")
                with _harness.OtherCpu() as other:
                    t0 = time.perf_counter()
                    est.fit(X)
                    seconds = time.perf_counter() - t0
            conn.send(("fitted", seconds))
            err, used, nonfinite = quantization(X, centers_of(est))
            out = {"error_per_point": err, "clusters_used": used,
                   "other_cpu_cores": other.cores}
            msgs = sorted({_one_line(f"{w.category.__name__}: {w.message}") for w in caught})
            if msgs:
                out["warnings"] = msgs
            if log.lines:
                out["library_log"] = sorted(set(log.lines))
            text = "".join(getattr(est, "log_", []) or []).strip()
            if text:
                out["log"] = text[-2000:]
            if nonfinite:
                out["nonfinite_centers"] = nonfinite
            conn.send(("done", out))
    except BaseException as exc:  # reported by the parent, the run goes on
        conn.send(("error", {"error": _one_line(f"{type(exc).__name__}: {exc}"),
                             "traceback": traceback.format_exc()[-4000:]}))
    finally:
        conn.close()


def _receive(conn, proc, timeout):
    """The child's next message; ("timeout",) after ``timeout`` seconds (None: no
    limit), ("died", exit code) when it ended without one."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        wait = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
        if wait <= 0:
            return ("timeout",)
        if conn.poll(wait):
            try:
                return conn.recv()
            except EOFError:
                proc.join()
                return ("died", proc.exitcode)
        if not proc.is_alive() and not conn.poll(0):
            proc.join()
            return ("died", proc.exitcode)


def run_fit(point, X, C, seed, threads, limit):
    """One fit in a forked child, killed after ``limit`` seconds of fitting.

    Returns
    -------
    dict
        ``status`` ("ok", "timeout" or "error"), ``seconds``, ``error_per_point``,
        ``clusters_used``, ``other_cpu_cores`` (None where not measured), and the
        estimator's repr, warnings and logs.
    """
    rec = {"seed": seed, "status": "error", "seconds": None, "error_per_point": None,
           "clusters_used": None, "other_cpu_cores": None, "error": None}
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, point, X, C, seed, threads), daemon=True)
    started = time.perf_counter()
    proc.start()
    send.close()
    try:
        msg = _receive(recv, proc, SETUP_TIMEOUT)
        if msg[0] == "started":
            rec["estimator"] = msg[1]
            msg = _receive(recv, proc, limit)
            if msg[0] == "timeout":
                rec["status"] = "timeout"
                return rec
            if msg[0] == "fitted":
                rec["seconds"] = msg[1]
                msg = _receive(recv, proc, None)
                if msg[0] == "done":
                    rec.update(msg[1], status="ok")
                    return rec
        if msg[0] == "error":
            rec.update(msg[1])
        elif msg[0] == "died":
            rec["error"] = f"the child process died (exit code {msg[1]})"
        else:
            rec["error"] = f"no answer from the child within {SETUP_TIMEOUT:.0f} s of setup"
        return rec
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()
        rec["child_seconds"] = time.perf_counter() - started


def skip_reason(point, C, earlier, limit):
    """Why ``point`` is not started at ``C`` (None: start it).

    ``earlier`` maps each smaller C' of the same data set to this point's
    records there."""
    for c in sorted(earlier):
        if any(r["status"] in ("timeout", "skipped") for r in earlier[c]):
            return f"did not finish within {limit:g} s at C={c}"
    if point.grows > 0:
        done = [c for c in earlier if earlier[c] and all(r["status"] == "ok" for r in earlier[c])]
        if done:
            c = max(done)
            t = statistics.fmean(r["seconds"] for r in earlier[c])
            projected = t * (C / c) ** point.grows
            if projected > SKIP_FACTOR * limit:
                return (f"projected {projected:.0f} s > {SKIP_FACTOR:g} x limit ({t:.3g} s at "
                        f"C={c}, times (C/{c})^{point.grows:g})")
    return None


# --------------------------------------------------------------------------- summary
def summarize(dataset, C, n_rows, point, records, limit):
    """The table row of one point: means over its seeds, or why there are none."""
    row = {"dataset": dataset, "C": C, "n_samples": n_rows, "key": point.key,
           "kind": point.kind, "method": point.method, "setting": point.setting,
           "label": label(point), "seconds": None, "error_per_point": None,
           "clusters_used": None, "other_cpu_cores": None, "per_seed": records,
           "estimator_repr": next((r["estimator"] for r in records if r.get("estimator")), None)}
    failed = [r for r in records if r["status"] == "error"]
    unfinished = [r for r in records if r["status"] in ("timeout", "skipped")]
    if failed:
        row["status"] = "error"
        row["time_cell"] = "ERROR"
        row["error_cell"] = (f"ERROR ({len(failed)}/{len(records)} seeds): "
                             f"{failed[0]['error']}").replace("|", "\\|")
    elif unfinished:
        row["status"] = "dnf"
        row["time_cell"] = "; ".join(sorted({
            f"not run: {r['reason']}" if r["status"] == "skipped"
            else f"did not finish within {limit:g} s" for r in unfinished}))
        row["error_cell"] = "-"
    else:
        row["status"] = "ok"
        for key in ("seconds", "error_per_point", "clusters_used", "other_cpu_cores"):
            values = [r[key] for r in records if r.get(key) is not None]
            row[key] = statistics.fmean(values) if values else None
        row["time_cell"] = f"{row['seconds']:.3g}"
        row["error_cell"] = f"{row['error_per_point']:.5g}"
    return row


def _pct(a, b):
    """``a`` relative to ``b`` in percent ("+1.23%")."""
    return f"{100 * (a / b - 1):+.2f}%" if b > 0 else ("+0.00%" if a == b else "+inf%")


def dominated_by(peer, vc_rows):
    """The "dominated by" cell of a peer's row (and its JSON details)."""
    if peer["status"] == "error":
        return "n/a (the peer failed)", None
    if peer["status"] == "dnf":
        fastest = min((r for r in vc_rows if r["status"] == "ok"), key=lambda r: r["seconds"],
                      default=None)
        if fastest is None:
            return "n/a (the peer did not finish, nor did any vcgmm point)", None
        return (f"n/a (the peer did not finish; fastest vcgmm point: {fastest['key']}, "
                f"{fastest['seconds']:.3g} s)"), None
    t, e = peer["seconds"], peer["error_per_point"]
    ok = [r for r in vc_rows if r["status"] == "ok"]
    better = [r for r in ok if r["error_per_point"] <= e and r["seconds"] < t]
    if better:
        best = min(better, key=lambda r: r["seconds"])
        return (f"{best['key']} (time {best['seconds'] / t:.2f}x, error "
                f"{_pct(best['error_per_point'], e)})"), best["key"]
    if not ok:
        return "none (no vcgmm point finished)", None

    def distance(r):  # log distance to the region the peer is dominated in
        tiny = 1e-300
        return max(math.log(max(r["error_per_point"], tiny) / max(e, tiny)),
                   math.log(max(r["seconds"], tiny) / max(t, tiny)), 0.0)

    near = min(ok, key=distance)
    return (f"none (gap: error {_pct(near['error_per_point'], e)} / time "
            f"{near['seconds'] / t:.2f}x vs {near['key']})"), None


def summary_line(dataset, C, vc_rows, peer_rows):
    """One sentence per (data set, C): peers dominated, not dominated, unfinished."""
    judged = [r for r in peer_rows if r["status"] == "ok"]
    dominated = [r["key"] for r in judged if r["dominated_key"]]
    free = [r["key"] for r in judged if not r["dominated_key"]]
    dnf = [r["key"] for r in peer_rows if r["status"] == "dnf"]
    failed = [r["key"] for r in peer_rows + vc_rows if r["status"] == "error"]
    vc_dnf = [r["key"] for r in vc_rows if r["status"] == "dnf"]
    parts = [f"{dataset}, C={C}: {len(dominated)}/{len(judged)} finished peers dominated by a "
             "vcgmm point"]
    if free:
        parts.append("not dominated: " + ", ".join(free))
    if dnf:
        parts.append("peers that did not finish: " + ", ".join(dnf))
    if vc_dnf:
        parts.append("vcgmm points that did not finish: " + ", ".join(vc_dnf))
    if failed:
        parts.append("failed: " + ", ".join(failed))
    return "; ".join(parts) + "."


# --------------------------------------------------------------------------- plot
def plot(rows, path, title, limit):
    """Time (log) vs error of one (data set, C): vcgmm points one marker, each peer its own."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.5, 6))
    vc = [r for r in rows if r["kind"] == "vcgmm" and r["status"] == "ok"]
    if vc:
        ax.scatter([r["seconds"] for r in vc], [r["error_per_point"] for r in vc], marker="o",
                   color="C0", s=40, label="vcgmm (every point)", zorder=3)
        for r in vc:
            ax.annotate(r["key"], (r["seconds"], r["error_per_point"]), fontsize=6.5,
                        textcoords="offset points", xytext=(4, 3), color="C0")
    markers = "s^vD<>PX*h"
    for i, r in enumerate(r for r in rows if r["kind"] == "peer"):
        style = {"marker": markers[i % len(markers)], "color": f"C{i % 9 + 1}", "s": 48}
        if r["status"] == "ok":
            ax.scatter([r["seconds"]], [r["error_per_point"]], label=r["label"], **style)
        else:  # no point to draw: the legend says why
            ax.scatter([], [], label=f"{r['label']}: {r['time_cell'][:60]}", **style)
    ax.axvline(limit, color="k", lw=0.6, ls="--", label=f"time limit {limit:g} s")
    ax.set_xscale("log")
    ax.set_xlabel("fit time [s] (log)")
    ax.set_ylabel("error per point (all rows)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=6.5)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


# --------------------------------------------------------------------------- main
COLUMNS = [
    ("dataset", "data set", ""),
    ("C", "C", ""),
    ("key", "point", ""),
    ("method", "method", ""),
    ("setting", "setting", ""),
    ("time_cell", "time [s]", ""),
    ("error_cell", "error/point", ""),
    ("clusters_used", "clusters used", _num(".4g")),
    ("other_cpu_cores", "other procs' CPU (cores)", _num(".2f")),
    ("dominated_cell", "dominated by", ""),
]


def parse_args(argv):
    keys = [p.key for p in all_points()]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--clusters", type=int, nargs="+", default=DEFAULT_CLUSTERS)
    parser.add_argument("--seeds", type=int, default=1, help="seeds 0 .. seeds-1")
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT,
                        help="seconds a fit may run before it is killed (default %(default)g)")
    parser.add_argument("--rows", type=int, default=None,
                        help="a fixed random subset of this many rows (blobs2m: generated at "
                             "this size), for smoke tests")
    parser.add_argument("--points", nargs="+", default=None, choices=keys, metavar="KEY",
                        help=f"points to run (default all): {', '.join(keys)}")
    parser.add_argument("--name", default=NAME)
    parser.add_argument("--resume", action="store_true",
                        help="keep the fits of an interrupted run of the same --name")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.threads < 1 or args.time_limit <= 0:
        parser.error("--seeds, --threads and --time-limit must be positive")
    if min(args.clusters) < 1:
        parser.error("--clusters must be positive")
    args.clusters = sorted(set(args.clusters))
    return args


def _run_key(dataset, n_rows, C, key, seed):
    return f"{dataset}|{n_rows}|{C}|{key}|{seed}"


def _print_record(C, seed, point, rec):
    head = f"  C={C} seed {seed} {point.key:<18}"
    if rec["status"] == "ok":
        print(f"{head} {rec['seconds']:9.2f} s  err/pt {rec['error_per_point']:.5g}  clusters "
              f"{rec['clusters_used']}  (other procs {rec['other_cpu_cores'] or 0:.2f} cores)",
              flush=True)
    elif rec["status"] == "timeout":
        print(f"{head} did not finish (killed)", flush=True)
    elif rec["status"] == "skipped":
        print(f"{head} not run: {rec['reason']}", flush=True)
    else:
        print(f"{head} ERROR {rec['error']}", flush=True)


def main(argv=None):
    args = parse_args(argv)
    started = time.perf_counter()
    info = _harness.machine_info()
    points = [p for p in all_points() if args.points is None or p.key in args.points]
    checkpoint = _harness.RunCheckpoint(args.name, args.resume)
    done = {r["run_key"]: r for r in checkpoint.records}
    n_reused = 0
    results, summaries, shapes, skipped, plots = [], [], {}, {}, []
    seeds = list(range(args.seeds))
    # the parent only sets limits (no parallel region): the children inherit them
    with _harness.thread_limits(args.threads) as pools:
        for dataset in args.datasets:
            try:
                t0 = time.perf_counter()
                X, desc = load_data(dataset, args.rows)
            except Exception as exc:  # a missing package or file: skip the set, say why
                skipped[dataset] = _one_line(f"{type(exc).__name__}: {exc}", 400)
                print(f"skipping {dataset}: {skipped[dataset]}", flush=True)
                continue
            n_rows = X.shape[0]
            shapes[dataset] = {"shape": list(X.shape), "dtype": str(X.dtype), "source": desc}
            print(f"{dataset}: {n_rows:,} x {X.shape[1]} {X.dtype} "
                  f"({time.perf_counter() - t0:.1f} s to load)", flush=True)
            history = {p.key: {} for p in points}  # key -> C -> records
            for C in args.clusters:
                if C > n_rows:
                    print(f"  C={C} > {n_rows:,} rows: skipped", flush=True)
                    skipped[f"{dataset} C={C}"] = f"C > {n_rows:,} rows"
                    continue
                records = {p.key: [] for p in points}
                for i_seed, seed in enumerate(seeds):
                    shift = i_seed % len(points)
                    for point in points[shift:] + points[:shift]:
                        run_key = _run_key(dataset, n_rows, C, point.key, seed)
                        if run_key in done:
                            rec, n_reused = done[run_key], n_reused + 1
                        else:
                            earlier = {c: r for c, r in history[point.key].items() if c < C}
                            reason = skip_reason(point, C, earlier, args.time_limit)
                            if reason is None and any(r["status"] == "timeout"
                                                      for r in records[point.key]):
                                reason = (f"did not finish within {args.time_limit:g} s "
                                          "with an earlier seed")
                            if reason is not None:
                                rec = {"seed": seed, "status": "skipped", "reason": reason}
                            else:
                                rec = run_fit(point, X, C, seed, args.threads, args.time_limit)
                            rec["run_key"] = run_key
                            checkpoint.append(rec)
                        records[point.key].append(rec)
                        _print_record(C, seed, point, rec)
                for point in points:
                    history[point.key][C] = records[point.key]
                rows = [summarize(dataset, C, n_rows, p, records[p.key], args.time_limit)
                        for p in points]
                vc_rows = [r for r in rows if r["kind"] == "vcgmm"]
                peer_rows = [r for r in rows if r["kind"] == "peer"]
                for r in vc_rows:
                    r["dominated_cell"], r["dominated_key"] = "-", None
                for r in peer_rows:
                    r["dominated_cell"], r["dominated_key"] = dominated_by(r, vc_rows)
                line = summary_line(dataset, C, vc_rows, peer_rows)
                summaries.append(line)
                print("  " + line, flush=True)
                png = _harness.results_dir() / f"{args.name}_{dataset}_C{C}.png"
                try:
                    plot(rows, png, f"{dataset} ({n_rows:,} x {X.shape[1]}), C={C}: "
                         f"{args.threads} threads, mean of {args.seeds} seed(s)",
                         args.time_limit)
                    plots.append(png.name)
                except ImportError:
                    pass
                results.extend(rows)
                results.append({"dataset": dataset, "C": C, "key": "**summary**",
                                **dict.fromkeys(("method", "setting", "time_cell",
                                                 "error_cell", "clusters_used",
                                                 "other_cpu_cores"), ""),
                                "dominated_cell": line})
            del X

    notes = [
        "Data: " + "; ".join(f"{d}: {s['shape'][0]:,} x {s['shape'][1]} {s['dtype']} "
                             f"({s['source']})" for d, s in shapes.items()) + "."
        if shapes else "Data: none loaded.",
        *[f"{d} skipped: {why}" for d, why in skipped.items()],
        f"{args.threads} threads for every library; seeds 0..{args.seeds - 1}; every point "
        "with random_state (faiss, SuperKMeans: seed) = the seed. vcgmm settings other than "
        "the defaults pass compute_labels=False (centers only); the defaults keep fit's "
        "exact labelling pass. faiss + vcgmm.afkmc2: the seeding is timed with the fit.",
        "time: wall time of one fit(X) in a forked child (data shared copy-on-write), after "
        "one untimed warm-up fit on 2,000 x 8 random data in that child; mean over seeds. "
        f"A fit past {args.time_limit:g} s is killed: 'did not finish within "
        f"{args.time_limit:g} s'. 'not run': the point did not finish at a smaller C, or its "
        f"time there scaled by (C/C')^grows exceeds {SKIP_FACTOR:g} x the limit.",
        "error/point: mean over all rows of the squared distance to the nearest returned "
        "center (users_data.quantization: exact, float64), computed after the timing.",
        "dominated by (peers): the fastest vcgmm point with error <= the peer's and time < "
        "the peer's (its time and error relative to the peer's); else 'none' with the gap "
        "to the vcgmm point nearest to dominating it (the smallest larger-of-the-two log "
        "ratios of error and time, each counted only above 1).",
        *summaries,
        *checkpoint.reuse_note(n_reused, "fits"),
        f"Plots: {', '.join(plots)} (fit time, log, vs error per point)." if plots
        else "No plot: matplotlib is not installed.",
        f"The whole run took {(time.perf_counter() - started) / 60:.1f} min.",
    ]
    _harness.write_results(
        args.name, COLUMNS, results,
        title=f"Frontier: vcgmm's settings vs faiss, SuperKMeans, scikit-learn-intelex and "
              f"scikit-learn at very many clusters ({args.threads} threads)",
        params={**vars(args), "datasets_loaded": shapes, "datasets_skipped": skipped,
                "points": [{"key": p.key, "kind": p.kind, "method": p.method,
                            "setting": p.setting, "grows": p.grows} for p in points],
                "skip_factor": SKIP_FACTOR},
        info=info, notes=notes, extra={"thread_pools": pools, "summaries": summaries})


if __name__ == "__main__":
    main()
