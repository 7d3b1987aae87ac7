"""
Error against time: vc-GMM, LWCS and k-means++
==============================================

The papers' Figure 1 in miniature: the quantization error of all points against the
algorithm's time, for k-means++ (D² seeding + Lloyd on all points), LWCS (Lloyd on a
lightweight coreset of N' weighted points) and vc-GMM (truncated variational EM on
the same coreset) at several coreset sizes, on image patches.
"""

import matplotlib.pyplot as plt
import numpy as np

import vcgmm
from vcgmm.datasets import image_patches

X = image_patches(stride=4)  # 33,708 patches of 6x6 RGB pixels, 108 values each
C = 100


def algorithm_seconds(timings):
    return timings["coreset"] + timings["seeding"] + timings["iterations"]


km = vcgmm.KMeans(C, random_state=0).fit(X)
base_q, base_t = km.inertia_, algorithm_seconds(km.timings_)

sizes = [2**10, 2**11, 2**12, 2**13]
curves = {"LWCS": [], "vc-GMM (G=5)": []}
for m in sizes:
    lw = vcgmm.KMeans(C, init="afk-mc2", coreset_size=m, random_state=0).fit(X)
    curves["LWCS"].append((algorithm_seconds(lw.timings_), lw.inertia_))
    r = vcgmm.fit_vcgmm(X, C, 5, m, random_state=0, return_labels=True)
    curves["vc-GMM (G=5)"].append((algorithm_seconds(r.timings), r.inertia))

fig, ax = plt.subplots(figsize=(6, 4))
for name, points in curves.items():
    t, q = np.array(points).T
    ax.plot(t, 100 * (q - base_q) / base_q, "o-", label=name)
    for ti, qi, m in zip(t, q, sizes):
        ax.annotate(f"N'=2^{int(np.log2(m))}", (ti, 100 * (qi - base_q) / base_q),
                    fontsize=7, xytext=(3, 3), textcoords="offset points")
ax.axhline(0.0, color="k", lw=0.8)
ax.plot([base_t], [0.0], "ks", label="k-means++")
ax.set_xscale("log")
ax.set_xlabel("algorithm time [s] (coreset + seeding + iterations)")
ax.set_ylabel("quantization error vs k-means++ [%]")
ax.set_title(f"image patches, N = {X.shape[0]:,}, C = {C}")
ax.legend()
fig.tight_layout()
plt.show()
