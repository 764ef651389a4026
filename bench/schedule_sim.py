#!/usr/bin/env python3
"""How busy a persistent launch keeps its blocks under the LongestFirst
order of kernels-templates/attn/tile_scheduler.h (bench/NOTES.md step 40).

Each block runs one work tile at a time and holds `--ahead` more that it
drew before (the scheduler's slots); a free block draws the next index.
A causal tile of m-block m costs ceil((m + 1) * blockM / blockN) key steps
plus `--overhead` steps. Prints, per causal shape of the prefill grid, the
busy fraction (total work / blocks / makespan) for sections of one pair,
of 8 tiles per block, and of 8 tiles per block with at most blocks / 4
pairs (persistentSectionPairs). Memory is not modelled: the cap is the L2
rule that the simulation cannot see.

    python3 bench/schedule_sim.py [--blocks 132] [--ahead 1]
"""
import argparse
import heapq
import math

# (batch, heads, seq, blockM, blockN, head dim): the grid's causal shapes
# with 128-row tiles of 128 keys (80 at hd256; the model takes 176-key tiles
# at hd128 from 8192 keys and 192-row tiles at hd64 from 4096).
SHAPES = [(b, h, s, bm, bn, d)
          for d, h, bn in ((64, 32, 128), (128, 16, 128), (256, 8, 80))
          for s in (512, 1024, 2048, 4096, 8192, 16384)
          for b, bm in ((16384 // s, 128),)]


def tile_costs(batch, heads, seq, block_m, block_n, section, overhead):
    m_blocks = seq // block_m
    pairs = batch * heads
    costs = []
    for first in range(0, pairs, section):
        in_section = min(section, pairs - first)
        for m in reversed(range(m_blocks)):
            costs += [math.ceil((m + 1) * block_m / block_n) + overhead] * in_section
    return costs


def busy(costs, blocks, ahead):
    queues = [[] for _ in range(blocks)]
    drawn = 0
    for q in queues:
        for _ in range(ahead + 1):
            if drawn < len(costs):
                q.append(costs[drawn])
                drawn += 1
    free = [(0.0, b) for b in range(blocks)]
    heapq.heapify(free)
    makespan = 0.0
    while free:
        t, b = heapq.heappop(free)
        if not queues[b]:
            makespan = max(makespan, t)
            continue
        cost = queues[b].pop(0)
        if drawn < len(costs):
            queues[b].append(costs[drawn])
            drawn += 1
        heapq.heappush(free, (t + cost, b))
    return sum(costs) / blocks / makespan


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=132, help="persistent blocks (SMs)")
    ap.add_argument("--ahead", type=int, default=1, help="tiles a block holds beyond the running one")
    ap.add_argument("--overhead", type=float, default=1.0, help="steps per tile beyond its key steps")
    args = ap.parse_args()
    print(f"{'shape':28} {'1 pair':>8} {'8/block':>8} {'capped':>8}  pairs")
    for b, h, s, bm, bn, d in SHAPES:
        per_pair = s // bm
        wanted = min(b * h, math.ceil(8 * args.blocks / per_pair))
        capped = max(1, min(wanted, args.blocks // 4))
        row = [busy(tile_costs(b, h, s, bm, bn, sec, args.overhead), args.blocks, args.ahead)
               for sec in (1, wanted, capped)]
        print(f"hd{d} S={s:<5} b={b:<2} h={h:<2} {bm}x{bn:<4}"
              + "".join(f" {x:8.3f}" for x in row) + f"  {wanted}/{capped}")


if __name__ == "__main__":
    main()
