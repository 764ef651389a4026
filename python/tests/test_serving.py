"""attn.varlen against float64 math on each sequence alone, with
flash_attn's conventions (THD tensors, int32 offsets, window=(-1, -1),
causal aligned to each sequence's bottom-right). Skipped without CUDA.

    PYTHONPATH=python ATTN_LIBRARY=build/lib/libattn_c.so.6 python3 -m pytest python/tests/test_serving.py
"""

import math

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import attn  # noqa: E402


def dense_reference(q, k, v, scale, causal=False, window=(-1, -1), softcap=0.0, sinks=None):
    """One sequence: q (Sq, Hq, D), k and v (Sk, Hkv, D) -> out (Sq, Hq, Dv),
    lse (Hq, Sq), float64; causal and window aligned to the bottom-right;
    sinks (Hq,) join each row's denominator, as a column concatenated to the
    scores and dropped after the softmax."""
    q, k, v = (t.double().transpose(0, 1) for t in (q, k, v))  # (H, S, D)
    rep = q.shape[0] // k.shape[0]
    k, v = k.repeat_interleave(rep, 0), v.repeat_interleave(rep, 0)
    s = q @ k.transpose(-1, -2) * scale
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    sq, sk = q.shape[1], k.shape[1]
    i = torch.arange(sq, device=q.device).unsqueeze(1)
    j = torch.arange(sk, device=q.device).unsqueeze(0)
    diag = i + (sk - sq)
    keep = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    if causal:
        keep &= j <= diag
    if window[0] >= 0:
        keep &= j >= diag - window[0]
    if window[1] >= 0:
        keep &= j <= diag + window[1]
    s = s.masked_fill(~keep, float("-inf"))
    if sinks is not None:
        column = sinks.double().view(-1, 1, 1).expand(s.shape[0], sq, 1)
        s = torch.cat([s, column], dim=-1)
    m = s.amax(-1, keepdim=True)
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    p = torch.exp(s - m)
    z = p.sum(-1, keepdim=True)
    p = torch.where(z > 0, p / z, torch.zeros_like(p))
    out = p[..., :sk] @ v
    lse = torch.where(z > 0, m + torch.log(z), torch.full_like(z, float("-inf"))).squeeze(-1)
    return out.transpose(0, 1), lse


def offsets(lengths):
    out = [0]
    for n in lengths:
        out.append(out[-1] + n)
    return out


def ragged(lengths_q, lengths_k, hq, hkv, d, dtype):
    cu_q = torch.tensor(offsets(lengths_q), dtype=torch.int32, device="cuda")
    cu_k = torch.tensor(offsets(lengths_k), dtype=torch.int32, device="cuda")
    q = torch.randn(sum(lengths_q), hq, d, device="cuda", dtype=dtype)
    k = torch.randn(sum(lengths_k), hkv, d, device="cuda", dtype=dtype)
    v = torch.randn(sum(lengths_k), hkv, d, device="cuda", dtype=dtype)
    return q, k, v, cu_q, cu_k


def check(out, lse, q, k, v, lengths_q, lengths_k, scale, **mask):
    cq, ck = offsets(lengths_q), offsets(lengths_k)
    for b in range(len(lengths_q)):
        if lengths_q[b] == 0:
            continue
        want, want_lse = dense_reference(q[cq[b]:cq[b + 1]], k[ck[b]:ck[b + 1]], v[ck[b]:ck[b + 1]], scale,
                                         **mask)
        got = out[cq[b]:cq[b + 1]].double()
        norm = want.norm().item()
        err = (got - want).norm().item() / (norm if norm > 0 else 1.0)
        assert err < 1e-2, f"sequence {b}: relative error {err}"
        if lse is not None:
            got_lse = lse[:, cq[b]:cq[b + 1]].double()
            finite = torch.isfinite(want_lse)
            assert torch.equal(torch.isfinite(got_lse), finite), f"sequence {b}: -inf rows differ"
            if finite.any():
                assert (got_lse[finite] - want_lse[finite]).abs().max().item() < 1e-2


LENGTHS = [([5, 0, 130, 64, 1], [7, 3, 200, 64, 300]), ([1] * 16, [1000 + 37 * i for i in range(16)])]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("lengths", LENGTHS)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("variant", ["", "sm80"])
def test_varlen_matches_each_sequence_alone(dtype, lengths, causal, variant):
    lengths_q, lengths_k = lengths
    q, k, v, cu_q, cu_k = ragged(lengths_q, lengths_k, 8, 2, 128, dtype)
    out, lse = attn.varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal,
                           return_lse=True, variant=variant)
    assert out.shape == q.shape and lse.shape == (8, q.shape[0]) and lse.dtype == torch.float32
    check(out, lse, q, k, v, lengths_q, lengths_k, 1 / math.sqrt(128), causal=causal)


