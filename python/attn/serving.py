"""Serving forms of attention with flash_attn's tensor conventions:

    out = attn.varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, causal=True)

varlen takes a ragged batch packed without padding (THD: q (total_q, Hq, D),
k and v (total_k, Hkv, D)) and the int32 offsets of each sequence's first
query and key (batch + 1 each), as an inference server batches prompts.
One launch computes every sequence; nothing padded is computed.

Kernels are compiled once per specialization (dtype, heads, head dims,
masks, score_mod) for any batch and token counts, cached like attn.sdpa's.
A launch reads no device memory on the host and allocates only from torch's
caching allocator, so a call with fixed shapes can be captured in a CUDA
graph once it has run (compiled and loaded) outside the capture.
"""

import collections
import ctypes
import math
import operator
import sys

_attn = sys.modules[__package__]


def _error(message):
    return _attn.AttnError("attn.varlen: " + message)


class _WindowMask(collections.namedtuple("_WindowMask", "causal window")):
    """flash_attn's causal and window_size: causal, and window (left, right)
    or None for none; both aligned to the bottom-right of each sequence."""
    __slots__ = ()

    @property
    def bottom_right(self):
        """Whether there is a mask to align (bottom_right is written)."""
        return self.causal or self.window is not None


def _window_mask(causal, window):
    """The _WindowMask of flash_attn's causal and window_size=(left, right)
    (-1: unbounded)."""
    if window is None:
        window = (-1, -1)
    try:
        left, right = (int(w) for w in window)
    except (TypeError, ValueError):
        raise _error(f"window must be (left, right) with -1 for unbounded; got {window!r}") from None
    if left < -1 or right < -1:
        raise _error(f"window bounds are -1 (unbounded) or at least 0; got {window!r}")
    return _WindowMask(bool(causal), None if (left, right) == (-1, -1) else (left, right))


def _score_mod_of(softcap, score_mod):
    if softcap:
        if score_mod:
            raise _error("pass softcap or a score_mod, not both (a score_mod can cap itself: attn.softcap)")
        if not softcap > 0:
            raise _error(f"softcap must be positive (or 0 for none); got {softcap!r}")
        return _attn.softcap(softcap)
    return score_mod or None


def _varlen_mlir(dtype, hq, hkv, dqk, dv, scale, mask, score_mod, return_lse, captures, sinks=False):
    """The attention as one attn.flash over a ragged batch of any size (mask:
    a _WindowMask)."""
    offsets = ([None], "i32")
    return _attn.write_flash_op(
        ([None, hq, dqk], dtype), ([None, hkv, dqk], dtype), ([None, hkv, dv], dtype), scale, function="varlen",
        captures=captures, cu_seqlens_q=offsets, cu_seqlens_k=offsets, sinks=([hq], "f32") if sinks else None,
        causal=mask.causal, window=mask.window, bottom_right=mask.bottom_right, score_mod=score_mod,
        return_lse=return_lse)


def _compiled(spec, make_text, score_mod, variant, tiles, describe, device, call="attn.varlen"):
    """The kernel of `spec` (a key of attn's kernel cache), compiled from the
    MLIR make_text() writes on first use."""
    return _attn._compiled_once(
        _attn._kernels, spec, device,
        lambda: (f"{call}({describe()}) needs a kernel compiled while a CUDA graph is being captured, where "
                 "compiling is not allowed: run the call once before capturing"),
        lambda: _attn._compile_kernel(make_text(), score_mod, variant, tiles, describe, call))


def _host_length(name, n):
    """A max_seqlen: a host int (reading a tensor would synchronize), clamped
    to what the kernel takes."""
    if isinstance(n, _attn.torch.Tensor):
        raise _error(f"{name} must be a host int, as flash_attn takes it (reading a tensor would "
                     f"synchronize the stream); got a tensor")
    try:
        n = operator.index(n)
    except TypeError:
        raise _error(f"{name} must be an int; got {n!r}") from None
    if n < 0:
        raise _error(f"{name} must be non-negative; got {n}")
    return min(n, 2**31 - 1)


def _check_packed(name, t, device, dims=3):
    torch = _attn.torch
    if not isinstance(t, torch.Tensor):
        raise _error(f"{name} must be a tensor; got {type(t).__name__}")
    if t.device != device:
        raise _error(f"{name} is on {t.device} but q is on {device}; move it with {name}.to(q.device)")
    if t.dim() != dims:
        layout = "(total_tokens, heads, head_dim)" if dims == 3 else "(batch + 1,)"
        raise _error(f"{name} must be {dims}-d {layout}; got shape {tuple(t.shape)}")


def _launch(kernel, args, device, dev, key, call="attn.varlen"):
    """Sizes the workspace once per launch shape, allocates it from torch's
    caching allocator on the current stream and launches there."""
    torch = _attn.torch
    lib = _attn._lib
    stream = _attn._current_stream(dev)
    workspace_bytes = kernel.workspace.get(key)
    if workspace_bytes is None:
        size = ctypes.c_uint64()
        if lib.attn_workspace_size(kernel.ptr, args, _attn._LAUNCH_CONFIG.pack(0, dev, stream, 0, 0),
                                   ctypes.byref(size)):
            raise _attn.AttnError(f"{call}: " + lib.attn_last_error().decode())
        if len(kernel.workspace) > 1024:
            kernel.workspace.clear()
        workspace_bytes = kernel.workspace[key] = size.value
    workspace = torch.empty(workspace_bytes, device=device, dtype=torch.uint8) if workspace_bytes else None
    config = _attn._LAUNCH_CONFIG.pack(0, dev, stream, workspace.data_ptr() if workspace is not None else 0,
                                       workspace_bytes)
    if lib.attn_launch_on(kernel.ptr, args, config):
        raise _attn.AttnError(f"{call}: " + lib.attn_last_error().decode())


def varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0, scale=None,
           causal=False, window=(-1, -1), softcap=0.0, return_lse=False, *, score_mod=None,
           score_mod_captures=(), sinks=None, variant="", block_m=0, block_n=0, num_warps=0, stages=0,
           num_splits=0, batch_invariant=False, deterministic=None, return_kernel=False):
    """flash_attn_varlen_func on attn's kernels: attention over a ragged batch.

    q (total_q, Hq, D), k (total_k, Hkv, D), v (total_k, Hkv, Dv): CUDA,
    float16 or bfloat16, on one device, Hkv dividing Hq (GQA/MQA), any
    strides with a contiguous last dimension. cu_seqlens_q, cu_seqlens_k:
    int32 (batch + 1,) on the same device: sequence b's queries are rows
    cu_seqlens_q[b]:cu_seqlens_q[b + 1] of q, its keys those of k and v, and
    it attends to its own keys only. Offsets are clamped to the tensors by
    the kernel (never read on the host); rows of no sequence are left as
    they are in the output (uninitialized). max_seqlen_q, max_seqlen_k: the
    longest sequence's lengths (ints, as flash_attn takes them), which only
    guide how the keys are split over blocks.

    scale (flash_attn's softmax_scale): default 1/sqrt(D). causal and
    window=(left, right) (-1: unbounded) are aligned to each sequence's
    bottom-right, as flash_attn aligns them. softcap > 0: scores become
    softcap * tanh(scores / softcap). score_mod (an MLIR region body, see
    attn.sdpa; %b is the sequence, %q_idx and %kv_idx positions within it)
    and score_mod_captures as in attn.sdpa. sinks (Hq,): attention sinks,
    one logit per query head in every row's denominator (gpt-oss).
    return_lse also returns the
    natural-log logsumexp, float32 (Hq, total_q). variant, the tile sizes
    and num_splits override the cost model and the split heuristic;
    batch_invariant as in attn.sdpa (a sequence's output is bitwise the
    same whatever else is in the batch).

    Differentiable (packed-sequence training): where autograd records the
    call (q, k, v or sinks require grad), the backward computes dq, dk, dv
    (and dsinks) of every sequence, with the same masks and score_mod; the
    gradients of rows no sequence covers are 0 (a returned lse takes no
    gradient). Its kernels have no
    atomics, so it is deterministic whatever `deterministic` says. The
    call goes through torch.ops.attn.varlen, so torch.compile traces it
    and a training step can be captured in a CUDA graph once it has run.

    Returns out (total_q, Hq, Dv), or (out, lse); with return_kernel, also
    the kernel's handle (for attn.kernel_info).
    """
    call = _check_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, dropout_p, scale, causal, window, softcap, score_mod,
                         score_mod_captures, sinks, differentiable=True)
    max_seqlen_q = _host_length("max_seqlen_q", max_seqlen_q)
    max_seqlen_k = _host_length("max_seqlen_k", max_seqlen_k)
    tiles = (block_m, block_n, num_warps, stages)
    if _records_grad(q, k, v, sinks):
        if return_kernel:
            raise _error("return_kernel is for calls autograd does not record (its forward is torch.ops.attn.varlen)")
        for i, c in enumerate(call.captures):
            if c.requires_grad:
                raise _error(f"score_mod_captures[{i}] requires grad, but attn differentiates only q, k, v and "
                             f"sinks: pass score_mod_captures[{i}].detach()")
        out, lse = _attn.torch.ops.attn.varlen(
            q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, call.captures, sinks,
            scale=call.scale, causal=bool(causal), window=list(_window_pair(window)),
            score_mod=_attn._score_mod_token(call.score_mod), variant=variant or "", block_m=block_m,
            block_n=block_n, num_warps=num_warps, stages=stages, num_splits=num_splits,
            batch_invariant=bool(batch_invariant), deterministic=deterministic)
        return (out, lse) if return_lse else out
    out, lse, kernel = _varlen_forward(call, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                                       return_lse, variant or "", tiles, num_splits, batch_invariant)
    result = (out, lse) if return_lse else out
    return (result, kernel.handle) if return_kernel else result


