#!/usr/bin/env bash
# Installs Switchyard's build and test dependencies from Debian 12's
# packages. Idempotent: does nothing when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  ccache                  # CI's compiler cache (scripts/test.sh)
  libabsl-dev libboost-dev libboost-filesystem-dev nlohmann-json3-dev
  libssl-dev libcli11-dev libdlpack-dev libsqlite3-dev
  libelf-dev              # switchyard-conformance reads a plugin's exports
  libgtest-dev libgmock-dev libbenchmark-dev
  libdnnl-dev             # the onednn plugin (skipped cleanly when absent)
  libgloo-dev             # the cpu plugin's collectives (docs/distributed.md)
  libvulkan-dev glslc     # the vulkan plugin: headers and the shader compiler
  libshaderc-dev          # the vulkan plugin's fused kernels: shaderc at run time (linked statically)
  libvulkan1 mesa-vulkan-drivers  # its loader and lavapipe, the CPU device CI tests on
  libtorch-dev            # only for side-by-side benchmarks (tools/bench)
  rustc cargo             # the Rust crate (api/rust), built offline
  clang libclang-rt-14-dev  # libFuzzer targets
  python3 python3-numpy python3-pytest
  python3-dev             # the Python package's compiled half, switchyard._C
  python3-venv python3-setuptools python3-wheel python3-pip  # the wheel (scripts/build-wheel.sh)
  pybind11-dev            # only for the binding-cost probe (tools/bench/python)
)
# The rocm plugin's compiler and HIP headers (ROCm 5.2; its runtime is
# dlopened, never linked). Debian ships ROCm for amd64 only; elsewhere the
# plugin skips itself. About 66 MB of packages, ~1.5 min of CI build
# (docs/rocm.md#building). SWITCHYARD_ROCM_DEPS=0 leaves them out.
if [[ $(dpkg --print-architecture) == amd64 && ${SWITCHYARD_ROCM_DEPS:-1} != 0 ]]; then
  packages+=(hipcc libamdhip64-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "Installing: ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