def test_varlen_window_softcap_and_splits():
    lengths_q, lengths_k = [40, 300, 2], [500, 300, 900]
    q, k, v, cu_q, cu_k = ragged(lengths_q, lengths_k, 4, 4, 64, torch.bfloat16)
    for splits in (0, 1, 5):
        out = attn.varlen(q, k, v, cu_q, cu_k, 300, 900, scale=0.1, causal=True, window=(128, 0), softcap=20.0,
                          num_splits=splits)
        check(out, None, q, k, v, lengths_q, lengths_k, 0.1, causal=True, window=(128, 0), softcap=20.0)


def test_varlen_strided_thd_views():
    # q, k and v as views of one fused QKV projection (stride of a token
    # larger than heads x dim), as serving engines hold them.
    lengths = [17, 90, 33]
    total, hq, hkv, d = sum(lengths), 8, 2, 64
    qkv = torch.randn(total, hq + 2 * hkv, d, device="cuda", dtype=torch.bfloat16)
    q, k, v = qkv[:, :hq], qkv[:, hq:hq + hkv], qkv[:, hq + hkv:]
    cu = torch.tensor([0, 17, 107, 140], dtype=torch.int32, device="cuda")
    out = attn.varlen(q, k, v, cu, cu, 90, 90, causal=True)
    check(out, None, q, k, v, lengths, lengths, 1 / math.sqrt(d), causal=True)


def test_varlen_decode_is_capturable_in_a_cuda_graph():
    lengths_q, lengths_k = [1] * 8, [100 * (i + 1) for i in range(8)]
    q, k, v, cu_q, cu_k = ragged(lengths_q, lengths_k, 32, 8, 128, torch.bfloat16)
    out = attn.varlen(q, k, v, cu_q, cu_k, 1, 800, causal=True)  # compiles and loads
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        with torch.cuda.graph(graph):
            captured = attn.varlen(q, k, v, cu_q, cu_k, 1, 800, causal=True)
    torch.cuda.current_stream().wait_stream(stream)
    q.copy_(torch.randn_like(q))
    graph.replay()
    torch.cuda.synchronize()
    check(captured, None, q, k, v, lengths_q, lengths_k, 1 / math.sqrt(128), causal=True)
    assert not torch.equal(captured, out)


def rel(a, b):
    norm = b.norm().item()
    return (a.double() - b).norm().item() / (norm if norm > 0 else 1.0)


def varlen_gradients_reference(q, k, v, sinks, grad, lengths_q, lengths_k, scale, **mask):
    """dq, dk, dv (and dsinks) in float64 of each sequence alone, packed;
    rows of no sequence get 0."""
    leaves = [t.detach().double().requires_grad_() for t in (q, k, v)]
    s64 = sinks.detach().double().requires_grad_() if sinks is not None else None
    cq, ck = offsets(lengths_q), offsets(lengths_k)
    loss = 0.0
    for b in range(len(lengths_q)):
        if lengths_q[b] == 0:
            continue
        out, _ = dense_reference(leaves[0][cq[b]:cq[b + 1]], leaves[1][ck[b]:ck[b + 1]],
                                 leaves[2][ck[b]:ck[b + 1]], scale, sinks=s64, **mask)
        loss = loss + (out * grad[cq[b]:cq[b + 1]].double()).sum()
    loss.backward()
    grads = [t.grad if t.grad is not None else torch.zeros_like(t) for t in leaves]
    return grads + ([s64.grad] if s64 is not None else [])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("lengths", LENGTHS)
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_backward_matches_each_sequence_alone(dtype, lengths, causal):
    # Packed-sequence training: attn.varlen differentiates q, k and v of
    # every sequence (empty ones, more keys than queries, GQA 8/2).
    torch.manual_seed(11)
    lq, lk = lengths
    q, k, v, cu_q, cu_k = ragged(lq, lk, 8, 2, 64, dtype)
    for t in (q, k, v):
        t.requires_grad_()
    scale = 0.125
    out = attn.varlen(q, k, v, cu_q, cu_k, max(lq), max(lk), scale=scale, causal=causal)
    grad = torch.randn_like(out)
    out.backward(grad)
    want = varlen_gradients_reference(q, k, v, None, grad, lq, lk, scale, causal=causal)
    for what, got, ref in zip(("dq", "dk", "dv"), (q.grad, k.grad, v.grad), want):
        assert got.dtype == dtype and got.shape == ref.shape
        assert rel(got, ref) < 1e-2, (what, rel(got, ref))


