"""Kernels launched, bytes moved and GPU time of one attention, unfused and
fused: torch's math backend (the graph op by op), attn's fused kernel and
the flash backend, beside the launches and tensor bytes of attn's own
unfused lowering (attn-opt --attn-lower-unfused: one attn.kernel per op).

    PYTHONPATH=python python3 bench/kernel_count.py [--attn-opt build/bin/attn-opt]

Kernels and their GPU time come from torch.profiler (CUPTI sees attn's
driver-API launches too); DRAM bytes from Nsight Compute (dram__bytes_read
+ dram__bytes_write of every kernel of one call), when ncu is on PATH.
The shape is examples/sdpa.mlir's: (4, 16, 1024, 128) bf16, not causal.
"""

import argparse
import csv
import io
import os
import re
import shutil
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attn  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SHAPE = (4, 16, 1024, 128)
BACKENDS = ("torch math", "attn fused", "torch flash")


def inputs():
    torch.manual_seed(0)
    return [torch.randn(SHAPE, device="cuda", dtype=torch.bfloat16) for _ in range(3)]


def call(name, q, k, v):
    if name == "attn fused":
        return attn.sdpa(q, k, v)
    backend = SDPBackend.MATH if name == "torch math" else SDPBackend.FLASH_ATTENTION
    with sdpa_kernel([backend]):
        return F.scaled_dot_product_attention(q, k, v)


def profile(name):
    """(kernels launched, their GPU time in ms, kernel names) of one call."""
    q, k, v = inputs()
    for _ in range(3):
        call(name, q, k, v)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        call(name, q, k, v)
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    us = sum(getattr(e, "device_time", None) or getattr(e, "cuda_time", 0.0) for e in kernels)
    return len(kernels), us / 1000.0, [e.name for e in kernels]


def single(name):
    """One call inside an NVTX range, for ncu to measure (--single)."""
    q, k, v = inputs()
    call(name, q, k, v)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("count")
    call(name, q, k, v)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def dram_bytes(name):
    """DRAM bytes read + written by the kernels of one call, or None."""
    ncu = shutil.which("ncu")
    if not ncu:
        return None
    cmd = [ncu, "--csv", "--print-units", "base", "--clock-control", "none", "--nvtx",
           "--nvtx-include", "count/", "--metrics", "dram__bytes_read.sum,dram__bytes_write.sum",
           sys.executable, os.path.abspath(__file__), "--single", name]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    rows = [line for line in run.stdout.splitlines() if line.startswith('"')]
    total = 0.0
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        if row.get("Metric Name", "").startswith("dram__bytes"):
            total += float(row["Metric Value"].replace(",", ""))
    return total if rows else None


def unfused_lowering(attn_opt):
    """(attn.kernel ops, bytes of their operands and results) of sdpa.mlir."""
    text = subprocess.run([attn_opt, "--attn-lower-unfused", os.path.join(ROOT, "examples", "sdpa.mlir")],
                          capture_output=True, text=True, check=True).stdout
    widths = {"bf16": 2, "f16": 2, "f32": 4, "i32": 4, "i1": 1}
    kernels, total = [], 0
    for line in text.splitlines():
        m = re.search(r'attn\.kernel "(\w+)".*: \((.*)\) -> (tensor<[^>]*>)', line)
        if not m:
            continue
        kernels.append(m.group(1))
        for dims, elem in re.findall(r"tensor<([0-9x]+)x(\w+)>", m.group(2) + " " + m.group(3)):
            n = 1
            for d in dims.split("x"):
                n *= int(d)
            total += n * widths[elem]
    return kernels, total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attn-opt", default=os.path.join(ROOT, "build", "bin", "attn-opt"))
    ap.add_argument("--single", choices=BACKENDS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.single:
        single(args.single)
        return
    print(f"one attention, q/k/v {SHAPE} bf16, not causal; {torch.cuda.get_device_name(0)}")
    print(f"{'':24s} {'kernels':>8s} {'DRAM MB':>9s} {'GPU ms':>8s}  kernels launched")
    for name in BACKENDS:
        count, ms, names = profile(name)
        moved = dram_bytes(name)
        mb = f"{moved / 1e6:9.1f}" if moved is not None else f"{'-':>9s}"
        short = ", ".join(sorted({n.split("(")[0].split("<")[0][:40] for n in names}))
        print(f"{name:24s} {count:8d} {mb} {ms:8.3f}  {short}", flush=True)
    if os.path.exists(args.attn_opt):
        kernels, total = unfused_lowering(args.attn_opt)
        print(f"{'attn unfused lowering':24s} {len(kernels):8d} {total / 1e6:9.1f} {'-':>8s}  "
              f"{', '.join(kernels)} (tensor bytes in + out; not run on the GPU)")


if __name__ == "__main__":
    main()
