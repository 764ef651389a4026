"""attn.sdpa's backward through torch.autograd (torch.ops.attn.sdpa's
registered autograd, running torch.ops.attn.sdpa_backward): gradients of
query, key, value and a float attn_mask against float64 autograd (torch's
math SDPA, or a float64 eager reference where a score_mod or rows without
keys need one), the deterministic mode, torch.compile of a training step,
CUDA-graph capture of one, the errors of what the backward does not do, and
a short training run of a small transformer against torch's math backend.
Skipped without CUDA.

    PYTHONPATH=python ATTN_LIBRARY=build/lib/libattn_c.so.6 python3 -m pytest python/tests/test_backward.py
"""

import math

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

import attn  # noqa: E402
from test_sdpa import rel  # noqa: E402

# Relative error (Frobenius norm) of a bf16/f16 gradient against float64
# autograd on the same (rounded) inputs: the bound. Rounding P and dS
# to 16 bits for the tensor-core products costs about 2^-9 per element, a
# few 1e-3 over a tensor.
GRAD_TOLERANCE = 1e-2


def allowed_keys(b, sq, skv, is_causal=False, bottom_right=False, window=None, lengths=None):
    """(b or 1, 1, sq, skv) bool: the keys each query may see under attn's
    positional masks and key padding (True takes part)."""
    i = torch.arange(sq, device="cuda")[:, None]
    j = torch.arange(skv, device="cuda")[None, :]
    diag = i + (skv - sq if bottom_right else 0)
    keep = torch.ones(sq, skv, dtype=torch.bool, device="cuda")
    if is_causal:
        keep &= j <= diag
    if window is not None:
        left, right = window
        if left >= 0:
            keep &= j >= diag - left
        if right >= 0:
            keep &= j <= diag + right
    keep = keep[None, None]
    if lengths is not None:
        keep = keep & (torch.arange(skv, device="cuda")[None, None, None, :] < lengths[:, None, None, None])
    return keep


def eager_reference(q, k, v, keep=None, bias=None, scale=None, score_mod=None):
    """softmax(score_mod(q k^T scale) + bias, masked by keep) v in float64
    torch ops (differentiable); rows without keys give 0, as attn's do."""
    if k.shape[1] != q.shape[1]:
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(-1, -2) * scale
    if score_mod is not None:
        s = score_mod(s)
    if bias is not None:
        s = s + bias
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    m = s.amax(-1, keepdim=True).detach()
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    p = torch.exp(s - m)
    z = p.sum(-1, keepdim=True)
    return torch.where(z > 0, p / torch.where(z > 0, z, torch.ones_like(z)), torch.zeros_like(p)) @ v


def softcap_reference(cap):
    return lambda s: cap * torch.tanh(s / cap)


def alibi_reference(num_heads):
    def mod(s):
        h = torch.arange(num_heads, device=s.device, dtype=torch.float64)
        slope = torch.exp2(-8.0 * (h + 1) / num_heads)[None, :, None, None]
        sq, skv = s.shape[-2:]
        distance = (torch.arange(skv, device=s.device)[None, :] - torch.arange(sq, device=s.device)[:, None])
        return s + slope * distance.double()
    return mod


