#!/usr/bin/env bash
# Device call 4: step 60's A/B, paged against dense decode, main's library
# (build-base) and the patched one, alternating, two rounds. ~6 minutes.
set -u
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
base=$(ls -v $PWD/build-base/lib/libattn_c.so.[0-9]* | tail -n 1)
patched=$(ls -v $PWD/build/lib/libattn_c.so.[0-9]* | tail -n 1)
for round in 1 2; do
  ATTN_CACHE_DIR=/tmp/cache-base ATTN_LIBRARY=$base timeout 150 \
    python3 bench/experiments/calls/paged_probe.py main-r$round 2>&1 | tee -a $OUT/paged-probe.log
  ATTN_CACHE_DIR=/tmp/cache-patched ATTN_LIBRARY=$patched timeout 150 \
    python3 bench/experiments/calls/paged_probe.py step60-r$round sm90ws 2>&1 | tee -a $OUT/paged-probe.log
done
