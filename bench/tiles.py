"""Sweep attn's tile configurations on a few shapes, beside the flash backend.

Prints TFLOP/s per (shape, variant, block_m, block_n, num_warps, stages), so that the
cost model of --attn-select-config can be checked against measurements.

    PYTHONPATH=python python3 bench/tiles.py
"""

import itertools
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attn  # noqa: E402
from bench import bench, flops  # noqa: E402


def main():
    shapes = [(b, 2048 // d, s, d, causal) for d in (64, 128) for s in (1024, 4096, 16384)
              for b in (16384 // s,) for causal in (False, True)]
    # (variant, block_m, block_n, num_warps, stages)
    configs = [("sm90", bm, bn, bm // 16, st) for bm in (64, 128) for bn in (64, 128) for st in (2, 3)]
    configs += [("sm80", 128, 32, 4, 2), ("sm80", 128, 64, 8, 2)]
    shapes = shapes[: int(os.environ.get("TILES_SHAPES", len(shapes)))]
    for (b, h, s, d, causal) in shapes:
        q = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn_like(q)
        v = torch.randn_like(q)
        f = flops(b, h, s, s, d, causal)
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            ms = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), 20)
        print(f"b={b} h={h} s={s} d={d} causal={int(causal)}: flash {f / ms / 1e9:6.1f} TFLOP/s", flush=True)
        _, handle = attn.sdpa(q, k, v, is_causal=causal, return_kernel=True)
        info = attn.kernel_info(handle)
        ms = bench(lambda: attn.sdpa(q, k, v, is_causal=causal), 20)
        print(f"   model's choice {info['variant']} {info['block_m']}x{info['block_n']} w{info['num_warps']} "
              f"s{info['stages']}: {f / ms / 1e9:6.1f} TFLOP/s ({info['registers']} regs)", flush=True)
        for variant, bm, bn, w, st in configs:
            tiles = dict(variant=variant, block_m=bm, block_n=bn, num_warps=w, stages=st)
            try:
                _, handle = attn.sdpa(q, k, v, is_causal=causal, return_kernel=True, **tiles)
                info = attn.kernel_info(handle)
                ms = bench(lambda: attn.sdpa(q, k, v, is_causal=causal, **tiles), 20)  # noqa: B023
                print(f"   {variant} {bm:3d}x{bn:3d} w{w} s{st}: {f / ms / 1e9:6.1f} TFLOP/s "
                      f"({info['registers']} regs, {info['spill_bytes']} spill, {info['shared_bytes']} B smem)",
                      flush=True)
            except attn.AttnError as ex:
                print(f"   {variant} {bm:3d}x{bn:3d} w{w} s{st}: {str(ex).splitlines()[0][:100]}")
        del q, k, v


if __name__ == "__main__":
    main()
