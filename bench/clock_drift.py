"""How the H200's clock moves under sustained work (bench/NOTES.md step 27):
times attn and cuDNN alternately, round after round, on a few prefill
shapes, so that a drift shows as both falling together; --once runs attn
once (for ncu, to compare the kernel's duration with attn-run's).

    PYTHONPATH=python python3 bench/clock_drift.py [--once]
"""
import os, sys, time
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attn
from bench import bench, flops

shapes = [(4, 16, 4096, 128, False), (2, 16, 8192, 128, False), (4, 32, 4096, 64, False),
          (4, 16, 4096, 128, True), (16, 16, 1024, 128, False)]
once = "--once" in sys.argv
for b, h, s, d, causal in shapes[:1] if once else shapes:
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    if once:
        attn.sdpa(q, k, v, is_causal=causal); torch.cuda.synchronize(); break
    f = flops(b, h, s, s, d, causal)
    o, handle = attn.sdpa(q, k, v, is_causal=causal, return_kernel=True)
    print(b, h, s, d, causal, attn.kernel_info(handle), flush=True)
    for r in range(3):
        a = bench(lambda: attn.sdpa(q, k, v, is_causal=causal), 30)
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            c = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), 30)
        a2 = bench(lambda: attn.sdpa(q, k, v, is_causal=causal), 100)
        print(f"  round {r}: attn {f/a/1e9:6.1f}  cudnn {f/c/1e9:6.1f}  attn(100 iters) {f/a2/1e9:6.1f}", flush=True)
