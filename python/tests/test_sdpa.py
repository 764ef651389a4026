"""attn.sdpa against PyTorch on the GPU: float64 math on upcast inputs as the
reference, fresh random inputs every test. Skipped without CUDA.

    PYTHONPATH=python ATTN_LIBRARY=build/lib/libattn_c.so python3 -m pytest python/tests
"""

import math

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import attn  # noqa: E402

DTYPES = [torch.bfloat16, torch.float16]


def reference(q, k, v, mask=None, scale=None, score_mod=None, lse=False):
    """softmax(score_mod(q k^T * scale) + mask) v in float64; mask is bool
    (True takes part) or float (added). Rows with no key give 0."""
    q, k, v = (t.double() for t in (q, k, v))
    if k.shape[1] != q.shape[1]:
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(-1, -2) * scale
    if score_mod is not None:
        s = score_mod(s)
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask.double()
    m = s.amax(-1, keepdim=True)
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    p = torch.exp(s - m)
    z = p.sum(-1, keepdim=True)
    out = torch.where(z > 0, p / z, torch.zeros_like(p)) @ v
    if lse:
        return out, (m + torch.log(z)).squeeze(-1)
    return out


def rel(a, b):
    return ((a.double() - b).norm() / b.norm()).item()


def rand(*shape, dtype=torch.bfloat16):
    return torch.randn(*shape, device="cuda", dtype=dtype)