# name: sizes (b, hq, hkv, sq, skv, dqk, dv) and the call's options. "mask":
# "padding" (a bool (b, 1, 1, skv) attn_mask), "bias" (a float (b, hq, sq,
# skv) attn_mask that requires grad), "bias-broadcast" (a float (sq, skv)
# one that requires grad).
CASES = {
    "hd64-odd": ((2, 4, 4, 77, 213, 64, 64), {}),
    "hd128-odd": ((2, 4, 4, 301, 157, 128, 128), {}),
    "hd256": ((1, 2, 2, 130, 201, 256, 256), {}),
    "hd192x128": ((1, 4, 4, 200, 190, 192, 128), {}),
    "gqa-causal": ((2, 8, 2, 257, 257, 128, 128), {"is_causal": True}),
    "mqa-hd64": ((2, 4, 1, 100, 300, 64, 64), {}),
    "causal-top-left-short": ((2, 4, 4, 300, 100, 64, 64), {"is_causal": True}),
    "causal-bottom-right": ((2, 4, 2, 100, 300, 128, 128), {"is_causal": True, "bottom_right": True}),
    # sq > skv bottom-right: the first 200 queries see no key (zero gradients).
    "bottom-right-empty-rows": ((1, 2, 2, 300, 100, 64, 64), {"is_causal": True, "bottom_right": True}),
    "window": ((2, 4, 4, 333, 333, 64, 64), {"window": (64, 16)}),
    "padding-mask": ((3, 4, 2, 129, 250, 128, 128), {"mask": "padding"}),
    "lengths": ((3, 4, 4, 200, 250, 64, 64), {"lengths": True, "is_causal": True}),
    "bias-grad": ((2, 4, 4, 97, 143, 64, 64), {"mask": "bias"}),
    "bias-broadcast-grad": ((2, 4, 4, 97, 143, 64, 64), {"mask": "bias-broadcast"}),
    "softcap": ((2, 4, 2, 211, 211, 128, 128), {"is_causal": True, "score_mod": "softcap"}),
    "alibi": ((2, 8, 8, 150, 150, 64, 64), {"score_mod": "alibi"}),
}


def make_case(name, dtype):
    """The inputs (requiring grad), the attn.sdpa keyword arguments, and a
    function of float64 leaves that computes the reference output."""
    (b, hq, hkv, sq, skv, dqk, dv), options = CASES[name]
    torch.manual_seed(sum(map(ord, name)))
    q = torch.randn(b, hq, sq, dqk, device="cuda", dtype=dtype, requires_grad=True)
    k = torch.randn(b, hkv, skv, dqk, device="cuda", dtype=dtype, requires_grad=True)
    v = torch.randn(b, hkv, skv, dv, device="cuda", dtype=dtype, requires_grad=True)
    kwargs = {"enable_gqa": hq != hkv}
    for option in ("is_causal", "bottom_right", "window"):
        if option in options:
            kwargs[option] = options[option]
    lengths = None
    if options.get("lengths"):
        lengths = torch.randint(1, skv + 1, (b,), device="cuda", dtype=torch.int32)
        lengths[0] = skv
        kwargs["lengths"] = lengths
    mask = options.get("mask")
    attn_mask = None
    if mask == "padding":
        valid = torch.randint(1, skv + 1, (b,), device="cuda")
        attn_mask = torch.arange(skv, device="cuda")[None, None, None, :] < valid[:, None, None, None]
    elif mask == "bias":
        attn_mask = torch.randn(b, hq, sq, skv, device="cuda", dtype=dtype).requires_grad_()
    elif mask == "bias-broadcast":
        attn_mask = torch.randn(sq, skv, device="cuda", dtype=torch.float32).requires_grad_()
    if attn_mask is not None:
        kwargs["attn_mask"] = attn_mask
    score_mod = options.get("score_mod")
    reference_mod = None
    if score_mod == "softcap":
        kwargs["score_mod"] = attn.softcap(2.0)
        reference_mod = softcap_reference(2.0)
    elif score_mod == "alibi":
        kwargs["score_mod"] = attn.alibi(hq)
        reference_mod = alibi_reference(hq)

    keep = allowed_keys(b, sq, skv, kwargs.get("is_causal", False), kwargs.get("bottom_right", False),
                        kwargs.get("window"), lengths)
    empty_rows = not keep.any(-1).all()

    def reference(q64, k64, v64, mask64):
        keys = keep
        bias = None
        if mask64 is not None:
            if mask64.dtype == torch.bool:
                keys = keys & mask64
            else:
                bias = mask64
        if reference_mod is not None or empty_rows:
            return eager_reference(q64, k64, v64, keys, bias, score_mod=reference_mod)
        # torch's math SDPA: a bool mask for the positional masks, a float one
        # with -inf where masked for a bias.
        torch_mask = keys if bias is None else bias.masked_fill(~keys, float("-inf"))
        with sdpa_kernel(SDPBackend.MATH):
            return F.scaled_dot_product_attention(q64, k64, v64, attn_mask=torch_mask,
                                                  enable_gqa=kwargs["enable_gqa"])

    return (q, k, v, attn_mask), kwargs, reference


