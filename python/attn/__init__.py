"""attn for PyTorch users: scaled dot-product attention compiled by attn.

    import attn
    out = attn.sdpa(q, k, v, is_causal=True)          # like F.scaled_dot_product_attention

The package loads libattn_c.so (the C API) with ctypes: no compiled
extension, so it works with whatever Python and torch the machine has. Set
ATTN_LIBRARY to the library's path, or keep the package beside a build/.
Kernels are compiled once per specialization (dtype, heads, head dims, mask
kinds, score_mod, scale) and cached in memory and on disk; batch and sequence
lengths are runtime parameters.
"""

import ctypes
import math
import os
import threading

__all__ = ["sdpa", "AttnError", "softcap", "alibi", "head_bias", "kernel_info", "library"]


class AttnError(RuntimeError):
    """An attn compile or launch error, with attn's message."""


# ATTN_MAX_SCORE_MOD_CAPTURES of attn-c/attn.h.
_MAX_SCORE_MOD_CAPTURES = 4


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("strides", ctypes.c_int64 * 4)]


class _FlashArgs(ctypes.Structure):
    _fields_ = [
        ("batch", ctypes.c_int32), ("seq_q", ctypes.c_int32), ("seq_kv", ctypes.c_int32),
        ("q", _Tensor), ("k", _Tensor), ("v", _Tensor), ("o", _Tensor),
        ("lse", ctypes.c_void_p), ("lengths", ctypes.c_void_p),
        ("keep", _Tensor), ("bias", _Tensor), ("num_splits", ctypes.c_int32),
        # score_mod captures (appended in attn-c/attn.h).
        ("score_mod_captures", ctypes.c_void_p * _MAX_SCORE_MOD_CAPTURES),
    ]


class _KernelInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char * 128), ("variant", ctypes.c_char * 16), ("arch", ctypes.c_char * 16),
        ("threads", ctypes.c_int32), ("shared_bytes", ctypes.c_int32),
        ("block_m", ctypes.c_int32), ("block_n", ctypes.c_int32),
        ("num_warps", ctypes.c_int32), ("stages", ctypes.c_int32),
        ("registers", ctypes.c_int32), ("spill_bytes", ctypes.c_int32), ("stack_bytes", ctypes.c_int32),
        ("cache_outcome", ctypes.c_int32), ("build_ms", ctypes.c_double),
        ("heads_q", ctypes.c_int32), ("heads_kv", ctypes.c_int32),
        ("head_dim_qk", ctypes.c_int32), ("head_dim_v", ctypes.c_int32),
        ("writes_lse", ctypes.c_int32),
    ]


_lock = threading.Lock()
_lib = None
_context = None
_kernels = {}
# Query lengths up to this (decode, speculative decoding) get kernels of
# their own, so that the cost model picks tiles for a few rows; longer ones
# share one kernel per specialization.
_DECODE_QUERIES = 16


def library():
    """The loaded libattn_c.so (loads it on first use)."""
    global _lib
    if _lib is not None:
        return _lib
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("ATTN_LIBRARY"),
                  os.path.join(here, "libattn_c.so"),
                  os.path.join(here, "..", "..", "build", "lib", "libattn_c.so")]
    errors = []
    for path in candidates:
        if not path:
            continue
        try:
            lib = ctypes.CDLL(os.path.abspath(path))
            break
        except OSError as e:
            errors.append(f"{path}: {e}")
    else:
        raise AttnError("cannot load libattn_c.so; build attn and set ATTN_LIBRARY (" +
                        "; ".join(errors) + ")")
    lib.attn_last_error.restype = ctypes.c_char_p
    lib.attn_context_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.attn_compile.argtypes = ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p] + [ctypes.c_int32] * 4 +
                                 [ctypes.POINTER(ctypes.c_void_p)])
    lib.attn_kernel_get_info.argtypes = [ctypes.c_void_p, ctypes.POINTER(_KernelInfo)]
    lib.attn_kernel_source.argtypes = [ctypes.c_void_p]
    lib.attn_kernel_source.restype = ctypes.c_char_p
    lib.attn_launch.argtypes = [ctypes.c_void_p, ctypes.POINTER(_FlashArgs), ctypes.c_void_p]
    _lib = lib
    return lib


def _check(code):
    if code != 0:
        raise AttnError(library().attn_last_error().decode())


def _get_context():
    global _context
    if _context is None:
        handle = ctypes.c_void_p()
        _check(library().attn_context_create(None, None, ctypes.byref(handle)))
        _context = handle
    return _context


