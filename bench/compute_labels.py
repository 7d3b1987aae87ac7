"""What ``compute_labels=False`` saves: fit time with and without the exact labelling pass.

A fit with ``compute_labels=True`` (the default) ends with one exact pass over
all N training points against all C centers (labels_ and inertia_, the
"evaluation" phase, O(N C D)); with ``compute_labels=False`` that pass is
skipped (and done only if labels_/inertia_ are read). Timed per estimator
and C, the two settings interleaved (so that machine noise hits both alike):

- ``VCGMM(C, G=5, coreset_size="auto")``: vc-GMM (the headline);
- ``KMeans(C, init="afk-mc2", coreset_size="auto")``: the LWCS baseline.

The fitted centers of the two settings are checked to be bit-identical (the
setting changes nothing but the last pass).

Run from the repository root::

    python -m bench.compute_labels                          # patches-sklearn, C = 1000
    python -m bench.compute_labels --clusters 1000 4000 --repeats 3
"""

from __future__ import annotations

import argparse

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "compute_labels"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="patches-sklearn")
    parser.add_argument("--clusters", type=int, nargs="+", default=[1000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    args = parser.parse_args(argv)

    import vcgmm

    info = _harness.machine_info()
    X = load(args.dataset, dtype=np.float32)
    rows = []
    with _harness.thread_limits(args.threads):
        for C in args.clusters:
            for name, make in (
                ("VCGMM (vc-GMM)", lambda cl: vcgmm.VCGMM(
                    C, G=5, random_state=0, n_threads=args.threads, compute_labels=cl)),
                ("KMeans (LWCS)", lambda cl: vcgmm.KMeans(
                    C, init="afk-mc2", coreset_size="auto", random_state=0,
                    n_threads=args.threads, compute_labels=cl)),
            ):
                fitted = {}

                def fit(cl):
                    fitted[cl] = make(cl).fit(X)

                times = _harness.timeit_interleaved(
                    {"true": lambda: fit(True), "false": lambda: fit(False)},
                    repeats=args.repeats, warmup=0)
                eager, lazy = fitted[True], fitted[False]
                assert np.array_equal(eager.cluster_centers_, lazy.cluster_centers_)
                assert lazy.n_distance_evals_["evaluation"] == 0
                t_true, t_false = times["true"]["median"], times["false"]["median"]
                rows.append({
                    "estimator": name, "C": C, "N": X.shape[0], "D": X.shape[1],
                    "fit_true_s": t_true, "fit_false_s": t_false,
                    "ratio": t_true / t_false,
                    "evaluation_s": eager.timings_["evaluation"],
                    "algorithm_s": sum(eager.timings_[p]
                                       for p in ("coreset", "seeding", "iterations")),
                    "times_true": times["true"]["all"], "times_false": times["false"]["all"],
                })
    columns = [
        ("estimator", "estimator", ""),
        ("C", "C", "d"),
        ("fit_true_s", "fit, compute_labels=True [s]", ".2f"),
        ("fit_false_s", "fit, compute_labels=False [s]", ".2f"),
        ("ratio", "True / False", ".2f"),
        ("algorithm_s", "coreset+seeding+iterations [s]", ".2f"),
        ("evaluation_s", "evaluation pass [s]", ".2f"),
    ]
    _harness.write_results(
        NAME, columns, rows,
        title=f"compute_labels: fit time with and without the labelling pass ({args.dataset}, "
              f"float32, {args.threads} threads)",
        params=vars(args), info=info,
        notes=[f"Median of {args.repeats} interleaved fits per setting, whole `fit` call.",
               "The two settings give bit-identical centers (checked); False only skips "
               "the final exact O(N C D) pass (labels_/inertia_ then computed on first "
               "access)."])


if __name__ == "__main__":
    main()