# "": the cost model's variant (sm90 on an H100/H200 for these head dims).
VARIANTS = ["", "sm80"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("variant", VARIANTS)
def test_matches_torch(dtype, d, causal, variant):
    q, k, v = (rand(2, 4, 300, d, dtype=dtype) for _ in range(3))
    out, handle = attn.sdpa(q, k, v, is_causal=causal, variant=variant, return_kernel=True)
    if variant:
        assert attn.kernel_info(handle)["variant"] == variant
    mask = torch.ones(300, 300, dtype=torch.bool, device="cuda").tril() if causal else None
    assert rel(out, reference(q, k, v, mask)) < 1e-2
    torch_out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert rel(out, torch_out.double()) < 2e-2


@pytest.mark.parametrize("causal,keys", [(True, 4096), (True, 4097), (True, 9001), (False, 2048),
                                         (False, 2049)])
def test_one_compile_serves_short_and_long_keys(causal, keys):
    # attn.sdpa compiles one attention for every length: up to 4096 keys
    # when causal (2048 otherwise) its 128-key tiles run, past that the
    # kernel compiled beside them for long keys (the cost model's longest
    # tile on sm_90a). Both must match the reference, causal bottom-right (a
    # short query block against a long cache) or not, with a partial last
    # key tile.
    q = rand(1, 2, 200, 128)
    k, v = rand(1, 2, keys, 128), rand(1, 2, keys, 128)
    out = attn.sdpa(q, k, v, is_causal=causal, bottom_right=True)
    mask = torch.ones(200, keys, dtype=torch.bool, device="cuda")
    if causal:
        mask = mask.tril(keys - 200)
    assert rel(out, reference(q, k, v, mask)) < 1e-2


def test_gqa_and_scale():
    q, k, v = rand(2, 8, 128, 64), rand(2, 2, 256, 64), rand(2, 2, 256, 64)
    out = attn.sdpa(q, k, v, scale=0.3, enable_gqa=True)
    assert rel(out, reference(q, k, v, scale=0.3)) < 1e-2
    with pytest.raises(attn.AttnError, match="enable_gqa"):
        attn.sdpa(q, k, v)


@pytest.mark.parametrize("num_splits", [0, 1, 3, 7])
def test_decode_split_kv(num_splits):
    # One query token, GQA, a cache of 1000 keys: query heads packed, the
    # key tiles split num_splits ways (0: the runtime's choice) and merged.
    q, k, v = rand(2, 8, 1, 128), rand(2, 2, 1000, 128), rand(2, 2, 1000, 128)
    out, lse = attn.sdpa(q, k, v, enable_gqa=True, num_splits=num_splits, return_lse=True)
    ref, ref_lse = reference(q, k, v, lse=True)
    assert rel(out, ref) < 1e-2
    assert torch.allclose(lse.double(), ref_lse, atol=2e-2)
    with pytest.raises(attn.AttnError, match="splits must be"):
        attn.sdpa(q, k, v, enable_gqa=True, num_splits=-1)


def test_bool_and_float_masks_broadcast():
    q, k, v = rand(2, 4, 64, 64), rand(2, 4, 96, 64), rand(2, 4, 96, 64)
    keep = torch.rand(64, 96, device="cuda") > 0.3
    assert rel(attn.sdpa(q, k, v, attn_mask=keep), reference(q, k, v, keep)) < 1e-2
    bias = torch.randn(4, 1, 96, device="cuda")
    assert rel(attn.sdpa(q, k, v, attn_mask=bias), reference(q, k, v, bias)) < 1e-2


def test_window_padding_softcap_lse():
    b, h, s, d = 2, 4, 200, 64
    q, k, v = rand(b, h, s, d), rand(b, h, s, d), rand(b, h, s, d)
    lengths = torch.tensor([150, 37], device="cuda", dtype=torch.int32)
    out, lse = attn.sdpa(q, k, v, is_causal=True, window=(32, 0), lengths=lengths,
                         score_mod=attn.softcap(20.0), return_lse=True)
    i = torch.arange(s, device="cuda")
    keep = (i[None, :] <= i[:, None]) & (i[None, :] >= i[:, None] - 32)
    keep = keep[None, None] & (i[None, None, None, :] < lengths[:, None, None, None])
    ref, ref_lse = reference(q, k, v, keep, score_mod=lambda x: 20.0 * torch.tanh(x / 20.0), lse=True)
    assert rel(out, ref) < 1e-2
    finite = torch.isfinite(ref_lse)
    assert torch.allclose(lse[finite].double(), ref_lse[finite], atol=2e-2)


def test_bshd_memory_without_copies():
    # (B, S, H, D) memory viewed as (B, H, S, D), as most models store it.
    q, k, v = (rand(2, 256, 8, 64).transpose(1, 2) for _ in range(3))
    assert not q.is_contiguous()
    out = attn.sdpa(q, k, v, is_causal=True)
    mask = torch.ones(256, 256, dtype=torch.bool, device="cuda").tril()
    assert rel(out, reference(q, k, v, mask)) < 1e-2


@pytest.mark.parametrize("broadcast", [1, 0])
def test_expanded_keys_and_values_without_copies(broadcast, caplog):
    # K and V broadcast over heads (dimension 1) or the batch (0) by expand:
    # stride 0, passed as is. Where TMA cannot read a view (the driver may
    # refuse a stride of 0) the launch runs the cp.async kernel compiled
    # beside the TMA one, and the "attn" logger says why, once; either way
    # the result is the reference's.
    shape = [2, 4, 300, 128]
    shape[broadcast] = 1
    q = rand(2, 4, 300, 128)
    k, v = (rand(*shape).expand(2, 4, 300, 128) for _ in range(2))
    assert k.stride(broadcast) == 0
    with caplog.at_level("INFO", logger="attn"):
        out = attn.sdpa(q, k, v, is_causal=True)
    mask = torch.ones(300, 300, dtype=torch.bool, device="cuda").tril()
    assert rel(out, reference(q, k, v, mask)) < 1e-2
    for remark in (r.getMessage() for r in caplog.records if "cp.async kernel" in r.getMessage()):
        print(remark)
        assert "reads q, k and v by TMA" in remark


def test_strides_no_kernel_reads_are_a_clear_error():
    # A row stride of 132 elements (264 bytes) is neither TMA's multiple of
    # 16 bytes nor the cp.async loads' 16-byte chunks.
    q = rand(2, 4, 300, 128)
    k = rand(2, 4, 300, 132)[..., :128]
    with pytest.raises(attn.AttnError, match=r"\('k'\) stride of dimension 2 is 132; it must be a multiple of 8"):
        attn.sdpa(q, k, q)


def test_fully_masked_rows_are_zero():
    q, k, v = rand(1, 2, 64, 64), rand(1, 2, 64, 64), rand(1, 2, 64, 64)
    keep = torch.ones(64, 64, dtype=torch.bool, device="cuda")
    keep[5] = False
    out = attn.sdpa(q, k, v, attn_mask=keep)
    assert torch.isfinite(out).all()
    assert (out[:, :, 5] == 0).all()


def test_kernels_are_cached_per_specialization():
    q, k, v = rand(1, 2, 128, 64), rand(1, 2, 128, 64), rand(1, 2, 128, 64)
    _, first = attn.sdpa(q, k, v, return_kernel=True)
    # A new sequence length reuses the kernel: lengths are runtime values.
    q2, k2, v2 = rand(3, 2, 77, 64), rand(3, 2, 500, 64), rand(3, 2, 500, 64)
    _, second = attn.sdpa(q2, k2, v2, return_kernel=True)
    assert first.value == second.value
    _, third = attn.sdpa(q, k, v, is_causal=True, return_kernel=True)
    assert third.value != first.value
    # Up to 16 queries (decode) the query length is part of the kernel, so
    # that its tiles suit a few rows.
    _, decode = attn.sdpa(q[:, :, :1], k, v, return_kernel=True)
    _, decode_again = attn.sdpa(rand(3, 2, 1, 64), k2, v2, return_kernel=True)
    assert decode.value not in (first.value, third.value)
    assert decode_again.value == decode.value


def test_clear_errors():
    q = rand(1, 2, 16, 64)
    with pytest.raises(attn.AttnError, match="dropout"):
        attn.sdpa(q, q, q, dropout_p=0.1)
    with pytest.raises(attn.AttnError, match="CUDA tensor"):
        attn.sdpa(q.cpu(), q, q)
    with pytest.raises(attn.AttnError, match="float16 or all bfloat16"):
        attn.sdpa(q.float(), q.float(), q.float())
    with pytest.raises(attn.AttnError, match="exceeds the largest supported, 256"):
        big = rand(1, 1, 16, 320)
        attn.sdpa(big, big, big)
    with pytest.raises(attn.AttnError, match="variant sm90 cannot run this attention: it needs head dims"):
        odd = rand(1, 1, 16, 40)
        attn.sdpa(odd, odd, odd, variant="sm90")


def test_score_mod_captures():
    # FlexAttention-style captured tensors: a learned bias per head, a
    # relative-position table indexed by q - kv + S - 1, and kv % 2 through
    # an unsigned remainder and an i1 cast (-1 for odd keys).
    b, h, s, d = 2, 4, 150, 64
    q, k, v = rand(b, h, s, d), rand(b, h, s, d), rand(b, h, s, d)
    head_bias = torch.randn(h, device="cuda")
    rel_table = torch.randn(2 * s - 1, device="cuda", dtype=torch.bfloat16)
    body = (f"%hb = tensor.extract %capture0[%h] : tensor<{h}xf32>\n"
            f"%off = arith.constant {s - 1} : index\n"
            "%d = arith.subi %q_idx, %kv_idx : index\n"
            "%i = arith.addi %d, %off : index\n"
            f"%r16 = tensor.extract %capture1[%i] : tensor<{2 * s - 1}xbf16>\n"
            "%r = arith.extf %r16 : bf16 to f32\n"
            "%two = arith.constant 2 : index\n"
            "%odd = arith.remui %kv_idx, %two : index\n"
            "%oddb = arith.index_cast %odd : index to i1\n"
            "%sign = arith.sitofp %oddb : i1 to f32\n"
            "%y0 = arith.addf %score, %hb : f32\n"
            "%y1 = arith.addf %y0, %r : f32\n"
            "%y = arith.addf %y1, %sign : f32\n"
            "attn.yield %y : f32")
    out = attn.sdpa(q, k, v, is_causal=True, score_mod=body,
                    score_mod_captures=[head_bias, rel_table])
    i = torch.arange(s, device="cuda")
    rel_bias = rel_table.double()[i[:, None] - i[None, :] + s - 1]
    odd = -(i % 2).double()[None, :]

    def mod(x):
        return x + head_bias.double()[None, :, None, None] + rel_bias + odd
    ref = reference(q, k, v, torch.ones(s, s, dtype=torch.bool, device="cuda").tril(), score_mod=mod)
    assert rel(out, ref) < 1e-2
    # The helper for the common case.
    out = attn.sdpa(q, k, v, score_mod=attn.head_bias(h), score_mod_captures=[head_bias])
    ref = reference(q, k, v, score_mod=lambda x: x + head_bias.double()[None, :, None, None])
    assert rel(out, ref) < 1e-2
    with pytest.raises(attn.AttnError, match="needs a score_mod"):
        attn.sdpa(q, k, v, score_mod_captures=[head_bias])