def softcap(cap):
    """A score_mod body: cap * tanh(score / cap) (Gemma 2)."""
    return (f"%c = arith.constant {float(cap)!r} : f32\n"
            "%d = arith.divf %score, %c : f32\n"
            "%t = math.tanh %d : f32\n"
            "%y = arith.mulf %t, %c : f32\n"
            "attn.yield %y : f32")


def alibi(num_heads):
    """A score_mod body: ALiBi with the standard slopes 2^(-8 (h+1) / H)."""
    return ("%one = arith.constant 1 : index\n"
            "%h1 = arith.addi %h, %one : index\n"
            "%hi = arith.index_cast %h1 : index to i32\n"
            "%hf = arith.sitofp %hi : i32 to f32\n"
            f"%r = arith.constant {-8.0 / num_heads!r} : f32\n"
            "%e = arith.mulf %hf, %r : f32\n"
            "%slope = math.exp2 %e : f32\n"
            "%d = arith.subi %kv_idx, %q_idx : index\n"
            "%di = arith.index_cast %d : index to i32\n"
            "%df = arith.sitofp %di : i32 to f32\n"
            "%b2 = arith.mulf %slope, %df : f32\n"
            "%y = arith.addf %score, %b2 : f32\n"
            "attn.yield %y : f32")


def head_bias(num_heads):
    """A score_mod body that adds a learned bias per query head: pass the
    (num_heads,) float32 tensor as score_mod_captures=[bias]."""
    return (f"%bias = tensor.extract %capture0[%h] : tensor<{num_heads}xf32>\n"
            "%y = arith.addf %score, %bias : f32\n"
            "attn.yield %y : f32")


def _captures(torch, score_mod, tensors, device):
    """The score_mod's captured tensors, contiguous on `device` (bool as
    bytes), checked."""
    tensors = list(tensors or ())
    if tensors and not score_mod:
        raise AttnError("score_mod_captures needs a score_mod")
    if len(tensors) > _MAX_SCORE_MOD_CAPTURES:
        raise AttnError(f"a score_mod reads at most {_MAX_SCORE_MOD_CAPTURES} tensors; got {len(tensors)}")
    out = []
    for i, c in enumerate(tensors):
        if not isinstance(c, torch.Tensor) or c.device != device:
            raise AttnError(f"score_mod capture {i} must be a tensor on {device}")
        if c.dim() > 4 or c.numel() == 0:
            raise AttnError(f"score_mod capture {i} must have rank <= 4 and elements; got shape {tuple(c.shape)}")
        _dtype_name(torch, c.dtype)
        out.append(c.contiguous())
    return out


def _dtype_name(torch, dtype):
    names = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32", torch.bool: "i1",
             torch.int32: "i32", torch.int64: "i64"}
    if dtype not in names:
        raise AttnError(f"unsupported dtype {dtype}")
    return names[dtype]


def _broadcast4(torch, mask, b, h, sq, skv, what):
    """A mask or bias as a 4-d view broadcast to (b, h, sq, skv), without copies."""
    while mask.dim() < 4:
        mask = mask.unsqueeze(0)
    if mask.dim() != 4:
        raise AttnError(f"{what} has {mask.dim()} dimensions; at most 4")
    want = (b, h, sq, skv)
    for d in range(4):
        if mask.shape[d] not in (1, want[d]):
            raise AttnError(f"{what} dimension {d} is {mask.shape[d]}, expected 1 or {want[d]}")
    return mask


