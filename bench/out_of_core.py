"""vc-GMM beyond one array: in memory, out of core (chunked .npy files) and on Dask.

Data: the 6x6x3 colour patches at stride 1 of scikit-learn's two photos
(535,940 x 108), of their three mirror images (left-right, up-down, both;
2,143,760 rows in all), then of scikit-image's eight photos, cut at
TOTAL_ROWS = 5,000,000 x 108 float32 (2.0 GiB), written once to
``bench/.cache/ooc-patches/`` as ``.npy`` chunk files of CHUNK_ROWS rows
(needs scikit-image). A data size N uses the first N / CHUNK_ROWS files
(N = 0.5 M, 1 M, 2 M, 5 M).

Rows, each in a fresh process (its peak RSS is that process's VmHWM):

- ``in memory``: the files concatenated into one array, then
  ``fit_vcgmm(X, C)`` (time: the fit; the load is not timed but counts in
  the peak RSS);
- ``out of core``: ``fit_vcgmm(list_of_files, C)``: each chunk memory-mapped
  while it is read, twice; ``cold`` evicts the files from the page cache
  first (``posix_fadvise(DONTNEED)`` on our own files only), so they are
  read from disk;
- ``dask 2 workers``: ``fit_vcgmm(X_dask, C)`` on a
  ``distributed.LocalCluster(n_workers=2, threads_per_worker=1)``, one block
  per file (so its coreset and fit equal the out-of-core ones: checked);
- ``dask-ml KMeans``: ``dask_ml.cluster.KMeans(C, init="k-means||")`` on the
  same cluster and array (the distributed peer);
- ``faiss Kmeans``: ``faiss.Kmeans(d, C, niter=20)`` on the array in memory
  (faiss subsamples 256 points per centroid).

Reported per row: wall time of the fit, the full-data quantization error
(computed afterwards out of core, exactly), its ratio to the in-memory vc-GMM
error, peak RSS of the client process and of each Dask worker, and the bytes
delivered to the client by Dask (the pickled size of every result a
``dask.compute`` / ``.compute()`` returned). vcgmm's coreset and EM phase
times give the time-vs-N plot (``out_of_core.png``); results go to
``bench/results/out_of_core/``.

Usage (from the repository root): python -m bench.out_of_core [--quick] [--no-daskml]
(--quick: N = 0.5 M, C = 1000, with dask-ml, ~25 min on this loaded machine, results
``out_of_core_quick.*``; the full run: N = 0.5, 1, 2, 5 M at C = 1000 and 5 M at
C = 4000, dask-ml and a vc-GMM Dask row with N' = 256 C at 0.5 M, results
``out_of_core.*``).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import tempfile
import time
from pathlib import Path

import numpy as np

from . import _harness

CACHE = _harness.BENCH_DIR / ".cache" / "ooc-patches"
CHUNK_ROWS = 100_000
D = 108


# --------------------------------------------------------------------------- data
def _variants():
    """The patch rows in order: scikit-learn's two photos and their mirror
    images (left-right, up-down, both), then the eight scikit-image photos."""
    from numpy.lib.stride_tricks import sliding_window_view

    from vcgmm.datasets import photos

    def rows(img):
        w = sliding_window_view(np.ascontiguousarray(img), (6, 6, 3))[:, :, 0]
        return np.ascontiguousarray(w.reshape(-1, D), dtype=np.float32)

    sklearn_photos = photos("sklearn")
    for flip in (lambda a: a, lambda a: a[:, ::-1], lambda a: a[::-1], lambda a: a[::-1, ::-1]):
        for _, img in sklearn_photos:
            yield rows(flip(img))
    names = {name for name, _ in sklearn_photos}
    for name, img in photos("all"):  # needs scikit-image
        if name not in names:
            yield rows(img)


#: Rows written to the cache: 50 files of CHUNK_ROWS (the N sweep's 5 M).
TOTAL_ROWS = 5_000_000
#: Written into done.json; a cache of another layout is rewritten.
CACHE_LAYOUT = 2


def chunk_files():
    """Writes the chunk files once; returns their paths in order."""
    done = CACHE / "done.json"
    if done.exists():
        meta = json.loads(done.read_text())
        if meta.get("layout") == CACHE_LAYOUT:
            return [CACHE / name for name in meta["files"]]
        for old in CACHE.glob("part*.npy"):
            old.unlink()
        done.unlink()
    CACHE.mkdir(parents=True, exist_ok=True)
    names, buf, fill = [], np.empty((CHUNK_ROWS, D), np.float32), 0

    def flush(rows):
        name = f"part{len(names):03d}.npy"
        np.save(CACHE / name, buf[:rows])
        names.append(name)

    for block in _variants():
        pos = 0
        while pos < block.shape[0] and len(names) * CHUNK_ROWS < TOTAL_ROWS:
            take = min(CHUNK_ROWS - fill, block.shape[0] - pos)
            buf[fill:fill + take] = block[pos:pos + take]
            fill += take
            pos += take
            if fill == CHUNK_ROWS:
                flush(fill)
                fill = 0
        if len(names) * CHUNK_ROWS >= TOTAL_ROWS:
            break
    if fill:
        flush(fill)
    done.write_text(json.dumps({"files": names, "chunk_rows": CHUNK_ROWS,
                                "layout": CACHE_LAYOUT}))
    return [CACHE / name for name in names]


def _files(n_files):
    return [str(p) for p in chunk_files()[:n_files]]


def _evict(paths):
    """Drop our files' pages from the page cache (the next read is from disk)."""
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _load(path):
    return np.load(path)