class _VarlenCall:
    """What varlen's checks found: sizes, scale, window mask, score_mod text,
    captures and sinks (float32) of a call."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def _window_pair(window):
    return (-1, -1) if window is None else tuple(int(w) for w in window)


def _records_grad(q, k, v, sinks):
    return _attn._grad_enabled() and any(t is not None and t.requires_grad for t in (q, k, v, sinks))


def _check_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, dropout_p, scale, causal, window, softcap, score_mod,
                  score_mod_captures, sinks, differentiable=False):
    """Checks a varlen call (shapes, dtypes, devices, offsets); returns a
    _VarlenCall."""
    torch = _attn.torch
    if torch is None:
        raise _error("needs PyTorch (import torch failed)")
    if dropout_p != 0.0:
        raise _error("dropout is not supported (dropout_p must be 0)")
    if not isinstance(q, torch.Tensor) or q.device.type != "cuda":
        raise _error("q must be a CUDA tensor" + (f"; it is on {q.device}" if isinstance(q, torch.Tensor) else ""))
    device = q.device
    for name, t in (("q", q), ("k", k), ("v", v)):
        _check_packed(name, t, device)
    for name, t in (("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k)):
        _check_packed(name, t, device, dims=1)
        if t.dtype != torch.int32:
            raise _error(f"{name} must be int32; got {t.dtype} ({name}.to(torch.int32))")
        if t.numel() < 2:
            raise _error(f"{name} holds batch + 1 offsets, at least 2; got {t.numel()}")
    if cu_seqlens_q.numel() != cu_seqlens_k.numel():
        raise _error(f"cu_seqlens_q has {cu_seqlens_q.numel()} offsets and cu_seqlens_k "
                     f"{cu_seqlens_k.numel()}; both hold batch + 1")
    if not (q.dtype == k.dtype == v.dtype) or q.dtype not in (torch.float16, torch.bfloat16):
        raise _error(f"q, k and v must all be float16 or all bfloat16; got {q.dtype}, {k.dtype}, {v.dtype}")
    tq, hq, dqk = q.shape
    tk, hkv, kd = k.shape
    vt, vh, dv = v.shape
    if kd != dqk:
        raise _error(f"k's head dim {kd} differs from q's {dqk}")
    if vt != tk or vh != hkv:
        raise _error(f"v has {vt} tokens and {vh} heads, k {tk} and {hkv}; they must agree")
    if hq % hkv:
        raise _error(f"k's heads {hkv} must divide q's {hq}")
    if min(tq, tk, hq, dqk, dv) == 0:
        raise _error(f"q {tuple(q.shape)}, k {tuple(k.shape)} and v {tuple(v.shape)} must not be empty")
    mask = _window_mask(causal, window)
    score_mod = _score_mod_of(softcap, score_mod)
    captures = _attn._check_captures(score_mod, score_mod_captures, device)
    sinks = _attn._check_sinks(sinks, hq, device, "attn.varlen", differentiable)
    if scale is None:
        scale = 1.0 / math.sqrt(dqk)
    names = _attn._DTYPE_NAMES
    capture_types = tuple((tuple(c.shape), names[c.dtype]) for c in captures)
    return _VarlenCall(device=device, dtype=names[q.dtype], tq=tq, tk=tk, hq=hq, hkv=hkv, dqk=dqk, dv=dv,
                       scale=float(scale), mask=mask, score_mod=score_mod, captures=captures,
                       capture_types=capture_types, sinks=sinks)


def _describe_packed(q, k, v):
    return ", ".join(f"{n} {tuple(t.shape)} {str(t.dtype).replace('torch.', '')} on {t.device}"
                     for n, t in (("q", q), ("k", k), ("v", v)))


def _packed(t):
    """(tokens, heads, dim) as the C API's BHSD strides, none along the batch."""
    return (t.data_ptr(), 0, t.stride(1), t.stride(0), t.stride(2))


def _head_dim_contiguous(t):
    return t if t.stride(2) == 1 else t.contiguous()


def _varlen_text(c, return_lse):
    return lambda: _varlen_mlir(c.dtype, c.hq, c.hkv, c.dqk, c.dv, c.scale, c.mask, c.score_mod, return_lse,
                                c.capture_types, c.sinks is not None)


def _varlen_forward(c, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, return_lse, variant,
                    tiles, num_splits, batch_invariant):
    """One launch of the varlen kernel of call `c`; returns (out, lse or
    None, kernel)."""
    torch = _attn.torch
    device = c.device
    spec = ("varlen", c.dtype, c.hq, c.hkv, c.dqk, c.dv, c.scale, c.mask, c.score_mod, bool(return_lse),
            variant, tiles, c.capture_types, c.sinks is not None)
    kernel = _compiled(spec, _varlen_text(c, return_lse), c.score_mod, variant, tiles,
                       lambda: _describe_packed(q, k, v), device)
    q, k, v = _head_dim_contiguous(q), _head_dim_contiguous(k), _head_dim_contiguous(v)
    cu_q = cu_seqlens_q.contiguous()
    cu_k = cu_seqlens_k.contiguous()
    out = torch.empty((c.tq, c.hq, c.dv), device=device, dtype=q.dtype)
    lse = torch.empty((c.hq, c.tq), device=device, dtype=torch.float32) if return_lse else None
    captures = [t.contiguous() for t in c.captures]
    capture_ptrs = _attn._capture_pointers(captures)
    batch = cu_q.numel() - 1
    args = _attn._FLASH_ARGS.pack(batch, c.tq, c.tk, *_packed(q), *_packed(k), *_packed(v), *_packed(out),
                                  lse.data_ptr() if lse is not None else 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  num_splits, *capture_ptrs, cu_q.data_ptr(), cu_k.data_ptr(),
                                  max_seqlen_q, max_seqlen_k, c.sinks.data_ptr() if c.sinks is not None else 0,
                                  0, 0, 0, 0, int(bool(batch_invariant)))
    dev = device.index if device.index is not None else torch.cuda.current_device()
    _launch(kernel, args, device, dev, (batch, c.tq, c.tk, max_seqlen_k, num_splits, dev, bool(batch_invariant)))
    return out, lse, kernel