def _mlir(dtype, hq, hkv, dqk, dv, scale, causal, bottom_right, window, has_lengths,
          keep, bias, score_mod, return_lse, sq=None, captures=()):
    """The attention as an attn.flash on dynamic batch and sequence sizes; sq,
    when given, fixes the query length."""
    def t(shape, el):
        return "tensor<" + "x".join("?" if s is None else str(s) for s in shape) + "x" + el + ">"
    args = [f"%q: {t([None, hq, sq, dqk], dtype)}", f"%k: {t([None, hkv, None, dqk], dtype)}",
            f"%v: {t([None, hkv, None, dv], dtype)}"]
    operands, items = "", []
    if causal:
        items.append("causal")
    if window is not None:
        items.append(f"window = [{window[0]}, {window[1]}]")
    if bottom_right and (causal or window is not None):
        items.append("bottom_right")
    if has_lengths:
        args.append(f"%len: {t([None], 'i32')}")
        operands += f" lengths(%len : {t([None], 'i32')})"
        items.append("key_padding")
    for name, spec in (("keep", keep), ("bias", bias)):
        if spec is None:
            continue
        pattern, el = spec
        shape = [1 if one else (sq if d == 2 else None) for d, one in enumerate(pattern)]
        args.append(f"%{name}: {t(shape, el)}")
        operands += f" {name}(%{name} : {t(shape, el)})"
        items.append(name)
    # score_mod captures: function arguments %captured0.., the region's
    # block arguments %capture0...
    capture_types = [t(shape, el) for shape, el in captures]
    for i, ct in enumerate(capture_types):
        args.append(f"%captured{i}: {ct}")
    if capture_types:
        operands += (" captures(" + ", ".join(f"%captured{i}" for i in range(len(captures))) + " : " +
                     ", ".join(capture_types) + ")")
    attrs = [f"scale = {scale!r} : f32"]
    if items:
        attrs.append(f"mask = #attn.mask<{', '.join(items)}>")
    region = ""
    if score_mod:
        extra = "".join(f", %capture{i}: {ct}" for i, ct in enumerate(capture_types))
        region = (" score_mod {\n  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index"
                  + extra + "):\n    " + score_mod.replace("\n", "\n    ") + "\n  }")
    out = t([None, hq, sq, dv], dtype)
    results = out + (f", {t([None, hq, sq], 'f32')}" if return_lse else "")
    names = "%o, %lse" if return_lse else "%o"
    return (f"func.func @sdpa({', '.join(args)}) -> ({results}) {{\n"
            f"  {names} = attn.flash %q, %k, %v{operands} {{{', '.join(attrs)}}}{region}"
            f" : {t([None, hq, sq, dqk], dtype)}, {t([None, hkv, None, dqk], dtype)}, "
            f"{t([None, hkv, None, dv], dtype)} -> {results}\n"
            f"  return {names} : {results}\n}}\n")


def _kernel(key, make_text, variant, tiles):
    handle = _kernels.get(key)
    if handle is not None:
        return handle
    with _lock:
        handle = _kernels.get(key)
        if handle is None:
            handle = ctypes.c_void_p()
            _check(library().attn_compile(_get_context(), make_text().encode(), variant.encode(), *tiles,
                                          ctypes.byref(handle)))
            _kernels[key] = handle
        return handle


def kernel_info(handle):
    """Name, tiles, registers, spills, cache outcome and build time of a kernel."""
    info = _KernelInfo()
    _check(library().attn_kernel_get_info(handle, ctypes.byref(info)))
    return {f: (getattr(info, f).decode() if isinstance(getattr(info, f), bytes) else getattr(info, f))
            for f, _ in _KernelInfo._fields_}


def _arg(t, strides=None):
    a = _Tensor()
    a.data = t.data_ptr()
    for d, s in enumerate(strides if strides is not None else t.stride()):
        a.strides[d] = s
    return a