def _dask_array(paths):
    import dask
    import dask.array as da

    shapes = [np.load(p, mmap_mode="r").shape for p in paths]
    return da.concatenate([da.from_delayed(dask.delayed(_load)(p), shape=s, dtype=np.float32)
                           for p, s in zip(paths, shapes)])


# --------------------------------------------------------------------------- child runs
def _vm_hwm():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return None


def _warm(modules):
    import importlib

    for name in modules:
        importlib.import_module(name)
    return True


class _BytesToClient:
    """Counts the pickled size of everything dask.compute returns here."""

    def __enter__(self):
        import dask
        import dask.base

        self.total = 0
        self._saved = (dask.compute, dask.base.compute)
        original = dask.base.compute

        def counting(*args, **kwargs):
            out = original(*args, **kwargs)
            self.total += len(pickle.dumps(out, protocol=5))
            return out

        dask.compute = dask.base.compute = counting
        return self

    def __exit__(self, *exc):
        import dask
        import dask.base

        dask.compute, dask.base.compute = self._saved
        return False


def run(kind, n_files, C, out, seed=0, threads=2, cold=False, coreset_size="auto"):
    """One row, in a child process: fit, save the centers and the record."""
    import vcgmm

    paths = _files(n_files)
    record = {"kind": kind, "n_files": n_files, "C": C, "coreset_size_param": coreset_size}
    if kind in ("memory", "faiss"):
        X = np.concatenate([np.load(p) for p in paths])
        record["n_samples"] = X.shape[0]
    if kind == "memory":
        t0 = time.perf_counter()
        r = vcgmm.fit_vcgmm(X, C, coreset_size=coreset_size, random_state=seed,
                            n_threads=threads)
        record["seconds"] = time.perf_counter() - t0
        centers = r.centers
        record.update(timings=r.timings, n_iter=r.n_iter, coreset_size=int(r.coreset_weights.size))
    elif kind == "ooc":
        if cold:
            _evict(paths)
        t0 = time.perf_counter()
        r = vcgmm.fit_vcgmm(paths, C, coreset_size=coreset_size, random_state=seed,
                            n_threads=threads)
        record["seconds"] = time.perf_counter() - t0
        centers = r.centers
        record.update(timings=r.timings, n_iter=r.n_iter, coreset_size=int(r.coreset_weights.size),
                      coreset_indices_sha=_sha(r.coreset_indices))
    elif kind == "faiss":
        import faiss

        faiss.omp_set_num_threads(threads)
        km = faiss.Kmeans(D, C, niter=20, seed=seed + 1, verbose=False)
        t0 = time.perf_counter()
        km.train(X)
        record["seconds"] = time.perf_counter() - t0
        centers = km.centroids
    elif kind in ("dask", "dask-ml"):
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            # Warm the workers (imports) so the fit's time is the fit's.
            client.run(_warm, ["vcgmm", "sklearn.cluster"]
                       + (["dask_ml.cluster"] if kind == "dask-ml" else []))
            Xd = _dask_array(paths)
            record["n_samples"] = int(Xd.shape[0])
            with _BytesToClient() as counted:
                t0 = time.perf_counter()
                if kind == "dask":
                    r = vcgmm.fit_vcgmm(Xd, C, coreset_size=coreset_size, random_state=seed)
                    centers = r.centers
                    record.update(timings=r.timings, n_iter=r.n_iter,
                                  coreset_size=int(r.coreset_weights.size),
                                  coreset_indices_sha=_sha(r.coreset_indices))
                else:
                    from dask_ml.cluster import KMeans

                    km = KMeans(n_clusters=C, init="k-means||", random_state=seed,
                                max_iter=DASKML_MAX_ITER)
                    km.fit(Xd)
                    centers = np.asarray(km.cluster_centers_, np.float32)
                    record.update(n_iter=int(km.n_iter_))
                record["seconds"] = time.perf_counter() - t0
            record["bytes_to_client"] = counted.total
            record["worker_peak_rss"] = sorted(client.run(_vm_hwm).values())
    else:
        raise ValueError(kind)
    record["client_peak_rss"] = _vm_hwm()
    np.save(out + ".centers.npy", np.ascontiguousarray(centers, np.float32))
    Path(out + ".json").write_text(json.dumps(record))