def _varlen_backward_kernel(c, device, describe):
    """The backward of call `c`'s attention (with dsinks if it has sinks),
    compiled on first use; the training step's forward is not kept."""
    key = ("varlen", c.dtype, c.hq, c.hkv, c.dqk, c.dv, c.scale, c.mask, c.score_mod, c.capture_types,
           c.sinks is not None)

    def compile():
        text = _varlen_text(c, True)()
        forward, backward = ctypes.c_void_p(), ctypes.c_void_p()
        lib = _attn.library()
        if lib.attn_compile_training(_attn._get_context(), text.encode(), 0, ctypes.byref(forward),
                                     ctypes.byref(backward)):
            error = _attn._compile_error(lib.attn_last_error().decode(), text, c.score_mod, describe(),
                                         backward=True)
            raise _attn.AttnError(str(error).replace("attn.sdpa", "attn.varlen", 1))
        lib.attn_kernel_destroy(forward)
        return _attn._Kernel(backward)

    return _attn._compiled_once(
        _attn._backward_kernels, (key, False), device,
        lambda: (f"the backward of attn.varlen({describe()}) needs a kernel compiled while a CUDA graph is "
                 "being captured, where compiling is not allowed: run a training step once before capturing"),
        compile)


def _varlen_backward(c, grad_out, q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k, deterministic):
    """dq, dk, dv and the float32 (Hq,) dsinks (an empty tensor without
    sinks) of a varlen call; rows of no sequence get 0."""
    torch = _attn.torch
    device = c.device
    kernel = _varlen_backward_kernel(c, device, lambda: _describe_packed(q, k, v))
    q, k, v, o = (_head_dim_contiguous(t) for t in (q, k, v, out))
    do = grad_out.to(q.dtype)
    # 16-byte rows for the backward's loads (autograd may hand over any layout).
    if do.stride(2) != 1 or do.stride(0) % 8 or do.stride(1) % 8 or do.data_ptr() % 16:
        do = do.contiguous()
    lse = lse.contiguous()
    grad_q = torch.zeros((c.tq, c.hq, c.dqk), device=device, dtype=q.dtype)
    grad_k = torch.zeros((c.tk, c.hkv, c.dqk), device=device, dtype=q.dtype)
    grad_v = torch.zeros((c.tk, c.hkv, c.dv), device=device, dtype=q.dtype)
    grad_sinks = torch.empty((c.hq,), device=device, dtype=torch.float32) if c.sinks is not None else None
    cu_q = cu_seqlens_q.contiguous()
    cu_k = cu_seqlens_k.contiguous()
    captures = [t.contiguous() for t in c.captures]
    batch = cu_q.numel() - 1
    no_tensor = (0, 0, 0, 0, 0)
    args = _attn._BACKWARD_ARGS.pack(
        batch, c.tq, c.tk, *_packed(q), *_packed(k), *_packed(v), *_packed(o), *_packed(do), lse.data_ptr(),
        *_packed(grad_q), *_packed(grad_k), *_packed(grad_v), 0, *no_tensor, *no_tensor, *no_tensor,
        int(bool(deterministic)), *_attn._capture_pointers(captures),
        c.sinks.data_ptr() if c.sinks is not None else 0,
        grad_sinks.data_ptr() if grad_sinks is not None else 0, cu_q.data_ptr(), cu_k.data_ptr())
    lib = _attn._lib
    dev = device.index if device.index is not None else torch.cuda.current_device()
    size = ctypes.c_uint64()
    if lib.attn_backward_workspace_size(kernel.ptr, args, ctypes.byref(size)):
        raise _error(lib.attn_last_error().decode())
    workspace = torch.empty(size.value, device=device, dtype=torch.uint8)
    config = _attn._LAUNCH_CONFIG.pack(0, dev, _attn._current_stream(dev), workspace.data_ptr(), size.value)
    if lib.attn_launch_backward(kernel.ptr, args, config):
        raise _error(lib.attn_last_error().decode())
    empty = q.new_empty((0,), dtype=torch.float32)
    return grad_q, grad_k, grad_v, empty if grad_sinks is None else grad_sinks


# torch.ops.attn.varlen: the forward autograd records, returning out and
# the logsumexp (Hq, total_q), which the backward reads (it takes no
# gradient: a loss through a returned lse does not reach q, k, v).
_VARLEN_SCHEMA = ("varlen(Tensor q, Tensor k, Tensor v, Tensor cu_seqlens_q, Tensor cu_seqlens_k, "
                  "int max_seqlen_q, int max_seqlen_k, Tensor[] score_mod_captures, Tensor? sinks, *, "
                  "float scale, bool causal, int[] window, str? score_mod=None, str variant=\"\", "
                  "int block_m=0, int block_n=0, int num_warps=0, int stages=0, int num_splits=0, "
                  "bool batch_invariant=False, bool? deterministic=None) -> (Tensor, Tensor)")
# dq, dk, dv and dsinks (0 elements without sinks).
_VARLEN_BACKWARD_SCHEMA = ("varlen_backward(Tensor grad_out, Tensor q, Tensor k, Tensor v, Tensor out, "
                           "Tensor lse, Tensor cu_seqlens_q, Tensor cu_seqlens_k, Tensor[] score_mod_captures, "
                           "Tensor? sinks, *, float scale, bool causal, int[] window, str? score_mod=None, "
                           "bool deterministic=False) -> (Tensor, Tensor, Tensor, Tensor)")


def _op_call(q, k, v, cu_seqlens_q, cu_seqlens_k, captures, sinks, scale, causal, window, score_mod):
    return _check_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, 0.0, scale, causal, window, 0.0,
                         _attn._score_mod_text(score_mod), captures, sinks, differentiable=True)


