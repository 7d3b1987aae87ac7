"""Fingerprint of the results of every public vcgmm function and estimator.

Used to prove that a refactor changed no result bit: run it in the old and
in the new installation and compare the two files.

    python bench/fingerprint.py --out old.json          # in the old environment
    python bench/fingerprint.py --out new.json          # in the new environment
    python bench/fingerprint.py --compare old.json new.json

Only the installed package's public API is used (``vcgmm.<name>`` of
``vcgmm.__all__``); run it from outside the repository (e.g. from /tmp) so
that ``import vcgmm`` finds the installed package, not ``python/vcgmm``.

Every callable that computes something runs on small fixed-seed data (blobs,
2000 x 8; rings, 500 x 2, for kernel k-means) in float32 and float64, with
``n_threads`` 1 and 2, without and with sample weights (where accepted; the
weights include some zeros), and once more on chunked data (a list of
arrays) where chunked data are accepted; main options that select other code
paths are separate cases. For each output array the fingerprint is its
dtype, shape and the sha256 of its bytes; scalars are recorded by their
repr; timings (anything named time/timings/seconds) and version strings are
skipped. Warnings raised by a case are part of its fingerprint, and so is an
exception (a case that raises records its type and message).

Output: JSON {case name: {output name: fingerprint}}, keys sorted.
``--compare A B`` prints the cases that differ (exit 1) or
"identical (N cases, M arrays)".
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import sys
import tempfile
import time
import warnings

# Only the installed package: drop the script's own folder (bench/) and the
# current directory from the path, so that a run from the repository root
# still cannot pick up python/ or the working tree.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path
               if p not in ("", ".") and os.path.abspath(p) not in (_HERE, os.getcwd())]

import numpy as np  # noqa: E402

# ----------------------------------------------------------------------------
# fingerprints

# Timings (wall time varies) and the version string (differs between builds).
_SKIP = re.compile(r"time|timing|second|^(vcgmm_)?version$", re.IGNORECASE)


def _array_fp(a):
    a = np.asarray(a)
    if a.dtype == object:
        data = repr(a.tolist()).encode()
    else:
        data = np.ascontiguousarray(a).tobytes()
    return {"dtype": str(a.dtype), "shape": list(a.shape),
            "sha256": hashlib.sha256(data).hexdigest()}


def _scalar_repr(x):
    if isinstance(x, np.generic):
        return f"{type(x).__name__}:{x.item()!r}"
    return repr(x)


def flatten(name, obj, out):
    """Adds the fingerprints of ``obj`` (and what it holds) to ``out``."""
    if name and _SKIP.search(name.rsplit(".", 1)[-1].split("[", 1)[0]):
        return
    import scipy.sparse as sp

    if isinstance(obj, np.ndarray):
        out[name] = _array_fp(obj)
    elif sp.issparse(obj):
        obj = obj.tocsr()
        out[name + ".shape"] = repr(tuple(obj.shape))
        for part in ("data", "indices", "indptr"):
            out[f"{name}.{part}"] = _array_fp(getattr(obj, part))
    elif isinstance(obj, dict):
        for k in sorted(obj, key=str):
            flatten(f"{name}.{k}" if name else str(k), obj[k], out)
    elif isinstance(obj, (list, tuple)):
        out[name + ".len"] = repr(len(obj))
        for i, v in enumerate(obj):
            flatten(f"{name}[{i}]", v, out)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out[name + ".type"] = type(obj).__name__
        for f in dataclasses.fields(obj):
            flatten(f"{name}.{f.name}" if name else f.name, getattr(obj, f.name), out)
    elif obj is None or isinstance(obj, (bool, int, float, str, complex, np.generic)):
        out[name] = _scalar_repr(obj)
    else:
        out[name] = f"<{type(obj).__name__}>"


def fitted_attributes(est, prefix, out):
    """Every public attribute ending in '_' (properties included)."""
    for attr in sorted(dir(est)):
        if attr.startswith("_") or not attr.endswith("_") or attr.endswith("__"):
            continue
        try:
            value = getattr(est, attr)
        except Exception as e:  # e.g. labels_ of a loaded compute_labels=False model
            value = f"error {type(e).__name__}: {e}"
        if callable(value):
            continue
        flatten(f"{prefix}{attr}", value, out)


# ----------------------------------------------------------------------------
# data

N, D, K = 2000, 8, 8


def make_data():
    rng = np.random.default_rng(20240517)
    true_centers = rng.normal(scale=6.0, size=(K, D))
    sizes = rng.multinomial(N, rng.dirichlet(np.full(K, 3.0)))
    X = np.concatenate([c + rng.normal(scale=rng.uniform(0.5, 2.0), size=(s, D))
                        for c, s in zip(true_centers, sizes)])
    X = X[rng.permutation(N)] + 0.5  # no row is all zeros (cosine)
    w = rng.uniform(0.2, 3.0, size=N)
    w[rng.choice(N, 60, replace=False)] = 0.0  # zero weights: rows that do not exist
    w_pos = rng.uniform(0.2, 3.0, size=N)  # strictly positive (VariationalLoop)
    # Rings for kernel k-means: two concentric circles plus noise.
    n_r = 500
    angle = rng.uniform(0, 2 * np.pi, n_r)
    radius = np.where(rng.random(n_r) < 0.5, 1.0, 3.0) + rng.normal(scale=0.1, size=n_r)
    R = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    # Higher-dimensional set (the approximate search's subspace screening is
    # automatic from 16 features on).
    Xh = rng.normal(size=(1500, 24)) @ rng.normal(size=(24, 24)) * np.linspace(3, 0.1, 24)
    return X, w, w_pos, R, Xh


# ----------------------------------------------------------------------------
# the cases


class Cases:
    def __init__(self, vcgmm, only=None):
        self.vcgmm = vcgmm
        self.only = re.compile(only) if only else None
        self.results = {}
        self.errors = []

    def run(self, name, fn):
        if self.only is not None and not self.only.search(name):
            return
        out = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                fn(out)
            except Exception as e:
                out["exception"] = f"{type(e).__name__}: {e}"
                self.errors.append((name, out["exception"]))
        msgs = sorted({f"{w.category.__name__}: {w.message}" for w in caught
                       if not issubclass(w.category, DeprecationWarning)})
        if msgs:
            out["warnings"] = repr(msgs)
        if name in self.results:
            raise RuntimeError(f"duplicate case {name}")
        self.results[name] = out


def combos():
    for dtype in (np.float32, np.float64):
        for threads in (1, 2):
            for weighted in (False, True):
                yield dtype, threads, weighted


def tag(dtype, threads, weighted):
    return f"{np.dtype(dtype).name}/t{threads}/{'w' if weighted else 'u'}"


def estimator_outputs(vcgmm, est, X, w, out, *, prefix="", gmm=False, threads=1, save=True):
    fitted_attributes(est, prefix + "attr.", out)
    flatten(prefix + "predict", est.predict(X), out)
    flatten(prefix + "predict_approx", est.predict(X, exact=False), out)
    flatten(prefix + "transform", est.transform(X), out)
    flatten(prefix + "score", est.score(X), out)
    if w is not None:
        flatten(prefix + "score_w", est.score(X, sample_weight=w), out)
    if gmm:
        flatten(prefix + "score_samples", est.score_samples(X), out)
        flatten(prefix + "predict_proba", est.predict_proba(X), out)
        flatten(prefix + "predict_proba_sparse", est.predict_proba_sparse(X), out)
        flatten(prefix + "bic", est.bic(X), out)
        flatten(prefix + "aic", est.aic(X), out)
        flatten(prefix + "sample", est.sample(50), out)
    if save:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "model.npz")
            est.save(path)
            with np.load(path, allow_pickle=False) as f:
                for key in sorted(f.files):
                    flatten(f"{prefix}saved.{key}", f[key], out)
            loaded = vcgmm.load(path)
        flatten(prefix + "loaded.type", type(loaded).__name__, out)
        fitted_attributes(loaded, prefix + "loaded.attr.", out)
        flatten(prefix + "loaded.predict", loaded.predict(X), out)
        flatten(prefix + "loaded.predict_approx", loaded.predict(X, exact=False), out)
        flatten(prefix + "loaded.transform", loaded.transform(X), out)
        flatten(prefix + "loaded.score", loaded.score(X), out)
        if gmm:
            flatten(prefix + "loaded.score_samples", loaded.score_samples(X), out)
            flatten(prefix + "loaded.predict_proba", loaded.predict_proba(X), out)


def progress_trace(records):
    return [(r.algorithm, r.phase, r.iteration, r.objective, r.distance_evals) for r in records]


def build_cases(vcgmm, only=None):
    X64, w_all, w_pos, R64, Xh64 = make_data()
    cases = Cases(vcgmm, only)
    run = cases.run
    seed = 7

    # -- helpers that need no data type ------------------------------------
    def f_default_coreset_size(out):
        for n, c in [(535_940, 1000), (10_000, 10), (2000, 8), (100, 3), (1_000_000, 20_000)]:
            flatten(f"n{n}_C{c}", vcgmm.default_coreset_size(n, c), out)
    run("default_coreset_size", f_default_coreset_size)

    def f_show_build(out):
        info = dict(vcgmm.show_build())
        info.pop("version", None)
        flatten("", info, out)
    run("show_build", f_show_build)

    def f_from_centers(out):
        centers = X64[:K] + 0.25
        km = vcgmm.KMeans.from_centers(centers, n_threads=1)
        estimator_outputs(vcgmm, km, X64, w_all, out, prefix="kmeans.")
        gmm = vcgmm.VCGMM.from_centers(centers.astype(np.float32), sigma2=2.5, G=3,
                                       random_state=0, n_threads=1)
        estimator_outputs(vcgmm, gmm, X64.astype(np.float32), w_all, out, prefix="vcgmm.",
                          gmm=True)
        for cls in ("MiniBatchKMeans", "NestedMiniBatchKMeans", "VRKMeans"):
            est = getattr(vcgmm, cls).from_centers(centers, n_threads=2)
            estimator_outputs(vcgmm, est, X64, None, out, prefix=cls + ".")
    run("from_centers", f_from_centers)

    rng_idx = np.random.default_rng(3)
    idx8 = rng_idx.choice(N, K, replace=False)
    idx50 = rng_idx.choice(N, 50, replace=False)
    idx100h = rng_idx.choice(Xh64.shape[0], 100, replace=False)

    for dtype, threads, weighted in combos():
        t = tag(dtype, threads, weighted)
        X = X64.astype(dtype)
        Xh = Xh64.astype(dtype)
        R = R64.astype(dtype)
        w = w_all if weighted else None
        wp = w_pos if weighted else None
        kw = {"n_threads": threads}
        chunks = [X[i:i + 500] for i in range(0, N, 500)]
        init8 = X64[idx8]  # float64 initial centers (converted to X's dtype)
        centers50 = X64[idx50] + 0.1
        centers100h = Xh64[idx100h] + 0.05

        # -- coreset and seeding -------------------------------------------
        def f_lwcs(out, X=X, w=w, kw=kw):
            flatten("", vcgmm.lwcs(X, 500, sample_weight=w, random_state=seed,
                                   return_points=True, **kw), out)
            flatten("small", vcgmm.lwcs(X, 64, sample_weight=w, random_state=1, **kw), out)
        run(f"lwcs/{t}", f_lwcs)

        def f_lwcs_chunked(out, chunks=chunks, w=w, kw=kw):
            flatten("", vcgmm.lwcs(chunks, 500, sample_weight=w, random_state=seed,
                                   return_points=True, **kw), out)
        run(f"lwcs/chunked/{t}", f_lwcs_chunked)

        for trials in (1, "auto", 5):
            def f_kpp(out, X=X, w=w, kw=kw, trials=trials):
                flatten("", vcgmm.kmeans_plusplus(X, K, sample_weight=w, n_local_trials=trials,
                                                  random_state=seed, **kw), out)
            run(f"kmeans_plusplus/trials={trials}/{t}", f_kpp)

        for C, chain in ((K, 20), (K, 3), (80, 20), (200, 50)):
            def f_afk(out, X=X, w=w, kw=kw, C=C, chain=chain):
                flatten("", vcgmm.afkmc2(X, C, chain_length=chain, sample_weight=w,
                                         random_state=seed, **kw), out)
            run(f"afkmc2/C={C},chain={chain}/{t}", f_afk)

        # -- Lloyd, assignment, quantization error -------------------------
        lloyd_variants = {
            "default": dict(centers=init8),
            "max_iter=3,tol=0": dict(centers=init8, max_iter=3, tol=0.0),
            "cosine": dict(centers=init8, metric="cosine"),
            "duplicate_centers": dict(centers=np.concatenate([init8[:6], init8[:2]])),
            "duplicate_centers,no_relocate": dict(
                centers=np.concatenate([init8[:6], init8[:2]]), relocate_empty=False),
            "C=50": dict(centers=centers50, max_iter=20),
        }
        for vname, params in lloyd_variants.items():
            def f_lloyd(out, X=X, w=w, kw=kw, params=params):
                p = dict(params)
                centers = p.pop("centers")
                flatten("", vcgmm.lloyd(X, centers, sample_weight=w, **p, **kw), out)
            run(f"lloyd/{vname}/{t}", f_lloyd)

        def f_assign(out, X=X, Xh=Xh, kw=kw):
            flatten("exact", vcgmm.assign(X, centers50, **kw), out)
            flatten("approx", vcgmm.assign(X, centers50, exact=False, **kw), out)
            flatten("exact_h", vcgmm.assign(Xh, centers100h, **kw), out)
            flatten("approx_h", vcgmm.assign(Xh, centers100h, exact=False, **kw), out)
        if not weighted:
            run(f"assign/{t}", f_assign)

            def f_assign_chunked(out, chunks=chunks, kw=kw):
                flatten("exact", vcgmm.assign(chunks, centers50, **kw), out)
            run(f"assign/chunked/{t}", f_assign_chunked)

        def f_qe(out, X=X, Xh=Xh, w=w, kw=kw):
            flatten("C50", vcgmm.quantization_error(X, centers50, w, **kw), out)
            flatten("C8", vcgmm.quantization_error(X, init8, sample_weight=w, **kw), out)
            if w is None:
                flatten("h", vcgmm.quantization_error(Xh, centers100h, **kw), out)
        run(f"quantization_error/{t}", f_qe)

        def f_qe_chunked(out, chunks=chunks, w=w, kw=kw):
            flatten("C50", vcgmm.quantization_error(chunks, centers50, w, **kw), out)
        run(f"quantization_error/chunked/{t}", f_qe_chunked)

        approx_variants = {
            "default": {},
            "graph": dict(method="graph"),
            "graph,degree=4,starts=1,beam=4": dict(method="graph", graph_degree=4, n_starts=1,
                                                   beam_width=4),
            "n_probe=1": dict(n_probe=1),
            "n_probe=3,probe_ratio=inf": dict(n_probe=3, probe_ratio=float("inf")),
            "screen_dims=0": dict(screen_dims=0),
            "screen_dims=4": dict(screen_dims=4),
            "coarse_iter=0,coarse_size=4": dict(coarse_iter=0, coarse_size=4),
        }
        for vname, params in approx_variants.items():
            def f_approx(out, X=X, Xh=Xh, w=w, kw=kw, params=params):
                flatten("", vcgmm.assign_approximate(X, centers50, w, return_stats=True,
                                                     **params, **kw), out)
                wh = None if w is None else w[:Xh.shape[0]]
                flatten("h", vcgmm.assign_approximate(Xh, centers100h, wh, return_stats=True,
                                                      **params, **kw), out)
                flatten("plain", vcgmm.assign_approximate(X, centers50, **params, **kw), out)
            run(f"assign_approximate/{vname}/{t}", f_approx)

        for vname, params in (("default", {}), ("graph", dict(method="graph")),
                              ("screen_dims=8", dict(screen_dims=8))):
            def f_index(out, X=X, Xh=Xh, w=w, kw=kw, params=params, dtype=dtype):
                index = vcgmm.ApproximateIndex(centers100h.astype(dtype), **params, **kw)
                flatten("build_stats", index.build_stats, out)
                flatten("centers", index.centers, out)
                flatten("n_clusters", index.n_clusters, out)
                flatten("n_features", index.n_features, out)
                wh = None if w is None else w[:Xh.shape[0]]
                flatten("assign", index.assign(Xh, wh, return_stats=True), out)
                flatten("assign_again", index.assign(Xh[:300], return_stats=True,
                                                     n_threads=1), out)
                other = np.float64 if dtype == np.float32 else np.float32
                flatten("assign_other_dtype", index.assign(Xh.astype(other), wh,
                                                           return_stats=True), out)
                flatten("matches", index.matches(centers100h.astype(dtype)), out)
                flatten("repr", repr(index), out)
                import pickle
                clone = pickle.loads(pickle.dumps(index))
                flatten("unpickled_assign", clone.assign(Xh), out)
            run(f"ApproximateIndex/{vname}/{t}", f_index)

        # -- vc-GMM --------------------------------------------------------
        vcgmm_variants = {
            "default": dict(C=K, coreset_size=500),
            "auto_coreset,return_labels": dict(C=K, return_labels=True),
            "refine=0": dict(C=K, coreset_size=500, refine=0),
            "refine_search=restricted": dict(C=K, coreset_size=500, refine_search="restricted"),
            "refine_search=approx": dict(C=40, G=3, coreset_size=800, refine_search="approx"),
            "refine_search=exact": dict(C=40, G=3, coreset_size=800, refine_search="exact"),
            "C=40,G=3,return_labels": dict(C=40, G=3, coreset_size=800, return_labels=True),
            "C=40,G=3,plus1": dict(C=40, G=3, coreset_size=800, plus1=True),
            "spherical": dict(C=K, coreset_size=500, covariance_type="spherical",
                              return_labels=True),
            "spherical,C=40,G=3,floor=0.1": dict(C=40, G=3, coreset_size=800,
                                                 covariance_type="spherical",
                                                 variance_floor=0.1),
            "init=k-means++,trials=auto": dict(C=K, coreset_size=500, init="k-means++",
                                               n_local_trials="auto"),
            "init=array": dict(C=K, coreset_size=500, init=init8),
            "stop_rule=relative,tol=1e-4": dict(C=K, coreset_size=500, stop_rule="relative",
                                                tol=1e-4),
            "n_init_estep=2,max_iter=6,tol=0": dict(C=K, coreset_size=500, n_init_estep=2,
                                                    max_iter=6, tol=0.0),
            "cosine": dict(C=K, coreset_size=500, metric="cosine", return_labels=True),
            "n_init=3,return_labels": dict(C=K, coreset_size=500, n_init=3,
                                           return_labels=True),
            "chain_length=2": dict(C=K, coreset_size=500, chain_length=2),
            "G=9_clamped": dict(C=K, G=9, coreset_size=500),
        }
        for vname, params in vcgmm_variants.items():
            def f_vcgmm(out, X=X, w=w, kw=kw, params=params):
                p = dict(params)
                C = p.pop("C")
                flatten("", vcgmm.fit_vcgmm(X, C, sample_weight=w, random_state=seed, **p,
                                            **kw), out)
            run(f"fit_vcgmm/{vname}/{t}", f_vcgmm)

        for vname, params in (("default", dict(C=K)),
                              ("C=40,G=3,return_labels", dict(C=40, G=3, return_labels=True)),
                              ("spherical", dict(C=K, covariance_type="spherical")),
                              ("n_prime_alias", dict(C=K, via_vcgmm=True))):
            def f_vargmm(out, X=X, w=w, kw=kw, params=params):
                p = dict(params)
                C = p.pop("C")
                if p.pop("via_vcgmm", False):
                    r = vcgmm.fit_vcgmm(X, C, 5, n_prime=None, sample_weight=w,
                                        random_state=seed, **kw)
                else:
                    r = vcgmm.fit_vargmm(X, C, sample_weight=w, random_state=seed, **p, **kw)
                flatten("", r, out)
            run(f"fit_vargmm/{vname}/{t}", f_vargmm)

        for vname, params in (("default", {}), ("return_labels", dict(return_labels=True)),
                              ("n_prime=1000", dict(coreset_size=1000))):
            def f_vcgmm_chunked(out, chunks=chunks, w=w, kw=kw, params=params):
                p = {"coreset_size": 500, **params}
                flatten("", vcgmm.fit_vcgmm(chunks, K, sample_weight=w, random_state=seed,
                                            **p, **kw), out)
            run(f"fit_vcgmm/chunked/{vname}/{t}", f_vcgmm_chunked)

        for vname, params in (("shared", {}),
                              ("spherical", dict(covariance_type="spherical")),
                              ("plus1,refine=2,approx", dict(plus1=True, refine=2,
                                                             refine_search="approx")),
                              ("C=40,G=3", dict(C=40, G=3))):
            def f_loop(out, X=X, wp=wp, kw=kw, params=params):
                p = dict(params)
                C = p.pop("C", K)
                G = p.pop("G", 5)
                means = X64[:C] if C != K else init8
                Xs = X[:1000]
                ws = None if wp is None else wp[:1000]
                loop = vcgmm.VariationalLoop(Xs, means, G, sample_weight=ws,
                                             random_state=seed, **p, **kw)
                flatten("G", loop.G, out)
                flatten("e1", loop.e_step(estimate_sigma=True), out)
                loop.m_step()
                flatten("e2", loop.e_step(), out)
                loop.m_step()
                flatten("e3", loop.e_step(estimate_sigma=True), out)
                flatten("free_energy", loop.free_energy(), out)
                for attr in ("means", "sigma2", "variances", "mixing_weights",
                             "truncation_sets", "neighbourhoods", "n_distance_evals"):
                    flatten(attr, getattr(loop, attr), out)
                flatten("refine", loop.refine_step(), out)
                flatten("refined_means", loop.means, out)
                flatten("refined_truncation_sets", loop.truncation_sets, out)
                flatten("fit", loop.fit(), out)
                flatten("fitted_means", loop.means, out)
                flatten("fitted_truncation_sets", loop.truncation_sets, out)
                flatten("fresh_fit", vcgmm.VariationalLoop(
                    Xs, means, G, sample_weight=ws, random_state=seed, **p, **kw).fit(), out)
            run(f"VariationalLoop/{vname}/{t}", f_loop)

        # -- stochastic k-means functions ----------------------------------
        mbatch_variants = {
            "default": dict(batch_size=256, max_iter=40),
            "auto_batch": dict(max_iter=5),
            "init=k-means++,return_labels": dict(batch_size=256, max_iter=40, init="k-means++",
                                                 return_labels=True),
            "init=afk-mc2": dict(batch_size=256, max_iter=40, init="afk-mc2"),
            "init=array": dict(batch_size=256, max_iter=40, init=init8),
            "cosine,return_labels": dict(batch_size=256, max_iter=40, metric="cosine",
                                         return_labels=True),
            "coreset": dict(batch_size=128, max_iter=40, coreset_size=600, return_labels=True),
            "n_init=3,return_labels": dict(batch_size=256, max_iter=20, n_init=3,
                                           return_labels=True),
        }
        for vname, params in mbatch_variants.items():
            def f_mbatch(out, X=X, w=w, kw=kw, params=params):
                flatten("", vcgmm.fit_mbatch(X, K, sample_weight=w, random_state=seed,
                                             **params, **kw), out)
            run(f"fit_mbatch/{vname}/{t}", f_mbatch)

        nmbatch_variants = {
            "default": dict(batch_size=200),
            "auto_batch,return_labels": dict(return_labels=True),
            "bounds=elkan": dict(batch_size=200, bounds="elkan", return_labels=True),
            "bounds=yinyang": dict(batch_size=200, bounds="yinyang"),
            "bounds=yinyang,n_groups=3": dict(batch_size=200, bounds="yinyang", n_groups=3),
            "bounds=none": dict(batch_size=200, bounds="none"),
            "bounds=auto,small_memory": dict(batch_size=200, bounds_memory=1000.0),
            "rho=inf": dict(batch_size=200, rho=float("inf")),
            "rho=1": dict(batch_size=200, rho=1.0, max_iter=30),
            "C=40,init=k-means++": dict(C=40, batch_size=200, init="k-means++"),
            "init=afk-mc2": dict(batch_size=200, init="afk-mc2"),
            "cosine": dict(batch_size=200, metric="cosine", return_labels=True),
            "coreset": dict(batch_size=100, coreset_size=600),
            "n_init=2,return_labels": dict(batch_size=200, n_init=2, return_labels=True),
        }
        for vname, params in nmbatch_variants.items():
            def f_nmbatch(out, X=X, w=w, kw=kw, params=params):
                p = dict(params)
                C = p.pop("C", K)
                flatten("", vcgmm.fit_nmbatch(X, C, sample_weight=w, random_state=seed, **p,
                                              **kw), out)
            run(f"fit_nmbatch/{vname}/{t}", f_nmbatch)

        vrkm_variants = {
            "default": dict(max_epochs=8),
            "vrkm": dict(variant="vrkm", max_epochs=8),
            "label-change": dict(update_rule="label-change", max_epochs=8),
            "vrkm,label-change,return_labels": dict(variant="vrkm",
                                                    update_rule="label-change",
                                                    max_epochs=8, return_labels=True),
            "block_size=16": dict(block_size=16, max_epochs=8),
            "lr=0.05,epoch=500": dict(learning_rate=0.05, epoch_size=500, max_epochs=10),
            "init=random,tol=0": dict(init="random", tol=0.0, max_epochs=4),
            "init=afk-mc2": dict(init="afk-mc2", max_epochs=8),
            "coreset": dict(coreset_size=600, max_epochs=8, return_labels=True),
            "n_init=2": dict(n_init=2, max_epochs=5, return_labels=True),
        }
        for vname, params in vrkm_variants.items():
            def f_vrkm(out, X=X, w=w, kw=kw, params=params):
                flatten("", vcgmm.fit_vrkm(X, K, sample_weight=w, random_state=seed,
                                           **params, **kw), out)
            run(f"fit_vrkm/{vname}/{t}", f_vrkm)

        # -- estimators ----------------------------------------------------
        kmeans_variants = {
            "default": {},
            "lwcs": dict(init="afk-mc2", coreset_size=500),
            "lwcs_auto": dict(init="afk-mc2", coreset_size="auto"),
            "trials=auto": dict(n_local_trials="auto"),
            "init=array": dict(init=init8),
            "cosine": dict(metric="cosine"),
            "n_init=3": dict(n_init=3),
            "compute_labels=False": dict(compute_labels=False),
            "labels=approx,C=50": dict(n_clusters=50, labels="approx", max_iter=10),
            "max_iter=2,tol=0,no_relocate": dict(max_iter=2, tol=0.0, relocate_empty=False),
        }
        for vname, params in kmeans_variants.items():
            def f_km(out, X=X, w=w, kw=kw, params=params):
                p = {"n_clusters": K, **params}
                est = vcgmm.KMeans(random_state=seed, **p, **kw).fit(X, sample_weight=w)
                estimator_outputs(vcgmm, est, X, w, out)
                flatten("fit_predict", vcgmm.KMeans(random_state=seed, **p, **kw)
                        .fit_predict(X, sample_weight=w), out)
            run(f"KMeans/{vname}/{t}", f_km)

        for vname, params in (("lwcs", dict(init="afk-mc2", coreset_size=500)),
                              ("kmeans++,coreset", dict(coreset_size=800))):
            def f_km_chunked(out, X=X, chunks=chunks, w=w, kw=kw, params=params):
                est = vcgmm.KMeans(K, random_state=seed, **params, **kw).fit(
                    chunks, sample_weight=w)
                estimator_outputs(vcgmm, est, X, w, out)
                flatten("predict_chunked", est.predict(chunks), out)
                flatten("score_chunked", est.score(chunks), out)
            run(f"KMeans/chunked/{vname}/{t}", f_km_chunked)

        gmm_variants = {
            "default": dict(coreset_size=500),
            "auto_coreset": {},
            "vargmm": dict(coreset_size=None),
            "spherical": dict(coreset_size=500, covariance_type="spherical"),
            "spherical,vargmm": dict(coreset_size=None, covariance_type="spherical"),
            "refine=0": dict(coreset_size=500, refine=0),
            "refine_search=approx,C=40,G=3": dict(n_components=40, G=3, coreset_size=800,
                                                  refine_search="approx"),
            "refine_search=exact,C=40,G=3": dict(n_components=40, G=3, coreset_size=800,
                                                 refine_search="exact"),
            "refine_search=restricted,C=40,G=3": dict(n_components=40, G=3, coreset_size=800,
                                                      refine_search="restricted"),
            "plus1": dict(coreset_size=500, plus1=True),
            "init=k-means++": dict(coreset_size=500, init="k-means++"),
            "cosine": dict(coreset_size=500, metric="cosine"),
            "n_init=2": dict(coreset_size=500, n_init=2),
            "compute_labels=False": dict(coreset_size=500, compute_labels=False),
            "labels=approx,C=40": dict(n_components=40, G=3, coreset_size=800,
                                       labels="approx"),
        }
        for vname, params in gmm_variants.items():
            def f_gmm(out, X=X, w=w, kw=kw, params=params):
                p = {"n_components": K, **params}
                est = vcgmm.VCGMM(random_state=seed, **p, **kw).fit(X, sample_weight=w)
                estimator_outputs(vcgmm, est, X, w, out, gmm=True)
            run(f"VCGMM/{vname}/{t}", f_gmm)

        for vname, params in (("default", dict(coreset_size=500)),
                              ("spherical", dict(coreset_size=500,
                                                 covariance_type="spherical"))):
            def f_gmm_chunked(out, X=X, chunks=chunks, w=w, kw=kw, params=params):
                est = vcgmm.VCGMM(K, random_state=seed, **params, **kw).fit(
                    chunks, sample_weight=w)
                estimator_outputs(vcgmm, est, X, w, out, gmm=True)
                flatten("predict_chunked", est.predict(chunks), out)
            run(f"VCGMM/chunked/{vname}/{t}", f_gmm_chunked)

        mbk_variants = {
            "default": dict(batch_size=256, max_iter=40),
            "init=k-means++": dict(batch_size=256, max_iter=40, init="k-means++"),
            "init=afk-mc2,coreset": dict(batch_size=128, max_iter=40, init="afk-mc2",
                                         coreset_size=600),
            "cosine": dict(batch_size=256, max_iter=40, metric="cosine"),
            "compute_labels=False": dict(batch_size=256, max_iter=40, compute_labels=False),
        }
        for vname, params in mbk_variants.items():
            def f_mbk(out, X=X, w=w, kw=kw, params=params):
                est = vcgmm.MiniBatchKMeans(K, random_state=seed, **params, **kw).fit(
                    X, sample_weight=w)
                estimator_outputs(vcgmm, est, X, w, out)
            run(f"MiniBatchKMeans/{vname}/{t}", f_mbk)

        for vname, params in (("random", {}), ("k-means++", dict(init="k-means++")),
                              ("afk-mc2", dict(init="afk-mc2")),
                              ("init=array", dict(init=init8)),
                              ("cosine", dict(metric="cosine"))):
            def f_partial(out, X=X, w=w, kw=kw, params=params):
                est = vcgmm.MiniBatchKMeans(K, random_state=seed, **params, **kw)
                for i, start in enumerate(range(0, N, 400)):
                    rows = slice(start, start + 400)
                    est.partial_fit(X[rows], sample_weight=None if w is None else w[rows])
                    flatten(f"step{i}.centers", est.cluster_centers_, out)
                    flatten(f"step{i}.inertia", est.inertia_, out)
                estimator_outputs(vcgmm, est, X, w, out)
            run(f"MiniBatchKMeans/partial_fit/{vname}/{t}", f_partial)

        nmk_variants = {
            "default": dict(batch_size=200),
            "bounds=yinyang,n_groups=2": dict(batch_size=200, bounds="yinyang", n_groups=2),
            "bounds=none": dict(batch_size=200, bounds="none"),
            "init=afk-mc2,coreset": dict(batch_size=100, init="afk-mc2", coreset_size=600),
            "cosine": dict(batch_size=200, metric="cosine"),
        }
        for vname, params in nmk_variants.items():
            def f_nmk(out, X=X, w=w, kw=kw, params=params):
                est = vcgmm.NestedMiniBatchKMeans(K, random_state=seed, **params, **kw).fit(
                    X, sample_weight=w)
                estimator_outputs(vcgmm, est, X, w, out)
            run(f"NestedMiniBatchKMeans/{vname}/{t}", f_nmk)

        vrk_variants = {
            "default": dict(max_epochs=8),
            "vrkm,label-change": dict(variant="vrkm", update_rule="label-change", max_epochs=8),
            "block_size=32,lr=0.02": dict(block_size=32, learning_rate=0.02, max_epochs=8),
            "init=afk-mc2,coreset": dict(init="afk-mc2", coreset_size=600, max_epochs=8),
        }
        for vname, params in vrk_variants.items():
            def f_vrk(out, X=X, w=w, kw=kw, params=params):
                est = vcgmm.VRKMeans(K, random_state=seed, **params, **kw).fit(
                    X, sample_weight=w)
                estimator_outputs(vcgmm, est, X, w, out)
            run(f"VRKMeans/{vname}/{t}", f_vrk)

        # callbacks: the progress records (without seconds) of one fit per family
        if not weighted:
            def f_callbacks(out, X=X, kw=kw):
                for name, make in (
                        ("KMeans", lambda cb: vcgmm.KMeans(K, init="afk-mc2", coreset_size=500,
                                                           callback=cb, random_state=seed,
                                                           **kw)),
                        ("VCGMM", lambda cb: vcgmm.VCGMM(K, coreset_size=500, callback=cb,
                                                         random_state=seed, **kw)),
                        ("MiniBatchKMeans", lambda cb: vcgmm.MiniBatchKMeans(
                            K, batch_size=256, max_iter=10, callback=cb, random_state=seed,
                            **kw)),
                        ("NestedMiniBatchKMeans", lambda cb: vcgmm.NestedMiniBatchKMeans(
                            K, batch_size=200, callback=cb, random_state=seed, **kw)),
                        ("VRKMeans", lambda cb: vcgmm.VRKMeans(K, max_epochs=5, callback=cb,
                                                               random_state=seed, **kw)),
                        ("KernelKMeans", lambda cb: vcgmm.KernelKMeans(
                            2, batch_size=128, tau=50, max_iter=20, callback=cb,
                            random_state=seed, **kw))):
                    seen = []
                    data = R if name == "KernelKMeans" else X
                    make(seen.append).fit(data)
                    flatten(name, progress_trace(seen), out)
                    flatten(name + ".types", sorted({type(r).__name__ for r in seen}), out)
            run(f"callbacks/{t}", f_callbacks)

        # -- kernel k-means (rings; no sample weights) ---------------------
        if weighted:
            continue
        K_rr = np.exp(-0.5 * ((R64[:, None, :] - R64[None, :, :]) ** 2).sum(-1)).astype(dtype)
        kk_variants = {
            "truncated,rbf": dict(batch_size=128, tau=50, max_iter=40),
            "truncated,rbf,gamma=2": dict(gamma=2.0, batch_size=128, tau=50, max_iter=40),
            "truncated,rbf,kappa=0.5,sklearn_lr": dict(kappa=0.5, batch_size=128, tau=50,
                                                       max_iter=40, learning_rate="sklearn"),
            "truncated,tol": dict(batch_size=256, tau=100, max_iter=200, tol=1e-3),
            "minibatch,rbf": dict(algorithm="minibatch", batch_size=128, max_iter=20),
            "full,rbf": dict(algorithm="full", gamma=1.0, max_iter=30),
            "full,laplacian": dict(algorithm="full", kernel="laplacian", max_iter=30),
            "truncated,laplacian": dict(kernel="laplacian", batch_size=128, tau=50,
                                        max_iter=30),
            "truncated,poly": dict(kernel="poly", degree=2, coef0=0.5, batch_size=128, tau=50,
                                   max_iter=30),
            "minibatch,poly_auto": dict(kernel="poly", algorithm="minibatch", batch_size=128,
                                        max_iter=10),
            "full,linear": dict(kernel="linear", algorithm="full", max_iter=30),
            "full,knn": dict(kernel="knn", n_neighbors=10, algorithm="full", max_iter=30),
            "truncated,knn": dict(kernel="knn", n_neighbors=8, batch_size=128, tau=50,
                                  max_iter=30),
            "full,heat": dict(kernel="heat", n_neighbors=10, t=100.0, algorithm="full",
                              max_iter=30),
            "full,precomputed": dict(kernel="precomputed", algorithm="full", max_iter=30,
                                     _X="kernel"),
            "truncated,precomputed": dict(kernel="precomputed", batch_size=128, tau=50,
                                          max_iter=30, _X="kernel"),
            "init=indices": dict(init=np.array([0, 1]), batch_size=128, tau=50, max_iter=30),
            "n_init=3": dict(n_init=3, batch_size=128, tau=50, max_iter=20),
            "compute_labels=False": dict(compute_labels=False, batch_size=128, tau=50,
                                         max_iter=20),
            "k=5": dict(n_clusters=5, batch_size=128, tau=50, max_iter=20),
        }
        for vname, params in kk_variants.items():
            def f_kk(out, R=R, K_rr=K_rr, kw=kw, params=params):
                p = dict(params)
                data = K_rr if p.pop("_X", None) == "kernel" else R
                k = p.pop("n_clusters", 2)
                flatten("fit_kernel_kmeans", vcgmm.fit_kernel_kmeans(
                    data, k, random_state=seed, **p, **kw), out)
                est = vcgmm.KernelKMeans(k, random_state=seed, **p, **kw).fit(data)
                fitted_attributes(est, "attr.", out)
                if p.get("kernel") not in ("knn", "heat"):
                    new = data[:100] if p.get("kernel") != "precomputed" else data[:100]
                    flatten("predict", est.predict(new), out)
                flatten("fit_predict", vcgmm.KernelKMeans(k, random_state=seed, **p, **kw)
                        .fit_predict(data), out)
            run(f"KernelKMeans/{vname}/{t}", f_kk)

    return cases


# ----------------------------------------------------------------------------
# main


def count_arrays(results):
    return sum(1 for case in results.values() for v in case.values()
               if isinstance(v, dict) and "sha256" in v)


def compare(a_path, b_path):
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    differ = []
    for case in sorted(set(a) | set(b)):
        if case not in a:
            differ.append(f"{case}: only in {b_path}")
        elif case not in b:
            differ.append(f"{case}: only in {a_path}")
        elif a[case] != b[case]:
            outs = sorted(k for k in set(a[case]) | set(b[case])
                          if a[case].get(k) != b[case].get(k))
            shown = ", ".join(outs[:8]) + (f", ... ({len(outs)} outputs)" if len(outs) > 8
                                           else "")
            differ.append(f"{case}: {shown}")
    if differ:
        print(f"{len(differ)} of {len(set(a) | set(b))} cases differ:")
        for line in differ:
            print("  " + line)
        return 1
    print(f"identical ({len(a)} cases, {count_arrays(a)} arrays)")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", help="write the fingerprint (JSON) here")
    group.add_argument("--compare", nargs=2, metavar=("A", "B"),
                       help="compare two fingerprint files")
    parser.add_argument("--only", default=None,
                        help="regular expression: keep only the matching cases (debugging)")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)

    import vcgmm

    start = time.perf_counter()
    cases = build_cases(vcgmm, args.only)
    results = cases.results
    with open(args.out, "w") as f:
        json.dump(results, f, sort_keys=True, indent=1)
        f.write("\n")
    seconds = time.perf_counter() - start
    print(f"{len(results)} cases, {count_arrays(results)} arrays in {seconds:.1f} s "
          f"(vcgmm from {os.path.dirname(vcgmm.__file__)}) -> {args.out}")
    if cases.errors:
        print(f"{len(cases.errors)} cases raised (recorded in the fingerprint):")
        for name, msg in cases.errors:
            print(f"  {name}: {msg[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