#: The coreset size of the equal-error Dask row, as a multiple of C (the
#: default is 64 C): at N = 0.5 M, C = 1000 it gives a full-data error below
#: dask-ml's (measured before the run: 4.5% below; the default: 1.2% above).
EQUAL_ERROR_FACTOR = 256

#: dask-ml's Lloyd iterations are capped so that a row finishes in minutes;
#: its n_iter and error are reported as they come out.
DASKML_MAX_ITER = 30


def _sha(a):
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


# --------------------------------------------------------------------------- parent
def measure(kind, n_files, C, threads, cold=False, coreset_size="auto", evaluate=True):
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "row")
        load0 = os.getloadavg()[0]
        rep = _harness.peak_rss_report("bench.out_of_core", "run", (kind, n_files, C, out),
                                       {"threads": threads, "cold": cold,
                                        "coreset_size": coreset_size}, n_threads=threads)
        record = json.loads(Path(out + ".json").read_text())
        centers = np.load(out + ".centers.npy")
    import vcgmm

    record.update(process_peak_rss=rep["peak"], before_call_rss=rep["before_call"],
                  load_avg_1min_before=load0, cold=cold, centers_sha=_sha(centers))
    if evaluate:
        t0 = time.perf_counter()
        q = vcgmm.quantization_error(_files(n_files), centers, n_threads=threads)
        record.update(quantization_error=q, qe_seconds=time.perf_counter() - t0)
    record.setdefault("n_samples", sum(np.load(p, mmap_mode="r").shape[0]
                                       for p in _files(n_files)))
    return record


