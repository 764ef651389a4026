#!/usr/bin/env bash
# Device call 3: steps 61 and 62's A/B in one build (prepare.sh 60 61 62):
# each switch off against on, both sides alternating, two rounds.
# ~8 minutes.
set -u
cd "$(dirname "$0")/../../.."
export ATTN_CACHE_DIR=/tmp/attn-cache
S=bench/shapes
HD64="$S/hd64-s1024.mlir $S/hd64-s1024-causal.mlir $S/hd64-s4096.mlir $S/hd64-s4096-causal.mlir"
OTHER="$S/hd128-s4096.mlir $S/hd128-s1024-causal.mlir $S/hd256-s512-causal.mlir"
echo "=== both off against both on (the defaults: N=6 at hd64, threshold 8)"
BEFORE_ENV="ATTN_EXP2_POLY_EVERY=0 ATTN_RESCALE_THRESHOLD=0" ROUNDS=2 timeout 250 bench/ab.sh build build \
  $HD64 $OTHER 2>&1 | tee -a $OUT/ab-61-62.log
echo "=== step 61 alone at hd64: N=6 and N=4 against none (threshold off on both sides)"
for n in 6 4; do
  BEFORE_ENV="ATTN_EXP2_POLY_EVERY=0 ATTN_RESCALE_THRESHOLD=0" AFTER_ENV="ATTN_EXP2_POLY_EVERY=$n ATTN_RESCALE_THRESHOLD=0" \
    ROUNDS=2 timeout 60 bench/ab.sh build build $S/hd64-s1024.mlir 2>&1 | tee -a $OUT/ab-61.log
done
echo "=== step 62 alone: threshold 8 against 0 (no polynomial on both sides)"
BEFORE_ENV="ATTN_EXP2_POLY_EVERY=0 ATTN_RESCALE_THRESHOLD=0" AFTER_ENV="ATTN_EXP2_POLY_EVERY=0" \
  ROUNDS=2 timeout 120 bench/ab.sh build build $S/hd64-s1024.mlir $S/hd128-s4096.mlir 2>&1 | tee -a $OUT/ab-62.log
