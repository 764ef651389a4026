#!/usr/bin/env bash
# One call's worth of GPU work on the device machine (see README: the build
# is made here, with LLVM linked statically, and carried there):
#   scripts/device-run.sh [suite] [sanitize] [examples] [python] [bench] [tiles] [splits] [count] [gpu-diff]
# gpu-diff: SEED and COUNT random graphs (scripts/gen-graphs.py) checked
# against the float64 reference; failures land in $OUT/gpu-diff-failures.
# Logs go to $OUT (or /tmp/attn-device). Nothing here needs LLVM.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_BUILD_DIR:-$root/build}
out=${OUT:-/tmp/attn-device}
mkdir -p "$out"
export ATTN_CACHE_DIR=${ATTN_CACHE_DIR:-/tmp/attn-cache} PYTHONUNBUFFERED=1
export ATTN_LIBRARY=$build/lib/libattn_c.so PYTHONPATH=$root/python
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(suite sanitize examples bench)

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
for step in "${steps[@]}"; do
  echo "=== $step"
  case $step in
  suite)
    "$root/scripts/gpu-tests.sh" "$build" 2>&1 | tee "$out/gpu-tests.log"
    [[ -x $build/test/Unit/AttnGPUTests ]] &&
      "$build/test/Unit/AttnGPUTests" 2>&1 | tail -n 4 | tee -a "$out/gpu-tests.log"
    ;;
  sanitize)
    # Fused cases, then graph-op kernels of the unfused path (--unfused).
    for t in seq7 hd72 keep transposed-k causal-bottom-right-fully-masked decode-gqa split-kv \
             unfused/masks unfused/transposes score-mod/captures score-mod/captures-flash-gqa; do
      flags=--check
      [[ $t == unfused/* ]] && flags="--unfused --check"
      log="$out/san-${t//\//-}"
      for tool in memcheck racecheck; do
        printf '%-34s %-9s ' "$t" "$tool"
        compute-sanitizer --tool "$tool" --error-exitcode 3 \
          "$build/bin/attn-run" $flags "$root/test/GPU/$t.mlir" > "$log-$tool.log" 2>&1
        echo "exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log-$tool.log" | tail -n 1)"
      done
    done 2>&1 | tee "$out/sanitize.log"
    ;;
  examples)
    for e in "$root"/examples/*.mlir; do
      "$build/bin/attn-run" --check --bench --profile "$e"
    done 2>&1 | tee "$out/examples.log"
    ;;
  bench)
    timeout 300 python3 "$root/bench/bench.py" --out "$out" ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.log"
    ;;
  python)
    timeout 300 python3 -m pytest -q "$root/python/tests" 2>&1 | tee "$out/python.log"
    ;;
  tiles)
    timeout 300 python3 "$root/bench/tiles.py" 2>&1 | tee "$out/tiles.log"
    ;;
  splits)
    timeout 300 python3 "$root/bench/splits.py" 2>&1 | tee "$out/splits.log"
    ;;
  gpu-diff)
    SEED=${SEED:-1} COUNT=${COUNT:-60} OUT=$out "$root/scripts/gpu-diff.sh" "$build" 2>&1 |
      tee "$out/gpu-diff.log"
    ;;
  count)
    timeout 400 python3 "$root/bench/kernel_count.py" --attn-run "$build/bin/attn-run" 2>&1 |
      tee "$out/kernel-count.log"
    ;;
  esac
done