def _plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    C0 = min(r["C"] for r in rows)
    for kind, label, style in (("memory", "in memory", "o-"), ("ooc", "out of core (warm)", "s-"),
                               ("ooc-cold", "out of core (cold)", "s--"),
                               ("dask", "Dask, 2 workers", "^-"), ("faiss", "faiss Kmeans", "x:"),
                               ("dask-ml", "dask-ml KMeans", "v:")):
        pts = sorted((r["n_samples"], r["seconds"]) for r in rows
                     if r["C"] == C0 and _kind(r) == kind and r["default_size"])
        if pts:
            axes[0].plot([p[0] / 1e6 for p in pts], [p[1] for p in pts], style, label=label)
    for r in rows:
        if r["C"] == C0 and not r["default_size"]:
            axes[0].plot([r["n_samples"] / 1e6], [r["seconds"]], "^", color="k",
                         label=r["label"].replace("vc-GMM ", ""))
    axes[0].set_xlabel("N (million rows, 108 features)")
    axes[0].set_ylabel("wall time of the fit [s]")
    axes[0].set_title(f"C = {C0}")
    axes[0].legend(fontsize=8)
    axes[0].set_yscale("log")
    pts = sorted((r["n_samples"], r["timings"]) for r in rows
                 if r["C"] == C0 and _kind(r) == "ooc")
    if pts:
        n = [p[0] / 1e6 for p in pts]
        for phase, style in (("coreset", "s-"), ("seeding", "d-"), ("iterations", "o-")):
            axes[1].plot(n, [p[1][phase] for p in pts], style, label=phase)
        axes[1].set_xlabel("N (million rows)")
        axes[1].set_ylabel("seconds")
        axes[1].set_title(f"out of core, C = {C0}: time per phase")
        axes[1].legend(fontsize=8)
        axes[1].set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _kind(r):
    return "ooc-cold" if r["kind"] == "ooc" and r.get("cold") else r["kind"]


