#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on a bundled
# example: fuse and configure examples/causal_gqa.mlir for the H100/H200.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

example=${1:-$root/examples/causal_gqa.mlir}
echo "== attn-opt --attn-pipeline=arch=sm_90a $example"
"$build/bin/attn-opt" "$example" --attn-pipeline=arch=sm_90a
