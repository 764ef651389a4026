#!/usr/bin/env bash
# Device call 2: forward A/B of main (build-base) and the patched build.
set -u
cd "$(dirname "$0")/../.."
export ATTN_CACHE_DIR=/tmp/attn-cache
S=bench/shapes
ROUNDS=2 timeout 540 bench/ab.sh build-base build $S/hd64-s1024.mlir $S/hd128-s512.mlir $S/hd128-s1024-causal.mlir \
  $S/hd64-s4096.mlir $S/hd128-s4096.mlir $S/hd256-s512-causal.mlir $S/hd64-s1024-causal.mlir \
  $S/hd128-s4096-causal.mlir $S/hd256-s512.mlir 2>&1 | tee $OUT/ab.log