def _targets(rows):
    """The targets, as measured in this run."""
    out = ["Targets, as measured:"]
    for r in rows:
        if r["kind"] == "ooc" and "time_vs_memory" in r:
            out.append(f"  N = {r['n_samples']:,}, C = {r['C']}, {r['label']}: "
                       f"{r['time_vs_memory']:.2f}x the in-memory time (target <= 1.5x: "
                       f"{'met' if r['time_vs_memory'] <= 1.5 else 'NOT MET'}); peak RSS "
                       f"{r['client_peak_MB']:.0f} MB vs the bound after imports + chunk + "
                       f"coreset + 300 MB = {r['after_imports_MB'] + r['chunk_MB'] + r['coreset_MB'] + 300:.0f} MB "
                       f"({r['rss_target']})")
    for ml in (r for r in rows if r["kind"] == "dask-ml"):
        for d in (r for r in rows if r["kind"] == "dask" and r["n_samples"] == ml["n_samples"]
                  and r["C"] == ml["C"]):
            lower = d["quantization_error"] <= ml["quantization_error"]
            ratio = ml["seconds"] / d["seconds"]
            out.append(f"  N = {d['n_samples']:,}, C = {d['C']}: {d['label']} "
                       f"{ratio:.0f}x faster than dask-ml ({d['seconds']:.1f} s vs "
                       f"{ml['seconds']:.0f} s) at a full-data error "
                       f"{100 * (d['quantization_error'] / ml['quantization_error'] - 1):+.2f}% "
                       f"of dask-ml's -> {'met' if lower and ratio >= 10 else 'NOT MET'} "
                       "(target: >= 10x faster at equal or lower error)")
    for C in sorted({r["C"] for r in rows}):
        pts = sorted((r["n_samples"], r["timings"]) for r in rows
                     if r["C"] == C and _kind(r) == "ooc" and r["default_size"])
        if len(pts) >= 2:
            (n0, t0), (n1, t1) = pts[0], pts[-1]
            parts = ", ".join(f"{ph} {t0.get(ph, 0):.2f} -> {t1.get(ph, 0):.2f} s"
                              for ph in ("coreset", "seeding", "iterations"))
            out.append(f"  time vs N (out of core, C = {C}), N = {n0:,} -> {n1:,} "
                       f"({n1 / n0:.0f}x): {parts}")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="N = 0.5 M and C = 1000 only")
    parser.add_argument("--no-daskml", action="store_true")
    parser.add_argument("--repeats", type=int, default=3,
                        help="fits per vc-GMM row (fresh process each); the median time counts")
    args = parser.parse_args(argv)
    info = _harness.machine_info()
    files = chunk_files()
    total_rows = sum(np.load(p, mmap_mode="r").shape[0] for p in files)
    print(f"{len(files)} chunk files, {total_rows:,} rows in {CACHE}", flush=True)
    sizes = [5] if args.quick else [5, 10, 20, 50]
    plan = []
    for n_files in sizes:
        plan += [("memory", n_files, 1000, False), ("ooc", n_files, 1000, False),
                 ("ooc", n_files, 1000, True), ("dask", n_files, 1000, False),
                 ("faiss", n_files, 1000, False)]
    if not args.quick:
        # (faiss at C = 4000 would take ~20 min on this machine: left out)
        plan += [("memory", 50, 4000, False), ("ooc", 50, 4000, False),
                 ("dask", 50, 4000, False)]
    if not args.no_daskml:
        # dask-ml's error is below vc-GMM's default one; a vc-GMM row with a
        # larger coreset (N' = 256 C) compares the two at equal or lower error.
        plan += [("dask-ml", 5, 1000, False), ("dask", 5, 1000, False, EQUAL_ERROR_FACTOR * 1000)]
    rows = []
    for kind, n_files, C, cold, *size in plan:
        size = size[0] if size else "auto"
        record = measure(kind, n_files, C, args.threads, cold=cold, coreset_size=size)
        if kind in ("memory", "ooc", "dask") and args.repeats > 1:
            # The fits are deterministic (same centers: checked); their times
            # vary by tens of percent run to run here, so the median counts.
            runs = [record] + [measure(kind, n_files, C, args.threads, cold=cold,
                                       coreset_size=size, evaluate=False)
                               for _ in range(args.repeats - 1)]
            if len({r["centers_sha"] for r in runs}) != 1:
                raise RuntimeError(f"{kind} N={record['n_samples']} C={C}: repeated fits "
                                   "gave different centers")
            median = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
            record.update(seconds=median["seconds"], timings=median.get("timings"),
                          seconds_runs=[r["seconds"] for r in runs],
                          process_peak_rss=max(r["process_peak_rss"] for r in runs))
        rows.append(record)
        print({k: record.get(k) for k in ("kind", "cold", "n_samples", "C", "seconds",
                                           "quantization_error", "process_peak_rss",
                                           "bytes_to_client")}, flush=True)
    # Ratios against the in-memory vc-GMM row of the same N and C.
    base = {(r["n_samples"], r["C"]): r for r in rows if r["kind"] == "memory"}
    for r in rows:
        r["default_size"] = r.get("coreset_size_param", "auto") == "auto"
    for r in rows:
        b = base.get((r["n_samples"], r["C"]))
        if b is not None:
            r["time_vs_memory"] = r["seconds"] / b["seconds"]
            r["qe_vs_memory"] = r["quantization_error"] / b["quantization_error"]
        r["label"] = {"memory": "vc-GMM in memory", "ooc": "vc-GMM out of core (warm cache)",
                      "ooc-cold": "vc-GMM out of core (cold: read from disk)",
                      "dask": "vc-GMM Dask (2 workers)", "dask-ml": "dask-ml KMeans k-means|| "
                      f"(2 workers, max_iter={DASKML_MAX_ITER})",
                      "faiss": "faiss Kmeans (in memory, niter=20)"}[_kind(r)]
        if not r["default_size"]:
            r["label"] += f" N' = {r['coreset_size_param'] // r['C']} C"
        r["chunk_MB"] = CHUNK_ROWS * D * 4 / 2**20
        r["runs"] = ("/".join(f"{t:.2f}" for t in r["seconds_runs"]) if "seconds_runs" in r
                     else "1 run")
        if "coreset_size" in r:
            r["coreset_MB"] = r["coreset_size"] * (D * 4 + 16) / 2**20
        r["client_peak_MB"] = r["process_peak_rss"] / 2**20
        r["after_imports_MB"] = r["before_call_rss"] / 2**20
        if r.get("worker_peak_rss"):
            r["worker_peak_MB"] = " / ".join(f"{v / 2**20:.0f}" for v in r["worker_peak_rss"])
        if "bytes_to_client" in r:
            r["to_client_MB"] = r["bytes_to_client"] / 2**20
        if r["kind"] == "ooc":
            r["rss_target"] = ("met" if r["process_peak_rss"] < r["before_call_rss"]
                               + (r["chunk_MB"] + r["coreset_MB"] + 300) * 2**20 else "NOT MET")
    same = {}
    for r in rows:
        if r.get("coreset_indices_sha"):
            if r["default_size"]:
                same.setdefault((r["n_samples"], r["C"]), set()).add(r["coreset_indices_sha"])
    columns = [("label", "row", None), ("n_samples", "N", ","), ("C", "C", None),
               ("seconds", "fit [s]", ".2f"), ("runs", "runs [s]", None), ("time_vs_memory", "time / in-memory", ".2f"),
               ("quantization_error", "full-data Q", ".5g"),
               ("qe_vs_memory", "Q / in-memory", ".4f"), ("n_iter", "iters", None),
               ("client_peak_MB", "client peak RSS [MB]", ".0f"),
               ("after_imports_MB", "after imports [MB]", ".0f"),
               ("worker_peak_MB", "worker peak RSS [MB]", None),
               ("to_client_MB", "to client [MB]", ".2f"), ("rss_target", "RSS target", None)]
    notes = [
        "Data: 6x6x3 patches (stride 1) of scikit-learn's 2 photos and their 3 mirror images "
        "(2,143,760 rows), then of scikit-image's 8 photos (up to 5 M rows), "
        f"float32, in .npy files of {CHUNK_ROWS:,} rows ({CHUNK_ROWS * D * 4 / 2**20:.0f} MB) "
        f"under bench/.cache/ooc-patches; N = the first N/{CHUNK_ROWS:,} files. "
        f"{args.threads} threads; Dask: LocalCluster(n_workers=2, threads_per_worker=1, "
        "processes=True), one block per file; vc-GMM with its defaults (G=5, N' = "
        "max(4096, 64 C), AFK-MC^2 chain 20), random_state=0, except the row marked N' = 256 C "
        f"(a larger coreset, to compare with dask-ml at equal or lower error).",
        "fit [s]: wall time of the fit call only (in memory: the files were loaded before; Dask: "
        "the cluster was started and the workers' imports warmed before). vc-GMM rows: the "
        f"median of {args.repeats} fits, each in a fresh process (all times under 'runs'; the "
        "fits are deterministic, identical centers checked); faiss and dask-ml: one fit. The "
        "machine is shared (see load averages in the JSON); peak RSS: the largest of the runs.",
        "full-data Q: the exact quantization error of all N rows with the row's centers, "
        "computed afterwards out of core (vcgmm.quantization_error on the files).",
        "client peak RSS: VmHWM of the process running the fit (interpreter, imports, the data "
        "when in memory, the touched pages of memory-mapped chunks); worker peak RSS: VmHWM of "
        "each Dask worker process. RSS target (out of core): peak < after imports + chunk + "
        "coreset (N' x (D floats + 16 bytes)) + 300 MB.",
        "to client: pickled size of all results dask.compute returned to the client.",
        "out of core (cold): the chunk files were evicted from the page cache first "
        "(posix_fadvise DONTNEED on those files only), so both passes read from disk.",
        "Same coreset (indices hash) for out of core and Dask at each N, C: "
        + ", ".join(f"N={n:,} C={c}: {'yes' if len(v) == 1 else 'NO'}"
                    for (n, c), v in sorted(same.items())) + ".",
    ]
    notes += _targets(rows)
    name = "out_of_core_quick" if args.quick else "out_of_core"
    _harness.write_results(name, columns, rows,
                           title="vc-GMM in memory, out of core and on Dask", params=vars(args),
                           notes=notes, info=info)
    _plot(rows, _harness.results_dir() / f"{name}.png")


if __name__ == "__main__":
    main()
