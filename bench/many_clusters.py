"""vc-GMM at very many clusters: each phase's time as C grows, and the seeding's share.

A fit of ``fit_vcgmm(X, C)`` with the library's defaults on the built-in
image patches (patches-all, 1.1 M x 108, float32) at each C of
``--clusters``, one fresh process per fit; per fit the phases' own timings
(``VCGMMResult.timings``: coreset, seeding, EM iterations, refinement), the
seeding's share of the fit, the fit's time relative to the C before it, and
the growth exponent of the seeding, log(t2 / t1) / log(C2 / C1). With
``--compare PYTHONPATH`` the same fits also run with the vcgmm found on that
path (e.g. a copy of the package from before a change), the two taking
turns, and the table says whether both chose the same means bit for bit.

Run from the repository root::

    python -m bench.many_clusters
    python -m bench.many_clusters --clusters 16384 65536 --compare /tmp/old_py
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

from bench import _harness

NAME = "many_clusters"
PHASES = ("coreset", "seeding", "iterations", "refinement", "evaluation")

_CHILD = r"""
import hashlib, json, sys, time
import numpy as np
sys.path.insert(0, {root!r})
import vcgmm
from bench.datasets import load
X = load({dataset!r}, np.{dtype})
t = time.perf_counter()
r = vcgmm.fit_vcgmm(X, {C}, random_state={seed}, n_threads={threads})
wall = time.perf_counter() - t
print(json.dumps({{"timings": {{k: float(v) for k, v in r.timings.items()}}, "wall": wall,
                  "n_iter": int(r.n_iter),
                  "means": hashlib.sha256(np.ascontiguousarray(r.centers).tobytes()).hexdigest()[:16],
                  "vcgmm": vcgmm.__file__}}))
"""


def _fit(pythonpath, args, C):
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    code = _CHILD.format(root=os.getcwd(), dataset=args.dataset, dtype=args.dtype, C=C,
                         seed=args.seed, threads=args.threads)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"the fit at C = {C} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(args):
    info = _harness.machine_info()
    builds = [("this", os.environ.get("PYTHONPATH", ""))]
    if args.compare:
        builds.append(("compared", args.compare))
    runs = {name: {} for name, _ in builds}
    for k, C in enumerate(args.clusters):
        order = builds if k % 2 == 0 else builds[::-1]  # turns: drift hits both alike
        for name, path in order:
            runs[name][C] = _fit(path, args, C)
            print(name, C, json.dumps(runs[name][C]["timings"]), flush=True)
    rows = []
    for name, _ in builds:
        prev = None
        for C in args.clusters:
            r = runs[name][C]
            fit = sum(r["timings"].get(q, 0.0) for q in PHASES)
            row = {"build": name, "C": C, "fit": fit, "wall": r["wall"], "n_iter": r["n_iter"],
                   "seeding_share": r["timings"]["seeding"] / fit}
            row.update({q: r["timings"].get(q, 0.0) for q in PHASES[:4]})
            if prev is not None:
                pc, pr = prev
                pfit = sum(pr["timings"].get(q, 0.0) for q in PHASES)
                row["fit_ratio"] = fit / pfit
                row["seeding_exponent"] = (math.log(r["timings"]["seeding"] /
                                                    pr["timings"]["seeding"]) / math.log(C / pc))
            if args.compare:
                row["same_means"] = runs["this"][C]["means"] == runs["compared"][C]["means"]
            rows.append(row)
            prev = (C, r)
    _write(args, rows, runs, info)


def _write(args, rows, runs, info):
    columns = [
        ("build", "build", None), ("C", "C", None), ("coreset", "coreset [s]", ".3f"),
        ("seeding", "seeding [s]", ".3f"), ("iterations", "EM [s]", ".2f"),
        ("refinement", "refinement [s]", ".2f"), ("fit", "fit [s]", ".2f"),
        ("n_iter", "EM iterations", None), ("seeding_share", "seeding share", ".1%"),
        ("fit_ratio", "fit / fit at the C before", ".2f"),
        ("seeding_exponent", "seeding growth exponent", ".2f"),
    ]
    if args.compare:
        columns.append(("same_means", "same centers as the other build", None))
    notes = [
        f"vcgmm.fit_vcgmm(X, C, random_state={args.seed}, n_threads={args.threads}) with the "
        f"library's defaults on {args.dataset} ({args.dtype}), one fresh process per fit; the "
        "phases are the fit's own timings, 'fit' their sum.",
        "seeding growth exponent = log(t2 / t1) / log(C2 / C1) between this C and the one "
        "before: 2 for a seeding quadratic in C, 1 for linear.",
    ]
    if args.compare:
        notes.append(f"'this' = the vcgmm on this process's path; 'compared' = the one on "
                     f"{args.compare}, the two taking turns per C.")
    _harness.write_results(args.name, columns, rows,
                           title=f"vc-GMM at very many clusters ({args.dataset})",
                           params=dict(vars(args)), notes=notes, info=info,
                           extra={"runs": {b: {str(C): r for C, r in v.items()}
                                           for b, v in runs.items()}})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="patches-all")
    parser.add_argument("--clusters", type=int, nargs="+", default=[4096, 16384, 65536])
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--compare", default=None,
                        help="a PYTHONPATH holding another vcgmm to run the same fits with")
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
