#!/usr/bin/env bash
# Device call 3: steps 58 and 57 (the build that lands): GPU cases, python, sanitizers.
set -u
cd "$(dirname "$0")/../.."
export ATTN_CACHE_DIR=/tmp/attn-cache ATTN_LIBRARY=$PWD/build/lib/libattn_c.so.3 PYTHONPATH=$PWD/python
G=test/GPU
echo "=== gpu-tests"
ATTN_GPU_TEST_TIMEOUT=90 timeout 200 scripts/gpu-tests.sh build $G/decode-gqa-padded.mlir $G/key-padding.mlir \
  $G/persistent-padded-poison.mlir $G/serving/packed-decode-16.mlir $G/serving/cache-seqlens-bottom-right.mlir \
  $G/split-kv.mlir $G/backward/hd128-causal-gqa.mlir $G/backward/hd128-keep-bias-padded.mlir \
  $G/persistent-q-buffers.mlir $G/persistent-many-tiles.mlir 2>&1 | tee $OUT/gpu-tests.log | grep -Ev '^PASS' | tail -n 30
echo "=== python"
ATTN_LOG=1 timeout 150 python3 -m pytest -q -x python/tests/test_serving.py 2>&1 | tail -n 8
echo "=== sanitizers"
san() { tool=$1; shift; f=$1; shift
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 build/bin/attn-run --check "$@" $G/$f.mlir > $OUT/san-$tool-${f//\//-}.log 2>&1
  echo "$tool $f $*: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $OUT/san-$tool-${f//\//-}.log | tail -n 1)"; }
san racecheck decode-gqa-padded --variant=sm90ws --poison-padding
san racecheck persistent-padded-poison --variant=sm90ws --poison-padding
san synccheck persistent-padded-poison --variant=sm90ws --poison-padding
san memcheck split-kv --variant=sm90ws --splits=7
san memcheck backward/hd128-causal-gqa --backward --bias-grad
