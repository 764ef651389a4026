#!/usr/bin/env bash
# Readies kernel changes for one device session (run here, where LLVM is):
# build-base/ gets main's attn-run and C library, built from a clean
# checkout of HEAD, and the working tree gets the patches of the steps named
# applied in order (bench/experiments/stepN-*.patch), built into build/.
# With no step named, build/ is the working tree as it is (an uncommitted
# change against HEAD). Then, on the device, bench/ab.sh build-base build ...
# times the change and scripts/gpu-tests.sh build runs the GPU cases.
#   bench/experiments/prepare.sh [STEP...]
# Prints what the device run must carry. Leaves the patches applied: `git
# checkout -- . && git clean -fd kernels-templates test` undoes them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
steps=("$@")
if [[ ${#steps[@]} -gt 0 ]] && ! git diff --quiet HEAD -- kernels-templates lib include test python; then
  echo "prepare: the working tree has changes; commit or stash them first" \
       "(or name no step to build the tree as it is)" >&2
  exit 2
fi
patches=()
for step in ${steps[@]+"${steps[@]}"}; do
  patch=$(ls bench/experiments/step"$step"-*.patch 2> /dev/null | head -n 1 || true)
  [[ -n $patch ]] || { echo "prepare: no patch for step $step in bench/experiments" \
    "(measured ones are in git history: git log --diff-filter=D -- bench/experiments)" >&2; exit 2; }
  patches+=("$patch")
done

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

for patch in ${patches[@]+"${patches[@]}"}; do
  git apply "$patch" || { echo "prepare: $patch does not apply" >&2; exit 1; }
  echo "applied $patch"
done
ATTN_BUILD_DIR="$root/build" ./scripts/build.sh | tail -n 1
library=$(cd build/lib && ls -v libattn_c.so.[0-9]* | tail -n 1)
echo "carry: build-base build/bin/attn-run build/lib/$library build/lib/libattn_c.so" \
     "($(du -scm build-base build/bin/attn-run build/lib/"$library" | tail -n 1 | cut -f1) MiB;" \
     "the limit is 64: strip build's files if need be)"