def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
         enable_gqa=False, *, window=None, bottom_right=False, lengths=None, score_mod=None,
         score_mod_captures=(), return_lse=False, variant="", block_m=0, block_n=0, num_warps=0, stages=0, num_splits=0,
         return_kernel=False):
    """torch.nn.functional.scaled_dot_product_attention on attn's kernels.

    query (B, Hq, L, E), key (B, Hkv, S, E), value (B, Hkv, S, Ev), CUDA, f16
    or bf16; any strides with a contiguous last dimension (e.g. BSHD memory
    viewed as BHSD). attn_mask: bool (True takes part) or float (added),
    broadcastable to (B, Hq, L, S). Beyond torch: window=(left, right) sliding
    window, bottom_right to align causal/window to the last query, lengths
    (B,) int32 key padding, score_mod (an MLIR region body, see softcap and
    alibi), score_mod_captures (up to 4 CUDA tensors of float32, float16,
    bfloat16, bool, int32 or int64 that the body reads as %capture0.. with
    tensor.extract, like FlexAttention's captured buffers; see head_bias),
    return_lse for the natural-log logsumexp (B, Hq, L) in f32.
    variant ("sm80", "sm90") and the tile sizes override the cost model;
    num_splits the split-KV count (0: the runtime's choice, 1: no split).
    Kernels are compiled once per specialization (dtypes, heads, head dims,
    masks, score_mod, options) for any batch and sequence lengths; query
    lengths up to 16 (decode) each get their own, with tiles for few rows.
    """
    import torch
    if dropout_p != 0.0:
        raise AttnError("dropout is not supported (dropout_p must be 0)")
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not t.is_cuda:
            raise AttnError(f"{name} must be a CUDA tensor")
        if t.dim() != 4:
            raise AttnError(f"{name} must be 4-d (batch, heads, seq, head_dim); got {tuple(t.shape)}")
    if not (query.dtype == key.dtype == value.dtype) or query.dtype not in (torch.float16, torch.bfloat16):
        raise AttnError(f"query, key and value must all be float16 or all bfloat16; got "
                        f"{query.dtype}, {key.dtype}, {value.dtype}")
    b, hq, sq, dqk = query.shape
    _, hkv, skv, _ = key.shape
    dv = value.shape[3]
    if key.shape[0] != b or value.shape[0] != b or value.shape[1] != hkv or value.shape[2] != skv or key.shape[3] != dqk:
        raise AttnError(f"incompatible shapes q {tuple(query.shape)}, k {tuple(key.shape)}, v {tuple(value.shape)}")
    if hq != hkv and not enable_gqa:
        raise AttnError(f"query has {hq} heads and key {hkv}; pass enable_gqa=True for GQA/MQA")
    if hq % hkv:
        raise AttnError(f"key heads {hkv} must divide query heads {hq}")
    q, k, v = (t if t.stride(-1) == 1 else t.contiguous() for t in (query, key, value))
    scale = float(1.0 / math.sqrt(dqk) if scale is None else scale)
    dtype = _dtype_name(torch, query.dtype)

    keep = bias = None
    keep_t = bias_t = None
    if attn_mask is not None:
        m = _broadcast4(torch, attn_mask, b, hq, sq, skv, "attn_mask")
        pattern = tuple(m.shape[d] == 1 and (b, hq, sq, skv)[d] != 1 for d in range(4))
        if m.dtype == torch.bool:
            keep_t, keep = m, (pattern, "i1")
        else:
            if m.dtype not in (torch.float32, torch.float16, torch.bfloat16):
                raise AttnError(f"a float attn_mask must be f32, f16 or bf16; got {m.dtype}")
            bias_t, bias = m, (pattern, _dtype_name(torch, m.dtype))
    if lengths is not None:
        lengths = lengths.to(device=query.device, dtype=torch.int32).contiguous()
        if lengths.shape != (b,):
            raise AttnError(f"lengths must have shape ({b},); got {tuple(lengths.shape)}")
    if window is not None:
        window = (int(window[0]), int(window[1]))

    capture_ts = _captures(torch, score_mod, score_mod_captures, query.device)
    captures = tuple((tuple(c.shape), _dtype_name(torch, c.dtype)) for c in capture_ts)

    static_sq = sq if sq <= _DECODE_QUERIES else None
    spec = (dtype, hq, hkv, dqk, dv, scale, bool(is_causal), bool(bottom_right), window,
            lengths is not None, keep, bias, score_mod, bool(return_lse), static_sq, variant, block_m, block_n,
            num_warps, stages, captures)
    handle = _kernel(spec, lambda: _mlir(dtype, hq, hkv, dqk, dv, scale, bool(is_causal), bool(bottom_right),
                                         window, lengths is not None, keep, bias, score_mod, bool(return_lse),
                                         static_sq, captures),
                     variant, (block_m, block_n, num_warps, stages))

    out = torch.empty((b, hq, sq, dv), device=query.device, dtype=query.dtype)
    lse = torch.empty((b, hq, sq), device=query.device, dtype=torch.float32) if return_lse else None
    args = _FlashArgs()
    args.batch, args.seq_q, args.seq_kv = b, sq, skv
    args.q, args.k, args.v, args.o = _arg(q), _arg(k), _arg(v), _arg(out)
    args.lse = lse.data_ptr() if lse is not None else None
    args.lengths = lengths.data_ptr() if lengths is not None else None
    args.num_splits = int(num_splits)
    for i, c in enumerate(capture_ts):
        args.score_mod_captures[i] = c.data_ptr()
    for t, field in ((keep_t, "keep"), (bias_t, "bias")):
        if t is not None:
            if t.dtype == torch.bool:
                t = t.view(torch.uint8)
            strides = [0 if t.shape[d] == 1 else t.stride(d) for d in range(4)]
            setattr(args, field, _arg(t, strides))
    stream = torch.cuda.current_stream(query.device).cuda_stream
    with torch.cuda.device(query.device):
        _check(library().attn_launch(handle, ctypes.byref(args), ctypes.c_void_p(stream)))
    result = (out, lse) if return_lse else out
    if return_kernel:
        return result, handle
    return result
