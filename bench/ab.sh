#!/usr/bin/env bash
# Times one kernel change on the device machine: attn-run --bench of each
# shape with two builds (before, after), alternating them for ROUNDS rounds
# (default 2) so that both see the same clocks (bench/NOTES.md step 27: the
# GPU slows within seconds of sustained work). FLAGS adds attn-run flags to
# both; BEFORE_FLAGS and AFTER_FLAGS to one side, so that one build can be
# compared with itself under other options (forced tiles); BEFORE_ENV and
# AFTER_ENV set environment variables for one side (NAME=VALUE ..., e.g. a
# prepared step's switch). With --backward
# among the flags, the backward's line is timed (the memset and its three
# launches), else the forward's.
#   FLAGS="--block-n=64" bench/ab.sh BEFORE_BUILD AFTER_BUILD shape.mlir...
#   FLAGS=--backward BEFORE_FLAGS=--backward-tiles=64x128x8x2 \
#     bench/ab.sh build build bench/shapes/hd128-s4096.mlir
#   BEFORE_ENV=ATTN_EXP2_POLY_EVERY=0 bench/ab.sh build build shape.mlir
set -uo pipefail
[[ $# -ge 3 ]] || { echo "usage: bench/ab.sh BEFORE_BUILD AFTER_BUILD shape.mlir..." >&2; exit 2; }
before=$1 after=$2
shift 2
kind=fwd
[[ " ${FLAGS:-} ${BEFORE_FLAGS:-} ${AFTER_FLAGS:-} " == *" --backward "* ]] && kind=bwd
for f in "$@"; do
  for ((round = 1; round <= ${ROUNDS:-2}; ++round)); do
    for side in before after; do
      if [[ $side == before ]]; then
        build=$before extra=${BEFORE_FLAGS:-} vars=${BEFORE_ENV:-}
      else
        build=$after extra=${AFTER_FLAGS:-} vars=${AFTER_ENV:-}
      fi
      # shellcheck disable=SC2086 # the variables and flags are word lists
      line=$(env $vars timeout 120 "$build/bin/attn-run" --bench --warmup=5 --iters=30 ${FLAGS:-} $extra "$f" 2>&1 |
        grep -E "^attn_$kind.* [0-9.]+%$" | tail -n 1)
      printf '%-24s %-6s %-18s r%d %s\n' "$(basename "$f" .mlir)" "$side" "$(basename "$build")" "$round" \
        "${line:-(no result: does not fit or failed)}"
    done
  done
done