def gradients(name, dtype, deterministic=False):
    """attn's output and gradients, and the float64 reference's, for one
    random output gradient."""
    (q, k, v, attn_mask), kwargs, reference = make_case(name, dtype)
    out = attn.sdpa(q, k, v, deterministic=deterministic, **kwargs)
    grad_out = torch.randn_like(out)
    leaves = [t for t in (q, k, v, attn_mask) if t is not None and t.requires_grad]
    grads = torch.autograd.grad(out, leaves, grad_out)
    leaves64 = [t.detach().double().requires_grad_(t.requires_grad) if t is not None and t.is_floating_point()
                else t for t in (q, k, v, attn_mask)]
    out64 = reference(*leaves64)
    grads64 = torch.autograd.grad(out64, [t for t in leaves64 if t is not None and t.requires_grad],
                                  grad_out.double())
    return out, out64, grads, grads64


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_match_float64_autograd_bf16(name):
    out, out64, grads, grads64 = gradients(name, torch.bfloat16)
    assert rel(out, out64) < GRAD_TOLERANCE
    names = ["dq", "dk", "dv", "dmask"]
    for what, grad, grad64 in zip(names, grads, grads64):
        assert grad.dtype == (torch.float32 if name == "bias-broadcast-grad" and what == "dmask"
                              else torch.bfloat16)
        assert grad.shape == grad64.shape
        assert torch.isfinite(grad).all(), what
        assert rel(grad, grad64) < GRAD_TOLERANCE, (what, rel(grad, grad64))
    if name == "bottom-right-empty-rows":
        assert (grads[0][:, :, :200] == 0).all()  # queries that see no key


@pytest.mark.parametrize("name", ["hd64-odd", "gqa-causal", "bias-grad", "softcap"])
def test_gradients_match_float64_autograd_f16(name):
    out, out64, grads, grads64 = gradients(name, torch.float16)
    for grad, grad64 in zip(grads, grads64):
        assert rel(grad, grad64) < GRAD_TOLERANCE


@pytest.mark.parametrize("name", ["gqa-causal", "lengths", "bias-grad", "softcap"])
def test_deterministic_gradients_are_bitwise_stable(name):
    first = None
    for _ in range(10):
        out, out64, grads, grads64 = gradients(name, torch.bfloat16, deterministic=True)
        if first is None:
            first = grads
            for grad, grad64 in zip(grads, grads64):
                assert rel(grad, grad64) < GRAD_TOLERANCE
        else:
            for grad, again in zip(first, grads):
                assert torch.equal(grad, again)


def test_torch_deterministic_algorithms_select_the_deterministic_mode():
    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        runs = [gradients("gqa-causal", torch.bfloat16)[2] for _ in range(4)]
    finally:
        torch.use_deterministic_algorithms(before)
    for again in runs[1:]:
        for grad, other in zip(runs[0], again):
            assert torch.equal(grad, other)


def test_gradients_of_bshd_views_have_their_layout():
    # (B, S, H, D) memory viewed as (B, H, S, D): the gradients keep it, so
    # that the projections' backward reads them without a copy.
    q, k, v = (torch.randn(2, 200, 4, 64, device="cuda", dtype=torch.bfloat16).transpose(1, 2).requires_grad_()
               for _ in range(3))
    out = attn.sdpa(q, k, v, is_causal=True)
    grad_out = torch.randn_like(out)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), grad_out)
    assert dq.stride() == q.stride() and dk.stride() == k.stride() and dv.stride() == v.stride()
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    with sdpa_kernel(SDPBackend.MATH):
        ref = F.scaled_dot_product_attention(q64, k64, v64, is_causal=True)
    for grad, grad64 in zip((dq, dk, dv), torch.autograd.grad(ref, (q64, k64, v64), grad_out.double())):
        assert rel(grad, grad64) < GRAD_TOLERANCE


def test_an_expanded_output_gradient_is_read():
    # out.sum() hands the backward an expanded gradient (all strides 0).
    (q, k, v, _), kwargs, reference = make_case("hd64-odd", torch.bfloat16)
    attn.sdpa(q, k, v, **kwargs).float().sum().backward()
    leaves64 = [t.detach().double().requires_grad_() for t in (q, k, v)]
    reference(*leaves64, None).sum().backward()
    for t, t64 in zip((q, k, v), leaves64):
        assert rel(t.grad, t64.grad) < GRAD_TOLERANCE


