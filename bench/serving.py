"""The serving tables of bench/bench.py: --decode / --paged, attn's decode of
1 to 16 query tokens over KV caches, in GB/s of K/V read and % of the
H200's 4.8 TB/s, beside PyTorch's SDPA backends; --varlen, ragged prefill
beside dense prefill of the same tokens (run_varlen).

Each row is one decode step of a batch of B sequences of L cached keys:
attn.with_kvcache with causal=True (query i of Sq sees keys up to
L - Sq + i) on a dense cache (B, L, Hkv, D), and with --paged on the same
bytes as a paged cache of pages of 16 and 64 keys whose block table is a
random permutation of the pages. The SDPA backends run the same q, k, v
without a mask (memory-bound either way; torch has no bottom-right causal
decode mask): flash with GQA, cudnn and efficient on K/V expanded to the
query heads where that fits in memory (the bytes counted are the cache's,
what a kernel that reads K/V once reads). A row's backends take turns for
--rounds rounds of --iters calls, in an order that rotates every round
(bench.py's bench_interleaved): timed one after another, each row's first
backend ran cool and the later ones after seconds of the others' work,
which cost attn's q >= 2 rows 10 points of HBM (bench/NOTES.md session
20). Writes bench-decode.json to --out.
"""

import contextlib
import json
import os
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import attn

HBM_GBS = 4800.0


def grid(quick):
    """(hq, hkv, d, b, L) cases; every one runs q = 1, 2, 4, 8, 16."""
    cases = [(32, 8, 128, b, L) for b in ((8, 64) if quick else (8, 32, 128))
             for L in ((4096, 32768) if quick else (4096, 32768, 131072))]
    cases += [(64, 8, 128, 32, 32768), (32, 8, 64, 32, 32768), (32, 8, 256, 32, 32768)]
    if not quick:
        cases += [(64, 8, 128, 8, 131072)]
    return cases


def replayed(fn, name):
    """fn captured in a CUDA graph and replayed (--graphs), as serving
    engines run decode steps: the table then shows the GPU's time, not
    the host's, which dominates the small rows (B=8 at 4k keys: about 30
    us of K/V). Warmed up on a side stream first, as torch's capture asks;
    a backend that cannot be captured is timed by direct calls, said so."""
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            fn()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        return graph.replay
    except Exception as ex:  # noqa: BLE001
        print(f"  {name}: no CUDA graph ({type(ex).__name__}: {str(ex)[:120]}); direct calls")
        torch.cuda.synchronize()
        return fn