def test_varlen_backward_sinks_window_softcap_and_gaps():
    # Learned sinks (gpt-oss), a sliding window and a softcap (Gemma 2) on
    # packed sequences; the offsets leave rows of no sequence at the end of
    # q and k, whose gradients are 0. Deterministic: bitwise the same twice.
    torch.manual_seed(12)
    lq, lk = [40, 0, 129, 7], [40, 5, 200, 1]
    q, k, v, cu_q, cu_k = ragged(lq, lk, 4, 2, 128, torch.bfloat16)
    pad = lambda t: torch.cat([t, torch.randn(9, *t.shape[1:], device="cuda", dtype=t.dtype)])  # noqa: E731
    q, k, v = (pad(t).requires_grad_() for t in (q, k, v))
    sinks = (torch.randn(4, device="cuda") * 2).requires_grad_()
    grad = torch.randn(q.shape[0], 4, 128, device="cuda", dtype=torch.bfloat16)
    grads = []
    for _ in range(2):
        for t in (q, k, v, sinks):
            t.grad = None
        out = attn.varlen(q, k, v, cu_q, cu_k, max(lq), max(lk), causal=True, window=(31, 0), softcap=20.0,
                          sinks=sinks)
        out.backward(grad)
        grads.append([t.grad.clone() for t in (q, k, v, sinks)])
    for a, b in zip(*grads):
        assert torch.equal(a, b)
    nq, nk = sum(lq), sum(lk)
    want = varlen_gradients_reference(q[:nq], k[:nk], v[:nk], sinks, grad[:nq], lq, lk, q.shape[-1] ** -0.5,
                                      causal=True, window=(31, 0), softcap=20.0)
    for what, got, ref in zip(("dq", "dk", "dv"), (q.grad[:nq], k.grad[:nk], v.grad[:nk]), want):
        assert rel(got, ref) < 1e-2, (what, rel(got, ref))
    assert not q.grad[nq:].any() and not k.grad[nk:].any() and not v.grad[nk:].any()
    # dsinks cancels (terms of both signs): relative to the sum of |terms|.
    assert sinks.grad.shape == (4,) and sinks.grad.dtype == torch.float32
    scale = sinks.grad.abs().double().clamp_min(1.0)
    assert ((sinks.grad.double() - want[3]) / scale).abs().max() < 2e-2, (sinks.grad, want[3])


def test_varlen_backward_under_torch_compile_and_errors():
    torch.manual_seed(13)
    lq, lk = [33, 64, 1], [33, 80, 9]
    q, k, v, cu_q, cu_k = ragged(lq, lk, 4, 4, 64, torch.bfloat16)
    for t in (q, k, v):
        t.requires_grad_()

    def step(q, k, v):
        return attn.varlen(q, k, v, cu_q, cu_k, 64, 80, causal=True).float().square().sum()

    eager = torch.autograd.grad(step(q, k, v), (q, k, v))
    compiled = torch.autograd.grad(torch.compile(step)(q, k, v), (q, k, v))
    for a, b in zip(eager, compiled):
        assert torch.equal(a, b)
    with pytest.raises(attn.AttnError, match="return_kernel"):
        attn.varlen(q, k, v, cu_q, cu_k, 64, 80, return_kernel=True)
    captures = torch.ones(4, device="cuda", requires_grad=True)
    body = """
    %s = tensor.extract %capture0[%h] : tensor<4xf32>
    %y = arith.mulf %score, %s : f32
    attn.yield %y : f32"""
    with pytest.raises(attn.AttnError, match=r"score_mod_captures\[0\] requires grad"):
        attn.varlen(q, k, v, cu_q, cu_k, 64, 80, score_mod=body, score_mod_captures=[captures])


def test_varlen_training_step_replays_in_a_cuda_graph():
    # A packed-sequence training step, run once (compiled, loaded), then
    # captured: each replay on new q, k, v, dO and sinks gives the eager
    # step's gradients bitwise (the backward has no atomics).
    torch.manual_seed(14)
    lq, lk = [70, 0, 129, 3], [70, 9, 200, 40]
    q, k, v, cu_q, cu_k = ragged(lq, lk, 8, 2, 64, torch.bfloat16)
    for t in (q, k, v):
        t.requires_grad_()
    sinks = torch.randn(8, device="cuda", requires_grad=True)
    grad_out = torch.randn(q.shape[0], 8, 64, device="cuda", dtype=torch.bfloat16)
    leaves = (q, k, v, sinks)

    def step():
        for t in leaves:
            t.grad = None
        attn.varlen(q, k, v, cu_q, cu_k, max(lq), max(lk), causal=True, sinks=sinks).backward(grad_out)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    for t in leaves:
        t.grad = None
    with torch.cuda.graph(graph):
        attn.varlen(q, k, v, cu_q, cu_k, max(lq), max(lk), causal=True, sinks=sinks).backward(grad_out)
    captured = [t.grad for t in leaves]
    for _ in range(2):
        with torch.no_grad():
            for t in (q, k, v, sinks, grad_out):
                t.copy_(torch.randn_like(t))
        graph.replay()
        replayed = [g.clone() for g in captured]
        step()
        torch.cuda.synchronize()
        for got, eager in zip(replayed, (t.grad for t in leaves)):
            assert torch.equal(got, eager)


