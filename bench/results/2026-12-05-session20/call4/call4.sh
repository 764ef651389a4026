#!/usr/bin/env bash
# Device call 4: step 57's decode in graph replay with and without PDL; backward A/B.
set -u
cd "$(dirname "$0")/../.."
export ATTN_CACHE_DIR=/tmp/attn-cache ATTN_LIBRARY=$PWD/build/lib/libattn_c.so.3 PYTHONPATH=$PWD/python
ATTN_LOG=1 timeout 60 build/bin/attn-run --check --splits=7 test/GPU/split-kv.mlir 2>&1 | grep -iE 'programmatic|check output' | head -4
for r in 1 2; do
  echo "=== decode graphs PDL on (round $r)"
  timeout 140 python3 bench/bench.py --decode --graphs --budget-s 110 --out $OUT 2>&1 | tee $OUT/decode-pdl-$r.log | tail -n 25
  echo "=== decode graphs PDL off (round $r)"
  ATTN_NO_PDL=1 timeout 140 python3 bench/bench.py --decode --graphs --budget-s 110 --out $OUT 2>&1 | tee $OUT/decode-nopdl-$r.log | tail -n 25
  [[ $r == 1 ]] && FLAGS=--backward ROUNDS=1 timeout 100 bench/ab.sh build-base build bench/shapes/hd128-s1024-causal.mlir bench/shapes/hd64-s1024.mlir
done
