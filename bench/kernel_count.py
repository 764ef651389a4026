"""Kernels launched, bytes moved and GPU time of one attention, unfused and
fused: torch's math backend (the graph op by op), attn's fused kernel and
the flash backend, and attn's own unfused path (attn-run --unfused: one
attn.kernel per graph op, as attn-opt --attn-lower-unfused writes them).

    PYTHONPATH=python python3 bench/kernel_count.py [--attn-run build/bin/attn-run]

Kernels and their GPU time come from torch.profiler (CUPTI sees attn's
driver-API launches too), for attn's unfused path from attn-run --bench (sum
of per-kernel medians; also back to back); DRAM bytes from Nsight Compute
(dram__bytes_read + dram__bytes_write of every kernel of one call), when ncu
is on PATH. The shape is examples/sdpa.mlir's: (4, 16, 1024, 128) bf16, not
causal.
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
    return ncu_dram_bytes([sys.executable, os.path.abspath(__file__), "--single", name],
                          ["--nvtx", "--nvtx-include", "count/"])


def ncu_dram_bytes(cmd, extra):
    """DRAM bytes read + written by the kernels ncu profiles in `cmd`, or None."""
    ncu = shutil.which("ncu")
    if not ncu:
        return None
    run = subprocess.run([ncu, "--csv", "--print-units", "base", "--clock-control", "none", *extra,
                          "--metrics", "dram__bytes_read.sum,dram__bytes_write.sum", *cmd],
                         capture_output=True, text=True, timeout=300)
    rows = [line for line in run.stdout.splitlines() if line.startswith('"')]
    total = 0.0
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        if row.get("Metric Name", "").startswith("dram__bytes"):
            total += float(row["Metric Value"].replace(",", ""))
    return total if rows else None


def attn_unfused(attn_run):
    """attn-run --unfused on sdpa.mlir: (kernel names, ms as the sum of the
    kernels' medians, ms back to back, operand bytes, DRAM bytes or None)."""
    example = os.path.join(ROOT, "examples", "sdpa.mlir")
    run = subprocess.run([attn_run, "--unfused", "--check", "--bench", example],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        raise RuntimeError(f"attn-run --unfused failed:\n{run.stdout}{run.stderr}")
    total = re.search(r"total: (\d+) kernel\(s\), ([0-9.]+) MB of operands and results, "
                      r"([0-9.]+) ms \(sum of medians\), ([0-9.]+) ms back to back", run.stdout)
    names = re.findall(r"^(attn_\w+) +\d+x\d+x\d+ ", run.stdout, re.M)
    # One run of each kernel (no --bench) for ncu.
    dram = ncu_dram_bytes([attn_run, "--unfused", example], ["--kernel-name", "regex:^attn_"])
    return names, float(total.group(3)), float(total.group(4)), float(total.group(2)) * 1e6, dram


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attn-run", default=os.path.join(ROOT, "build", "bin", "attn-run"))
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
    names, ms, back_to_back, operand_bytes, dram = attn_unfused(args.attn_run)
    mb = f"{dram / 1e6:9.1f}" if dram is not None else f"{'-':>9s}"
    print(f"{'attn unfused (attn-run)':24s} {len(names):8d} {mb} {ms:8.3f}  {', '.join(names)}")
    print(f"  attn unfused: {operand_bytes / 1e6:.1f} MB of operands and results; "
          f"{back_to_back:.3f} ms back to back", flush=True)


if __name__ == "__main__":
    main()
