"""attn against PyTorch's SDPA backends and FlexAttention, in one process.

Grid: ../shared/bench/peers.py's (bf16, 16k tokens per batch, H * D = 2048,
S from 512 to 16384, causal and not) at head dims 64 and 128, plus 256, then
decode shapes. Each backend
is timed with CUDA events on the same inputs; the prefill rows time the
backends in --rounds interleaved rounds of --iters calls each (the order
rotating), and report each one's median over all its calls: the H200 clocks
down as it heats within seconds (685 -> 606 TFLOP/s for cuDNN from one round
to the next, bench/NOTES.md step 27), so backends timed one after another
would each see another clock. The table shows TFLOP/s (GB/s for decode), attn's speed relative to
the best peer and to flash, and the error of attn against flash. Writes JSON
and one PNG chart per head dim to --out (default $OUT or /tmp).

    PYTHONPATH=python python3 bench/bench.py [--quick] [--no-flex]
    PYTHONPATH=python python3 bench/bench.py --decode [--paged] [--varlen] [--quick]
    PYTHONPATH=python python3 bench/bench.py --backward [--quick]   # bench_backward.py
"""

import argparse
import contextlib
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attn  # noqa: E402


def bench(fn, iters, warm=5):
    """Median GPU time of fn in ms. The calls are queued back to back, each
    between its own pair of CUDA events, with one synchronization at the end:
    host-side overhead (Python, dispatch, launch) overlaps the GPU's work as
    in a real model, for every backend alike, and only GPU time is measured
    as long as the host keeps ahead of the GPU."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for s, e in zip(starts, ends):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return times[len(times) // 2]


def bench_interleaved(backends, iters, rounds, warm=5):
    """Median GPU time in ms of each of backends (name -> (fn, context), the
    context a factory of the context manager each call runs in) over
    `rounds` rounds of `iters` calls, the backends taking turns in an order
    that rotates every round, so that a clock change falls on all of them
    alike. A backend whose first call raises is left out with its error
    (name -> exception in the second result)."""
    failed, live = {}, {}
    for name, (fn, context) in backends.items():
        try:
            with context():
                for _ in range(warm):
                    fn()
            torch.cuda.synchronize()
            live[name] = (fn, context)
        except Exception as ex:  # noqa: BLE001
            failed[name] = ex
    names = list(live)
    times = {name: [] for name in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)] if names else []
        for name in order:
            fn, context = live[name]
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
            with context():
                for s, e in zip(starts, ends):
                    s.record()
                    fn()
                    e.record()
            torch.cuda.synchronize()
            times[name] += [s.elapsed_time(e) for s, e in zip(starts, ends)]
    medians = {name: sorted(t)[len(t) // 2] for name, t in times.items()}
    return medians, failed


def record_timings(row, medians, failed, metric, per_ms):
    """Prints each backend that failed, and stores each median in row["ms"]
    and per_ms / ms in row[metric] (TFLOP/s or GB/s of the row's work)."""
    for name, ex in failed.items():
        print(f"  {name} failed: {type(ex).__name__}: {str(ex)[:200]}")
    for name, ms in medians.items():
        row["ms"][name] = ms
        row[metric][name] = per_ms / ms


def flops(b, h, sq, skv, d, causal):
    f = 4.0 * b * h * sq * skv * d
    return f / 2 if causal else f


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved rounds of --iters calls per backend on each prefill and decode row")
    ap.add_argument("--quick", action="store_true", help="fewer shapes (S 1024, 4096, 16384)")
    ap.add_argument("--no-flex", action="store_true")
    ap.add_argument("--peers", default="flash,cudnn,efficient,math",
                    help="SDPA backends to time beside attn (comma-separated)")
    ap.add_argument("--head-dims", default="64,128,256")
    ap.add_argument("--no-decode", action="store_true")
    ap.add_argument("--decode-only", action="store_true", help="skip the prefill grid")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp"))
    ap.add_argument("--budget-s", type=float, default=float(os.environ.get("BUDGET_S", "400")))
    ap.add_argument("--decode", action="store_true",
                    help="only the decode table of KV caches (bench/serving.py): q = 1 to 16, GB/s and %% of HBM")
    ap.add_argument("--paged", action="store_true", help="the decode table with paged caches (pages of 16 and 64)")
    ap.add_argument("--varlen", action="store_true", help="ragged prefill beside dense prefill of the same tokens")
    ap.add_argument("--graphs", action="store_true",
                    help="decode table: time CUDA-graph replays of each call (as serving engines run decode), "
                         "not direct calls, whose host time dominates small batches")
    ap.add_argument("--decode-tiles", action="store_true",
                    help="decode with each forced tile configuration beside the model's (bench/serving.py)")
    ap.add_argument("--backward", action="store_true",
                    help="time the backward instead, against flash's and cuDNN's (bench_backward.py)")
    args = ap.parse_args()
    if args.decode or args.paged or args.varlen or args.decode_tiles:
        import serving
        if args.decode_tiles:
            serving.run_tiles(args, bench)
        if args.varlen:
            serving.run_varlen(args, bench)
        if args.decode or args.paged:
            serving.run(args, bench_interleaved, record_timings)
        return
    if args.backward:
        import bench_backward
        if args.peers == ap.get_default("peers"):
            args.peers = "flash,cudnn"
        return bench_backward.run(args, bench_interleaved, record_timings, flops)
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}, "
          f"cudnn {torch.backends.cudnn.version()}", flush=True)
    end = time.time() + args.budget_s
    peers = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
             ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("math", SDPBackend.MATH)]
    wanted = set(args.peers.split(","))
    peers = [p for p in peers if p[0] in wanted]
    flex = None
    if not args.no_flex:
        try:
            from torch.nn.attention.flex_attention import create_block_mask, flex_attention
            import torch._dynamo as dynamo
            dynamo.config.recompile_limit = 256
            dynamo.config.cache_size_limit = 256
            flex = torch.compile(flex_attention, dynamic=False)
        except Exception as ex:  # noqa: BLE001
            print("flex unavailable:", ex)
    seqs = (1024, 4096, 16384) if args.quick else (512, 1024, 2048, 4096, 8192, 16384)
    head_dims = [int(d) for d in args.head_dims.split(",")]
    shapes = [(16384 // s, 2048 // d, s, s, d, c) for d in head_dims for s in seqs for c in (False, True)]
    if args.decode_only:
        shapes = []
    rows = []
    print(f"{'shape':34s} {'attn':>8s} {'flash':>8s} {'cudnn':>8s} {'effic':>8s} {'math':>8s} {'flex':>8s}"
          f"  {'vs best':>7s} {'vs flash':>8s}  err", flush=True)
    for (b, h, sq, skv, d, causal) in shapes:
        if time.time() > end:
            print("budget reached")
            break
        q = torch.randn(b, h, sq, d, device=dev, dtype=torch.bfloat16)
        k = torch.randn(b, h, skv, d, device=dev, dtype=torch.bfloat16)
        v = torch.randn(b, h, skv, d, device=dev, dtype=torch.bfloat16)
        f = flops(b, h, sq, skv, d, causal)
        row = dict(kind="prefill", b=b, h=h, sq=sq, skv=skv, d=d, causal=causal, tflops={}, ms={})
        backends = {}
        for name, be in peers:
            if name == "math":
                continue  # timed alone below: seconds per call
            backends[name] = (lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                              lambda be=be: sdpa_kernel([be]))
        if flex is not None and sq in (1024, 4096, 16384):
            try:
                bm = None
                if causal:
                    bm = create_block_mask(lambda bb, hh, qi, ki: qi >= ki, None, None, sq, skv, device="cuda")
                backends["flex"] = (lambda bm=bm: flex(q, k, v, block_mask=bm), contextlib.nullcontext)
            except Exception as ex:  # noqa: BLE001
                print(f"  flex failed: {type(ex).__name__}: {str(ex)[:100]}")
        try:
            o, handle = attn.sdpa(q, k, v, is_causal=causal, return_kernel=True)
            row["kernel"] = attn.kernel_info(handle)
            backends["attn"] = (lambda: attn.sdpa(q, k, v, is_causal=causal), contextlib.nullcontext)
        except Exception as ex:  # noqa: BLE001
            print(f"  attn failed: {type(ex).__name__}: {str(ex)[:300]}")
        ms, failed = bench_interleaved(backends, args.iters, args.rounds)
        if "math" in wanted and sq <= 4096:
            try:
                with sdpa_kernel([SDPBackend.MATH]):
                    ms["math"] = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), 10)
            except Exception as ex:  # noqa: BLE001
                failed["math"] = ex
        record_timings(row, ms, failed, "tflops", f / 1e9)
        if "flash" in ms and "attn" in ms:
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal).float()
            row["err_vs_flash"] = ((o.float() - ref).norm() / ref.norm()).item()
        peer_best = max((v for n, v in row["tflops"].items() if n != "attn"), default=None)
        a = row["tflops"].get("attn")
        row["ratio_best"] = a / peer_best if a and peer_best else None
        row["ratio_flash"] = a / row["tflops"]["flash"] if a and "flash" in row["tflops"] else None
        rows.append(row)
        cell = lambda n: f"{row['tflops'][n]:8.1f}" if n in row["tflops"] else f"{'-':>8s}"  # noqa: E731
        shape = f"b={b:2d} h={h:2d} s={sq:5d} d={d:3d} {'causal' if causal else 'full  '}"
        print(f"{shape:34s} {cell('attn')} {cell('flash')} {cell('cudnn')} {cell('efficient')} {cell('math')} "
              f"{cell('flex')}  {row['ratio_best'] or 0:7.2f} {row['ratio_flash'] or 0:8.2f}  "
              f"{row.get('err_vs_flash', float('nan')):.1e}", flush=True)
        del q, k, v
        torch.cuda.empty_cache()

    if not args.no_decode:
        print(f"\n{'decode (GB/s of K/V)':40s} {'attn':>8s} {'flash':>8s} {'cudnn':>8s} {'effic':>8s}  vs best")
        for skv in (4096, 16384, 65536):
            for sq in (1, 4, 16):
                if time.time() > end:
                    break
                b, hq, hk, d = 16, 32, 8, 128
                q = torch.randn(b, hq, sq, d, device=dev, dtype=torch.bfloat16)
                k = torch.randn(b, hk, skv, d, device=dev, dtype=torch.bfloat16)
                v = torch.randn(b, hk, skv, d, device=dev, dtype=torch.bfloat16)
                nbytes = (k.numel() + v.numel()) * 2
                row = dict(kind="decode", b=b, hq=hq, hk=hk, sq=sq, skv=skv, d=d, gbps={}, ms={})
                for name, be in peers[:3]:
                    try:
                        with sdpa_kernel([be]):
                            kk, vv = k, v
                            if name != "flash":  # only flash takes GQA without expanding
                                kk = k.repeat_interleave(hq // hk, dim=1)
                                vv = v.repeat_interleave(hq // hk, dim=1)
                            fn = lambda: F.scaled_dot_product_attention(  # noqa: E731
                                q, kk, vv, enable_gqa=(name == "flash"))
                            fn()
                            ms = bench(fn, args.iters)
                        row["ms"][name] = ms
                        row["gbps"][name] = nbytes / ms / 1e6
                    except Exception as ex:  # noqa: BLE001
                        print(f"  {name} failed: {type(ex).__name__}: {str(ex)[:100]}")
                try:
                    fn = lambda: attn.sdpa(q, k, v, enable_gqa=True)  # noqa: E731
                    fn()
                    ms = bench(fn, args.iters)
                    row["ms"]["attn"] = ms
                    row["gbps"]["attn"] = nbytes / ms / 1e6
                except Exception as ex:  # noqa: BLE001
                    print(f"  attn failed: {type(ex).__name__}: {str(ex)[:200]}")
                best = max((v for n, v in row["gbps"].items() if n != "attn"), default=None)
                row["ratio_best"] = row["gbps"]["attn"] / best if best and "attn" in row["gbps"] else None
                rows.append(row)
                cell = lambda n: f"{row['gbps'][n]:8.0f}" if n in row["gbps"] else f"{'-':>8s}"  # noqa: E731
                print(f"b={b} hq={hq} hk={hk} sq={sq:2d} skv={skv:6d}            {cell('attn')} {cell('flash')} "
                      f"{cell('cudnn')} {cell('efficient')}  {row['ratio_best'] or 0:6.2f}", flush=True)
                del q, k, v
                torch.cuda.empty_cache()

    ratios = [r["ratio_best"] for r in rows if r.get("ratio_best")]
    flash_ratios = [r["ratio_flash"] for r in rows if r.get("ratio_flash")]
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")
    gmf = math.exp(sum(map(math.log, flash_ratios)) / len(flash_ratios)) if flash_ratios else float("nan")
    print(f"\ngeometric mean of attn / best peer: {gm:.3f} over {len(ratios)} shapes; "
          f"attn / flash (prefill): {gmf:.3f}; attn slower than flash on "
          f"{sum(1 for r in flash_ratios if r < 1)} of {len(flash_ratios)} prefill shapes")
    os.makedirs(args.out, exist_ok=True)
    meta = dict(device=props.name, torch=torch.__version__, date=time.strftime("%Y-%m-%d"),
                geomean_vs_best=gm, geomean_vs_flash=gmf)
    with open(os.path.join(args.out, "bench.json"), "w") as fh:
        json.dump(dict(meta=meta, rows=rows), fh, indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        for d in (64, 128) if shapes else ():
            fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
            for ax, causal in zip(axes, (False, True)):
                sel = [r for r in rows if r["kind"] == "prefill" and r["d"] == d and r["causal"] == causal]
                for name in ("attn", "flash", "cudnn", "efficient", "flex"):
                    pts = [(r["sq"], r["tflops"][name]) for r in sel if name in r["tflops"]]
                    if pts:
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name,
                                linewidth=2.5 if name == "attn" else 1.2)
                ax.set_xscale("log", base=2)
                ax.set_xlabel("sequence length (batch x seq = 16k)")
                ax.set_ylabel("TFLOP/s")
                ax.set_title(f"bf16 d={d} {'causal' if causal else 'non-causal'}")
                ax.grid(alpha=0.3)
                ax.legend()
            fig.suptitle(f"attn vs PyTorch SDPA backends, {props.name}, {meta['date']}")
            fig.tight_layout()
            fig.savefig(os.path.join(args.out, f"bench_d{d}.png"), dpi=100)
    except Exception as ex:  # noqa: BLE001
        print("no chart:", ex)


if __name__ == "__main__":
    main()