def test_varlen_argument_errors_name_the_argument():
    q, k, v, cu_q, cu_k = ragged([4, 4], [4, 4], 2, 2, 64, torch.bfloat16)
    with pytest.raises(attn.AttnError, match="cu_seqlens_q must be int32"):
        attn.varlen(q, k, v, cu_q.long(), cu_k, 4, 4)
    with pytest.raises(attn.AttnError, match="cu_seqlens_q has 3 offsets and cu_seqlens_k 2"):
        attn.varlen(q, k, v, cu_q, cu_k[:2], 4, 4)
    with pytest.raises(attn.AttnError, match=r"q must be 3-d \(total_tokens, heads, head_dim\)"):
        attn.varlen(q.unsqueeze(0), k, v, cu_q, cu_k, 4, 4)
    with pytest.raises(attn.AttnError, match="max_seqlen_k must be a host int"):
        attn.varlen(q, k, v, cu_q, cu_k, 4, torch.tensor(4))
    with pytest.raises(attn.AttnError, match="cu_seqlens_k is on cpu"):
        attn.varlen(q, k, v, cu_q, cu_k.cpu(), 4, 4)
    with pytest.raises(attn.AttnError, match="dropout"):
        attn.varlen(q, k, v, cu_q, cu_k, 4, 4, 0.1)


