#!/usr/bin/env bash
# Random differential testing: scripts/gen-graphs.py writes COUNT random
# attention graphs for each seed of SEEDS, and each is compiled and checked:
#   - with a GPU, by its RUN lines (attn-run --check: the kernels against
#     the float64 reference of the original graph), through gpu-tests.sh;
#   - without one, by attn-run --check-ir: the reference of the fused IR
#     (and of the unfused one where a RUN line asks for --unfused) must
#     equal that of the graph. NVRTC compiles every kernel too, unless
#     NO_COMPILE=1 (attn-run --no-compile: the pipeline and the emitters
#     only, ~0.1 s a graph instead of seconds; what CI's sweep runs,
#     test/Tools/gen-graphs-sweep.test). What --check-ir cannot check is
#     left to the GPU: a training step's gradients (--backward RUN lines
#     pass here when the backward is derived and emitted) and the kernels'
#     own reading of ragged batches, paged caches and sinks (an attn.flash
#     written as such stays one; its reference is the same before and
#     after the pipeline).
#
#   SEEDS="7 8" COUNT=40 [SERVING=10] [NO_COMPILE=1] scripts/gpu-diff.sh [build-dir]
#   SEEDS=7 CASE=16 NO_COMPILE=1 scripts/gpu-diff.sh   (one case again)
#
# With a GPU, ATTN_GPU_TEST_BUDGET_S=N stops starting graphs after N s
# (gpu-tests.sh); the graphs left are counted as skipped, and each finished
# graph's lines are printed as it ends, so a run cut short keeps them.
#
# SEED is SEEDS's old name; without either, the time is the seed. ATTN_RUN:
# the binary. Each result is a line "PASS|FAIL seed S case N: FILE [flags]",
# a failure followed by its output and the command that reproduces it.
# Failing cases are copied to $OUT/gpu-diff-failures (or /tmp/attn-device).
# Ends with one line per seed and, for several, one for all of them.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${ATTN_BUILD_DIR:-$root/build}}
seeds=${SEEDS:-${SEED:-$(date +%s)}}
count=${COUNT:-40}
out=${OUT:-/tmp/attn-device}
run=${ATTN_RUN:-$build/bin/attn-run}
[[ -x $run ]] || command -v "$run" > /dev/null ||
  { echo "gpu-diff: no $run; build first" >&2; exit 2; }
