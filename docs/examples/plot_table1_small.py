"""
Table 1 of the vc-GMM paper, small
==================================

The relative quantization error eta and the speedups in time and in distance
evaluations of LWCS and vc-GMM against the k-means++ baseline (D² seeding + Lloyd on
all points), as in Table 1 of Hirschberger, Forster & Lücke, on a small set of image
patches and C = 100. ``vcgmm demo`` prints the full table on all 535,940 patches.
"""

import matplotlib.pyplot as plt

import vcgmm
from vcgmm.datasets import image_patches

X = image_patches(stride=4)
C = 100


def cost(est_timings, est_counts):
    phases = ("coreset", "seeding", "iterations")
    return sum(est_timings[p] for p in phases), sum(est_counts[p] for p in phases)


km = vcgmm.KMeans(C, random_state=0).fit(X)
base_q = km.inertia_
base_t, base_d = cost(km.timings_, km.n_distance_evals_)
rows = [("k-means++", base_q, base_t, base_d)]
for m in (2**11, 2**13):
    lw = vcgmm.KMeans(C, init="afk-mc2", coreset_size=m, random_state=0).fit(X)
    rows.append((f"LWCS N'=2^{m.bit_length() - 1}", lw.inertia_,
                 *cost(lw.timings_, lw.n_distance_evals_)))
    r = vcgmm.fit_vcgmm(X, C, 5, m, random_state=0, return_labels=True)
    rows.append((f"vc-GMM G=5 N'=2^{m.bit_length() - 1}", r.inertia,
                 *cost(r.timings, r.n_distance_evals)))

print(f"{'algorithm':24s} {'eta':>8s} {'speedup time':>13s} {'speedup distances':>18s}")
for name, q, t, d in rows:
    print(f"{name:24s} {100 * (q - base_q) / base_q:7.2f}% {base_t / t:12.1f}x "
          f"{base_d / d:17.1f}x")

fig, ax = plt.subplots(figsize=(6, 3))
names = [r[0] for r in rows]
ax.barh(names, [base_d / r[3] for r in rows], color="tab:blue")
ax.set_xscale("log")
ax.set_xlabel("speedup in distance evaluations vs k-means++")
fig.tight_layout()
plt.show()
