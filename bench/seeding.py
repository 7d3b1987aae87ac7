"""AFK-MC^2 seeding time with and without the subspace screen.

AFK-MC^2 costs O(m C^2 D): at C = 4000 on a coreset of image patches it is
half of vc-GMM's time (the part LWCS and vc-GMM share). From 64 centers on,
the seeding takes its candidates' nearest-center distances from the
principal-subspace screen (bounds from a few leading axes, only centers the
bounds cannot rule out measured in full): the same distances, so the same
centers. This runs both on the same coreset, taking turns, checks that they
choose the same rows, and reports the ratio.

Per data set: an LWCS coreset of N' rows (as ``fit_vcgmm`` draws it, seed 0),
then ``vcgmm.afkmc2`` on it (coreset weights, chain length m = 20, seed 1),
with ``screen_dims=0`` (the blocked matrix-product pass for every center, the
code before the screen) and ``screen_dims=-1`` (the default: the automatic
choice of axes).

Run from the repository root::

    python -m bench.seeding
    python -m bench.seeding --datasets patches-sklearn --clusters 1000 4000
"""

from __future__ import annotations

import argparse

import numpy as np

from bench import _harness
from bench.datasets import load

NAME = "seeding"


def seed_call(core, X, w, C, chain_length, screen_dims, n_threads):
    """The seeding as ``vcgmm.afkmc2`` runs it, with the screen set."""
    from vcgmm._base.run import run_options

    params = core.Afkmc2Params()
    params.chain_length = chain_length
    params.screen_dims = screen_dims
    return lambda: core.afkmc2(X, w, C, params, run_options(n_threads, 1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["patches-sklearn", "fashion-mnist"])
    parser.add_argument("--coreset-size", type=int, default=2 ** 16)
    parser.add_argument("--clusters", type=int, nargs="+", default=[1000, 4000, 16384])
    parser.add_argument("--chain-length", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=_harness.DEFAULT_THREADS)
    parser.add_argument("--name", default=NAME)
    args = parser.parse_args(argv)

    import vcgmm
    from vcgmm import _core

    info = _harness.machine_info()
    rows = []
    with _harness.thread_limits(args.threads):
        for dataset in args.datasets:
            X = load(dataset, dtype=np.float32)
            n_prime = min(args.coreset_size, X.shape[0])
            idx, w = vcgmm.lwcs(X, n_prime, random_state=0, n_threads=args.threads)
            Y = np.ascontiguousarray(X[idx])
            w = np.ascontiguousarray(w, dtype=np.float64)
            for C in args.clusters:
                if C > n_prime:
                    continue
                fns = {"blocked": seed_call(_core, Y, w, C, args.chain_length, 0, args.threads),
                       "screened": seed_call(_core, Y, w, C, args.chain_length, -1, args.threads)}
                same = np.array_equal(fns["blocked"]()[1], fns["screened"]()[1])
                t = _harness.timeit_interleaved(fns, repeats=args.repeats, warmup=0)
                row = {"dataset": dataset, "N_prime": n_prime, "D": Y.shape[1], "C": C,
                       "blocked_s": t["blocked"]["median"], "screened_s": t["screened"]["median"],
                       "speedup": t["blocked"]["median"] / t["screened"]["median"],
                       "same_centers": "yes" if same else "NO",
                       "blocked_all_s": t["blocked"]["all"], "screened_all_s": t["screened"]["all"]}
                rows.append(row)
                print(f"{dataset} C={C:>6}: blocked {row['blocked_s']:.3f} s, screened "
                      f"{row['screened_s']:.3f} s ({row['speedup']:.2f}x), same centers: "
                      f"{row['same_centers']}", flush=True)
    columns = [("dataset", "data set", "s"), ("N_prime", "N'", "d"), ("D", "D", "d"),
               ("C", "C", "d"), ("blocked_s", "blocked pass [s]", ".3f"),
               ("screened_s", "screened [s]", ".3f"), ("speedup", "speedup", ".2f"),
               ("same_centers", "same centers", "s")]
    _harness.write_results(
        args.name, columns, rows,
        title=f"AFK-MC^2 seeding with and without the subspace screen (m = "
              f"{args.chain_length}, float32, {args.threads} threads)",
        params=vars(args), info=info,
        notes=[f"Median of {args.repeats} calls each, the two taking turns; LWCS coreset of N' "
               "rows (seed 0) with its weights; seeding seed 1.",
               "blocked pass = screen_dims=0 (every candidate against every center by the "
               "blocked matrix-product pass, the seeding before the screen); screened = the "
               "default screen_dims=-1.",
               "same centers: the two chose the same rows (they must: the screen changes "
               "which coordinates are read, not the distances)."])


if __name__ == "__main__":
    main()
