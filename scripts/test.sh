#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the lit suite
# (FileCheck tests, and GPU tests where a GPU is present), the unit tests
# (ctest; GPU unit tests skip themselves without a GPU; the fuzz target
# replays its seed corpus and regression inputs), and a bounded libFuzzer
# run (scripts/fuzz.sh, $ATTN_FUZZ_SECONDS, default 90 s; 0 skips it) that
# fails on any crash. Ends with one line: "tests: N passed, N failed, N
# skipped" (the fuzz run counts as one test).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
echo "== lit: $build/test"
/usr/lib/llvm-22/bin/lit -v "$build/test" 2>&1 | tee "$log"
lit_status=${PIPESTATUS[0]}
echo "== ctest: unit tests"
(cd "$build" && ctest --output-on-failure) 2>&1 | tee -a "$log"
ctest_status=${PIPESTATUS[0]}
fuzz_seconds=${ATTN_FUZZ_SECONDS:-90}
fuzz_passed=0 fuzz_failed=0 fuzz_skipped=0 fuzz_status=0
if (( fuzz_seconds > 0 )); then
  echo "== fuzz: $fuzz_seconds s of libFuzzer over the parser, passes and emitters"
  "$root/scripts/fuzz.sh" "$fuzz_seconds"
  fuzz_status=$?
  (( fuzz_status == 0 )) && fuzz_passed=1 || fuzz_failed=1
else
  fuzz_skipped=1
fi
set -e

count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -n 1; }
lit_passed=$(( $(count Passed) + 0 ))
lit_failed=$(( $(count Failed) + $(count Unresolved) + $(count 'Timed Out') + 0 ))
lit_skipped=$(( $(count Unsupported) + 0 ))
ctest_total=$(( $(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -n 1) + 0 ))
ctest_failed=$(( $(sed -n 's/.*, \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -n 1) + 0 ))
ctest_skipped=$(grep -c '(Skipped)' "$log" || true)
passed=$(( lit_passed + ctest_total - ctest_failed - ctest_skipped + fuzz_passed ))
failed=$(( lit_failed + ctest_failed + fuzz_failed ))
skipped=$(( lit_skipped + ctest_skipped + fuzz_skipped ))
echo "tests: $passed passed, $failed failed, $skipped skipped"
[[ $lit_status -eq 0 && $ctest_status -eq 0 && $fuzz_status -eq 0 ]]
