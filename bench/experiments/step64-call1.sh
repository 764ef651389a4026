#!/usr/bin/env bash
# Session 30, call 1: step 64 correctness and A/B (temporary driver).
set -uo pipefail
out=${OUT:-/tmp/attn-device}; mkdir -p "$out"
start=$(date +%s)
scripts/device-run.sh smoke 2>&1 | tee "$out/call1-smoke.log"
grep -q "a kernel hung" "$out/call1-smoke.log" && exit 1
s=bench/shapes
ROUNDS=2 bench/ab.sh build-base build $s/hd64-s1024.mlir $s/hd64-s1024-causal.mlir \
  $s/hd64-s4096.mlir $s/hd128-s512.mlir $s/hd128-s1024-causal.mlir $s/hd128-s4096.mlir \
  $s/hd128-s4096-causal.mlir $s/hd256-s512.mlir $s/hd256-s512-causal.mlir 2>&1 | tee "$out/ab64.log"
echo "ab done at $(( $(date +%s) - start )) s"
left=$(( 430 - ($(date +%s) - start) ))
timeout $left scripts/gpu-tests.sh build > "$out/gpu-tests.log" 2>&1
echo "suite exit $? at $(( $(date +%s) - start )) s"
tail -n 5 "$out/gpu-tests.log"
grep -c "^PASS" "$out/gpu-tests.log"; grep "^FAIL" "$out/gpu-tests.log" | head -20
