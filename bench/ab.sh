#!/usr/bin/env bash
# Times one kernel change on the device machine: attn-run --bench of each
# shape with two builds (before, after), alternating them for ROUNDS rounds
# (default 2) so that both see the same clocks (bench/NOTES.md step 27: the
# GPU slows within seconds of sustained work). FLAGS adds attn-run flags.
#   FLAGS="--block-n=64" bench/ab.sh BEFORE_BUILD AFTER_BUILD shape.mlir...
set -uo pipefail
[[ $# -ge 3 ]] || { echo "usage: bench/ab.sh BEFORE_BUILD AFTER_BUILD shape.mlir..." >&2; exit 2; }
before=$1 after=$2
shift 2
for f in "$@"; do
  for ((round = 1; round <= ${ROUNDS:-2}; ++round)); do
    for build in "$before" "$after"; do
      line=$(timeout 120 "$build/bin/attn-run" --bench --warmup=5 --iters=30 ${FLAGS:-} "$f" 2>&1 |
        grep -E '^attn_fwd.* [0-9.]+%$' | tail -n 1)
      printf '%-24s %-18s r%d %s\n' "$(basename "$f" .mlir)" "$(basename "$build")" "$round" \
        "${line:-(no result: does not fit or failed)}"
    done
  done
done
