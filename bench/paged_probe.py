# Step 60's A/B: GB/s of K/V read by attn.with_kvcache in CUDA-graph replay,
# dense and paged (pages of 16 and 64 keys), for the library in
# ATTN_LIBRARY; with "sm90ws" among the arguments also paged with the TMA
# kernel forced (step 60 serves it; main refuses it). One line per case:
#   TAG rows... GB/s (% of 4.8 TB/s) kernel
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import attn  # noqa: E402
from bench import bench  # noqa: E402
from serving import replayed  # noqa: E402

dev = torch.device("cuda")
tag = sys.argv[1]
force = "sm90ws" in sys.argv[2:]


def timed(fn):
    """Median ms of fn's CUDA-graph replays (bench/serving.py's capture)."""
    return bench(replayed(fn, "attn"), iters=30)


# (hq, hkv, d, b, L, query tokens): issue 14's paged rows that lag dense.
CASES = [(64, 8, 128, 32, 32768, (1, 16)), (32, 8, 128, 32, 32768, (1, 16)),
         (32, 8, 256, 32, 32768, (1, 16)), (32, 8, 128, 8, 4096, (1, 4))]
for hq, hkv, d, b, length, tokens in CASES:
    k = torch.randn(b, length, hkv, d, device=dev, dtype=torch.bfloat16)
    v = torch.randn_like(k)
    lengths = torch.full((b,), length, dtype=torch.int32, device=dev)
    nbytes = 2 * b * length * hkv * d * 2
    layouts = [("dense", k, v, None, "")]
    for page in (16, 64):
        pages = b * length // page
        # Pages in a shuffled order, as an engine's allocator leaves them.
        order = torch.randperm(pages, device=dev)
        kp = torch.empty(pages, page, hkv, d, device=dev, dtype=torch.bfloat16)
        vp = torch.empty_like(kp)
        kp[order] = k.reshape(pages, page, hkv, d)
        vp[order] = v.reshape(pages, page, hkv, d)
        table = order.view(b, length // page).to(torch.int32)
        layouts.append((f"page{page}", kp, vp, table, ""))
        if force:
            layouts.append((f"page{page}-ws", kp, vp, table, "sm90ws"))
    for sq in tokens:
        q = torch.randn(b, sq, hq, d, device=dev, dtype=torch.bfloat16)
        reference = None
        for name, kc, vc, table, variant in layouts:
            def call():
                return attn.with_kvcache(q, kc, vc, lengths, block_table=table, causal=True, variant=variant)
            try:
                out, handle = attn.with_kvcache(q, kc, vc, lengths, block_table=table, causal=True,
                                                variant=variant, return_kernel=True)
            except Exception as ex:  # noqa: BLE001
                print(f"{tag} hq={hq} d={d} b={b} L={length} q={sq} {name}: {type(ex).__name__}: {str(ex)[:160]}")
                continue
            if reference is None:
                reference = out.float()
            err = (out.float() - reference).norm() / reference.norm()
            ms = timed(call)
            print(f"{tag} hq={hq} d={d} b={b} L={length} q={sq} {name:10s} {nbytes / ms / 1e6:6.0f} GB/s "
                  f"({100 * nbytes / ms / 1e6 / 4800:3.0f}%) vs-dense {err:.1e} {attn.kernel_info(handle)['name']}",
                  flush=True)
    del k, v, layouts
    torch.cuda.empty_cache()
