#!/usr/bin/env bash
# Device call 3: step 61's A/B in one build (ATTN_EXP2_POLY_EVERY=0 against
# N), both sides alternating, two rounds. ~7 minutes.
set -u
cd "$(dirname "$0")/../../.."
export ATTN_CACHE_DIR=/tmp/attn-cache
S=bench/shapes
for n in 6 4; do
  echo "=== N=$n against none, hd64"
  BEFORE_ENV=ATTN_EXP2_POLY_EVERY=0 AFTER_ENV=ATTN_EXP2_POLY_EVERY=$n ROUNDS=2 timeout 200 bench/ab.sh build build \
    $S/hd64-s1024.mlir $S/hd64-s1024-causal.mlir $S/hd64-s4096.mlir $S/hd64-s4096-causal.mlir 2>&1 | tee -a $OUT/ab-poly.log
done
echo "=== N=8 against none, hd128 and hd256"
BEFORE_ENV=ATTN_EXP2_POLY_EVERY=0 AFTER_ENV=ATTN_EXP2_POLY_EVERY=8 ROUNDS=2 timeout 150 bench/ab.sh build build \
  $S/hd128-s4096.mlir $S/hd128-s1024-causal.mlir $S/hd256-s512-causal.mlir 2>&1 | tee -a $OUT/ab-poly.log