def _varlen_op_impl(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, score_mod_captures, sinks, *,
                    scale, causal, window, score_mod=None, variant="", block_m=0, block_n=0, num_warps=0,
                    stages=0, num_splits=0, batch_invariant=False, deterministic=None):
    c = _op_call(q, k, v, cu_seqlens_q, cu_seqlens_k, score_mod_captures, sinks, scale, causal, window, score_mod)
    out, lse, _ = _varlen_forward(c, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, True,
                                  variant, (block_m, block_n, num_warps, stages), num_splits, batch_invariant)
    return out, lse


def _varlen_op_fake(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, score_mod_captures, sinks, *,
                    scale, causal, window, score_mod=None, variant="", block_m=0, block_n=0, num_warps=0,
                    stages=0, num_splits=0, batch_invariant=False, deterministic=None):
    return (q.new_empty((q.shape[0], q.shape[1], v.shape[2])),
            q.new_empty((q.shape[1], q.shape[0]), dtype=_attn.torch.float32))


def _varlen_setup_context(ctx, inputs, keyword_only_inputs, output):
    q, k, v, cu_q, cu_k, _, _, captures, sinks = inputs
    o = keyword_only_inputs
    sinks_grad = sinks is not None and sinks.requires_grad
    if type(q) is _attn._TorchTensor:  # eager (not traced): compile the backward now, so its errors come here
        c = _op_call(q, k, v, cu_q, cu_k, captures, sinks, o["scale"], o["causal"], o["window"], o["score_mod"])
        _varlen_backward_kernel(c, q.device, lambda: _describe_packed(q, k, v))
    out, lse = output
    ctx.mark_non_differentiable(lse)
    ctx.save_for_backward(q, k, v, out, lse, cu_q, cu_k, sinks, *captures)
    ctx.attn = dict(scale=o["scale"], causal=o["causal"], window=o["window"], score_mod=o["score_mod"],
                    sinks_grad=sinks_grad, deterministic=bool(o["deterministic"]))


def _varlen_op_backward(ctx, grad_out, grad_lse):
    q, k, v, out, lse, cu_q, cu_k, sinks, *captures = ctx.saved_tensors
    a = ctx.attn
    if _attn._grad_enabled() and any(t is not None and t.requires_grad for t in (grad_out, q, k, v, sinks)):
        raise _error("has no double backward: its backward is not differentiable (a gradient taken with "
                     "create_graph=True cannot be differentiated again)")
    grad_q, grad_k, grad_v, grad_sinks = _attn.torch.ops.attn.varlen_backward(
        grad_out, q, k, v, out, lse, cu_q, cu_k, captures, sinks, scale=a["scale"], causal=a["causal"],
        window=a["window"], score_mod=a["score_mod"], deterministic=a["deterministic"])
    needs = ctx.needs_input_grad
    grads = {0: grad_q, 1: grad_k, 2: grad_v,
             8: grad_sinks.to(sinks.dtype).view(sinks.shape) if sinks is not None and a["sinks_grad"] else None}
    result = []
    for i, need in enumerate(needs):
        if isinstance(need, (list, tuple)):
            result.append([None] * len(need))
        else:
            result.append(grads.get(i) if need else None)
    return tuple(result)


def _varlen_backward_op_impl(grad_out, q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k, score_mod_captures, sinks, *,
                             scale, causal, window, score_mod=None, deterministic=False):
    c = _op_call(q, k, v, cu_seqlens_q, cu_seqlens_k, score_mod_captures, sinks, scale, causal, window, score_mod)
    return _varlen_backward(c, grad_out, q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k, deterministic)


def _varlen_backward_op_fake(grad_out, q, k, v, out, lse, cu_seqlens_q, cu_seqlens_k, score_mod_captures, sinks, *,
                             scale, causal, window, score_mod=None, deterministic=False):
    torch = _attn.torch
    dsinks = q.new_empty((q.shape[1],) if sinks is not None else (0,), dtype=torch.float32)
    # Contiguous, as the real op's torch.zeros.
    return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape), dsinks


def _register_varlen_ops():
    if _attn._registered("varlen"):
        return
    # attn.sdpa's library defined the namespace; this adds to it.
    _attn._define_differentiable_op(
        _attn.torch.library.Library("attn", "FRAGMENT"), "varlen", _VARLEN_SCHEMA, _varlen_op_impl,
        _varlen_op_fake, _varlen_op_backward, _varlen_setup_context, _VARLEN_BACKWARD_SCHEMA,
        _varlen_backward_op_impl, _varlen_backward_op_fake)


if _attn.torch is not None:
    _register_varlen_ops()


def _kvcache_mlir(dtype, hq, hkv, dqk, dv, sq, scale, mask, score_mod, return_lse, captures, sinks, paged):
    """The attention of sq new queries (None: any) over a cache, as one
    attn.flash: dense [B, Hkv, S, D] or paged [pages, Hkv, page_size, D]
    caches (BHSD views), each sequence's length in %len (mask: a
    _WindowMask)."""
    return _attn.write_flash_op(
        ([None, hq, sq, dqk], dtype), ([None, hkv, None, dqk], dtype), ([None, hkv, None, dv], dtype), scale,
        function="kvcache", lengths=([None], "i32"), captures=captures, sinks=([hq], "f32") if sinks else None,
        block_table=([None, None], "i32") if paged else None, causal=mask.causal, window=mask.window,
        bottom_right=mask.bottom_right, score_mod=score_mod, return_lse=return_lse)


