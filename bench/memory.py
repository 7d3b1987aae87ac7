"""Peak memory of vc-GMM on the full image-patch set, with X memory-mapped.

Each configuration runs in a fresh Python process (bench._harness.peak_rss_report)
that memory-maps the cached float32 patches of all ten photos
(`patches-all`: stride 2, 1,117,389 x 108 float32 = 483 MB, see
bench/datasets.py) and fits. The process's peak resident set size then
counts the interpreter and its imports, every page of X that was touched
(all of them: the coreset reads X twice), and whatever the fit allocates.
If X were copied anywhere, the peak would exceed 2x the input size.

Target: peak RSS of fit_vcgmm < input size + 300 MB.

Usage (from the repository root): python -m bench.memory
"""

from __future__ import annotations

import argparse

import numpy as np

from . import _harness
from .datasets import CACHE_DIR, load

CACHE_FILE = "patches-all-s2-minstd1.X.npy"


def _data():
    return np.load(CACHE_DIR / CACHE_FILE, mmap_mode="r")


def fit(algo, C, n_prime=None, G=5, return_labels=False, threads=2):
    """Run in the child process: one fit on the memory-mapped patches."""
    import vcgmm

    X = _data()
    assert isinstance(X, np.memmap) and X.dtype == np.float32 and X.flags.c_contiguous
    if algo == "vcgmm":
        vcgmm.fit_vcgmm(X, C, G, n_prime, random_state=0, n_threads=threads,
                        return_labels=return_labels)
    elif algo == "vargmm":
        vcgmm.fit_vargmm(X, C, G, random_state=0, n_threads=threads, return_labels=return_labels)
    elif algo == "lwcs":
        vcgmm.KMeans(C, init="afk-mc2", coreset_size=n_prime, random_state=0,
                     n_threads=threads).fit(X)
    elif algo == "import-only":
        pass
    else:
        raise ValueError(algo)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    info = _harness.machine_info()
    load("patches-all", dtype=np.float32)  # builds the cache file if missing
    X = _data()
    input_bytes = int(X.nbytes)
    configs = [
        ("import-only", dict(C=1)),
        ("vcgmm", dict(C=1000, n_prime=2**16)),
        ("vcgmm", dict(C=4000, n_prime=2**16)),
        ("vcgmm", dict(C=4000, n_prime=2**16, return_labels=True)),
        ("vcgmm", dict(C=1000, n_prime=2**17)),
        ("vcgmm", dict(C=4000, n_prime=2**17)),
        ("vcgmm", dict(C=1000, n_prime=2**18)),
        ("vcgmm", dict(C=4000, n_prime=2**18)),
        ("vargmm", dict(C=1000)),
        ("lwcs", dict(C=1000, n_prime=2**16)),
    ]
    rows = []
    for algo, kw in configs:
        report = _harness.peak_rss_report("bench.memory", "fit", (algo,),
                                          dict(kw, threads=args.threads), n_threads=args.threads)
        peak = report["peak"]
        row = {
            "call": f"{algo} " + ", ".join(f"{k}={v}" for k, v in kw.items()),
            "input MB": input_bytes / 2**20,
            "peak RSS MB": peak / 2**20,
            "peak - input MB": (peak - input_bytes) / 2**20,
            "before call MB": report["before_call"] / 2**20,
            "fit MB": (peak - report["before_call"]) / 2**20,
            "seconds": report["seconds"],
        }
        if algo == "vcgmm":
            row["target"] = "met" if peak < input_bytes + 300 * 2**20 else "NOT MET"
        rows.append(row)
        print(row, flush=True)
    columns = [("call", "call", None), ("input MB", "input [MB]", ".0f"),
               ("peak RSS MB", "peak RSS [MB]", ".0f"), ("peak - input MB", "peak - input [MB]", ".0f"),
               ("before call MB", "after imports [MB]", ".0f"),
               ("fit MB", "peak - after imports [MB]", ".0f"), ("seconds", "time [s]", ".2f"),
               ("target", "< input + 300 MB", None)]
    notes = [
        f"X: bench/.cache/{CACHE_FILE} memory-mapped ({X.shape[0]:,} x {X.shape[1]} float32), "
        f"{args.threads} threads; one fresh process per row; peak = the high-water mark of the "
        "whole process (VmHWM: interpreter, imports, touched pages of X, the fit's allocations).",
        "'import-only' is the same process without a fit: Python + numpy + scikit-learn + vcgmm.",
            "'peak - after imports' is what the call adds: the pages of X it touches (all of them) "
        "plus its own allocations (the coreset copy N' x D, the neighbourhood statistics, ...).",
        "vargmm and lwcs are shown for comparison (var-GMM-S keeps O(N G) state for all N points).",
    ]
    _harness.write_results("memory", columns, rows, title="Peak memory on the full patch set",
                           params=vars(args), notes=notes, info=info)


if __name__ == "__main__":
    main()
