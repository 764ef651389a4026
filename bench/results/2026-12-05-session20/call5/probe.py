# Decode regression probe: GB/s of K/V for with_kvcache (graph replay),
# the model's kernel and forced split counts, for the library in ATTN_LIBRARY.
import os, sys, torch, attn
dev = torch.device("cuda")
def timed(fn, iters=30):
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    for _ in range(5): g.replay()
    ts = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); g.replay(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return ts[len(ts) // 2]
tag = sys.argv[1]
for b, L, qs in ((8, 32768, (1, 2, 16)), (32, 32768, (2,))):
    hq, hkv, d = 32, 8, 128
    k = torch.randn(b, L, hkv, d, device=dev, dtype=torch.bfloat16); v = torch.randn_like(k)
    lengths = torch.full((b,), L, dtype=torch.int32, device=dev)
    nbytes = 2 * b * L * hkv * d * 2
    for sq in qs:
        q = torch.randn(b, sq, hq, d, device=dev, dtype=torch.bfloat16)
        _, h = attn.with_kvcache(q, k, v, lengths, causal=True, return_kernel=True)
        name = attn.kernel_info(h)["name"]
        for splits in ((0, 1, 2, 4, 8, 16) if (b, sq) == (8, 2) else (0,)):
            ms = timed(lambda: attn.with_kvcache(q, k, v, lengths, causal=True, num_splits=splits))
            print(f"{tag} b={b} L={L} q={sq} splits={splits}: {nbytes / ms / 1e6:6.0f} GB/s ({100 * nbytes / ms / 1e6 / 4800:3.0f}%) {name}", flush=True)
    del k, v; torch.cuda.empty_cache()
