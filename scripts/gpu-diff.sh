#!/usr/bin/env bash
# Random differential testing: scripts/gen-graphs.py writes COUNT random
# attention graphs from SEED, and each is compiled and checked:
#   - with a GPU, by its RUN lines (attn-run --check: the kernels against
#     the float64 reference of the original graph), through gpu-tests.sh;
#   - without one (compile-only), attn-run --check-ir: NVRTC compiles every
#     kernel and the reference of the fused IR (and of the unfused one where
#     a RUN line asks for --unfused) must equal that of the graph.
#   SEED=7 COUNT=40 scripts/gpu-diff.sh [build-dir]   (ATTN_RUN: the binary)
# Failing cases are copied to $OUT/gpu-diff-failures (or /tmp/attn-device)
# with their seed in the name, so that one file reproduces them.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${ATTN_BUILD_DIR:-$root/build}}
seed=${SEED:-$(date +%s)}
count=${COUNT:-40}
out=${OUT:-/tmp/attn-device}
run=${ATTN_RUN:-$build/bin/attn-run}
[[ -x $run ]] || { echo "gpu-diff: no $run; build first" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$root/scripts/gen-graphs.py" --seed "$seed" --count "$count" --out "$dir" || exit 2

gpu=0
if [[ -z ${ATTN_FORCE_NO_GPU:-} ]] && command -v nvidia-smi > /dev/null &&
   nvidia-smi -L 2> /dev/null | grep -q GPU; then
  gpu=1
fi

if [[ $gpu -eq 1 ]]; then
  "$root/scripts/gpu-tests.sh" "$build" "$dir"/*.mlir | tee "$dir/report"
else
  echo "gpu-diff: no GPU; compile-only with --check-ir"
  # One line per RUN line: the attn-run flags without --check.
  checkFile() {
    local test=$1 args output status
    while IFS= read -r args; do
      args=${args//--check/}
      output=$("$run" --check-ir $args "$test" 2>&1)
      status=$?
      if [[ $status -eq 0 ]] && grep -q 'compile-only report done' <<<"$output" &&
         ! grep -q 'not fused' <<<"$output"; then
        printf 'PASS  %s [%s]\n' "$(basename "$test")" "$args"
      else
        printf 'FAIL  %s [%s] (exit %d)\n' "$(basename "$test")" "$args" "$status"
        sed 's/^/      /' <<<"$output" | tail -n 15
      fi
    done < <(sed -n 's|^// RUN: attn-run \([^%]*\) %s.*|\1|p' "$test")
  }
  export -f checkFile
  export run
  export ATTN_FORCE_NO_GPU=1
  ls "$dir"/*.mlir | xargs -P "${ATTN_GPU_TEST_JOBS:-$(nproc)}" -I{} bash -c 'checkFile {}' |
    tee "$dir/report"
fi

passed=$(grep -c '^PASS' "$dir/report")
failed=$(grep -c '^FAIL' "$dir/report")
if [[ $failed -gt 0 ]]; then
  mkdir -p "$out/gpu-diff-failures"
  for name in $(sed -n 's/^FAIL  \([^ ]*\).*/\1/p' "$dir/report" | sort -u); do
    name=$(basename "$name" .mlir)
    [[ -f $dir/$name.mlir ]] && cp "$dir/$name.mlir" "$out/gpu-diff-failures/"
  done
  echo "gpu-diff: failing cases copied to $out/gpu-diff-failures"
fi
echo "gpu-diff (seed $seed, $count graphs): $passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
