"""Time the same vcgmm calls in two Python environments, alternating.

For a change that must not slow anything down (a refactor), install the old
version in one virtual environment and the new one in another, then

  python -m bench.compare_installs --old /tmp/venv-base/bin/python \
      --new python --rounds 3

Each round runs every case once in the old and once in the new environment
(fresh subprocesses, order alternating between rounds so drift in the
machine's load hits both alike) and records the median of `--repeats` timed
calls inside each subprocess. Reported: per case the median over rounds of
old and new time and their ratio new/old (below 1: faster). Cases:

- lloyd: one Lloyd iteration, ``vcgmm.lloyd(X, centers, max_iter=1)`` (the
  Lloyd-iteration benchmark's call), float32 and float64, C = 1000 and 4000;
- table1: the algorithm time (coreset + seeding + iterations, from the
  results' per-phase timings) of the Table 1 rows at C = 1000: k-means++,
  LWCS (N' = 2^16), vc-GMM (G = 5, N' = 2^14 and 2^16), var-GMM-S (G = 5),
  with the papers' stopping rule for vc-GMM in both environments;
- with ``--vcgmm C:N' ...`` (e.g. ``--vcgmm 2000:16384 4000:65536``), for
  each: ``vcgmm:C:N'``, the algorithm time (refinement included) of
  ``fit_vcgmm(X, C, coreset_size=N')`` with the library's defaults, and
  ``vcgmm-iteration:C:N'``, that fit's EM time per iteration, each the median
  of ``--repeats`` fits with seeds 0, 1, ... (the same seeds in both
  environments), and ``lwcs:C:N'``, LWCS's algorithm time with the same seeds.

The data are the built-in image patches (535,940 x 108). Results go to
bench/results/compare_installs/<name>.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "compare_installs"

# Runs inside each environment: prints {case: seconds} as JSON. It uses only
# calls whose meaning is the same before and after the architecture refactor.
_CHILD = textwrap.dedent(r'''
import json, sys, time, inspect
import numpy as np
import vcgmm
from vcgmm.datasets import image_patches
cases, repeats, threads = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
X64 = image_patches().astype(np.float64)
X32 = X64.astype(np.float32)
new_api = "stop_rule" in inspect.signature(vcgmm.VCGMM).parameters
papers_stop = {"stop_rule": "relative", "tol": 1e-4} if new_api else {"tol": 1e-4}

def algo_seconds(timings):
    return (timings["coreset"] + timings["seeding"] + timings["iterations"]
            + timings.get("refinement", 0.0))

_fits = {}

def fit_seconds(kind, C, m, seed):
    key = (kind, C, m, seed)
    if key not in _fits:
        if kind == "lwcs":
            km = vcgmm.KMeans(C, init="afk-mc2", coreset_size=m, random_state=seed,
                              n_threads=threads).fit(X32)
            _fits[key] = (algo_seconds(km.timings_), None)
        else:
            r = vcgmm.fit_vcgmm(X32, C, coreset_size=m, random_state=seed, n_threads=threads)
            _fits[key] = (algo_seconds(r.timings), r.timings["iterations"] / r.n_iter)
    return _fits[key]

def run(case, repeat=0):
    kind, *rest = case.split(":")
    if kind in ("vcgmm", "vcgmm-iteration", "lwcs"):
        C, m = int(rest[0]), int(rest[1])
        total, per_iteration = fit_seconds("lwcs" if kind == "lwcs" else "vcgmm", C, m, repeat)
        return per_iteration if kind == "vcgmm-iteration" else total
    if kind == "lloyd":
        dtype, C = rest[0], int(rest[1])
        X = X32 if dtype == "float32" else X64
        init = X[np.random.default_rng(0).choice(X.shape[0], C, replace=False)]
        t = time.perf_counter(); vcgmm.lloyd(X, init, max_iter=1, n_threads=threads)
        return time.perf_counter() - t
    C = 1000
    if rest[0] == "kmeans++":
        return algo_seconds(vcgmm.KMeans(C, random_state=0, n_threads=threads).fit(X32).timings_)
    if rest[0] == "lwcs":
        km = vcgmm.KMeans(C, init="afk-mc2", coreset_size=2**16, random_state=0,
                          n_threads=threads).fit(X32)
        return algo_seconds(km.timings_)
    m = None if rest[0] == "vargmm" else int(rest[1])
    g = vcgmm.VCGMM(C, G=5, coreset_size=m, random_state=0, n_threads=threads,
                    **papers_stop).fit(X32)
    return algo_seconds(g.timings_)

out = {}
for case in cases:
    times = [run(case, r) for r in range(repeats)]
    out[case] = float(np.median(times))
print(json.dumps(out))
''')

LLOYD_CASES = [f"lloyd:{dt}:{C}" for dt in ("float32", "float64") for C in (1000, 4000)]
TABLE1_CASES = ["table1:kmeans++", "table1:lwcs", "table1:vcgmm:16384", "table1:vcgmm:65536",
                "table1:vargmm"]


def measure(python, cases, repeats, threads):
    out = subprocess.run([python, "-c", _CHILD, json.dumps(cases), str(repeats), str(threads)],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", required=True, help="python of the old environment")
    parser.add_argument("--new", default=sys.executable, help="python of the new environment")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per case (lloyd; --vcgmm: fits, seeds 0, 1, ...)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-table1", action="store_true")
    parser.add_argument("--skip-lloyd", action="store_true")
    parser.add_argument("--vcgmm", nargs="*", default=[], metavar="C:N'",
                        help="vc-GMM (library defaults) and LWCS fits to time")
    parser.add_argument("--name", default="compare_installs")
    parser.add_argument("--note", default="", help="a line saying what old and new are")
    args = parser.parse_args(argv)

    groups = [] if args.skip_lloyd else [(LLOYD_CASES, args.repeats)]
    if not args.skip_table1:
        groups.append((TABLE1_CASES, 1))
    if args.vcgmm:
        groups.append(([f"{kind}:{spec}" for spec in args.vcgmm
                        for kind in ("vcgmm", "vcgmm-iteration", "lwcs")], args.repeats))
    samples = {"old": [], "new": []}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for which in order:
            python = args.old if which == "old" else args.new
            merged = {}
            for cases, repeats in groups:
                merged.update(measure(python, cases, repeats, args.threads))
            samples[which].append(merged)
            print(f"round {r + 1} {which}: " + ", ".join(f"{k} {v:.4g}" for k, v in merged.items()),
                  flush=True)
    cases = list(samples["old"][0])
    rows = []
    for case in cases:
        old = float(np.median([s[case] for s in samples["old"]]))
        new = float(np.median([s[case] for s in samples["new"]]))
        rows.append({"case": case, "old_s": old, "new_s": new, "ratio_new_old": new / old})
    write_results(args, rows, samples)


def write_results(args, rows, samples):
    """bench/results/compare_installs/<name>.md (the table of medians) and .json (with every
    sample)."""
    flags = "".join(f" --{flag.replace('_', '-')}" for flag in ("skip_lloyd", "skip_table1")
                    if getattr(args, flag))
    if args.vcgmm:
        flags += " --vcgmm " + " ".join(args.vcgmm)
    lines = [f"# {args.name}", "", f"`python -m bench.compare_installs --old {args.old} "
             f"--new {args.new} --rounds {args.rounds} --repeats {args.repeats} "
             f"--threads {args.threads}{flags}`", ""] + ([args.note, ""] if args.note else []) + [
             "| case | old [s] | new [s] | new / old |", "|---|---|---|---|"]
    lines += [f"| {r['case']} | {r['old_s']:.4g} | {r['new_s']:.4g} | {r['ratio_new_old']:.3f} |"
              for r in rows]
    by_case = {r["case"]: r for r in rows}
    specs = [spec for spec in args.vcgmm if f"vcgmm:{spec}" in by_case]
    if specs:
        lines += ["", "vc-GMM (library defaults) vs LWCS, same seeds: LWCS time / vc-GMM time.", "",
                  "| C:N' | old | new |", "|---|---|---|"]
        for spec in specs:
            v, lw = by_case[f"vcgmm:{spec}"], by_case[f"lwcs:{spec}"]
            lines.append(f"| {spec} | {lw['old_s'] / v['old_s']:.2f}x | "
                         f"{lw['new_s'] / v['new_s']:.2f}x |")
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.name}.md").write_text(text)
    (RESULTS / f"{args.name}.json").write_text(json.dumps({"rows": rows, "samples": samples},
                                                          indent=1))


if __name__ == "__main__":
    main()