def test_only_the_inputs_that_require_grad_get_one():
    q = torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k, v = (torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    attn.sdpa(q, k, v).float().sum().backward()
    assert q.grad is not None and k.grad is None and v.grad is None
    # The logsumexp is an output without a gradient.
    out, lse = attn.sdpa(q, k, v, return_lse=True)
    assert out.requires_grad and not lse.requires_grad


# ----------------------------------------------------------------------------
# What the backward does not do: AttnError, at the call where it can.

def test_a_capture_that_requires_grad_is_refused():
    q = torch.randn(1, 4, 64, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    bias = torch.zeros(4, device="cuda", requires_grad=True)
    with pytest.raises(attn.AttnError, match=r"score_mod_captures\[0\] requires grad.*"
                                             r"score_mod_captures\[0\]\.detach\(\)"):
        attn.sdpa(q, q, q, score_mod=attn.head_bias(4), score_mod_captures=[bias])
    # Detached, the capture is read and query, key, value are differentiated.
    out = attn.sdpa(q, q, q, score_mod=attn.head_bias(4), score_mod_captures=[bias.detach()])
    out.float().sum().backward()
    assert q.grad is not None and torch.isfinite(q.grad).all()


def sinks_reference(q, k, v, sinks, grad, causal_mask):
    """float64 attention with a sink column in the softmax, and the
    gradients of (out * grad).sum(): (out64, dq, dk, dv, dsinks)."""
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    s64 = sinks.detach().double().requires_grad_()
    group = q.shape[1] // k.shape[1]
    kk, vv = (t.repeat_interleave(group, dim=1) for t in (k64, v64))
    s = (q64 @ kk.transpose(-1, -2)) / q.shape[-1] ** 0.5
    s = s.masked_fill(causal_mask, float("-inf"))
    b, h, sq, _ = q.shape
    column = s64.view(1, h, 1, 1).expand(b, h, sq, 1)
    p = torch.softmax(torch.cat([s, column], dim=-1), dim=-1)[..., :-1]
    out64 = p @ vv
    out64.backward(grad.double())
    return out64, q64.grad, k64.grad, v64.grad, s64.grad


def check_dsinks(got, sinks, out, lse, grad, want, own_tolerance=1e-4):
    """dsinks = -sum exp(sink - lse) D is a sum of terms of both signs: the
    kernel's must be that sum of its own forward's out and lse (f32 against
    float64), and within 1e-2 of float64's relative to the sum of |terms|
    (bf16 rounding of out moves each D; a relative error of the cancelled
    sum would measure the cancellation)."""
    weight = torch.exp(sinks.detach().double().view(1, -1, 1) - lse.double())
    terms = weight * (grad.double() * out.detach().double()).sum(-1)
    own = -terms.sum((0, 2))
    assert rel(got, own) < own_tolerance, rel(got, own)
    scale = terms.abs().sum((0, 2))
    assert ((got.double() - want) / scale).abs().max() < 1e-2, ((got.double() - want) / scale)


@pytest.mark.parametrize("learned", [False, True])
def test_sinks_gradient_and_constant_sinks(learned):
    # The logsumexp the backward reads counts the sinks, which add no value:
    # dq, dk, dv are those of the softmax with the sink column, constant
    # sinks or not; learned sinks get dsinks = -sum exp(sink - lse) D.
    # GQA, odd lengths, bf16 sinks (a model's parameter dtype).
    torch.manual_seed(3)
    q = torch.randn(2, 8, 97, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k, v = (torch.randn(2, 2, 97, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(2))
    sinks = (torch.randn(8, device="cuda") * 2).to(torch.bfloat16).requires_grad_(learned)
    out, lse = attn.sdpa(q, k, v, is_causal=True, enable_gqa=True, sinks=sinks, return_lse=True)
    grad = torch.randn_like(out)
    out.backward(grad)
    mask = torch.ones(97, 97, device="cuda", dtype=torch.bool).triu(1)
    out64, dq, dk, dv, ds = sinks_reference(q, k, v, sinks, grad, mask)
    assert rel(out, out64) < GRAD_TOLERANCE
    for what, got, want in (("dq", q.grad, dq), ("dk", k.grad, dk), ("dv", v.grad, dv)):
        assert rel(got, want) < GRAD_TOLERANCE, (what, rel(got, want))
    if learned:
        assert sinks.grad is not None and sinks.grad.dtype == torch.bfloat16 and sinks.grad.shape == (8,)
        # A bf16 gradient: its rounding (2^-9) on top of the f32 sum.
        check_dsinks(sinks.grad.float(), sinks, out, lse, grad, ds, own_tolerance=4e-3)
    else:
        assert sinks.grad is None


def test_sinks_gradient_is_deterministic_and_compiles():
    # The _sinks kernel sums in a fixed order; torch.compile traces it.
    torch.manual_seed(4)
    q, k, v = (torch.randn(1, 4, 300, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    sinks = torch.randn(4, device="cuda", requires_grad=True)
    grad = torch.randn(1, 4, 300, 128, device="cuda", dtype=torch.bfloat16)

    def loss(q, k, v, sinks):
        return (attn.sdpa(q, k, v, window=(64, 0), sinks=sinks, deterministic=True) * grad).float().sum()

    with torch.no_grad():
        out, lse = attn.sdpa(q, k, v, window=(64, 0), sinks=sinks, return_lse=True)

    def step(loss):
        return torch.autograd.grad(loss(q, k, v, sinks), (q, k, v, sinks))

    first, second = step(loss), step(loss)
    for a, b in zip(first, second):
        assert torch.equal(a, b)
    torch._dynamo.reset()
    traced = step(torch.compile(loss, fullgraph=True))
    for a, b in zip(first, traced):
        assert rel(b, a) < 1e-6
    window = torch.ones(300, 300, device="cuda", dtype=torch.bool).triu(1) | \
        torch.ones(300, 300, device="cuda", dtype=torch.bool).tril(-65)
    *_, ds = sinks_reference(q, k, v, sinks, grad, window)
    check_dsinks(first[3], sinks, out, lse, grad, ds)


def test_a_score_mod_without_a_derivative_is_reported_at_its_line():
    q = torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    # The next float up: a bitcast of the score has no derivative (the
    # forward compiles).
    bits = ("%i = arith.bitcast %score : f32 to i32\n"
            "%one = arith.constant 1 : i32\n"
            "%j = arith.addi %i, %one : i32\n"
            "%f = arith.bitcast %j : i32 to f32\n"
            "attn.yield %f : f32")
    with torch.no_grad():
        attn.sdpa(q, q, q, score_mod=bits)
    with pytest.raises(attn.AttnError, match=r"the score_mod argument cannot be differentiated: line 1, "
                                             r"column \d+: 'arith.bitcast' op is not differentiable"):
        attn.sdpa(q, q, q, score_mod=bits)


def test_the_deterministic_mode_refuses_a_broadcast_bias_gradient():
    q = torch.randn(2, 4, 64, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    bias = torch.randn(64, 64, device="cuda", requires_grad=True)
    with pytest.raises(attn.AttnError, match=r"deterministic backward cannot sum the gradient of an attn_mask "
                                             r"that broadcasts \(shape \(64, 64\), over batch, heads\)"):
        attn.sdpa(q, q, q, attn_mask=bias, deterministic=True)
    # Expanded to the full shape it is summed by autograd, deterministically.
    full = bias.expand(2, 4, 64, 64)
    attn.sdpa(q, q, q, attn_mask=full, deterministic=True).float().sum().backward()
    assert bias.grad is not None and bias.grad.shape == (64, 64)


def test_no_double_backward():
    # A gradient with create_graph=True would have to be differentiable.
    q = torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    out = attn.sdpa(q, q, q)
    with pytest.raises(attn.AttnError, match="no double backward"):
        torch.autograd.grad(out.float().sum(), q, create_graph=True)


def test_the_registered_op_needs_the_logsumexp_when_recorded():
    q = torch.randn(1, 2, 64, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    with pytest.raises(attn.AttnError, match="needs return_lse=True"):
        torch.ops.attn.sdpa(q, q, q)
    out, lse = torch.ops.attn.sdpa(q, q, q, return_lse=True)
    out.float().sum().backward()
    assert q.grad is not None


def test_ops_schemas_fake_implementations_and_autograd_registration():
    q = torch.randn(2, 8, 40, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(2, 2, 50, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(2, 2, 50, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    # A full bias: the deterministic mode sums no broadcast dimension.
    bias = torch.randn(2, 8, 40, 50, device="cuda", requires_grad=True)
    kwargs = {"enable_gqa": True, "return_lse": True, "score_mod": attn.softcap(10.0), "deterministic": True}
    torch.library.opcheck(torch.ops.attn.sdpa.default, (q, k, v, bias), kwargs,
                          test_utils=("test_schema", "test_autograd_registration", "test_faketensor",
                                      "test_aot_dispatch_dynamic"))
    with torch.no_grad():
        out, lse = torch.ops.attn.sdpa(q, k, v, bias, **kwargs)
    backward_args = (torch.randn_like(out), q.detach(), k.detach(), v.detach(), out, lse, bias.detach(), None,
                     None, torch.randn(8, device="cuda"), False, None, True)
    backward_kwargs = {"score_mod": attn.softcap(10.0), "bias_grad": True, "deterministic": True}
    torch.library.opcheck(torch.ops.attn.sdpa_backward.default, backward_args, backward_kwargs,
                          test_utils=("test_schema", "test_faketensor"))
    dq, dk, dv, dbias, dsinks = torch.ops.attn.sdpa_backward(*backward_args, **backward_kwargs)
    assert dq.shape == q.shape and dk.shape == k.shape and dv.shape == v.shape and dbias.shape == bias.shape
    assert dsinks.shape == (8,) and dsinks.dtype == torch.float32


# ----------------------------------------------------------------------------
# torch.compile and CUDA graphs of a training step.

def test_compile_fullgraph_traces_forward_and_backward():
    torch._dynamo.reset()
    (q, k, v, _), kwargs, reference = make_case("softcap", torch.bfloat16)
    weight = torch.randn(q.shape[0], q.shape[1], q.shape[2], q.shape[3], device="cuda")

    def loss(q, k, v):
        return (attn.sdpa(q, k, v, deterministic=True, **kwargs).float() * weight).sum()

    compiled = torch.compile(loss, fullgraph=True)
    eager = torch.autograd.grad(loss(q, k, v), (q, k, v))
    traced = torch.autograd.grad(compiled(q, k, v), (q, k, v))
    leaves64 = [t.detach().double().requires_grad_() for t in (q, k, v)]
    expected = torch.autograd.grad((reference(*leaves64, None) * weight.double()).sum(), leaves64)
    for got, same, want in zip(traced, eager, expected):
        assert rel(got, want) < GRAD_TOLERANCE
        assert rel(got, same.double()) < 1e-3
    # Another sequence length: the same compiled function (dynamic shapes).
    q2, k2, v2 = (t.detach()[:, :, :150].clone().requires_grad_() for t in (q, k, v))
    weight = weight[:, :, :150]
    traced = torch.autograd.grad(compiled(q2, k2, v2), (q2, k2, v2))
    eager = torch.autograd.grad(loss(q2, k2, v2), (q2, k2, v2))
    for got, same in zip(traced, eager):
        assert rel(got, same.double()) < 1e-3


def test_a_training_step_replays_in_a_cuda_graph():
    q, k, v = (torch.randn(2, 4, 256, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    grad_out = torch.randn(2, 4, 256, 64, device="cuda", dtype=torch.bfloat16)
    attn.precompile(q, k, v, is_causal=True, backward=True)

    def step():
        for t in (q, k, v):
            t.grad = None
        attn.sdpa(q, k, v, is_causal=True, deterministic=True).backward(grad_out)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    for t in (q, k, v):
        t.grad = None
    with torch.cuda.graph(graph):
        attn.sdpa(q, k, v, is_causal=True, deterministic=True).backward(grad_out)
    captured = [t.grad for t in (q, k, v)]
    for _ in range(2):
        with torch.no_grad():
            for t in (q, k, v, grad_out):
                t.copy_(torch.randn_like(t))
        graph.replay()
        replayed = [g.clone() for g in captured]
        step()
        torch.cuda.synchronize()
        for got, eager in zip(replayed, (q.grad, k.grad, v.grad)):
            assert torch.equal(got, eager)


# ----------------------------------------------------------------------------
# Training: a small transformer, attn against torch's math backend.

class Block(torch.nn.Module):
    def __init__(self, width, heads, attention):
        super().__init__()
        self.heads = heads
        self.attention = attention
        self.norm1 = torch.nn.LayerNorm(width)
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.norm2 = torch.nn.LayerNorm(width)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                       torch.nn.Linear(4 * width, width))

    def forward(self, x):
        b, s, w = x.shape
        # (B, S, 3, H, D) viewed as three (B, H, S, D): no copies.
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, w // self.heads).unbind(2)
        o = self.attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        x = x + self.proj(o.transpose(1, 2).reshape(b, s, w))
        return x + self.mlp(self.norm2(x))


class TinyTransformer(torch.nn.Module):
    def __init__(self, attention, vocab=64, width=256, heads=4, layers=2, length=256):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.position = torch.nn.Parameter(torch.randn(length, width) * 0.02)
        self.blocks = torch.nn.ModuleList(Block(width, heads, attention) for _ in range(layers))
        self.norm = torch.nn.LayerNorm(width)
        self.head = torch.nn.Linear(width, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def attn_attention(q, k, v):
    return attn.sdpa(q, k, v, is_causal=True)


def math_attention(q, k, v):
    with sdpa_kernel(SDPBackend.MATH):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def math_attention_f32(q, k, v):
    # Outside autocast, which would run the attention in bf16 again.
    with sdpa_kernel(SDPBackend.MATH), torch.autocast("cuda", enabled=False):
        return F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True).to(q.dtype)


def copy_task_batches(steps, batch=16, length=256, vocab=64):
    """Sequences whose second half repeats the first, whose tokens follow
    Zipf's law: the token frequencies alone take the loss from ln(64) = 4.16
    to about 3.4; only attention to the key 128 positions back predicts the
    second half."""
    generator = torch.Generator(device="cuda").manual_seed(1234)
    zipf = 1.0 / torch.arange(1, vocab + 1, device="cuda", dtype=torch.float32)
    for _ in range(steps):
        half = torch.multinomial(zipf.expand(batch, vocab), length // 2, replacement=True, generator=generator)
        yield torch.cat([half, half], dim=1)


def train(attention, steps=200):
    """Per-step losses, and the gradients of the first step, of the same
    model (same initialization) on the same batches."""
    torch.manual_seed(0)
    model = TinyTransformer(attention).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
    losses, first_grads = [], None
    for tokens in copy_task_batches(steps):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if first_grads is None:
            first_grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
        optimizer.step()
        losses.append(loss.item())
    return torch.tensor(losses), first_grads


def test_training_matches_the_math_backend():
    attn_losses, attn_grads = train(attn_attention)
    math_losses, math_grads = train(math_attention)
    f32_losses, f32_grads = train(math_attention_f32)
    for losses in (attn_losses, math_losses, f32_losses):
        assert torch.isfinite(losses).all()
    # The setup learns, with torch's backend and with attn (the frequencies
    # alone are worth 0.7; copying, more).
    for losses in (math_losses, attn_losses):
        assert losses[-20:].mean() < losses[:5].mean() - 0.3, losses
    # Tolerance: the two torch runs differ only in the rounding of the
    # attention (bf16 math against float32 math), which is the size of the
    # difference attn's bf16 kernels may make. attn must stay within 3x that
    # run-to-run spread of the loss curve (or 2% of the loss, whichever is
    # larger, for the case where bf16 rounding happens to cancel out).
    spread = ((math_losses - f32_losses).abs() / f32_losses).mean().item()
    attn_gap = ((attn_losses - math_losses).abs() / math_losses).mean().item()
    assert attn_gap < max(3 * spread, 0.02), (attn_gap, spread)
    # The first step's gradients (same weights, same batch): attn against
    # the float32-attention run, within 2x the bf16 math run's error.
    for name, grad in attn_grads.items():
        bound = 2 * rel(math_grads[name], f32_grads[name].double()) + 1e-2
        assert rel(grad, f32_grads[name].double()) < bound, name