def _append_kernel(dtype, dqk, dv, rotary_dim, interleaved, paged, device):
    """The cache append of attn_compile_cache_append, compiled on first use."""
    key = ("append", dtype, dqk, dv, rotary_dim, bool(interleaved), bool(paged))

    def compile():
        handle = ctypes.c_void_p()
        lib = _attn.library()
        if lib.attn_compile_cache_append(_attn._get_context(), dtype.encode(), dqk, dv, rotary_dim,
                                         int(bool(interleaved)), int(bool(paged)), ctypes.byref(handle)):
            raise _kv_error(lib.attn_last_error().decode())
        return _attn._Kernel(handle)

    return _attn._compiled_once(
        _attn._kernels, key, device,
        lambda: ("attn.with_kvcache(k=, v=) needs its cache-append kernel compiled while a CUDA graph is being "
                 "captured, where compiling is not allowed: run the call once before capturing"),
        compile)


def _append(q, k_cache, v_cache, k, v, cache_seqlens, host_seqlens, block_table, rotary_cos, rotary_sin,
            rotary_interleaved, q_at_each_position):
    """Writes the new tokens k, v (B, seqlen_new, Hkv, D) into the caches at
    cache_seqlens (an int32 tensor; host_seqlens the int it came from, or
    None), rotating k, and q, with the rotary tables; returns (q to attend
    with, the lengths after the append). One launch, no host read."""
    torch = _attn.torch
    device = q.device
    b, sq, hq, dqk = q.shape
    n0, s0, hkv, _ = k_cache.shape
    dv = v_cache.shape[3]
    paged = block_table is not None
    for name, t, dim in (("k", k, dqk), ("v", v, dv)):
        if not isinstance(t, torch.Tensor) or t.dim() != 4 or t.device != device or t.dtype != q.dtype:
            raise _kv_error(f"{name} must be a 4-d {q.dtype} tensor (batch, seqlen_new, heads_k, head_dim) on "
                            f"q's device; got {tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__}")
        if t.shape[0] != b or t.shape[2] != hkv or t.shape[3] != dim:
            raise _kv_error(f"{name} {tuple(t.shape)} must be ({b}, seqlen_new, {hkv}, {dim}) for these caches")
    if k_cache.stride(3) != 1 or v_cache.stride(3) != 1:
        raise _kv_error("the caches must be contiguous in head_dim to be appended to (a copy would be written)")
    if k.shape[1] != v.shape[1] or k.shape[1] == 0:
        raise _kv_error(f"k and v must have the same, nonzero seqlen_new; got {k.shape[1]} and {v.shape[1]}")
    new = k.shape[1]
    capacity = block_table.shape[1] * s0 if paged else s0
    rotary_dim = 0
    if (rotary_cos is None) != (rotary_sin is None):
        raise _kv_error("rotary_cos and rotary_sin go together")
    if rotary_cos is not None:
        if (rotary_cos.dim() != 2 or rotary_cos.shape != rotary_sin.shape or rotary_cos.device != device
                or not rotary_cos.is_floating_point()):
            raise _kv_error(f"rotary_cos and rotary_sin must be float (seqlen_ro, rotary_dim / 2) tensors on q's "
                            f"device of one shape; got {tuple(rotary_cos.shape)} and {tuple(rotary_sin.shape)}")
        rotary_dim = 2 * rotary_cos.shape[1]
        if rotary_dim == 0 or rotary_dim > dqk:
            raise _kv_error(f"the rotary dim ({rotary_dim}, twice rotary_cos's columns) must be in 2..{dqk} "
                            "(the head dim)")
        if rotary_cos.shape[0] < capacity:
            raise _kv_error(f"rotary_cos has {rotary_cos.shape[0]} positions, fewer than the cache's {capacity} "
                            "rows (flash_attn's rule: the tables cover the cache)")
        rotary_cos = rotary_cos.to(torch.float32).contiguous()
        rotary_sin = rotary_sin.to(torch.float32).contiguous()
    if host_seqlens is not None:
        if host_seqlens < 0 or host_seqlens + new > capacity:
            raise _kv_error(f"the cache holds {capacity} keys per sequence: {host_seqlens} cached and {new} new "
                            "do not fit")
    elif new > capacity:
        raise _kv_error(f"the cache holds {capacity} keys per sequence, fewer than the {new} new tokens")
    else:
        # Without reading the lengths on the host (no synchronization): a
        # device-side assert, as torch's own checks of device values.
        torch._assert_async((cache_seqlens.max() + new <= capacity) & (cache_seqlens.min() >= 0),
                            "attn.with_kvcache: cache_seqlens + seqlen_new exceeds the cache")
    names = _attn._DTYPE_NAMES
    kernel = _append_kernel(names[q.dtype], dqk, dv, rotary_dim, rotary_interleaved, paged, device)
    k = k if k.stride(3) == 1 else k.contiguous()
    v = v if v.stride(3) == 1 else v.contiguous()
    lengths = torch.empty((b,), dtype=torch.int32, device=device)
    q_out = torch.empty((b, sq, hq, dqk), device=device, dtype=q.dtype) if rotary_dim else q
    table = (block_table.data_ptr(), block_table.stride(0), s0, n0) if paged else (0, 0, 0, 0)

    def rows(t):  # (batch or page, row, head, dim) strides
        return (t.data_ptr(), *t.stride())

    args = _attn._CACHE_APPEND_ARGS.pack(
        b, new, hq, hkv, *rows(k), *rows(v), *rows(k_cache), *rows(v_cache), capacity,
        cache_seqlens.contiguous().data_ptr(), lengths.data_ptr(), *table,
        rotary_cos.data_ptr() if rotary_dim else 0, rotary_sin.data_ptr() if rotary_dim else 0,
        rotary_cos.shape[0] if rotary_dim else 0, sq, *rows(q), *rows(q_out), int(bool(q_at_each_position)))
    dev = device.index if device.index is not None else torch.cuda.current_device()
    lib = _attn._lib
    if lib.attn_launch_cache_append(kernel.ptr, args, _attn._LAUNCH_CONFIG.pack(0, dev, _attn._current_stream(dev),
                                                                                0, 0)):
        raise _kv_error(lib.attn_last_error().decode())
    return q_out, lengths


