#!/usr/bin/env bash
# Configures (first time) and builds attn in ./build (or $ATTN_BUILD_DIR)
# against Debian's LLVM/MLIR 22, linked statically.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_BUILD_DIR:-$root/build}
llvm=${LLVM_PREFIX:-/usr/lib/llvm-22}

if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm/bin/lit" \
    "$@"
fi
start=$(date +%s)
# Two jobs per core fit in memory here; MLIR translation units are large.
cmake --build "$build" -- -j"$(nproc)"
echo "build: done in $(( $(date +%s) - start )) s ($build)"
