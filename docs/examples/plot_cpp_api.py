"""
The C++ library
===============

vcgmm's core is a C++17 static library with a CMake package. This example installs
it from the repository's sources into a temporary prefix, builds the program
``cpp/examples/kmeans_example.cpp`` against the installed library (the way a
downstream project would, with ``find_package(vcgmm)``), runs it, and plots the
distance evaluations per phase it reports for the two k-means baselines of the
papers (LWCS on a coreset and k-means++ on all points).

It needs CMake, Ninja and a C++ compiler (``pip install cmake ninja``) and the
repository's sources; otherwise it says so and stops. If the environment variable
``VCGMM_CPP_PREFIX`` names a prefix where the library is already installed
(``cmake --install <build> --prefix <prefix>``), the example builds against that
one instead of compiling the library again.
"""

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

try:
    ROOT = Path(__file__).resolve().parents[2]
except NameError:  # run interactively from docs/examples
    ROOT = Path.cwd().resolve().parents[1]
tools = all(shutil.which(t) for t in ("cmake", "ninja")) and (shutil.which("c++") or shutil.which("g++"))
if not (tools and (ROOT / "cpp" / "examples" / "kmeans_example.cpp").exists()):
    print("This example needs CMake, Ninja, a C++ compiler and the repository's sources.")
    raise SystemExit(0)

work = Path(tempfile.mkdtemp(prefix="vcgmm-cpp-"))
prefix = os.environ.get("VCGMM_CPP_PREFIX")
steps = []
if not prefix:  # build and install the library first
    prefix = str(work / "prefix")
    steps += [
        ["cmake", "-S", str(ROOT), "-B", str(work / "build"), "-G", "Ninja",
         "-DVCGMM_BUILD_TESTS=OFF", "-DVCGMM_BUILD_PYTHON=OFF", "-DVCGMM_INSTALL=ON"],
        ["cmake", "--build", str(work / "build")],
        ["cmake", "--install", str(work / "build"), "--prefix", prefix],
    ]
steps += [
    ["cmake", "-S", str(ROOT / "cpp" / "examples"), "-B", str(work / "example"), "-G", "Ninja",
     f"-DCMAKE_PREFIX_PATH={prefix}"],
    ["cmake", "--build", str(work / "example")],
]
for cmd in steps:
    subprocess.run(cmd, check=True, capture_output=True)
output = subprocess.run([str(work / "example" / "kmeans_example")], check=True,
                        capture_output=True, text=True).stdout
shutil.rmtree(work, ignore_errors=True)
print(output)

# The program prints, per baseline, a table "phase distances seconds".
runs = {}
for block in re.split(r"\n(?=\S)", output):
    title = block.split(":")[0]
    phases = dict(re.findall(r"^\s+(coreset|seeding|iterations)\s+(\d+)", block, re.M))
    if phases:
        runs[title] = {k: int(v) for k, v in phases.items()}

fig, ax = plt.subplots(figsize=(6, 2.5))
left = [0] * len(runs)
for phase in ("coreset", "seeding", "iterations"):
    values = [runs[name][phase] for name in runs]
    ax.barh(list(runs), values, left=left, label=phase)
    left = [a + b for a, b in zip(left, values)]
ax.set_xlabel("distance evaluations")
ax.legend()
fig.tight_layout()
plt.show()
