#!/usr/bin/env bash
# Runs the GPU suite (test/GPU/*.mlir: fused kernels, a case per feature;
# unfused/: one kernel per graph op; sweep/: odd head dims, lengths, GQA
# ratios and mask operands, fused and unfused) with attn-run --check and
# prints the
# error of every case against the float64 reference. Needs only the built
# attn-run (no lit, no FileCheck), so it runs on a machine without LLVM:
#   scripts/gpu-tests.sh [build-dir] [test files...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
tests=("$@")
[[ ${#tests[@]} -gt 0 ]] ||
  tests=("$root"/test/GPU/*.mlir "$root"/test/GPU/unfused/*.mlir "$root"/test/GPU/sweep/*.mlir)
run="$build/bin/attn-run"
[[ -x $run ]] || { echo "gpu-tests: no $run; build first" >&2; exit 2; }

passed=0 failed=0
for test in "${tests[@]}"; do
  # "causal", or "unfused/causal-gqa-f16" for a case of a subdirectory.
  name=$(basename "$test" .mlir)
  parent=$(basename "$(dirname "$test")")
  [[ $parent == GPU ]] || name="$parent/$name"
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
    output=$("$run" $args "$test" 2>&1)
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
      passed=$((passed + 1))
      printf 'PASS  %-48s %s(%d ms) %s\n' "$label" "$errors" "$elapsed_ms" "$kernel"
    else
      failed=$((failed + 1))
      printf 'FAIL  %-48s %s(exit %d) %s\n' "$label" "$errors" "$status" "$kernel"
      for line in "${missing[@]}"; do printf '      missing: %s\n' "$line"; done
      sed 's/^/      /' <<<"$output" | tail -n 15
    fi
  done < <(grep '^// RUN: attn-run ' "$test")
done
echo "gpu tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
