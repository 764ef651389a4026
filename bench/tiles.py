"""Sweep attn's tile configurations on a few shapes, beside the flash backend.

Prints TFLOP/s per (shape, block_m, block_n, num_warps, stages), so that the
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
    shapes = [(4, 16, 4096, 128, False), (4, 16, 4096, 128, True), (4, 32, 4096, 64, False),
              (4, 32, 4096, 64, True)]
    configs = [(bm, bn, w, st) for bm, w in ((64, 4), (128, 4), (128, 8)) for bn in (32, 64, 128)
               for st in (1, 2, 3)]
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
        print(f"   model's choice {info['block_m']}x{info['block_n']} w{info['num_warps']} s{info['stages']}: "
              f"{f / ms / 1e9:6.1f} TFLOP/s ({info['registers']} regs)", flush=True)
        for bm, bn, w, st in configs:
            try:
                _, handle = attn.sdpa(q, k, v, is_causal=causal, block_m=bm, block_n=bn, num_warps=w,
                                      stages=st, return_kernel=True)
                info = attn.kernel_info(handle)
                ms = bench(lambda: attn.sdpa(q, k, v, is_causal=causal, block_m=bm, block_n=bn,  # noqa: B023
                                             num_warps=w, stages=st), 20)
                print(f"   {bm:3d}x{bn:3d} w{w} s{st}: {f / ms / 1e9:6.1f} TFLOP/s "
                      f"({info['registers']} regs, {info['spill_bytes']} spill, {info['shared_bytes']} B smem)",
                      flush=True)
            except attn.AttnError as ex:
                print(f"   {bm:3d}x{bn:3d} w{w} s{st}: {str(ex).splitlines()[0][:100]}")
        del q, k, v


if __name__ == "__main__":
    main()
