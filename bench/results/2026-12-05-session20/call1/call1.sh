#!/usr/bin/env bash
# Device call 1: the defect on main, smoke, the patched GPU cases.
set -u
cd "$(dirname "$0")/../.."
export ATTN_CACHE_DIR=/tmp/attn-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
echo "=== base NaN check (expect FAIL)"
timeout 120 build-base/bin/attn-run --check --poison-padding --variant=sm90ws test/GPU/decode-gqa-padded.mlir 2>&1 | tail -n 6
echo "=== patched NaN check (expect PASS)"
timeout 120 build/bin/attn-run --check --poison-padding --variant=sm90ws test/GPU/decode-gqa-padded.mlir 2>&1 | tail -n 6
echo "=== smoke"
hung=0
for t in hd128-bf16 causal persistent-many-tiles persistent-q-buffers persistent-padded-poison; do
  timeout 60 build/bin/attn-run --check --variant=sm90ws test/GPU/$t.mlir > $OUT/smoke-$t.log 2>&1; s=$?
  echo "smoke $t: exit $s $(grep -E '^check output' $OUT/smoke-$t.log | tr '\n' ' ')"
  [[ $s -eq 124 ]] && hung=1
done
[[ $hung -eq 1 ]] && { echo HUNG; exit 1; }
echo "=== gpu-tests"
G=test/GPU
ATTN_GPU_TEST_TIMEOUT=90 timeout 330 scripts/gpu-tests.sh build $G/decode-gqa-padded.mlir $G/key-padding.mlir \
  $G/persistent-padded-poison.mlir $G/serving/packed-decode-16.mlir $G/serving/cache-seqlens-bottom-right.mlir \
  $G/persistent-*.mlir $G/split-kv.mlir $G/seq1.mlir $G/causal-bottom-right-fully-masked.mlir \
  $G/backward/hd128-keep-bias-padded.mlir $G/backward/hd128-causal-gqa.mlir $G/decode-hd256.mlir \
  $G/serving/paged-hd128-page16.mlir 2>&1 | tee $OUT/gpu-tests.log | grep -Ev '^PASS' | tail -n 40
echo "passes: $(grep -c '^PASS' $OUT/gpu-tests.log)"
