#!/usr/bin/env python3
"""Launches one peer's attention forward for Nsight Compute to profile.

    ncu -k regex:'(?i)sdpa|fmha|flash|attn' -s 3 -c 1 --section ... \
        python3 bench/ncu_peer.py --peer cudnn --shape 16x32x1024x64 [--causal]

Runs torch SDPA with the peer's backend on random bf16 inputs (B x H x S x D,
keys as many as queries) four times: three launches to skip (-s 3: lazy
initialization, autotuning) and the one to profile. The launch's kernel name
is the peer's own; bench.py times the same shapes.
"""
import argparse

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", choices=sorted(BACKENDS), default="cudnn")
    ap.add_argument("--shape", required=True, help="BxHxSxD, e.g. 16x32x1024x64")
    ap.add_argument("--causal", action="store_true")
    args = ap.parse_args()
    b, h, s, d = (int(x) for x in args.shape.split("x"))
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    with sdpa_kernel([BACKENDS[args.peer]]):
        for _ in range(4):
            o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=args.causal)
    torch.cuda.synchronize()
    print(f"{args.peer} {args.shape}{' causal' if args.causal else ''}: ran, |o| {o.float().norm():.3e}")


if __name__ == "__main__":
    main()
