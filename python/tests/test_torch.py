"""attn.sdpa as a PyTorch model relies on it: every tensor argument checked
(device, dtype, shape), launches on the tensors' device, CUDA graph capture
and replay, torch.compile (fullgraph, reduce-overhead) and torch.export
through torch.ops.attn.sdpa (its backward: test_backward.py). Skipped
without CUDA.

    PYTHONPATH=python ATTN_LIBRARY=build/lib/libattn_c.so.6 python3 -m pytest python/tests
"""

import ctypes
import logging
import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import attn  # noqa: E402
from test_sdpa import rand, reference, rel  # noqa: E402


def causal(n, device="cuda"):
    return torch.ones(n, n, dtype=torch.bool, device=device).tril()


# ----------------------------------------------------------------------------
# Devices and arguments.

def test_a_cpu_mask_is_an_error_not_a_launch():
    q, k, v = rand(1, 2, 16, 64), rand(1, 2, 16, 64), rand(1, 2, 16, 64)
    with pytest.raises(attn.AttnError, match=r"attn_mask is on cpu but query is on cuda:0"):
        attn.sdpa(q, k, v, attn_mask=causal(16, device="cpu"))
    # Nothing was launched: the process still works.
    out = attn.sdpa(q, k, v, attn_mask=causal(16))
    torch.cuda.synchronize()
    assert rel(out, reference(q, k, v, causal(16))) < 1e-2


@pytest.mark.parametrize("case, match", [
    ("lengths_cpu", r"lengths is on cpu"),
    ("lengths_int64", r"lengths must be int32; got torch.int64"),
    ("lengths_shape", r"lengths must have shape \(2,\)"),
    ("mask_shape", r"attn_mask of shape \(3, 16, 16\) does not broadcast"),
    ("mask_dtype", r"attn_mask must be bool .* got torch.int32"),
    ("key_dtype", r"must all be float16 or all bfloat16"),
    ("key_rank", r"key must be 4-d"),
    ("value_keys", r"value has 2 heads and 8 keys, key 2 and 16"),
    ("key_device", r"key is on cpu but query is on cuda:0"),
    ("query_cpu", r"query is on cpu; attn runs on CUDA tensors"),
])
def test_every_tensor_argument_is_checked_by_name(case, match):
    q, k, v = rand(2, 2, 16, 64), rand(2, 2, 16, 64), rand(2, 2, 16, 64)
    kwargs = {}
    if case == "lengths_cpu":
        kwargs["lengths"] = torch.tensor([5, 9], dtype=torch.int32)
    elif case == "lengths_int64":
        kwargs["lengths"] = torch.tensor([5, 9], device="cuda")
    elif case == "lengths_shape":
        kwargs["lengths"] = torch.tensor([5, 9, 3], dtype=torch.int32, device="cuda")
    elif case == "mask_shape":
        kwargs["attn_mask"] = torch.ones(3, 16, 16, dtype=torch.bool, device="cuda")
    elif case == "mask_dtype":
        kwargs["attn_mask"] = torch.ones(16, 16, dtype=torch.int32, device="cuda")
    elif case == "key_dtype":
        k = k.half()
    elif case == "key_rank":
        k = k[0]
    elif case == "value_keys":
        v = v[:, :, :8]
    elif case == "key_device":
        k = k.cpu()
    elif case == "query_cpu":
        q = q.cpu()
    with pytest.raises(attn.AttnError, match=match):
        attn.sdpa(q, k, v, **kwargs)


def current_driver_context():
    libcuda = ctypes.CDLL("libcuda.so.1")
    context = ctypes.c_void_p()
    assert libcuda.cuCtxGetCurrent(ctypes.byref(context)) == 0
    return context.value


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_tensors_on_the_second_gpu():
    torch.cuda.set_device(0)
    q, k, v = (torch.randn(2, 4, 200, 64, device="cuda:1", dtype=torch.bfloat16) for _ in range(3))
    mask = causal(200, device="cuda:1")
    before = current_driver_context()
    out = attn.sdpa(q, k, v, attn_mask=mask)
    decode = attn.sdpa(q[:, :, -1:], k, v)  # split-KV: the workspace on cuda:1 too
    assert out.device == torch.device("cuda:1")
    # The caller's device and driver context are what they were.
    assert torch.cuda.current_device() == 0
    assert current_driver_context() == before
    torch.cuda.synchronize(1)
    assert rel(out, reference(q, k, v, mask)) < 1e-2
    assert rel(decode, reference(q[:, :, -1:], k, v)) < 1e-2
    with pytest.raises(attn.AttnError, match=r"key is on cuda:0 but query is on cuda:1"):
        attn.sdpa(q, k.to("cuda:0"), v)


