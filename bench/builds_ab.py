"""The frontier's random-seed vc-GMM fits in two builds of the package, alternating.

For a change to vc-GMM's data steps (whose fits differ only in time, or in
time and a little error), the same fits as the frontier's ``vcgmm-1C-*``
points, ``VCGMM(C, coreset_size=C, init="random", max_iter=3,
data_steps=k, refine=0, compute_labels=False)``, run in two builds: each
case once with the old package and once with the new one, in fresh
subprocesses (the first of the pair alternating between cases and repeats,
so that a drift in the machine's load hits both alike), after one untimed
warm-up fit on small data in the same process. Reported per case: both
median fit times over ``--repeats`` runs (wall, ``time.perf_counter``
around ``fit``), their ratio, and both exact errors
per point (``vcgmm.quantization_error`` of the means over all rows, after
the timing). Each data set is loaded once (``bench.eval_warm``'s loader;
blobs2m as the frontier generates it) and saved for the children to read.

The old build is a directory holding a ``vcgmm`` package with its compiled
module (e.g. a git worktree of the old commit, built as the developers'
guide builds ``python/``), put first on the child's ``PYTHONPATH``.

Run from the repository root::

    python -m bench.builds_ab --old /tmp/wt_before/python \\
        --cases blobs2m:16384:1 blobs2m:16384:2 patches-all:16384:2 --name NAME
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

from bench import _harness

NAME = "builds_ab"
ROOT = Path(__file__).resolve().parent.parent

_CHILD = textwrap.dedent(r'''
import json, sys, time
import numpy as np
import vcgmm
path, C, k, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with_error = sys.argv[5] == "1"
X = np.load(path)
def model():
    return vcgmm.VCGMM(C, coreset_size=C, init="random", max_iter=3, data_steps=k, refine=0,
                       compute_labels=False, random_state=seed, n_threads=2)
warm = np.random.default_rng(0).standard_normal((2000, 8)).astype(np.float32)
vcgmm.VCGMM(10, n_threads=2, random_state=0).fit(warm)
m = model()
start = time.perf_counter()
m.fit(X)
seconds = time.perf_counter() - start
error = vcgmm.quantization_error(X, m.means_, n_threads=2) / X.shape[0] if with_error else None
print(json.dumps({"seconds": seconds, "error": error, "module": vcgmm.__file__}))
''')


def _fit(package, data_path, case, seed, with_error):
    _, C, k = case.split(":")
    env = dict(os.environ, PYTHONPATH=str(package), OMP_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", _CHILD, str(data_path), C, k, str(seed),
                          "1" if with_error else "0"], env=env,
                         cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(args, tmp):
    from bench.eval_warm import _data

    info = _harness.machine_info()
    paths = {}
    for case in args.cases:  # each data set once, read by every child
        name = case.split(":")[0]
        if name not in paths:
            paths[name] = Path(tmp) / f"{name}.npy"
            np.save(paths[name], _data(name))
    rows = []
    for i, case in enumerate(args.cases):
        got = {"old": [], "new": []}
        for r in range(args.repeats):
            order = [("old", args.old), ("new", args.new)]
            if (i + r) % 2:
                order.reverse()
            for which, package in order:
                got[which].append(_fit(package, paths[case.split(":")[0]], case, args.seed,
                                       with_error=r == 0))
                print(f"[{case}] {which}: {got[which][-1]['seconds']:.2f} s"
                      + (f", error {got[which][0]['error']:.6g}" if r == 0 else ""),
                      file=sys.stderr, flush=True)
        name, C, k = case.split(":")
        old_s = [g["seconds"] for g in got["old"]]
        new_s = [g["seconds"] for g in got["new"]]
        rows.append({"data": name, "C": int(C), "data_steps": int(k),
                     "old_s": float(np.median(old_s)), "new_s": float(np.median(new_s)),
                     "ratio": float(np.median(new_s) / np.median(old_s)),
                     "old_all": old_s, "new_all": new_s,
                     "old_error": got["old"][0]["error"], "new_error": got["new"][0]["error"],
                     "old_module": got["old"][0]["module"],
                     "new_module": got["new"][0]["module"]})
    columns = [("data", "data", None), ("C", "C", None), ("data_steps", "data_steps", None),
               ("old_s", "old fit [s]", ".2f"), ("new_s", "new fit [s]", ".2f"),
               ("ratio", "new / old", ".2f"),
               ("old_error", "old error/point", ".7g"), ("new_error", "new error/point", ".7g")]
    notes = [
        f"old: the package in {args.old}; new: the package in {args.new}.",
        "Each fit: VCGMM(C, coreset_size=C, init='random', max_iter=3, data_steps=k, "
        f"refine=0, compute_labels=False, random_state={args.seed}, n_threads=2) in a fresh "
        f"subprocess after one untimed warm-up fit; {args.repeats} run(s) per build and case, "
        "the builds taking turns (which runs first alternates); fit [s] = the median "
        "(every run's time in the .json).",
        "error/point: vcgmm.quantization_error(X, means_) / N, exact, after the timing of "
        "each build's first run (the fits are deterministic).",
    ]
    _harness.write_results(args.name, columns, rows,
                           title="vc-GMM's random-seed fits in two builds, alternating",
                           params=dict(vars(args)), notes=notes, info=info)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="directory holding the old vcgmm package")
    parser.add_argument("--new", default=str(ROOT / "python"),
                        help="directory holding the new vcgmm package (default: python/)")
    parser.add_argument("--cases", nargs="+", required=True,
                        help="data:C:data_steps, e.g. blobs2m:16384:2")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1,
                        help="timed fits per build and case (the median is reported)")
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        run(args, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
