#!/usr/bin/env bash
# Device call 2: step 60's paged cases, sanitizers on steps 60-62, the
# Python serving tests. ~8 minutes.
set -u
cd "$(dirname "$0")/../../.."
export ATTN_CACHE_DIR=/tmp/attn-cache PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
export ATTN_LIBRARY=$(ls -v $PWD/build/lib/libattn_c.so.[0-9]* | tail -n 1)
G=test/GPU
echo "=== step 60: the paged cases (their RUN lines force sm90ws too)"
timeout 180 scripts/gpu-tests.sh build $G/serving/paged-*.mlir $G/serving/batch-invariant-paged.mlir \
  > $OUT/gpu-tests-paged.log 2>&1
grep -Ev '^PASS' $OUT/gpu-tests-paged.log | tail -n 20
echo "paged passes: $(grep -c '^PASS' $OUT/gpu-tests-paged.log) fails: $(grep -c '^FAIL' $OUT/gpu-tests-paged.log)"
san() { # tool file flags...
  local tool=$1 f=$2; shift 2
  local log=$OUT/san-$tool-$(basename $f .mlir).log
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 build/bin/attn-run --check "$@" $f > $log 2>&1
  echo "$tool $(basename $f) $*: exit $? $(grep -E 'ERROR SUMMARY|hazard|check output' $log | tr '\n' ' ' | cut -c1-220)"
}
san racecheck $G/serving/paged-hd128-page16.mlir --variant=sm90ws
san synccheck $G/serving/paged-hd128-page16.mlir --variant=sm90ws
san racecheck $G/serving/paged-page256.mlir --variant=sm90ws
san memcheck $G/serving/paged-table-clamped.mlir --variant=sm90ws
ATTN_EXP2_POLY_EVERY=2 san racecheck $G/persistent-three-consumers.mlir --variant=sm90ws
echo "=== python test_serving.py"
timeout 150 python3 -m pytest -q -x python/tests/test_serving.py 2>&1 | tail -n 8
