"""Memory of fits on float16 data: 1 GB of half-precision input, computed as float32.

float16 input is computed in float32 (``vcgmm._base.validation.compute_dtype``):
an array gets one float32 copy (2 bytes more per value, never a float64 copy),
chunked data one chunk at a time. This benchmark measures what that costs in
memory: each row fits, in a fresh Python process
(bench._harness.peak_rss_report), a memory-mapped float16 file of 1.0 GB
(5,000,000 x 100 blobs, written once to bench/.cache) and reports the peak
resident set size beyond the imports and beyond X itself (the fit touches
every page of the memory map, which then counts as resident).

Target (users'-data issue): no fit allocates more than about 2 GB beyond X
(the float32 copy is 2.0 GB of it); checked here as <= 2.1 GB. The chunked
row (the same file as 50 memory-mapped chunks) should need far less: one
float32 chunk at a time plus the coreset.

Usage (from the repository root): python -m bench.half_precision
"""

from __future__ import annotations

import argparse

import numpy as np

from . import _harness
from .datasets import CACHE_DIR

N, D, CENTERS = 5_000_000, 100, 100
CACHE_FILE = f"blobs-f16-{N}x{D}.npy"
GB = 1e9


def _path():
    return CACHE_DIR / CACHE_FILE


def _write_data():
    """5,000,000 x 100 float16 blobs (100 centers in [-10, 10]^D, unit noise),
    written block by block (never a float64 copy of the whole set)."""
    path = _path()
    if path.exists():
        return
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    centers = rng.uniform(-10, 10, size=(CENTERS, D))
    tmp = path.with_suffix(".tmp.npy")
    X = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float16, shape=(N, D))
    block = 250_000
    for start in range(0, N, block):
        rows = min(block, N - start)
        labels = rng.integers(CENTERS, size=rows)
        X[start:start + rows] = centers[labels] + rng.normal(size=(rows, D))
    X.flush()
    del X
    tmp.rename(path)


def fit(estimator, chunked=False, threads=2):
    """Run in the child process: one fit on the memory-mapped float16 data."""
    import vcgmm

    if estimator == "import-only":
        return
    X = np.load(_path(), mmap_mode="r")
    assert X.dtype == np.float16 and X.nbytes == N * D * 2
    if chunked:
        X = np.array_split(X, 50)  # memory-mapped views, one chunk at a time
    est = ESTIMATORS[estimator](vcgmm)
    est.fit(X)
    assert est.cluster_centers_.dtype == np.float32


#: the fits measured, by their name in the table
ESTIMATORS = {
    "VCGMM(100)": lambda vcgmm: vcgmm.VCGMM(100, random_state=0),
    "MiniBatchKMeans(100)": lambda vcgmm: vcgmm.MiniBatchKMeans(100, random_state=0),
    "KMeans(10, max_iter=10)": lambda vcgmm: vcgmm.KMeans(10, max_iter=10, random_state=0),
}

ROWS = [("VCGMM(100)", False), ("MiniBatchKMeans(100)", False),
        ("KMeans(10, max_iter=10)", False), ("VCGMM(100)", True)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--render", action="store_true",
                        help="rewrite the table from the committed JSON without measuring")
    args = parser.parse_args(argv)
    if args.render:  # the table again from the JSON (after a change of its format)
        return _render(args)
    info = _harness.machine_info()
    _write_data()
    input_bytes = N * D * 2
    rows = []
    for estimator, chunked in [("import-only", False)] + ROWS:
        report = _harness.peak_rss_report("bench.half_precision", "fit", (estimator,),
                                          dict(chunked=chunked, threads=args.threads),
                                          n_threads=args.threads)
        added = report["peak"] - report["before_call"]
        row = {
            "fit": estimator + (" on 50 chunks" if chunked else ""),
            "input GB": input_bytes / GB,
            "after imports GB": report["before_call"] / GB,
            "peak GB": report["peak"] / GB,
            "beyond X GB": (added - input_bytes) / GB if estimator != "import-only" else None,
            "seconds": report["seconds"],
        }
        if estimator != "import-only":
            row["target"] = "met" if added - input_bytes <= 2.1 * GB else "NOT MET"
        rows.append(row)
        print(row, flush=True)
    _write(rows, args, info)


def _render(args):
    import json

    saved = json.loads((_harness.results_dir("half_precision") / "half_precision.json")
                       .read_text())
    args.threads = saved["params"]["threads"]
    _write(saved["rows"], args, saved["machine"])


def _write(rows, args, info):
    input_bytes = N * D * 2
    columns = [("fit", "fit", None), ("input GB", "X [GB]", ".2f"),
               ("after imports GB", "after imports [GB]", ".2f"),
               ("peak GB", "peak RSS [GB]", ".2f"), ("beyond X GB", "peak - imports - X [GB]", ".3f"),
               ("seconds", "time [s]", ".1f"), ("target", "<= 2.1 GB beyond X", None)]
    notes = [
        f"X: bench/.cache/{CACHE_FILE}, {N:,} x {D} float16 ({input_bytes / GB:.1f} GB) blobs, "
        f"memory-mapped; {args.threads} threads; one fresh process per row; peak = the "
        "high-water mark of the whole process (VmHWM).",
        "'peak - imports - X' is what the fit allocates: the peak less the process after its "
        "imports and less X's pages, which the fit touches (all of them) and which then count "
        "as resident. A float32 copy of X is 2.0 GB of it.",
        "'on 50 chunks': X as a list of 50 memory-mapped row blocks (chunked data: the coreset "
        "is drawn out of core, each chunk converted to float32 when read).",
        "'import-only' is the same process without a fit.",
        "KMeans runs Lloyd on all rows, which holds a label and a distance per row "
        f"({N:,} x 12 bytes = {N * 12 / GB:.2f} GB) beside the float32 copy.",
    ]
    _harness.write_results("half_precision", columns, rows,
                           title="Memory of fits on 1 GB of float16 data",
                           params={"threads": args.threads}, notes=notes, info=info)


if __name__ == "__main__":
    main()
