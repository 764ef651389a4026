#!/usr/bin/env bash
# Builds the libFuzzer target (fuzz/attn-fuzz.cpp: parser, passes, emitters)
# with Debian's clang in its own build directory, and runs it for a bounded
# time on a copy of the seed corpus with the dialect's dictionary. Exits
# non-zero on a crash, a sanitizer report or a timeout, and prints the input
# that caused it (turn it into a regression test: fuzz/regressions/ and a
# lit or unit test beside the fix).
#
#   scripts/fuzz.sh [SECONDS]          # default 60
#   scripts/fuzz.sh --if-lib-changed [SECONDS]
#                                      # only when staged changes touch lib/
#                                      # (the pre-commit hook in
#                                      # scripts/git-hooks/)
#
# Env: ATTN_FUZZ_BUILD_DIR (default build-fuzz), ATTN_FUZZ_JOBS (parallel
# fuzzing processes, default 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_FUZZ_BUILD_DIR:-$root/build-fuzz}
llvm=${LLVM_PREFIX:-/usr/lib/llvm-22}
clang_version=14 # Debian 12's clang; libFuzzer is in libclang-rt-14-dev

if [[ ${1:-} == --if-lib-changed ]]; then
  shift
  if ! git -C "$root" diff --cached --name-only | grep '^lib/' > /dev/null; then
    echo "fuzz: no staged change under lib/; skipped"
    exit 0
  fi
fi
seconds=${1:-60}

# The main build stays g++; this one is clang with ASan, UBSan and
# libFuzzer's coverage on attn's code (LLVM/MLIR are linked as installed).
if [[ ! -f $build/build.ninja ]]; then
  sanitize="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr"
  sanitize+=" -fno-sanitize-recover=undefined -gline-tables-only"
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-$clang_version \
    -DCMAKE_CXX_COMPILER=clang++-$clang_version \
    -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS="$sanitize" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DATTN_BUILD_FUZZER=ON -DATTN_BUILD_TESTS=OFF \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" >/dev/null
fi
start=$(date +%s)
cmake --build "$build" --target attn-fuzz -- -j"$(nproc)"
echo "fuzz: built in $(( $(date +%s) - start )) s"

# libFuzzer adds what it finds to the first corpus folder: a scratch copy,
# so the committed seeds change only by hand (fuzz/make-corpus.py).
work=$build/corpus
artifacts=$build/artifacts
mkdir -p "$work" "$artifacts"
cp -n "$root"/fuzz/corpus/* "$root"/fuzz/regressions/* "$work"/ 2>/dev/null || true
log=$build/fuzz.log
parallel=()
jobs=${ATTN_FUZZ_JOBS:-1}
# With -jobs, libFuzzer writes one log per job into the working directory.
if (( jobs > 1 )); then
  parallel=(-jobs="$jobs" -workers="$jobs")
  cd "$build"
fi
echo "fuzz: running for $seconds s (log: $log)"
set +e
# allow_user_poisoning=0: LLVM's headers poison a BumpPtrAllocator's new
# slab where they are compiled with ASan (our code), and LLVM/MLIR, built
# without it, then hand out that memory without unpoisoning it: which copy
# of an inline allocator the linker keeps decides whether MLIRContext's
# constructor reports a use-after-poison. Heap checks are unaffected.
ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:allow_user_poisoning=0 \
UBSAN_OPTIONS=print_stacktrace=1 \
  "$build/bin/attn-fuzz" "$work" \
    -dict="$root/fuzz/attn.dict" \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
    -max_len=16384 -print_final_stats=1 \
    "${parallel[@]}" -artifact_prefix="$artifacts/" >"$log" 2>&1
status=$?
set -e
grep -E '^stat::(number_of_executed_units|new_units_added|peak_rss_mb)' "$log" || true
if [[ $status -ne 0 ]]; then
  echo "fuzz: FAILED (exit $status); the end of the log:" >&2
  tail -n 60 "$log" >&2
  ls -l "$artifacts" >&2
  exit 1
fi
echo "fuzz: no crash in $seconds s"
