#!/usr/bin/env bash
# Times bench/shapes/*.mlir with attn-run at the cost model's tiles and at
# forced key-tile lengths (BLOCK_NS, default "0 64 96 112 128 144 160 176"; 0:
# the model's), one line per (shape, block_n): what a choice of tiles by
# sequence length and mask would gain. Runs on the device machine:
#   ATTN_BUILD_DIR=... bench/tilesweep.sh [shape.mlir ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ATTN_BUILD_DIR:-$root/build}
shapes=("$@")
[[ ${#shapes[@]} -gt 0 ]] || shapes=("$root"/bench/shapes/*.mlir)
for f in "${shapes[@]}"; do
  for n in ${BLOCK_NS:-0 64 96 112 128 144 160 176}; do
    flags=(--bench --warmup=3 --iters=20 --variant=sm90ws)
    [[ $n -gt 0 ]] && flags+=(--block-m=128 --block-n=$n --num-warps=12 --stages=2)
    line=$(timeout 120 "$build/bin/attn-run" "${flags[@]}" "$f" 2>&1 | grep -E '^attn_fwd.* [0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+%$' | tail -n 1)
    printf '%-24s n=%-4s %s\n' "$(basename "$f" .mlir)" "$n" "${line:-(no result: does not fit or failed)}"
  done
done
