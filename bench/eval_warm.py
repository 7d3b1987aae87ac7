"""vc-GMM's exact evaluation after its data steps, started from the last
step's labels, against the exact scan of the same centers.

A default ``VCGMM(C).fit(X)`` ends with exact labels and the quantization
error of all N points (``labels_``, ``inertia_``: the ``evaluation`` phase).
The scan over all centers costs N C distances, more than the whole fit at
large C. After data steps the evaluation starts from the last step's labels
(``assign_nearest_from`` in cpp/src/detail/assign.hpp): bounds from the
center pairs leave each point a few centers to measure, and points the
bounds may not cover are scanned. This benchmark fits ``VCGMM(C)`` at its
defaults (seed ``--seed``) per data set and C, then runs the exact scan
(``vcgmm.assign``) on the fitted centers in the same process, and reports
both times, the evaluation's distances per point, and whether labels and
inertia are the same bit for bit (they must be).

Run from the repository root::

    python -m bench.eval_warm --datasets blobs2m patches-sklearn --clusters 1000 4000 16384
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from bench import _harness
from bench.datasets import load
from bench.frontier import load_data

NAME = "eval_warm"


def _data(name):
    if name == "blobs2m":
        return load_data(name, None)[0]
    return np.ascontiguousarray(load(name, dtype=np.float32))


def run(args):
    import vcgmm

    info = _harness.machine_info()
    rows = []
    for name in args.datasets:
        X = _data(name)
        print(f"{name}: {X.shape[0]:,} x {X.shape[1]}", file=sys.stderr, flush=True)
        for C in args.clusters:
            start = time.perf_counter()
            model = vcgmm.VCGMM(C, random_state=args.seed).fit(X)
            fit_s = time.perf_counter() - start
            start = time.perf_counter()
            labels = vcgmm.assign(X, model.cluster_centers_)
            scan_s = time.perf_counter() - start
            error = vcgmm.quantization_error(X, model.cluster_centers_)
            same = bool(np.array_equal(labels, model.labels_) and error == model.inertia_)
            warm_s = model.timings_["evaluation"]
            rows.append({"data": name, "C": C, "fit_s": fit_s, "warm_s": warm_s,
                         "scan_s": scan_s, "ratio": scan_s / warm_s,
                         "evals": model.n_distance_evals_["evaluation"] / X.shape[0],
                         "share": warm_s / fit_s, "same": "yes" if same else "NO"})
            print(f"[{name} C={C}] fit {fit_s:.2f} s, evaluation {warm_s:.2f} s, scan "
                  f"{scan_s:.2f} s, same {same}", file=sys.stderr, flush=True)
    columns = [("data", "data", None), ("C", "C", None), ("fit_s", "fit [s]", ".2f"),
               ("warm_s", "evaluation [s]", ".2f"), ("scan_s", "scan [s]", ".2f"),
               ("ratio", "scan / evaluation", ".1f"), ("evals", "evaluation distances / point",
                                                       ".1f"),
               ("share", "evaluation / fit", ".2f"), ("same", "same labels and inertia", None)]
    notes = [
        f"VCGMM(C, random_state={args.seed}) at its defaults (one data step on these sizes), "
        "float32, 2 threads; fit = the whole fit() including the evaluation; scan = "
        "vcgmm.assign(X, cluster_centers_) right after, in the same process (one run each).",
        "same: labels_ equal to the scan's labels and inertia_ equal to "
        "vcgmm.quantization_error, bit for bit.",
    ]
    _harness.write_results(args.name, columns, rows,
                           title="vc-GMM's evaluation from the last data step's labels vs the scan",
                           params=dict(vars(args)), notes=notes, info=info)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["blobs2m", "patches-sklearn"])
    parser.add_argument("--clusters", type=int, nargs="+", default=[1000, 4000, 16384])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    with _harness.thread_limits(2):
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
