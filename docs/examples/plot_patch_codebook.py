"""
A codebook of image patches
===========================

Vector quantization of colour image patches: the 6x6 RGB patches of two photographs
are clustered into 64 clusters with vc-GMM; every cluster center is itself a 6x6
patch, shown here as an image (the codebook). A photograph is then rebuilt from the
codebook alone, every patch replaced by its nearest center.
"""

import matplotlib.pyplot as plt
import numpy as np

import vcgmm
from vcgmm.datasets import image_patches, photos

X = image_patches(stride=3)
gmm = vcgmm.VCGMM(64, random_state=0).fit(X)
print(f"{X.shape[0]:,} patches, 64 components, {gmm.n_iter_} EM iterations, "
      f"sigma^2 = {gmm.sigma2_:.1f}")

# Centers sorted by brightness, shown as 6x6 RGB tiles.
order = np.argsort(gmm.cluster_centers_.mean(axis=1))
tiles = gmm.cluster_centers_[order].reshape(-1, 6, 6, 3) / 255.0
fig, axes = plt.subplots(4, 16, figsize=(8, 2.3))
for ax, tile in zip(axes.ravel(), tiles):
    ax.imshow(np.clip(tile, 0, 1), interpolation="nearest")
    ax.axis("off")
fig.suptitle("64 cluster centers of 6x6 colour patches")

# Rebuild a photograph from non-overlapping patches replaced by their center.
name, img = photos()[0]
h, w = (img.shape[0] // 6) * 6, (img.shape[1] // 6) * 6
blocks = img[:h, :w].reshape(h // 6, 6, w // 6, 6, 3).swapaxes(1, 2).reshape(-1, 108)
labels = gmm.predict(blocks.astype(np.float32))
rebuilt = gmm.cluster_centers_[labels].reshape(h // 6, w // 6, 6, 6, 3).swapaxes(1, 2)
rebuilt = rebuilt.reshape(h, w, 3)
fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3))
a.imshow(img[:h, :w])
a.set_title(f"{name}")
b.imshow(np.clip(rebuilt / 255.0, 0, 1))
b.set_title("from 64 codewords")
for ax in (a, b):
    ax.axis("off")
fig.tight_layout()
plt.show()