@pytest.mark.parametrize("variant", ["", "sm80", "sm90ws"])
def test_sdpa_sinks_match_a_concatenated_column(variant):
    if variant == "sm90ws" and torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("sm90ws needs an H100/H200")
    b, hq, hkv, sq, sk, d = 2, 8, 2, 300, 200, 64
    q = torch.randn(b, hq, sq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
    sinks = torch.randn(hq, device="cuda", dtype=torch.bfloat16) * 2
    out, lse = attn.sdpa(q, k, v, is_causal=True, bottom_right=True, enable_gqa=True, sinks=sinks,
                         return_lse=True, variant=variant)
    for i in range(b):
        want, want_lse = dense_reference(q[i].transpose(0, 1), k[i].transpose(0, 1), v[i].transpose(0, 1),
                                         1 / math.sqrt(d), causal=True, sinks=sinks)
        got = out[i].transpose(0, 1).double()
        assert (got - want).norm().item() / want.norm().item() < 1e-2
        # Rows that see no key (more queries than keys): zeros, and the sink.
        assert torch.equal(out[i][:, :sq - sk], torch.zeros_like(out[i][:, :sq - sk]))
        assert (lse[i].double() - want_lse).abs().max().item() < 1e-2


@pytest.mark.parametrize("splits", [0, 1, 4])
def test_decode_with_sinks_packs_heads(splits):
    b, hq, hkv, sk, d = 4, 32, 8, 2000, 128
    q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
    sinks = torch.linspace(-3, 3, hq, device="cuda")
    out = attn.sdpa(q, k, v, enable_gqa=True, sinks=sinks, num_splits=splits)
    for i in range(b):
        want, _ = dense_reference(q[i].transpose(0, 1), k[i].transpose(0, 1), v[i].transpose(0, 1),
                                  1 / math.sqrt(d), sinks=sinks)
        got = out[i].transpose(0, 1).double()
        assert (got - want).norm().item() / want.norm().item() < 1e-2


def test_varlen_sinks_with_a_sliding_window():
    lengths_q, lengths_k = [100, 1, 257], [100, 900, 400]
    q, k, v, cu_q, cu_k = ragged(lengths_q, lengths_k, 64, 8, 64, torch.bfloat16)
    sinks = torch.randn(64, device="cuda")
    out = attn.varlen(q, k, v, cu_q, cu_k, 257, 900, causal=True, window=(127, 0), sinks=sinks)
    cq, ck = offsets(lengths_q), offsets(lengths_k)
    for b in range(3):
        want, _ = dense_reference(q[cq[b]:cq[b + 1]], k[ck[b]:ck[b + 1]], v[ck[b]:ck[b + 1]], 1 / math.sqrt(64),
                                  causal=True, window=(127, 0), sinks=sinks)
        got = out[cq[b]:cq[b + 1]].double()
        assert (got - want).norm().item() / want.norm().item() < 1e-2


def test_sinks_errors_name_the_argument():
    q = torch.randn(1, 4, 8, 64, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(attn.AttnError, match=r"sinks must hold one logit per query head, shape \(4,\)"):
        attn.sdpa(q, q, q, sinks=torch.zeros(2, device="cuda"))
    with pytest.raises(attn.AttnError, match="sinks is on cpu"):
        attn.sdpa(q, q, q, sinks=torch.zeros(4))
    # attn.with_kvcache has no backward: learned sinks there are refused.
    cache = q.transpose(1, 2).contiguous()
    lengths = torch.tensor([8], device="cuda", dtype=torch.int32)
    with pytest.raises(attn.AttnError, match="sinks requires grad"):
        attn.with_kvcache(cache[:, :1], cache, cache, lengths,
                          sinks=torch.zeros(4, device="cuda", requires_grad=True))


def cache_keys(k_cache, block_table, b, length):
    """Sequence b's first `length` keys of a paged cache (num_pages,
    page_size, H, D) through its block table row."""
    page = k_cache.shape[1]
    pages = block_table[b, :(length + page - 1) // page].long()
    return k_cache[pages].reshape(-1, *k_cache.shape[2:])[:length]


@pytest.mark.parametrize("page", [1, 16, 64, 256])
@pytest.mark.parametrize("sq", [1, 4])
@pytest.mark.parametrize("variant", ["", "sm90ws"])
def test_with_kvcache_paged_matches_the_gathered_keys(page, sq, variant):
    # sm90ws reads pages of 16 to 256 keys a TMA box per page, and runs the
    # cp.async kernel for pages of 1.
    if variant == "sm90ws" and torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("sm90ws needs an H100/H200")
    b, hq, hkv, d, per_sequence = 6, 32, 8, 128, 2048 // page
    num_pages = b * per_sequence + 5
    k_cache = torch.randn(num_pages, page, hkv, d, device="cuda", dtype=torch.bfloat16)
    v_cache = torch.randn(num_pages, page, hkv, d, device="cuda", dtype=torch.bfloat16)
    block_table = torch.randperm(num_pages, device="cuda")[:b * per_sequence].view(b, per_sequence).int()
    lengths = torch.tensor([1 + 137 * i % 2048 for i in range(b)], dtype=torch.int32, device="cuda").clamp(min=sq)
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=torch.bfloat16)
    sinks = torch.randn(hq, device="cuda")
    for splits in (0, 1):
        out, lse = attn.with_kvcache(q, k_cache, v_cache, lengths, block_table=block_table, causal=True,
                                     sinks=sinks, return_lse=True, num_splits=splits, variant=variant)
        assert out.shape == (b, sq, hq, d) and out.is_contiguous() and lse.shape == (b, hq, sq)
        for i in range(b):
            n = int(lengths[i])
            want, want_lse = dense_reference(q[i], cache_keys(k_cache, block_table, i, n),
                                             cache_keys(v_cache, block_table, i, n), 1 / math.sqrt(d),
                                             causal=True, sinks=sinks)
            got = out[i].double()
            assert (got - want).norm().item() / want.norm().item() < 1e-2
            assert (lse[i].double() - want_lse).abs().max().item() < 1e-2


def test_with_kvcache_dense_cache_aligns_to_each_length():
    b, sq, hq, hkv, d, s = 4, 3, 8, 2, 64, 500
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=torch.float16)
    k_cache = torch.randn(b, s, hkv, d, device="cuda", dtype=torch.float16)
    v_cache = torch.randn(b, s, hkv, d, device="cuda", dtype=torch.float16)
    lengths = torch.tensor([3, 100, 499, 500], dtype=torch.int32, device="cuda")
    out = attn.with_kvcache(q, k_cache, v_cache, lengths, causal=True, window=(31, 0), softcap=30.0)
    for i in range(b):
        n = int(lengths[i])
        want, _ = dense_reference(q[i], k_cache[i, :n], v_cache[i, :n], 1 / math.sqrt(d), causal=True,
                                  window=(31, 0), softcap=30.0)
        assert (out[i].double() - want).norm().item() / want.norm().item() < 1e-2
    # An int for every sequence.
    same = attn.with_kvcache(q, k_cache, v_cache, 200, causal=True)
    want, _ = dense_reference(q[0], k_cache[0, :200], v_cache[0, :200], 1 / math.sqrt(d), causal=True)
    assert (same[0].double() - want).norm().item() / want.norm().item() < 1e-2


@pytest.mark.parametrize("paged,variant", [(False, ""), (True, ""), (False, "sm80"), (True, "sm80"),
                                           (False, "sm90ws"), (True, "sm90ws")])
def test_with_kvcache_ignores_nan_past_each_length(paged, variant):
    if variant == "sm90ws" and torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("sm90ws needs an H100/H200")
    # Caches as torch.empty may leave them: NaN wherever no sequence has a
    # key (past its length, in pages no table entry names). A kernel must
    # not read them into the output (a masked key's zero weight times NaN).
    b, sq, hq, hkv, d, page, per_sequence = 4, 4, 32, 8, 128, 16, 24
    lengths = torch.tensor([5, 100, 383, 384], dtype=torch.int32, device="cuda")
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=torch.bfloat16)
    if paged:
        shape = (b * per_sequence + 3, page, hkv, d)
        block_table = torch.randperm(shape[0], device="cuda")[:b * per_sequence].view(b, per_sequence).int()
    else:
        shape = (b, page * per_sequence, hkv, d)
        block_table = None
    caches = []
    for _ in range(2):
        cache = torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)
        for i in range(b):
            n = int(lengths[i])
            rows = torch.randn(n, hkv, d, device="cuda", dtype=torch.bfloat16)
            if paged:
                for key in range(0, n, page):
                    cache[block_table[i, key // page], :min(page, n - key)] = rows[key:key + page]
            else:
                cache[i, :n] = rows
        caches.append(cache)
    k_cache, v_cache = caches
    for splits in (1, 3):
        out = attn.with_kvcache(q, k_cache, v_cache, lengths, block_table=block_table, causal=True,
                                num_splits=splits, variant=variant)
        assert not out.isnan().any()
        for i in range(b):
            n = int(lengths[i])
            keys = cache_keys(k_cache, block_table, i, n) if paged else k_cache[i, :n]
            values = cache_keys(v_cache, block_table, i, n) if paged else v_cache[i, :n]
            want, _ = dense_reference(q[i], keys, values, 1 / math.sqrt(d), causal=True)
            assert (out[i].double() - want).norm().item() / want.norm().item() < 1e-2


def test_with_kvcache_decode_is_capturable_in_a_cuda_graph():
    b, hq, hkv, d, page, per_sequence = 8, 32, 8, 128, 16, 32
    k_cache = torch.randn(b * per_sequence, page, hkv, d, device="cuda", dtype=torch.bfloat16)
    v_cache = torch.randn_like(k_cache)
    block_table = torch.arange(b * per_sequence, device="cuda", dtype=torch.int32).view(b, per_sequence)
    lengths = torch.full((b,), 300, dtype=torch.int32, device="cuda")
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    attn.with_kvcache(q, k_cache, v_cache, lengths, block_table=block_table, causal=True)  # compile, load
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        with torch.cuda.graph(graph):
            out = attn.with_kvcache(q, k_cache, v_cache, lengths, block_table=block_table, causal=True)
    torch.cuda.current_stream().wait_stream(stream)
    lengths.fill_(450)  # the next step: the same graph, longer caches
    graph.replay()
    torch.cuda.synchronize()
    want, _ = dense_reference(q[3], cache_keys(k_cache, block_table, 3, 450),
                              cache_keys(v_cache, block_table, 3, 450), 1 / math.sqrt(d))
    assert (out[3].double() - want).norm().item() / want.norm().item() < 1e-2


def test_with_kvcache_argument_errors_name_the_argument():
    q = torch.randn(2, 1, 4, 64, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(10, 16, 4, 64, device="cuda", dtype=torch.bfloat16)
    table = torch.zeros(2, 3, dtype=torch.int32, device="cuda")
    with pytest.raises(attn.AttnError, match=r"block_table must be int32 \(2, pages per sequence\)"):
        attn.with_kvcache(q, k, k, 5, block_table=table.long())
    with pytest.raises(attn.AttnError, match="a dense k_cache has one row per sequence: 10 for q's batch 2"):
        attn.with_kvcache(q, k, k, 5)
    with pytest.raises(attn.AttnError, match="cache_seqlens must be an int or an int32"):
        attn.with_kvcache(q, k, k, torch.zeros(2, device="cuda"), block_table=table)
    with pytest.raises(attn.AttnError, match="attn.with_kvcache: window bounds"):
        attn.with_kvcache(q, k, k, 5, block_table=table, window=(-5, 0))


def rotate(x, positions, cos, sin, interleaved):
    """x (..., D) float32 rotated by the rotary angles of `positions` (the
    leading shape of x but the last dim) over its first 2 * cos.shape[1]
    dims: pairs 2j, 2j + 1 if interleaved, else j, j + rotary_dim / 2."""
    half = cos.shape[1]
    c, s = cos.float()[positions], sin.float()[positions]
    x = x.float().clone()
    if interleaved:
        x1, x2 = x[..., 0:2 * half:2].clone(), x[..., 1:2 * half:2].clone()
        x[..., 0:2 * half:2], x[..., 1:2 * half:2] = x1 * c - x2 * s, x1 * s + x2 * c
    else:
        x1, x2 = x[..., :half].clone(), x[..., half:2 * half].clone()
        x[..., :half], x[..., half:2 * half] = x1 * c - x2 * s, x1 * s + x2 * c
    return x


@pytest.mark.parametrize("page", [0, 1, 16, 256])  # 0: a dense cache
@pytest.mark.parametrize("rotary", [None, "interleaved", "halves"])
@pytest.mark.parametrize("causal", [True, False])
def test_with_kvcache_appends_the_new_tokens(page, rotary, causal):
    # flash_attn_with_kvcache(k=, v=, rotary_cos=, rotary_sin=): the new
    # tokens land at each sequence's length (through a shuffled block table
    # when paged), rotated at their positions, q rotated at cache_seqlens + i
    # (causal) or cache_seqlens, and the attention sees them; nothing else
    # in the caches changes. One length is 0, one fills the cache.
    torch.manual_seed(7)
    b, new, hq, hkv, d, dv = 3, 4, 8, 2, 128, 64
    capacity, paged = 256, page > 0
    lengths = torch.tensor([0, 101, capacity - new], dtype=torch.int32, device="cuda")
    if paged:
        per_sequence = capacity // page
        num_pages = b * per_sequence + 3
        block_table = torch.randperm(num_pages, device="cuda")[:b * per_sequence].view(b, per_sequence).int()
        shape = (num_pages, page)
    else:
        block_table, shape = None, (b, capacity)
    k_cache = torch.randn(*shape, hkv, d, device="cuda", dtype=torch.bfloat16)
    v_cache = torch.randn(*shape, hkv, dv, device="cuda", dtype=torch.bfloat16)
    before_k, before_v = k_cache.clone(), v_cache.clone()
    q = torch.randn(b, new, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, new, hkv, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, new, hkv, dv, device="cuda", dtype=torch.bfloat16)
    rotary_kw, cos = {}, None
    if rotary:
        angles = torch.arange(capacity + 5, device="cuda")[:, None] * (10000.0 ** (-torch.arange(32, device="cuda") / 32))
        cos, sin = angles.cos(), angles.sin()
        rotary_kw = dict(rotary_cos=cos, rotary_sin=sin, rotary_interleaved=rotary == "interleaved")
    out = attn.with_kvcache(q, k_cache, v_cache, lengths, block_table=block_table, causal=causal, k=k, v=v,
                            **rotary_kw)

    def rows(cache, i, n):
        return cache_keys(cache, block_table, i, n) if paged else cache[i, :n]

    written_k, written_v = before_k.clone(), before_v.clone()
    for i in range(b):
        n = int(lengths[i])
        positions = n + torch.arange(new, device="cuda")
        want_k = k[i].float()
        if rotary:
            want_k = rotate(want_k, positions[:, None].expand(new, hkv), cos, sin, rotary == "interleaved")
        got_k, got_v = rows(k_cache, i, n + new)[n:], rows(v_cache, i, n + new)[n:]
        torch.testing.assert_close(got_k.float(), want_k.to(torch.bfloat16).float(), atol=1e-2, rtol=1e-2)
        assert torch.equal(got_v, v[i])
        # The reference's caches: the old rows, then the new ones.
        for t in range(new):
            p = n + t
            if paged:
                written_k[block_table[i, p // page], p % page] = got_k[t]
                written_v[block_table[i, p // page], p % page] = got_v[t]
            else:
                written_k[i, p], written_v[i, p] = got_k[t], got_v[t]
        qi = q[i].float()
        if rotary:
            q_positions = positions if causal else torch.full_like(positions, n)
            qi = rotate(qi, q_positions[:, None].expand(new, hq), cos, sin, rotary == "interleaved")
        want, _ = dense_reference(qi.to(torch.bfloat16), rows(k_cache, i, n + new), rows(v_cache, i, n + new),
                                  1 / math.sqrt(d), causal=causal)
        assert (out[i].double() - want).norm().item() / want.norm().item() < 1e-2
    assert torch.equal(k_cache, written_k) and torch.equal(v_cache, written_v)  # nothing else moved


def test_with_kvcache_append_errors_and_graph_capture():
    b, hq, hkv, d = 2, 4, 2, 64
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k_cache = torch.zeros(b, 32, hkv, d, device="cuda", dtype=torch.bfloat16)
    v_cache = torch.zeros_like(k_cache)
    k = torch.randn(b, 1, hkv, d, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(attn.AttnError, match="k and v go together"):
        attn.with_kvcache(q, k_cache, v_cache, 3, k=k)
    cos = torch.ones(32, 16, device="cuda")
    with pytest.raises(attn.AttnError, match="they need k and v"):
        attn.with_kvcache(q, k_cache, v_cache, 3, rotary_cos=cos, rotary_sin=cos)
    with pytest.raises(attn.AttnError, match="holds 32 keys per sequence: 32 cached and 1 new do not fit"):
        attn.with_kvcache(q, k_cache, v_cache, 32, k=k, v=k)
    with pytest.raises(attn.AttnError, match="fewer than the cache's 32 rows"):
        attn.with_kvcache(q, k_cache, v_cache, 3, k=k, v=k, rotary_cos=cos[:8], rotary_sin=cos[:8])
    with pytest.raises(attn.AttnError, match=r"k \(2, 1, 2, 32\) must be"):
        attn.with_kvcache(q, k_cache, v_cache, 3, k=k[..., :32], v=k)
    # A decode step with an append is one capture: the append, then the
    # attention, reading the lengths the append wrote.
    lengths = torch.tensor([3, 9], dtype=torch.int32, device="cuda")
    attn.with_kvcache(q, k_cache, v_cache, lengths, causal=True, k=k, v=k)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = attn.with_kvcache(q, k_cache, v_cache, lengths, causal=True, k=k, v=k)
    k.copy_(torch.randn_like(k))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(k_cache[0, 3], k[0, 0]) and torch.equal(k_cache[1, 9], k[1, 0])
    want, _ = dense_reference(q[1], k_cache[1, :10], v_cache[1, :10], 1 / math.sqrt(d), causal=True)
    assert (out[1].double() - want).norm().item() / want.norm().item() < 1e-2


def test_batch_invariant_decode_is_bitwise_the_same_in_any_batch():
    # One sequence decoded alone and inside batches of other lengths, with
    # any split count: the same bits with batch_invariant (keys split at
    # fixed positions, always merged in order).
    hq, hkv, d, page, sq = 32, 8, 128, 16, 2
    torch.manual_seed(0)
    q1 = torch.randn(1, sq, hq, d, device="cuda", dtype=torch.bfloat16)
    keys = 5000
    k1 = torch.randn(1, 6016, hkv, d, device="cuda", dtype=torch.bfloat16)
    v1 = torch.randn_like(k1)
    sinks = torch.randn(hq, device="cuda")
    alone = attn.with_kvcache(q1, k1, v1, keys, causal=True, sinks=sinks, batch_invariant=True)
    for others, splits in (([300], 0), ([6000, 17, 2048], 0), ([100] * 40, 5), ([4096], 33)):
        b = 1 + len(others)
        q = torch.cat([q1, torch.randn(b - 1, sq, hq, d, device="cuda", dtype=torch.bfloat16)])
        k = torch.cat([k1, torch.randn(b - 1, 6016, hkv, d, device="cuda", dtype=torch.bfloat16)])
        v = torch.cat([v1, torch.randn(b - 1, 6016, hkv, d, device="cuda", dtype=torch.bfloat16)])
        lengths = torch.tensor([keys] + others, dtype=torch.int32, device="cuda")
        out = attn.with_kvcache(q, k, v, lengths, causal=True, sinks=sinks, num_splits=splits,
                                batch_invariant=True)
        assert torch.equal(out[0], alone[0]), (others, splits)
        # The same through pages.
        k_pages, v_pages = k.view(-1, page, hkv, d), v.view(-1, page, hkv, d)
        table = torch.arange(k_pages.shape[0], device="cuda", dtype=torch.int32).view(b, -1)
        paged = attn.with_kvcache(q, k_pages, v_pages, lengths, block_table=table, causal=True, sinks=sinks,
                                  num_splits=splits, batch_invariant=True)
        assert torch.equal(paged[0], alone[0]), (others, splits, "paged")


def test_batch_invariant_varlen_is_bitwise_the_same_in_any_batch():
    hq, hkv, d = 8, 2, 64
    q1 = torch.randn(700, hq, d, device="cuda", dtype=torch.bfloat16)
    k1 = torch.randn(5000, hkv, d, device="cuda", dtype=torch.bfloat16)
    v1 = torch.randn_like(k1)
    cu = lambda lengths: torch.tensor(offsets(lengths), dtype=torch.int32, device="cuda")  # noqa: E731
    alone = attn.varlen(q1, k1, v1, cu([700]), cu([5000]), 700, 5000, causal=True, batch_invariant=True)
    for before, after in (([], [30, 9000]), ([1000], []), ([5, 5, 5], [3000])):
        qs = [torch.randn(n, hq, d, device="cuda", dtype=torch.bfloat16) for n in before]
        ks = [torch.randn(2 * n + 1, hkv, d, device="cuda", dtype=torch.bfloat16) for n in before]
        qa = [torch.randn(n, hq, d, device="cuda", dtype=torch.bfloat16) for n in after]
        ka = [torch.randn(n, hkv, d, device="cuda", dtype=torch.bfloat16) for n in after]
        q = torch.cat(qs + [q1] + qa)
        k = torch.cat(ks + [k1] + ka)
        v = torch.cat([torch.randn_like(t) for t in ks] + [v1] + [torch.randn_like(t) for t in ka])
        lq = before + [700] + after
        lk = [2 * n + 1 for n in before] + [5000] + after
        out = attn.varlen(q, k, v, cu(lq), cu(lk), max(lq), max(lk), causal=True, batch_invariant=True)
        start = sum(before)
        assert torch.equal(out[start:start + 700], alone), (before, after)