# gen-graphs.py writes attn.flash through the Python package: this build's
# libattn_c.
export ATTN_LIBRARY=${ATTN_LIBRARY:-$build/lib/libattn_c.so}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cases=()
[[ -n ${SERVING:-} ]] && cases+=(--serving "$SERVING")
[[ -n ${CASE:-} ]] && for c in ${CASE//,/ }; do cases+=(--case "$c"); done
for seed in $seeds; do
  python3 "$root/scripts/gen-graphs.py" --seed "$seed" --count "$count" \
    "${cases[@]}" --out "$dir/$seed" > /dev/null || exit 2
done

gpu=0
if [[ -z ${ATTN_FORCE_NO_GPU:-} ]] && command -v nvidia-smi > /dev/null &&
   nvidia-smi -L 2> /dev/null | grep -q GPU; then
  gpu=1
fi

# "graph-7-0016.mlir" -> "seed 7 case 16: graph-7-0016.mlir".
label() {
  local name=$1 seed number
  seed=${name#graph-}
  seed=${seed%-*}
  number=${name##*-}
  number=${number%.mlir}
  printf 'seed %s case %d: %s' "$seed" "$((10#$number))" "$name"
}

if [[ $gpu -eq 1 ]]; then
  echo "gpu-diff: GPU; attn-run --check of every RUN line (gpu-tests.sh)"
  # gpu-tests.sh labels a case "<seed>/graph-<seed>-<n> [flags]".
  "$root/scripts/gpu-tests.sh" "$build" "$dir"/*/*.mlir |
    sed -E 's@^(PASS|FAIL|SKIP)  [0-9]+/(graph-([0-9]+)-0*([0-9]+))( +|$)@\1 seed \3 case \4: \2.mlir @' |
    tee "$dir/report"
else
  mode="NVRTC compiles every kernel"
  [[ -n ${NO_COMPILE:-} ]] && mode="no kernel compiled (--no-compile)"
  echo "gpu-diff: no GPU; --check-ir on the CPU, $mode"
  # One line per RUN line: the attn-run flags without --check and the GPU
  # run's own options.
  checkFile() {
    local test=$1 args words flags output status what seedCase
    seedCase=$(label "$(basename "$test")")
    while IFS= read -r args; do
      args=${args//--check/}
      args=${args//--poison-padding/}
      args=${args//--batch-invariant/}
      read -ra words <<<"$args"
      args=${words[*]}
      flags=()
      what=
      [[ -n ${NO_COMPILE:-} ]] && flags+=(--no-compile)
      if [[ " $args " == *" --backward "* ]]; then
        what=" (gradients: on the GPU)"
      else
        flags+=(--check-ir)
      fi
      output=$("$run" "${flags[@]}" $args "$test" 2>&1)
      status=$?
      if [[ $status -eq 0 && $output == *"report done"* &&
            $output != *"not fused"* ]]; then
        printf 'PASS %s [%s]%s\n' "$seedCase" "$args" "$what"
      else
        printf 'FAIL %s [%s] (exit %d)\n' "$seedCase" "$args" "$status"
        grep -v -e '^attn_' -e '^kernel ' <<<"$output" | tail -n 15 | sed 's/^/      /'
        # "seed 7 case 16: ..." -> SEEDS=7 CASE=16
        set -- $seedCase
        printf '      reproduce: SEEDS=%s CASE=%s%s scripts/gpu-diff.sh\n' \
          "$2" "${4%:}" "${NO_COMPILE:+ NO_COMPILE=1}"
      fi
    done < <(sed -n 's|^// RUN: attn-run \([^%]*\) %s.*|\1|p' "$test")
  }
  export -f checkFile label
  export run NO_COMPILE
  export ATTN_FORCE_NO_GPU=1
  # Files in parallel, reports in order.
  ls "$dir"/*/*.mlir | xargs -P "${ATTN_GPU_TEST_JOBS:-$(nproc)}" -I{} \
    bash -c 'checkFile {} > {}.report'
  for f in "$dir"/*/*.mlir; do cat "$f.report"; done | tee "$dir/report"
fi

status=0
reproduce=()
for seed in $seeds; do
  passed=$(grep -c "^PASS seed $seed " "$dir/report")
  failed=$(grep -c "^FAIL seed $seed " "$dir/report")
  graphs=$(ls "$dir/$seed"/*.mlir | wc -l)
  failing=$(sed -n "s/^FAIL seed $seed case \([0-9]*\):.*/\1/p" "$dir/report" | sort -un | tr '\n' ' ')
  skipped=$(grep -c "^SKIP seed $seed " "$dir/report")
  line="gpu-diff (seed $seed, $graphs graphs): $passed passed, $failed failed"
  [[ $skipped -gt 0 ]] && line+=", $skipped graphs skipped (time budget)"
  echo "$line${failing:+ (cases ${failing% })}"
  [[ $failed -eq 0 && $passed -gt 0 ]] || status=1
  [[ -n $failing ]] && reproduce+=("SEEDS=$seed CASE=$(tr ' ' , <<<"${failing% }")")
done
if [[ $(wc -w <<<"$seeds") -gt 1 ]]; then
  echo "gpu-diff (seeds $seeds): $(grep -c '^PASS' "$dir/report") passed," \
       "$(grep -c '^FAIL' "$dir/report") failed, $(grep -c '^SKIP' "$dir/report") graphs skipped"
fi
if grep -q '^FAIL' "$dir/report"; then
  mkdir -p "$out/gpu-diff-failures"
  for name in $(sed -n 's/^FAIL seed [0-9]* case [0-9]*: \([^ ]*\).*/\1/p' "$dir/report" | sort -u); do
    seed=${name#graph-}
    seed=${seed%-*}
    cp "$dir/$seed/$name" "$out/gpu-diff-failures/"
  done
  echo "gpu-diff: failing cases copied to $out/gpu-diff-failures"
  for r in "${reproduce[@]}"; do
    echo "gpu-diff: reproduce: $r${NO_COMPILE:+ NO_COMPILE=1} scripts/gpu-diff.sh"
  done
fi
exit $status
