#!/usr/bin/env bash
# The many-core check of vc-GMM: builds vcgmm from this checkout into a
# private folder and times the same fits on 1, 2, 4, 8 and 16 threads
# (bench/vcgmm_threads.py: every phase, bit-identical centers; then
# bench/em_threads.py: one E-step and one M-step). About 3-4 minutes on 16
# cores. Needs python3 with numpy, scikit-learn, pillow (scikit-learn's sample
# images), threadpoolctl, pybind11 and scikit-build-core.
#
#   bash bench/many_cores.sh [THREADS...]     # default: 2 4 8 16
#
# Results: bench/results/vcgmm_threads/many_cores.md and
# bench/results/em_threads/many_cores.md.
set -euo pipefail
cd "$(dirname "$0")/.."
threads=("${@:-2 4 8 16}")
build=$(mktemp -d)
start=$(date +%s)
CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) python3 -m pip install --no-build-isolation --no-deps \
  --target "$build" . -q
echo "built in $(( $(date +%s) - start )) s into $build"
export PYTHONPATH="$build:$PWD"
# shellcheck disable=SC2068
python3 -m bench.vcgmm_threads --clusters 1000 4000 --coreset 16 --threads ${threads[@]} \
  --repeats 2 --name many_cores
# shellcheck disable=SC2068
python3 -m bench.em_threads --threads ${threads[@]} --name many_cores
echo "done in $(( $(date +%s) - start )) s"
