"""Sweep the split-KV count of decode launches, beside the runtime's choice.

Prints GB/s of K/V per forced num_splits on bench.py's decode shapes (b=16,
32 query / 8 K/V heads, d=128, bf16), marks the best and what the runtime
chooses (num_splits=0), so that Kernel::chooseSplits can be checked against
measurements.

    PYTHONPATH=python python3 bench/splits.py
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attn  # noqa: E402
from bench import bench  # noqa: E402

SPLITS = (1, 2, 3, 4, 5, 6, 8, 12, 16)


def main():
    b, hq, hk, d = 16, 32, 8, 128
    for skv in (1024, 4096, 16384, 65536):
        for sq in (1, 4):
            q = torch.randn(b, hq, sq, d, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(b, hk, skv, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(b, hk, skv, d, device="cuda", dtype=torch.bfloat16)
            nbytes = (k.numel() + v.numel()) * 2
            speed = {}
            for n in (0,) + SPLITS:
                ms = bench(lambda: attn.sdpa(q, k, v, enable_gqa=True, num_splits=n), 30)  # noqa: B023
                speed[n] = nbytes / ms / 1e6
            best = max(SPLITS, key=speed.get)
            cells = " ".join(f"{n}:{speed[n]:5.0f}{'*' if n == best else ' '}" for n in SPLITS)
            print(f"skv={skv:6d} sq={sq:2d}  runtime's choice {speed[0]:5.0f} GB/s "
                  f"({speed[0] / speed[best]:.2f} of best)  {cells}", flush=True)
            del q, k, v
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
