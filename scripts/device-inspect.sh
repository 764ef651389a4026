#!/usr/bin/env bash
# Looks inside one kernel on the device machine: its SASS instruction mix
# (cuobjdump) and, where ncu reads counters, its warp stall reasons. Also runs
# the C++ API example and attn-run on .npy inputs. Logs go to $OUT.
#   scripts/device-inspect.sh [example.mlir]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_BUILD_DIR:-$root/build}
out=${OUT:-/tmp/attn-device}
example=${1:-$root/examples/sdpa.mlir}
mkdir -p "$out" /tmp/attn-dump
export ATTN_CACHE_DIR=${ATTN_CACHE_DIR:-/tmp/attn-cache}

echo "=== api example"
"$build/bin/attn-api-example" 2>&1 | tee "$out/api-example.log"

echo "=== attn-run on .npy inputs"
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(3)
for name in ("q", "k", "v"):
    np.save(f"/tmp/attn-dump/{name}.npy", rng.standard_normal((1, 2, 16, 64)).astype(np.float32))
PY
"$build/bin/attn-run" --check --inputs=/tmp/attn-dump/q.npy,/tmp/attn-dump/k.npy,/tmp/attn-dump/v.npy \
  "$root/test/Tools/Inputs/small-sdpa.mlir" 2>&1 | tail -n 3

echo "=== SASS of $(basename "$example")"
ATTN_DUMP_DIR=/tmp/attn-dump "$build/bin/attn-run" --no-disk-cache --bench --profile "$example" | tail -n 3
cuobjdump --dump-sass /tmp/attn-dump/*.cubin > "$out/kernel.sass"
for op in HGMMA HMMA LDSM LDGSTS MUFU.EX2 FMUL FFMA FADD FMNMX SHFL BAR F2FP WARPGROUP LDL STL; do
  printf '%-9s %5d\n' "$op" "$(grep -c "$op" "$out/kernel.sass")"
done | tee "$out/sass-mix.txt"

echo "=== ncu"
timeout 240 ncu --clock-control none --section WarpStateStats --section ComputeWorkloadAnalysis \
  --section Occupancy -k regex:attn_fwd -c 1 "$build/bin/attn-run" --bench --iters 1 --warmup 0 \
  "$example" > "$out/ncu.txt" 2>&1
grep -E "Stall|Issue|Warp Cycles|Pipe|Occupancy|Eligible|Active|Executed Ipc" "$out/ncu.txt" | head -n 40
