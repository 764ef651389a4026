#!/usr/bin/env bash
# Device call 1 of the session that measures steps 60, 61 and 62 (after
# `bench/experiments/prepare.sh` here, which applies the three): a deadlock
# check, then 61 and 62's GPU cases against the float64 reference (62's
# rescale threshold is on by default in every sm90ws kernel; call2 has
# 60's). ~7 minutes.
#   carry: build-base build/bin/attn-run build/lib/libattn_c.so.N build/lib/libattn_c.so
set -u
cd "$(dirname "$0")/../../.."
export ATTN_CACHE_DIR=/tmp/attn-cache ATTN_GPU_TEST_TIMEOUT=90
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
G=test/GPU
echo "=== smoke (sm90ws; step 60 changed the producer, 61 and 62 the softmax)"
hung=0
for t in hd128-bf16 hd64-bf16 causal persistent-many-tiles persistent-three-consumers; do
  timeout 60 build/bin/attn-run --check --variant=sm90ws $G/$t.mlir > $OUT/smoke-$t.log 2>&1; s=$?
  echo "smoke $t: exit $s $(grep -E '^check output' $OUT/smoke-$t.log | tr '\n' ' ')"
  [[ $s -eq 124 ]] && hung=1
done
timeout 60 build/bin/attn-run --check --variant=sm90ws $G/serving/paged-hd128-page16.mlir > $OUT/smoke-paged.log 2>&1
s=$?; echo "smoke paged-hd128-page16: exit $s $(grep -E '^check output' $OUT/smoke-paged.log | tr '\n' ' ')"
[[ $s -eq 124 ]] && hung=1
[[ $hung -eq 1 ]] && { echo HUNG; exit 1; }

echo "=== step 61: one exponential in 2 on the FMA pipes (harsher than any default), every sm90ws feature"
CASES61="$G/hd64-bf16.mlir $G/hd64-f16.mlir $G/hd128-bf16.mlir $G/hd256-bf16.mlir $G/causal.mlir
  $G/window.mlir $G/window-causal.mlir $G/window-two-sided.mlir $G/alibi.mlir $G/bias.mlir $G/keep.mlir
  $G/key-padding.mlir $G/lse.mlir $G/softcap.mlir $G/seq1.mlir $G/seq7.mlir $G/persistent-three-consumers.mlir
  $G/persistent-q-buffers.mlir $G/persistent-dynamic.mlir $G/causal-bottom-right-fully-masked.mlir
  $G/decode-gqa-padded.mlir $G/everything.mlir $G/score-mod/captures.mlir $G/serving/packed-decode-masks.mlir
  $G/serving/sinks-causal.mlir $G/serving/batch-invariant.mlir"
ATTN_EXP2_POLY_EVERY=2 timeout 240 scripts/gpu-tests.sh build $CASES61 > $OUT/gpu-tests-poly2.log 2>&1
grep -Ev '^PASS' $OUT/gpu-tests-poly2.log | tail -n 20
echo "poly2 passes: $(grep -c '^PASS' $OUT/gpu-tests-poly2.log) fails: $(grep -c '^FAIL' $OUT/gpu-tests-poly2.log)"
echo "--- hd64 errors: both off, 61 alone (N=6), 62 alone (threshold 8), both (the defaults)"
for vars in "ATTN_EXP2_POLY_EVERY=0 ATTN_RESCALE_THRESHOLD=0" "ATTN_RESCALE_THRESHOLD=0" "ATTN_EXP2_POLY_EVERY=0" ""; do
  for t in hd64-bf16 hd64-f16 causal; do
    echo "[$vars] $t: $(env $vars timeout 60 build/bin/attn-run --check --variant=sm90ws $G/$t.mlir 2>&1 | grep -E '^check output' | tr '\n' ' ')"
  done
done
grep -E "hd64-bf16|hd64-f16|^PASS  causal " $OUT/gpu-tests-poly2.log | head -n 6

echo "=== step 62: moves of the base against a non-zero O, mixed in a warp"
echo "main: $(timeout 60 build-base/bin/attn-run --check --variant=sm90ws $G/score-mod/rising-max.mlir 2>&1 | grep -E '^check output' | tr '\n' ' ')"
timeout 120 scripts/gpu-tests.sh build $G/score-mod/rising-max.mlir 2>&1 | tee $OUT/gpu-tests-rising.log
# Threshold 1: the base moves often, and rows of one warp disagree.
ATTN_RESCALE_THRESHOLD=1 timeout 150 scripts/gpu-tests.sh build $G/hd64-bf16.mlir $G/hd128-bf16.mlir \
  $G/causal.mlir $G/lse.mlir $G/softcap.mlir $G/split-kv.mlir $G/serving/sinks-causal.mlir \
  $G/persistent-three-consumers.mlir > $OUT/gpu-tests-threshold1.log 2>&1
grep -Ev '^PASS' $OUT/gpu-tests-threshold1.log | tail -n 10
echo "threshold1 passes: $(grep -c '^PASS' $OUT/gpu-tests-threshold1.log) fails: $(grep -c '^FAIL' $OUT/gpu-tests-threshold1.log)"
