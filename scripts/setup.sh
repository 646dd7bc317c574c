#!/usr/bin/env bash
# Installs every Debian package p2psim needs, then configures and builds it into ./build.
# Used by both README commands and by CI. Safe to rerun: an up-to-date build does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  # toolchain
  g++ cmake ninja-build pkgconf ccache
  # simulator core
  libsimgrid-dev libeigen3-dev libfmt-dev libboost-program-options-dev libpugixml-dev nlohmann-json3-dev
  libfccp-dev libxxhash-dev zlib1g-dev
  # kernels: Debian's libtorch falls back to reference BLAS unless OpenBLAS is installed explicitly
  libtorch-dev libopenblas0-openmp
  # figures, reports and notebooks (run with /usr/bin/python3)
  python3-matplotlib python3-pandas python3-pil jupyter-nbconvert python3-ipykernel
  # the Python module (python/: pybind11 over the core)
  pybind11-dev python3-dev
  # the report's browser test (headless)
  chromium
  # tests (slurm-wlm and munge: the job-array test's single-node cluster)
  doctest-dev dataset-fashion-mnist slurm-wlm munge
)
if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

# ccache hits across clones in different folders (CI clones afresh).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DP2PSIM_WERROR=ON >/dev/null
cmake --build build -j2
