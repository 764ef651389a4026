#!/usr/bin/env bash
# Device call 5: the decode regression probe (session 11's library against
# main's), step 57 without its early trigger, step 58's cost on padded sm90ws.
set -u
cd "$(dirname "$0")/../.."
export ATTN_CACHE_DIR=/tmp/attn-cache PYTHONPATH=$PWD/python
for lib in old main; do
  ATTN_CACHE_DIR=/tmp/cache-$lib ATTN_LIBRARY=$PWD/devcarry/$lib/lib/libattn_c.so.3 timeout 150 python3 devcarry/probe.py $lib 2>&1 | tail -n 12
done
for lib in lib-notrigger lib; do
  echo "=== decode graphs $lib"
  ATTN_CACHE_DIR=/tmp/cache-$lib ATTN_LIBRARY=$PWD/devcarry/build/$lib/libattn_c.so.3 timeout 100 python3 bench/bench.py --decode --graphs --budget-s 25 --out $OUT 2>&1 | grep -E 'b=  8 L=  4096'
done
echo "=== decode graphs off"
ATTN_NO_PDL=1 ATTN_LIBRARY=$PWD/devcarry/build/lib/libattn_c.so.3 timeout 100 python3 bench/bench.py --decode --graphs --budget-s 25 --out $OUT 2>&1 | grep -E 'b=  8 L=  4096'
