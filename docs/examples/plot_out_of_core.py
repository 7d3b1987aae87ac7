"""
Data larger than memory: fitting a memory-mapped file
=====================================================

vc-GMM touches the full data only in the coreset's two passes (and in the optional
final labelling, ``return_labels=True``); its iterations run on N' coreset points. So a ``.npy`` file opened with ``mmap_mode="r"`` is clustered
without ever being loaded: vcgmm reads a C-contiguous float32/float64 memmap in
place (no copy), and the operating system pages the file in and out as needed.

This example writes image patches to a file, fits the memory-mapped file, and
measures what the process holds in memory: *anonymous* memory (what must fit in
RAM: the coreset, the model, scratch) against *file-backed* pages (the page cache of
the mapped file, which the kernel drops under memory pressure).
"""

import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np

import vcgmm
from vcgmm.datasets import image_patches


def resident_kib():
    """(anonymous, file-backed) resident memory of this process in KiB (Linux)."""
    fields = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(("RssAnon:", "RssFile:")):
                    key, value, _ = line.split()
                    fields[key] = int(value)
    except OSError:  # not Linux: nothing to show
        return 0, 0
    return fields.get("RssAnon:", 0), fields.get("RssFile:", 0)


folder = tempfile.mkdtemp()
path = os.path.join(folder, "patches.npy")
np.save(path, image_patches(stride=2))  # 134,196 x 108 float32, 55 MB on disk
size_mb = os.path.getsize(path) / 2**20

X = np.load(path, mmap_mode="r")  # nothing read yet
anon0, file0 = resident_kib()
r = vcgmm.fit_vcgmm(X, 200, G=5, coreset_size=2**13, random_state=0)
anon1, file1 = resident_kib()
print(f"data on disk: {size_mb:.0f} MB, {X.shape[0]:,} x {X.shape[1]} {X.dtype}")
print(f"anonymous memory grown by {(anon1 - anon0) / 1024:.1f} MB, "
      f"file pages resident {(file1 - file0) / 1024:.1f} MB (page cache, reclaimable)")
print(f"iterations {r.n_iter}, sigma^2 {r.sigma2:.1f}, timings {r.timings}")

# %%
# The full-data quantization error is one more pass over the file (blocked, also
# without a copy):
print(f"quantization error per point: {vcgmm.quantization_error(X, r.centers) / len(X):.1f}")

fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(["data file", "anonymous\n(must fit in RAM)", "file pages\n(reclaimable)"],
       [size_mb, (anon1 - anon0) / 1024, (file1 - file0) / 1024],
       color=["0.6", "C0", "C1"])
ax.set_ylabel("MB")
ax.set_title("fit_vcgmm on a memory-mapped .npy")
fig.tight_layout()
plt.show()

del X
os.remove(path)
os.rmdir(folder)
