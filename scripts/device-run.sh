#!/usr/bin/env bash
# One call's worth of GPU work on the device machine (see README: the build
# is made here, with LLVM linked statically, and carried there):
#   scripts/device-run.sh [suite] [sanitize] [examples] [backward] [python] [bench] [tiles] [splits] [count]
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
             unfused/masks unfused/transposes backward/seq7-mqa backward/hd72 \
             backward/bias-broadcast backward/causal-bottom-right-empty-rows; do
      flags=--check
      [[ $t == unfused/* ]] && flags="--unfused --check"
      [[ $t == backward/* ]] && flags="--backward --bias-grad --check"
      log="$out/san-${t//\//-}"
      for tool in memcheck racecheck; do
        printf '%-34s %-9s ' "$t" "$tool"
        compute-sanitizer --tool "$tool" --error-exitcode 3 \
          "$build/bin/attn-run" $flags "$root/test/GPU/$t.mlir" > "$log-$tool.log" 2>&1
        echo "exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log-$tool.log" | tail -n 1)"
      done
    done 2>&1 | tee "$out/sanitize.log"
    # The deterministic backward's dQ kernel.
    for tool in memcheck racecheck; do
      printf '%-34s %-9s ' "backward/key-padding det" "$tool"
      compute-sanitizer --tool "$tool" --error-exitcode 3 "$build/bin/attn-run" --backward \
        --deterministic --check "$root/test/GPU/backward/key-padding.mlir" \
        > "$out/san-backward-det-$tool.log" 2>&1
      echo "exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san-backward-det-$tool.log" | tail -n 1)"
    done 2>&1 | tee -a "$out/sanitize.log"
    ;;
  examples)
    for e in "$root"/examples/*.mlir; do
      # Training steps: the forward and the derived backward.
      flags=()
      [[ $e == *backward* ]] && flags=(--backward --bias-grad)
      "$build/bin/attn-run" "${flags[@]}" --check --bench --profile "$e"
    done 2>&1 | tee "$out/examples.log"
    ;;
  backward)
    # The backward alone: its GPU cases, the determinism and launch tests.
    "$root/scripts/gpu-tests.sh" "$build" "$root"/test/GPU/backward/*.mlir 2>&1 |
      tee "$out/backward.log"
    [[ -x $build/test/Unit/AttnGPUTests ]] &&
      "$build/test/Unit/AttnGPUTests" --gtest_filter='Backward*' 2>&1 | tail -n 30 |
      tee -a "$out/backward.log"
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
  count)
    timeout 400 python3 "$root/bench/kernel_count.py" --attn-run "$build/bin/attn-run" 2>&1 |
      tee "$out/kernel-count.log"
    ;;
  esac
done
