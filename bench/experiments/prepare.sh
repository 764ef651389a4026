#!/usr/bin/env bash
# Readies the prepared kernel changes for one device session (run here, where
# LLVM is): build-base/ gets main's attn-run and C library, built from a
# clean checkout of HEAD, and the working tree gets the patches applied in
# order (the steps named), built into build/.
# Then, on the device, bench/ab.sh build-base build ... times a change,
# scripts/gpu-tests.sh build runs the GPU cases the patches add, and
# ATTN_NO_PDL=1 switches step 57 off within the patched build.
#   bench/experiments/prepare.sh 55 57
# Prints what the device run must carry. Leaves the patches applied: `git
# checkout -- . && git clean -fd kernels-templates test` undoes them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || { echo "usage: prepare.sh STEP..." >&2; exit 2; }
if ! git diff --quiet HEAD -- kernels-templates lib include test python; then
  echo "prepare: the working tree has changes; commit or stash them first" >&2
  exit 2
fi

# main, for the before side of every A/B.
base=$(mktemp -d /tmp/attn-base.XXXXXX)
trap 'git worktree remove --force "$base" 2> /dev/null || true' EXIT
git worktree add --quiet --detach "$base" HEAD
ATTN_BUILD_DIR="$base/build" "$base/scripts/build.sh" > /tmp/attn-base-build.log 2>&1 ||
  { echo "prepare: building main failed (/tmp/attn-base-build.log)" >&2; exit 1; }
rm -rf build-base
mkdir -p build-base/bin build-base/lib
cp "$base/build/bin/attn-run" build-base/bin/
strip build-base/bin/attn-run
cp -P "$base"/build/lib/libattn_c.so* build-base/lib/
strip --strip-unneeded build-base/lib/libattn_c.so.[0-9]*

for step in "${steps[@]}"; do
  patch=$(ls bench/experiments/step"$step"-*.patch 2> /dev/null | head -n 1)
  [[ -n $patch ]] || { echo "prepare: no patch for step $step" >&2; exit 2; }
  git apply "$patch" || { echo "prepare: $patch does not apply" >&2; exit 1; }
  echo "applied $patch"
done
ATTN_BUILD_DIR="$root/build" ./scripts/build.sh | tail -n 1
library=$(cd build/lib && ls -v libattn_c.so.[0-9]* | tail -n 1)
echo "carry: build-base build/bin/attn-run build/lib/$library build/lib/libattn_c.so" \
     "($(du -scm build-base build/bin/attn-run build/lib/"$library" | tail -n 1 | cut -f1) MiB;" \
     "the limit is 64: strip build's files if need be)"
