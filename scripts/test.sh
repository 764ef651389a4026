#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test that needs no GPU
# (GPU tests run too where a GPU is present). Prints one summary line:
# "tests: N passed, N failed, N skipped".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
/usr/lib/llvm-22/bin/lit -v "$build/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

count() { sed -n "s/^ *$1: *\([0-9]*\).*/\1/p" "$log" | tail -n 1; }
passed=$(( $(count Passed || true) + 0 ))
failed=$(( $(count Failed || true) + $(count Unresolved || true) + $(count 'Timed Out' || true) + 0 ))
skipped=$(( $(count Unsupported || true) + $(count 'Expectedly Failed' || true) + 0 ))
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
