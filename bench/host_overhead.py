"""Host time per call of attn.sdpa beside F.scaled_dot_product_attention.

Shapes small enough that the GPU finishes each kernel before the next call
is issued, so that calls back to back measure what the host spends per call:
argument checks, the kernel lookup, output (and workspace) allocation, and
the launch. Each row: the median over --repeats runs of --calls calls, in
microseconds per call.

    PYTHONPATH=python python3 bench/host_overhead.py [--out DIR]

The target: attn.sdpa at most 20 us per call on the tiny shape.
"""

import argparse
import json
import os
import statistics
import time

import torch
import torch.nn.functional as F

import attn

TARGET_US = 20.0


def per_call_us(fn, calls, repeats):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", default=None, help="directory for host_overhead.json")
    args = parser.parse_args()

    def t(*shape):
        return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)

    q, k, v = t(1, 4, 16, 64), t(1, 4, 16, 64), t(1, 4, 16, 64)
    dq, dk, dv = t(2, 8, 1, 64), t(2, 2, 256, 64), t(2, 2, 256, 64)
    mask = torch.ones(16, 16, dtype=torch.bool, device="cuda").tril()
    cases = [
        ("F.scaled_dot_product_attention", "tiny", lambda: F.scaled_dot_product_attention(q, k, v)),
        ("attn.sdpa", "tiny", lambda: attn.sdpa(q, k, v)),
        ("torch.ops.attn.sdpa (dispatcher)", "tiny", lambda: torch.ops.attn.sdpa(q, k, v)),
        ("F.scaled_dot_product_attention", "tiny causal", lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)),
        ("attn.sdpa", "tiny causal", lambda: attn.sdpa(q, k, v, is_causal=True)),
        ("F.scaled_dot_product_attention", "tiny bool mask", lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask)),
        ("attn.sdpa", "tiny bool mask", lambda: attn.sdpa(q, k, v, attn_mask=mask)),
        ("F.scaled_dot_product_attention", "decode GQA",
         lambda: F.scaled_dot_product_attention(dq, dk, dv, enable_gqa=True)),
        ("attn.sdpa", "decode GQA (split-KV, workspace)",
         lambda: attn.sdpa(dq, dk, dv, enable_gqa=True, num_splits=4)),
    ]
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, attn {attn.__version__}; "
          f"{args.calls} calls back to back, median of {args.repeats}")
    print(f"{'call':<36} {'shape':<34} {'us/call':>8}")
    rows = []
    with torch.no_grad():
        for name, shape, fn in cases:
            us = per_call_us(fn, args.calls, args.repeats)
            rows.append({"call": name, "shape": shape, "us_per_call": us})
            print(f"{name:<36} {shape:<34} {us:8.1f}")
    tiny = next(r["us_per_call"] for r in rows if r["call"] == "attn.sdpa" and r["shape"] == "tiny")
    verdict = "PASS" if tiny <= TARGET_US else "FAIL"
    print(f"attn.sdpa on the tiny shape: {tiny:.1f} us per call, target {TARGET_US:.0f} us: {verdict}")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "host_overhead.json"), "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "rows": rows, "target_us": TARGET_US, "verdict": verdict}, f, indent=1)


if __name__ == "__main__":
    main()
