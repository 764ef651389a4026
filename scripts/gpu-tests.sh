#!/usr/bin/env bash
# Runs the GPU suite (test/GPU/*.mlir: fused kernels, a case per feature;
# unfused/: one kernel per graph op; sweep/: odd head dims, lengths, GQA
# ratios and mask operands, fused and unfused; score-mod/: the score_mod
# op table and captured tensors; serving/: ragged batches, paged caches,
# sinks; backward/: the gradients of training steps, --backward) with
# attn-run --check and prints the error of every case against the float64
# reference. Needs only the built attn-run (no lit, no FileCheck), so it
# runs on a machine without LLVM:
#   scripts/gpu-tests.sh [build-dir] [test files...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
tests=("$@")
[[ ${#tests[@]} -gt 0 ]] ||
  tests=("$root"/test/GPU/*.mlir "$root"/test/GPU/unfused/*.mlir "$root"/test/GPU/sweep/*.mlir
         "$root"/test/GPU/score-mod/*.mlir "$root"/test/GPU/serving/*.mlir
         "$root"/test/GPU/backward/*.mlir)
run="$build/bin/attn-run"
[[ -x $run ]] || { echo "gpu-tests: no $run; build first" >&2; exit 2; }

# "causal", or "unfused/causal-gqa-f16" for a case of a subdirectory.
caseName() {
  local name parent
  name=$(basename "$1" .mlir)
  parent=$(basename "$(dirname "$1")")
  [[ $parent == GPU ]] || name="$parent/$name"
  echo "$name"
}

# Prints one PASS or FAIL line per RUN line of the test file $1.
runFile() {
  local test=$1 name parent runLine args prefix expected literals label start
  local output status elapsed_ms passes missing line kernel errors
  name=$(caseName "$test")
  # Each RUN line's attn-run arguments, with %s as the test file: a case
  # may run once per kernel variant, each with its FileCheck prefix. Its
  # "check output" lines must PASS; its other lines without {{regex}} must
  # appear in the output as they are (FileCheck does the rest where lit runs).
  while IFS= read -r runLine; do
    args=$(sed -n 's|^// RUN: attn-run \([^%]*\) %s.*|\1|p' <<<"$runLine")
    args=${args//\$RANDOM/$RANDOM}
    prefix=$(grep -o -- '--check-prefix=[A-Za-z0-9_-]*' <<<"$runLine" | cut -d= -f2)
    prefix=${prefix:-CHECK}
    expected=$(grep -c "^// $prefix: check output" "$test")
    mapfile -t literals < <(sed -n "s|^// $prefix: ||p" "$test" | grep -v -e '{{' -e '^check output')
    label="$name${args:+ [$args]}"
    start=$(date +%s%N)
    # A hung kernel must not hang the suite.
    output=$(timeout "${ATTN_GPU_TEST_TIMEOUT:-120}" "$run" $args "$test" 2>&1)
    status=$?
    elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    passes=$(grep -c '^check output .*: PASS$' <<<"$output")
    missing=()
    for line in "${literals[@]}"; do
      grep -qF -- "$line" <<<"$output" || missing+=("$line")
    done
    kernel=$(grep -o '^attn_[a-z0-9_]*' <<<"$output" | head -n 1)
    errors=$(sed -n 's/^check output \([0-9]*\).*rel L2 error \([^ ]*\).*/out\1=\2/p' <<<"$output" | tr '\n' ' ')
    [[ ${#literals[@]} -gt 0 ]] && errors+="+${#literals[@]} lines "
    if [[ $status -eq 0 && $passes -ge $expected && $expected -gt 0 && ${#missing[@]} -eq 0 ]]; then
      printf 'PASS  %-48s %s(%d ms) %s\n' "$label" "$errors" "$elapsed_ms" "$kernel"
    else
      printf 'FAIL  %-48s %s(exit %d) %s\n' "$label" "$errors" "$status" "$kernel"
      for line in "${missing[@]}"; do printf '      missing: %s\n' "$line"; done
      sed 's/^/      /' <<<"$output" | tail -n 15
    fi
  done < <(grep '^// RUN: attn-run ' "$test")
}

# Test files run in parallel (the kernel cache is safe across processes;
# compiling dominates). Each file's report is printed as soon as it is done
# (so a run cut short keeps what finished), whole, in the order files end.
# ATTN_GPU_TEST_BUDGET_S: files not started within that many seconds are
# skipped, each with a SKIP line, and counted at the end.
jobs=${ATTN_GPU_TEST_JOBS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
deadline=0
[[ -n ${ATTN_GPU_TEST_BUDGET_S:-} ]] && deadline=$(( $(date +%s) + ATTN_GPU_TEST_BUDGET_S ))
runOne() {
  local index=$1 test=$2
  if [[ $deadline -gt 0 && $(date +%s) -ge $deadline ]]; then
    printf 'SKIP  %s (time budget of %s s spent)\n' "$(caseName "$test")" "$ATTN_GPU_TEST_BUDGET_S" > "$logs/$index.log"
  else
    runFile "$test" > "$logs/$index.log"
  fi
  flock "$logs/lock" cat "$logs/$index.log"
}
export -f caseName runFile runOne
export run logs deadline ATTN_GPU_TEST_BUDGET_S
for i in "${!tests[@]}"; do printf '%s\0%s\0' "$i" "${tests[$i]}"; done |
  xargs -0 -n 2 -P "$jobs" bash -c 'runOne "$1" "$2"' _
cat "$logs"/*.log > "$logs/all" 2> /dev/null
passed=$(grep -c '^PASS' "$logs/all")
failed=$(grep -c '^FAIL' "$logs/all")
skipped=$(grep -c '^SKIP' "$logs/all")
if [[ $failed -gt 0 ]]; then
  echo "gpu tests: failing:"
  grep '^FAIL' "$logs/all" | sort | sed 's/^/  /'
fi
summary="gpu tests: $passed passed, $failed failed"
[[ $skipped -gt 0 ]] && summary+=", $skipped files skipped (time budget)"
echo "$summary"
[[ $failed -eq 0 && $passed -gt 0 ]]