def with_kvcache(q, k_cache, v_cache, cache_seqlens, block_table=None, scale=None, causal=False, window=(-1, -1),
                 softcap=0.0, return_lse=False, *, k=None, v=None, rotary_cos=None, rotary_sin=None,
                 rotary_interleaved=True, sinks=None, score_mod=None, score_mod_captures=(), num_splits=0,
                 batch_invariant=False, variant="", block_m=0, block_n=0, num_warps=0, stages=0,
                 return_kernel=False):
    """flash_attn_with_kvcache on attn's kernels: Sq new queries of each
    sequence (decode, speculative decoding, chunked prefill) against its
    cache.

    q (B, Sq, Hq, D), CUDA, float16 or bfloat16. The caches, of q's dtype on
    its device: dense (B, S, Hkv, D) k_cache and v_cache (v's last dimension
    Dv), or, with block_table (B, pages per sequence) int32, paged
    (num_pages, page_size, Hkv, D): sequence b's keys are the rows of pages
    block_table[b, 0], block_table[b, 1], ... in order (entries outside the
    cache are clamped to it: no read outside the caches). cache_seqlens:
    int32 (B,) on the device, or an int for every sequence: how many keys
    each sequence has (the new tokens' included). causal and
    window=(left, right) (-1: unbounded) align to each sequence's length:
    query i of Sq sees keys up to cache_seqlens[b] - Sq + i. scale, softcap,
    sinks (Hq,), score_mod and score_mod_captures as in attn.varlen.

    k and v (B, seqlen_new, Hkv, D) append a step's tokens first, as
    flash_attn_with_kvcache does: one launch writes them into the caches
    at rows cache_seqlens[b] .. + seqlen_new (through block_table when
    paged), and the attention sees cache_seqlens + seqlen_new keys
    (cache_seqlens itself is not changed). rotary_cos and rotary_sin
    (seqlen_ro >= the cache's rows, rotary_dim / 2) rotate the first
    rotary_dim dims of the new k at their positions and of q at
    cache_seqlens + i (causal or windowed) or cache_seqlens (otherwise);
    rotary_interleaved pairs dims 2j, 2j + 1 (GPT-J), else j, j +
    rotary_dim / 2 (GPT-NeoX). An int cache_seqlens that overflows the
    cache is an AttnError; a tensor one, a device-side assert.
    return_lse also returns the logsumexp, float32 (B, Hq, Sq). num_splits:
    the split-KV count (0: the runtime's choice); batch_invariant as in
    attn.sdpa. Nothing is read on the
    host and the outputs come from torch's caching allocator: a decode step
    with fixed shapes can be captured in a CUDA graph once it has run.

    Returns out (B, Sq, Hq, Dv), or (out, lse).
    """
    torch = _attn.torch
    if torch is None:
        raise _kv_error("needs PyTorch (import torch failed)")
    if not isinstance(q, torch.Tensor) or q.device.type != "cuda" or q.dim() != 4:
        raise _kv_error("q must be a 4-d CUDA tensor (batch, seqlen_q, heads, head_dim)")
    device = q.device
    paged = block_table is not None
    layout = "(num_pages, page_size, heads_k, head_dim)" if paged else "(batch, seqlen_k, heads_k, head_dim)"
    for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
        if not isinstance(t, torch.Tensor) or t.dim() != 4:
            raise _kv_error(f"{name} must be a 4-d tensor {layout}; got "
                            f"{tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__}")
        if t.device != device:
            raise _kv_error(f"{name} is on {t.device} but q is on {device}")
    if not (q.dtype == k_cache.dtype == v_cache.dtype) or q.dtype not in (torch.float16, torch.bfloat16):
        raise _kv_error(f"q and the caches must all be float16 or all bfloat16; got {q.dtype}, "
                        f"{k_cache.dtype}, {v_cache.dtype}")
    b, sq, hq, dqk = q.shape
    n0, s0, hkv, kd = k_cache.shape
    dv = v_cache.shape[3]
    if tuple(v_cache.shape[:3]) != (n0, s0, hkv):
        raise _kv_error(f"v_cache {tuple(v_cache.shape)} and k_cache {tuple(k_cache.shape)} must agree but in "
                        "the head dim")
    if kd != dqk:
        raise _kv_error(f"k_cache's head dim {kd} differs from q's {dqk}")
    if hq % hkv:
        raise _kv_error(f"the caches' heads {hkv} must divide q's {hq}")
    if min(b, sq, hq, dqk, dv, n0, s0) == 0:
        raise _kv_error("q and the caches must not be empty")
    if paged:
        if not isinstance(block_table, torch.Tensor) or block_table.device != device:
            raise _kv_error("block_table must be a tensor on q's device")
        if block_table.dtype != torch.int32 or block_table.dim() != 2 or block_table.shape[0] != b:
            raise _kv_error(f"block_table must be int32 ({b}, pages per sequence); got {block_table.dtype} "
                            f"{tuple(block_table.shape)}")
        if block_table.shape[1] == 0:
            raise _kv_error("block_table must have at least one page per sequence")
    elif n0 != b:
        raise _kv_error(f"a dense k_cache has one row per sequence: {n0} for q's batch {b}")
    host_seqlens = cache_seqlens if isinstance(cache_seqlens, int) else None
    if isinstance(cache_seqlens, int):
        cache_seqlens = torch.full((b,), cache_seqlens, dtype=torch.int32, device=device)
    if (not isinstance(cache_seqlens, torch.Tensor) or cache_seqlens.device != device
            or cache_seqlens.dtype != torch.int32 or tuple(cache_seqlens.shape) != (b,)):
        raise _kv_error(f"cache_seqlens must be an int or an int32 ({b},) tensor on q's device")
    if (k is None) != (v is None):
        raise _kv_error("k and v go together: pass both new tokens' keys and values, or neither")
    if k is None and rotary_cos is not None:
        raise _kv_error("rotary_cos and rotary_sin rotate the appended k and q: they need k and v")
    if _attn._grad_enabled() and any(t.requires_grad for t in (q, k_cache, v_cache)):
        raise _kv_error("has no backward yet and q or a cache requires grad with autograd on: run under "
                        "torch.no_grad() or torch.inference_mode()")
    try:
        mask = _window_mask(causal, window)
        score_mod = _score_mod_of(softcap, score_mod)
    except _attn.AttnError as e:
        raise _kv_error(str(e).split(": ", 1)[1]) from None
    captures = _attn._check_captures(score_mod, score_mod_captures, device)
    sinks = _attn._check_sinks(sinks, hq, device, "attn.with_kvcache")
    if scale is None:
        scale = 1.0 / math.sqrt(dqk)
    tiles = (block_m, block_n, num_warps, stages)
    names = _attn._DTYPE_NAMES
    capture_types = tuple((tuple(c.shape), names[c.dtype]) for c in captures)
    static_sq = sq if sq <= _attn._decode_queries() else None
    spec = ("kvcache", names[q.dtype], hq, hkv, dqk, dv, float(scale), mask, score_mod, bool(return_lse),
            paged, static_sq, variant or "", tiles, capture_types, sinks is not None)

    def describe():
        return ", ".join(f"{n} {tuple(t.shape)} {str(t.dtype).replace('torch.', '')} on {t.device}"
                         for n, t in (("q", q), ("k_cache", k_cache), ("v_cache", v_cache)))

    kernel = _compiled(spec, lambda: _kvcache_mlir(names[q.dtype], hq, hkv, dqk, dv, static_sq, float(scale), mask,
                                                   score_mod, return_lse, capture_types, sinks is not None, paged),
                       score_mod, variant or "", tiles, describe, device, "attn.with_kvcache")
    # The attention compiled: now the append, which writes the caches.
    if k is not None:
        q = q if q.stride(3) == 1 else q.contiguous()
        q, cache_seqlens = _append(q, k_cache, v_cache, k, v, cache_seqlens, host_seqlens, block_table, rotary_cos,
                                   rotary_sin, rotary_interleaved, mask.bottom_right)

    q = q if q.stride(3) == 1 else q.contiguous()
    k_cache = k_cache if k_cache.stride(3) == 1 else k_cache.contiguous()
    v_cache = v_cache if v_cache.stride(3) == 1 else v_cache.contiguous()
    lengths = cache_seqlens.contiguous()
    out = torch.empty((b, sq, hq, dv), device=device, dtype=q.dtype)
    lse = torch.empty((b, hq, sq), device=device, dtype=torch.float32) if return_lse else None
    captures = [c.contiguous() for c in captures]
    capture_ptrs = [c.data_ptr() for c in captures] + [0] * (_attn._MAX_SCORE_MOD_CAPTURES - len(captures))

    def bshd(t):  # (batch or page, seq, heads, dim) as BHSD strides
        return (t.data_ptr(), t.stride(0), t.stride(2), t.stride(1), t.stride(3))

    if paged:
        pages_per_sequence = block_table.shape[1]
        seq_kv = pages_per_sequence * s0
        paging = (block_table.data_ptr(), block_table.stride(0), n0, s0)
        if block_table.stride(1) != 1:
            block_table = block_table.contiguous()
            paging = (block_table.data_ptr(), block_table.stride(0), n0, s0)
    else:
        seq_kv, paging = s0, (0, 0, 0, 0)
    args = _attn._FLASH_ARGS.pack(b, sq, seq_kv, *bshd(q), *bshd(k_cache), *bshd(v_cache), *bshd(out),
                                  lse.data_ptr() if lse is not None else 0, lengths.data_ptr(),
                                  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, num_splits, *capture_ptrs, 0, 0, 0, 0,
                                  sinks.data_ptr() if sinks is not None else 0, *paging,
                                  int(bool(batch_invariant)))
    dev = device.index if device.index is not None else torch.cuda.current_device()
    _launch(kernel, args, device, dev, (b, sq, seq_kv, num_splits, dev, bool(batch_invariant)),
            "attn.with_kvcache")
    result = (out, lse) if return_lse else out
    return (result, kernel.handle) if return_kernel else result


def _kv_error(message):
    return _attn.AttnError("attn.with_kvcache: " + message)