def test_expandable_segments_memory_passes_the_pointer_checks():
    # PyTorch's expandable segments map memory with the driver's virtual
    # memory API; the launch's pointer checks must accept it.
    script = textwrap.dedent("""
        import torch, attn
        from test_sdpa import rand, reference, rel
        q, k, v = rand(2, 4, 300, 64), rand(2, 4, 300, 64), rand(2, 4, 300, 64)
        out = attn.sdpa(q, k, v)
        d = attn.sdpa(q[:, :, :1], k, v)
        torch.cuda.synchronize()
        assert rel(out, reference(q, k, v)) < 1e-2 and rel(d, reference(q[:, :, :1], k, v)) < 1e-2
        print("ok")
    """)
    env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True")
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr


# ----------------------------------------------------------------------------
# CUDA graphs.

def capture(fn):
    """Runs fn once on a side stream (as torch recommends before capturing),
    then captures it; returns (graph, output)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return graph, out


def refill(*tensors):
    for t in tensors:
        t.copy_(torch.randn_like(t))


@pytest.mark.parametrize("num_splits", [0, 4])
def test_decode_split_kv_replays_in_a_cuda_graph(num_splits):
    q, k, v = rand(2, 8, 1, 128), rand(2, 2, 1000, 128), rand(2, 2, 1000, 128)
    call = lambda: attn.sdpa(q, k, v, enable_gqa=True, num_splits=num_splits)  # noqa: E731
    info = attn.precompile(q, k, v, enable_gqa=True)
    assert info["name"].startswith("attn_fwd_")
    graph, out = capture(call)
    for _ in range(3):
        refill(q, k, v)
        graph.replay()
        eager = call()
        torch.cuda.synchronize()
        assert torch.equal(out, eager)
        assert rel(out, reference(q, k, v)) < 1e-2


def test_prefill_replays_in_a_cuda_graph():
    q, k, v = rand(2, 4, 300, 64), rand(2, 4, 300, 64), rand(2, 4, 300, 64)
    call = lambda: attn.sdpa(q, k, v, is_causal=True)  # noqa: E731
    graph, out = capture(call)
    for _ in range(2):
        refill(q, k, v)
        graph.replay()
        eager = call()
        torch.cuda.synchronize()
        assert torch.equal(out, eager)
        assert rel(out, reference(q, k, v, causal(300))) < 1e-2


def test_two_graphs_with_different_workspaces_both_replay():
    # The second capture needs a larger workspace; each graph's pool owns
    # its own, so replaying the first still reads what it wrote.
    q, k, v = rand(4, 8, 1, 128), rand(4, 2, 2048, 128), rand(4, 2, 2048, 128)
    calls = [lambda splits=splits: attn.sdpa(q, k, v, enable_gqa=True, num_splits=splits) for splits in (2, 16)]
    graphs = [capture(call) for call in calls]
    for _ in range(2):
        refill(q, k, v)
        for (graph, out), call in zip(graphs, calls):
            graph.replay()
            eager = call()
            torch.cuda.synchronize()
            assert torch.equal(out, eager)
            assert rel(out, reference(q, k, v)) < 1e-2


def test_a_capture_that_would_compile_says_so():
    q, k, v = rand(1, 2, 64, 64), rand(1, 2, 64, 64), rand(1, 2, 64, 64)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(attn.AttnError, match=r"compiled while a CUDA graph is being captured.*attn\.precompile"):
        with torch.cuda.graph(graph):
            attn.sdpa(q, k, v, scale=0.3125)  # a specialization not compiled yet
    # After precompile the same call captures.
    attn.precompile(q, k, v, scale=0.3125)
    graph, out = capture(lambda: attn.sdpa(q, k, v, scale=0.3125))
    graph.replay()
    torch.cuda.synchronize()
    assert rel(out, reference(q, k, v, scale=0.3125)) < 1e-2


# ----------------------------------------------------------------------------
# torch.compile, torch.export, the registered operator.

def softcapped(q, k, v):
    return attn.sdpa(q, k, v, is_causal=True, score_mod=attn.softcap(30.0)) * 2


def test_compile_fullgraph_traces_the_op():
    torch._dynamo.reset()
    q, k, v = rand(2, 4, 128, 64), rand(2, 4, 128, 64), rand(2, 4, 128, 64)
    compiled = torch.compile(softcapped, fullgraph=True)
    assert torch.equal(compiled(q, k, v), softcapped(q, k, v))
    # Another sequence length: the same compiled function, right results.
    q2, k2, v2 = rand(2, 4, 77, 64), rand(2, 4, 77, 64), rand(2, 4, 77, 64)
    assert torch.equal(compiled(q2, k2, v2), softcapped(q2, k2, v2))


def test_compile_default_mode():
    # This failed with "'torch.Stream' object has no attribute 'cuda_stream'".
    torch._dynamo.reset()
    q, k, v = rand(1, 4, 64, 64), rand(1, 4, 64, 64), rand(1, 4, 64, 64)
    compiled = torch.compile(lambda q, k, v: attn.sdpa(q.float().to(q.dtype), k, v) + 1)
    assert torch.equal(compiled(q, k, v), attn.sdpa(q, k, v) + 1)


def test_compile_reduce_overhead_captures_decode():
    torch._dynamo.reset()
    q, k, v = rand(2, 8, 1, 128), rand(2, 2, 1000, 128), rand(2, 2, 1000, 128)

    def step(q, k, v):
        return attn.sdpa(q, k, v, enable_gqa=True) * 0.5

    from torch._dynamo.utils import counters
    counters.clear()
    compiled = torch.compile(step, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):  # warm-up runs, then recorded CUDA graph replays
        refill(q, k, v)
        out = compiled(q, k, v).clone()
        torch.cuda.synchronize()
        assert torch.equal(out, step(q, k, v))
    assert not counters["inductor"]["cudagraph_skips"], dict(counters["inductor"])


def test_export_traces_the_op():
    class Attention(torch.nn.Module):
        def forward(self, q, k, v):
            return attn.sdpa(q, k, v, is_causal=True, window=(32, 0), score_mod=attn.softcap(20.0))

    q, k, v = rand(1, 2, 96, 64), rand(1, 2, 96, 64), rand(1, 2, 96, 64)
    exported = torch.export.export(Attention(), (q, k, v))
    targets = [node.target for node in exported.graph.nodes]
    assert torch.ops.attn.sdpa.default in targets
    assert torch.equal(exported.module()(q, k, v), Attention()(q, k, v))


def test_op_schema_and_fake_implementation():
    q, k, v = rand(2, 8, 40, 64), rand(2, 2, 50, 64), rand(2, 2, 50, 32)
    mask = torch.rand(40, 50, device="cuda") > 0.2
    args = (q, k, v, mask)
    kwargs = {"enable_gqa": True, "return_lse": True, "score_mod": attn.softcap(10.0)}
    torch.library.opcheck(torch.ops.attn.sdpa.default, args, kwargs, test_utils=("test_schema", "test_faketensor"))
    out, lse = torch.ops.attn.sdpa(*args, **kwargs)
    assert out.shape == (2, 8, 40, 32) and lse.shape == (2, 8, 40)
    # Without return_lse the second output is empty.
    assert torch.ops.attn.sdpa(q, k, v, enable_gqa=True)[1].numel() == 0


# ----------------------------------------------------------------------------
# Visible compiles, errors in the user's terms.

def test_compiles_are_logged_to_the_attn_logger(caplog):
    q, k, v = rand(1, 2, 32, 64), rand(1, 2, 32, 64), rand(1, 2, 32, 64)
    with caplog.at_level(logging.INFO, logger="attn"):
        attn.sdpa(q, k, v, scale=0.271)  # a new specialization
    messages = [r.getMessage() for r in caplog.records if r.name == "attn"]
    assert any(m.startswith("built attn_fwd_bf16_hd64") and " ms (cache: " in m for m in messages), messages


def test_a_bad_score_mod_is_reported_as_the_score_mod_argument():
    q, k, v = rand(1, 2, 32, 64), rand(1, 2, 32, 64), rand(1, 2, 32, 64)
    bad = "%c = arith.constant 2.0 : f32\n%y = arith.mulf %score, %cc : f32\nattn.yield %y : f32"
    with pytest.raises(attn.AttnError, match=r"the score_mod argument does not compile: line 2, column \d+: "
                                             r"use of undeclared SSA value name\n    %y = arith.mulf %score, %cc"):
        attn.sdpa(q, k, v, score_mod=bad)
    with pytest.raises(attn.AttnError, match=r"attn\.sdpa\(query \(1, 1, 16, 320\) bfloat16 on cuda:0.*\): "
                                             r"head dim 320 of q/k exceeds the largest supported, 256"):
        big = rand(1, 1, 16, 320)
        attn.sdpa(big, big, big)


def test_version_is_the_librarys():
    assert attn.__version__ == attn.library().attn_version().decode()
    assert attn.library().attn_abi_version() == attn._ABI_VERSION


def test_launch_errors_name_the_argument():
    # A key whose rows are not 8-element aligned: the launch's stride rule.
    k = rand(1, 2, 64, 68)[..., :64]
    q, v = rand(1, 2, 64, 64), rand(1, 2, 64, 64)
    with pytest.raises(attn.AttnError, match=r"attn\.sdpa: InvalidArgument: key \('k'\) stride of dimension 2 "
                                             r"is 68; it must be a multiple of 8"):
        attn.sdpa(q, k, v)
