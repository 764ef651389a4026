#!/usr/bin/env bash
# Installs what attn needs on a fresh Debian 12 machine: LLVM/MLIR 22 (with
# TableGen, lit, FileCheck), the static libraries they link against, CMake and
# GoogleTest, and for the fuzz target (scripts/fuzz.sh) Debian's clang 14
# with its libFuzzer and sanitizer runtimes (libclang-rt-14-dev). The CUDA
# Toolkit (NVRTC, ptxas) is expected under /usr/local/cuda.
# Safe to run again: packages already present are skipped. Run it as
# yourself: only apt-get runs as root, through sudo when you are not root (a
# fresh root machine, like CI's, has no sudo and needs none).
set -euo pipefail

packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools libzstd-dev
          zlib1g-dev cmake ninja-build libgtest-dev g++ python3 pkg-config
          clang-14 libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  as_root=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo > /dev/null; then
      echo "install-deps: ${missing[*]} are missing and installing them needs root;" \
           "run this as root, or install sudo" >&2
      exit 1
    fi
    as_root=(sudo)
  fi
  # env: sudo would drop an exported DEBIAN_FRONTEND.
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi

if [[ ! -x /usr/local/cuda/bin/nvcc && -z "${CUDA_HOME:-}" ]]; then
  echo "install-deps: warning: no CUDA Toolkit at /usr/local/cuda (set CUDA_HOME);" \
       "NVRTC is needed to compile kernels" >&2
fi
