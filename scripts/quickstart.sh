#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on a bundled
# example: attn-run compiles examples/causal_gqa.mlir (fuse, configure,
# NVRTC) and, with a GPU, runs it, checks it against the float64 reference
# and times it. Without a GPU it prints the compile-only report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

example=${1:-$root/examples/causal_gqa.mlir}
echo "== attn-run --check --bench --profile $example"
exec "$build/bin/attn-run" --check --bench --profile "$example"
