"""The backward of attention: attn against PyTorch's flash and cuDNN
backwards, in one process (bench.py --backward runs it).

Grid: bench.py's (bf16, 16k tokens per batch, H * D = 2048, S from 512 to
16384, causal and not) at --head-dims. For each backend the forward runs
once with autograd recording (torch's under sdpa_kernel, which also fixes
the backend of its backward), then the backward alone is timed as
torch.autograd.grad(out, (q, k, v), dout) with CUDA events, the backends
taking turns in --rounds interleaved rounds of --iters calls (as bench.py
times forwards: the GPU's clock falls as it heats): the kernels each
backend's autograd runs, dO layout fixes and the dQ conversion included.
attn runs its default and its deterministic mode (dQ without atomics). TFLOP/s count
the backward as 2.5 x the forward's FLOPs (the convention of FlashAttention
and of issue #15's baselines). Prints a table and writes
bench_backward.json to --out.
"""

import contextlib
import json
import math
import os
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import attn

PEERS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
         "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}
# Issue #15's bar: at least flash everywhere, at least this fraction of
# cuDNN at head dim 128 from S = 4096.
CUDNN_FRACTION = 0.8


def rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def run(args, bench_interleaved, record, forward_flops):
    """bench_interleaved(backends, iters, rounds), record(row, medians,
    failed, metric, per_ms) and forward_flops(b, h, sq, skv, d, causal) are
    bench.py's."""
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    print(f"backward: device {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}, "
          f"cudnn {torch.backends.cudnn.version()}", flush=True)
    end = time.time() + args.budget_s
    peers = [p for p in args.peers.split(",") if p in PEERS]
    seqs = (1024, 4096, 16384) if args.quick else (512, 1024, 2048, 4096, 8192, 16384)
    head_dims = [int(d) for d in args.head_dims.split(",")]
    shapes = [(16384 // s, 2048 // d, s, s, d, c) for d in head_dims for s in seqs for c in (False, True)]
    columns = ["attn", "attn-det"] + peers
    print(f"{'shape':34s} " + " ".join(f"{c:>9s}" for c in columns) + f"  {'vs flash':>8s} {'vs cudnn':>8s}  err",
          flush=True)
    rows = []
    for (b, h, sq, skv, d, causal) in shapes:
        if time.time() > end:
            print("budget reached")
            break
        torch.manual_seed(0)
        q, k, v = (torch.randn(b, h, n, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                   for n in (sq, skv, skv))
        dout = torch.randn(b, h, sq, d, device=dev, dtype=torch.bfloat16)
        flops = 2.5 * forward_flops(b, h, sq, skv, d, causal)
        row = dict(kind="backward", b=b, h=h, sq=sq, skv=skv, d=d, causal=causal, tflops={}, ms={}, err={})
        grads = {}

        backends = {}

        def add(name, forward):
            try:
                out = forward()
                grads[name] = torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)
                backends[name] = (lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True),
                                  contextlib.nullcontext)
            except Exception as ex:  # noqa: BLE001
                print(f"  {name} failed: {type(ex).__name__}: {str(ex)[:200]}")

        for name in peers:
            if name == "math" and sq > 4096:
                continue

            def forward(backend=PEERS[name]):
                with sdpa_kernel([backend]):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

            add(name, forward)
        add("attn", lambda: attn.sdpa(q, k, v, is_causal=causal, deterministic=False))
        add("attn-det", lambda: attn.sdpa(q, k, v, is_causal=causal, deterministic=True))
        ms, failed = bench_interleaved(backends, args.iters, args.rounds)
        record(row, ms, failed, "tflops", flops / 1e9)
        backends = None
        reference = grads.get("flash") or grads.get("cudnn")
        if reference is not None and "attn" in grads:
            row["err"] = {f"d{n}": rel(g, r) for n, g, r in zip("qkv", grads["attn"], reference)}
        a = row["tflops"].get("attn")
        row["ratio_flash"] = a / row["tflops"]["flash"] if a and "flash" in row["tflops"] else None
        row["ratio_cudnn"] = a / row["tflops"]["cudnn"] if a and "cudnn" in row["tflops"] else None
        rows.append(row)
        cell = lambda n: f"{row['tflops'][n]:9.1f}" if n in row["tflops"] else f"{'-':>9s}"  # noqa: E731
        shape = f"b={b:2d} h={h:2d} s={sq:5d} d={d:3d} {'causal' if causal else 'full  '}"
        err = max(row["err"].values()) if row["err"] else float("nan")
        print(f"{shape:34s} " + " ".join(cell(c) for c in columns) +
              f"  {row['ratio_flash'] or 0:8.2f} {row['ratio_cudnn'] or 0:8.2f}  {err:.1e}", flush=True)
        q = k = v = dout = grads = None  # freed before the next shape's
        torch.cuda.empty_cache()

    def geomean(values):
        return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")

    vs_flash = [r["ratio_flash"] for r in rows if r["ratio_flash"]]
    vs_cudnn = [r["ratio_cudnn"] for r in rows if r["ratio_cudnn"]]
    bar = [r for r in rows if r["d"] == 128 and r["sq"] >= 4096 and r["ratio_cudnn"]]
    below_bar = [r for r in bar if r["ratio_cudnn"] < CUDNN_FRACTION]
    print(f"\nbackward: attn / flash geometric mean {geomean(vs_flash):.3f}, slower than flash on "
          f"{sum(1 for x in vs_flash if x < 1)} of {len(vs_flash)} shapes; attn / cudnn {geomean(vs_cudnn):.3f}; "
          f"below {CUDNN_FRACTION} x cudnn on {len(below_bar)} of {len(bar)} hd128 shapes from S = 4096")
    os.makedirs(args.out, exist_ok=True)
    meta = dict(device=props.name, torch=torch.__version__, date=time.strftime("%Y-%m-%d"),
                flops="2.5 x forward", geomean_vs_flash=geomean(vs_flash), geomean_vs_cudnn=geomean(vs_cudnn))
    with open(os.path.join(args.out, "bench_backward.json"), "w") as fh:
        json.dump(dict(meta=meta, rows=rows), fh, indent=1)