def run(args, interleaved, record):
    """The decode table; interleaved and record are bench.py's
    bench_interleaved and record_timings."""
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}", flush=True)
    end = time.time() + args.budget_s
    pages = (16, 64) if args.paged else ()
    names = ["attn"] + [f"paged{p}" for p in pages] + ["flash", "cudnn", "efficient"]
    title = "decode: GB/s of K/V (% of 4.8 TB/s)" + (", CUDA graphs" if args.graphs else "")
    print(f"\n{title:44s}" + "".join(f"{n:>14s}" for n in names), flush=True)
    rows = []
    free = torch.cuda.mem_get_info()[0]
    for hq, hkv, d, b, length in grid(args.quick):
        cache_bytes = 2 * b * length * hkv * d * 2
        if cache_bytes > 0.45 * free:
            print(f"hq={hq} hkv={hkv} d={d} b={b} L={length}: {cache_bytes / 1e9:.0f} GB of K/V does not fit")
            continue
        k_cache = torch.randn(b, length, hkv, d, device=dev, dtype=torch.bfloat16)
        v_cache = torch.randn(b, length, hkv, d, device=dev, dtype=torch.bfloat16)
        lengths = torch.full((b,), length, dtype=torch.int32, device=dev)
        for sq in (1, 2, 4, 8, 16):
            if time.time() > end:
                print("budget reached")
                break
            q = torch.randn(b, sq, hq, d, device=dev, dtype=torch.bfloat16)
            row = dict(kind="decode", b=b, hq=hq, hkv=hkv, d=d, sq=sq, L=length, gbps={}, ms={})

            backends = {}

            def add(name, fn, context=contextlib.nullcontext):
                # First calls (compiles) and the capture run under the
                # backend's context, as do the timed calls.
                try:
                    with context():
                        fn()
                        if args.graphs:
                            fn = replayed(fn, name)
                    backends[name] = (fn, context)
                except Exception as ex:  # noqa: BLE001
                    print(f"  {name} failed: {type(ex).__name__}: {str(ex)[:160]}")

            add("attn", lambda: attn.with_kvcache(q, k_cache, v_cache, lengths, causal=True))
            paged_caches = []
            for page in pages:
                # The same bytes as pages, visited in a random order.
                k_pages = k_cache.view(-1, page, hkv, d)
                v_pages = v_cache.view(-1, page, hkv, d)
                table = torch.randperm(k_pages.shape[0], device=dev).int().view(b, -1)
                paged_caches.append((k_pages, v_pages, table))
                add(f"paged{page}", lambda kp=k_pages, vp=v_pages, t=table: attn.with_kvcache(
                    q, kp, vp, lengths, block_table=t, causal=True))
            qt, kt, vt = q.transpose(1, 2), k_cache.transpose(1, 2), v_cache.transpose(1, 2)
            add("flash", lambda: F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True),
                lambda: sdpa_kernel([SDPBackend.FLASH_ATTENTION]))
            expanded = None
            if cache_bytes * hq // hkv < 0.3 * free:
                expanded = (kt.repeat_interleave(hq // hkv, dim=1), vt.repeat_interleave(hq // hkv, dim=1))
                for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                      ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
                    add(name, lambda ke=expanded[0], ve=expanded[1]: F.scaled_dot_product_attention(qt, ke, ve),
                        lambda backend=backend: sdpa_kernel([backend]))
            medians, failed = interleaved(backends, args.iters, args.rounds)
            record(row, medians, failed, "gbps", cache_bytes / 1e6)
            del backends, expanded, paged_caches
            rows.append(row)
            cells = "".join(f"{row['gbps'][n]:8.0f} ({100 * row['gbps'][n] / HBM_GBS:3.0f}%)" if n in row["gbps"]
                            else f"{'-':>14s}" for n in names)
            print(f"hq={hq:2d} hkv={hkv} d={d:3d} b={b:3d} L={length:6d} q={sq:2d}  {cells}", flush=True)
        del k_cache, v_cache
        torch.cuda.empty_cache()
    os.makedirs(args.out, exist_ok=True)
    meta = dict(device=props.name, torch=torch.__version__, date=time.strftime("%Y-%m-%d"), hbm_gbs=HBM_GBS,
                timing="cuda-graph replays" if args.graphs else "direct calls",
                rounds=args.rounds, order="rotating every round")
    with open(os.path.join(args.out, "bench-decode.json"), "w") as fh:
        json.dump(dict(meta=meta, rows=rows), fh, indent=1)


def tile_grid():
    """(hq, hkv, d, b, L) cases of the decode tile sweep (the rows of the
    decode table that miss 85%) and the (variant, block_m, block_n,
    num_warps, stages) each runs beside the model's choice (all zeros)."""
    cases = [(32, 8, 256, 32, 32768), (64, 8, 128, 32, 32768), (64, 8, 128, 8, 131072),
             (32, 8, 128, 8, 4096)]
    tiles = {
        128: [("sm90", 64, 64, 4, 2), ("sm90", 64, 64, 4, 3), ("sm90", 64, 128, 4, 3),
              ("sm90", 128, 128, 8, 2), ("sm90", 128, 128, 8, 3), ("sm90", 128, 64, 8, 4),
              ("sm80", 64, 32, 4, 2), ("sm90ws", 128, 128, 12, 2), ("sm90ws", 128, 176, 12, 2),
              ("sm90ws", 128, 96, 12, 3)],
        256: [("sm90", 64, 64, 4, 2), ("sm90", 64, 64, 4, 3), ("sm90", 128, 64, 8, 2),
              ("sm80", 64, 32, 4, 2), ("sm80", 64, 64, 4, 2), ("sm90ws", 128, 80, 12, 2)],
    }
    return cases, tiles


def run_tiles(args, bench):
    """--decode-tiles: GB/s of K/V for each forced tile configuration of
    tile_grid() at q = 1 and 16, dense and paged (pages of 16), beside the
    model's choice: what the decode cost model (SelectConfig.cpp,
    modelDecodeThroughput) should pick. Writes bench-decode-tiles.json."""
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}", flush=True)
    end = time.time() + args.budget_s
    cases, tiles = tile_grid()
    rows = []
    print(f"\n{'decode tiles: GB/s of K/V (% of 4.8 TB/s)':60s}{'dense':>14s}{'paged16':>14s}", flush=True)
    for hq, hkv, d, b, length in cases:
        k_cache = torch.randn(b, length, hkv, d, device=dev, dtype=torch.bfloat16)
        v_cache = torch.randn(b, length, hkv, d, device=dev, dtype=torch.bfloat16)
        k_pages, v_pages = k_cache.view(-1, 16, hkv, d), v_cache.view(-1, 16, hkv, d)
        table = torch.randperm(k_pages.shape[0], device=dev).int().view(b, -1)
        lengths = torch.full((b,), length, dtype=torch.int32, device=dev)
        cache_bytes = 2 * b * length * hkv * d * 2
        for sq in (1, 16):
            q = torch.randn(b, sq, hq, d, device=dev, dtype=torch.bfloat16)
            for variant, bm, bn, warps, stages in [("", 0, 0, 0, 0)] + tiles[d]:
                if time.time() > end:
                    print("budget reached")
                    break
                force = dict(variant=variant, block_m=bm, block_n=bn, num_warps=warps, stages=stages)
                name = f"{variant} {bm}x{bn}w{warps}s{stages}" if variant else "model"
                row = dict(kind="decode-tiles", b=b, hq=hq, hkv=hkv, d=d, sq=sq, L=length, tiles=name, gbps={})
                for label, kc, vc, extra in (("dense", k_cache, v_cache, {}),
                                             ("paged16", k_pages, v_pages, dict(block_table=table))):
                    fn = lambda: attn.with_kvcache(q, kc, vc, lengths, causal=True, **extra, **force)  # noqa: E731
                    try:
                        fn()
                        row["gbps"][label] = cache_bytes / bench(fn, args.iters) / 1e6
                    except Exception as ex:  # noqa: BLE001
                        print(f"  {name} {label} failed: {type(ex).__name__}: {str(ex)[:160]}")
                if name == "model":
                    try:
                        _, handle = attn.with_kvcache(q, k_cache, v_cache, lengths, causal=True, return_kernel=True)
                        info = attn.kernel_info(handle)
                        name = f"model {info['variant']} {info['name'].rsplit('_', 1)[-1]}"
                        row["tiles"] = name
                    except Exception:  # noqa: BLE001
                        pass
                rows.append(row)
                cells = "".join(f"{row['gbps'][n]:8.0f} ({100 * row['gbps'][n] / HBM_GBS:3.0f}%)" if n in row["gbps"]
                                else f"{'-':>14s}" for n in ("dense", "paged16"))
                print(f"hq={hq:2d} d={d:3d} b={b:3d} L={length:6d} q={sq:2d} {name:24s}{cells}", flush=True)
        del k_cache, v_cache, k_pages, v_pages
        torch.cuda.empty_cache()
    os.makedirs(args.out, exist_ok=True)
    meta = dict(device=props.name, torch=torch.__version__, date=time.strftime("%Y-%m-%d"), hbm_gbs=HBM_GBS)
    with open(os.path.join(args.out, "bench-decode-tiles.json"), "w") as fh:
        json.dump(dict(meta=meta, rows=rows), fh, indent=1)


def run_varlen(args, bench):
    """Ragged prefill beside dense prefill of the same tokens: 16384 tokens
    as B prompts of random lengths (attn.varlen, causal, GQA 32/8, head dim
    128) and as B prompts of equal lengths (attn.sdpa, bottom-right causal;
    torch's flash backend beside it), in TFLOP/s of the causal work each
    does. Writes bench-varlen.json to --out."""
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name}, torch {torch.__version__}", flush=True)
    gen = torch.Generator().manual_seed(0)
    hq, hkv, d, total = 32, 8, 128, 16384
    rows = []
    print(f"\n{'prefill of 16384 tokens (TFLOP/s)':40s} {'varlen':>8s} {'dense':>8s} {'flash':>8s}", flush=True)
    for b in (1, 4, 16, 64):
        cuts = sorted(torch.randint(1, total, (b - 1,), generator=gen).tolist())
        lengths = [e - s for s, e in zip([0] + cuts, cuts + [total])]
        cu = torch.tensor([0] + cuts + [total], dtype=torch.int32, device=dev)
        q = torch.randn(total, hq, d, device=dev, dtype=torch.bfloat16)
        k = torch.randn(total, hkv, d, device=dev, dtype=torch.bfloat16)
        v = torch.randn_like(k)
        work = sum(2.0 * 2 * hq * n * n * d / 2 for n in lengths)  # causal
        row = dict(kind="varlen-prefill", b=b, lengths=lengths, tflops={})
        fn = lambda: attn.varlen(q, k, v, cu, cu, max(lengths), max(lengths), causal=True)  # noqa: E731
        fn()
        row["tflops"]["varlen"] = work / bench(fn, args.iters) / 1e9
        # The same tokens as b equal prompts.
        n = total // b
        qd = q[:b * n].view(b, n, hq, d).transpose(1, 2)
        kd = k[:b * n].view(b, n, hkv, d).transpose(1, 2)
        vd = v[:b * n].view(b, n, hkv, d).transpose(1, 2)
        dense_work = 2.0 * 2 * b * hq * n * n * d / 2
        fn = lambda: attn.sdpa(qd, kd, vd, is_causal=True, enable_gqa=True)  # noqa: E731
        fn()
        row["tflops"]["dense"] = dense_work / bench(fn, args.iters) / 1e9
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            fn = lambda: F.scaled_dot_product_attention(qd, kd, vd, is_causal=True, enable_gqa=True)  # noqa: E731
            fn()
            row["tflops"]["flash"] = dense_work / bench(fn, args.iters) / 1e9
        rows.append(row)
        print(f"b={b:3d} (longest {max(lengths):5d})                    "
              + "".join(f"{row['tflops'][n]:8.0f} " for n in ("varlen", "dense", "flash")), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench-varlen.json"), "w") as fh:
        json.dump(dict(meta=dict(device=props.name, torch=torch.__version__, date=time.strftime("%Y-%m-%d")),
                       rows=rows), fh, indent=1)
