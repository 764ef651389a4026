"""attn for PyTorch users: scaled dot-product attention compiled by attn.

    import attn
    out = attn.sdpa(q, k, v, is_causal=True)          # like F.scaled_dot_product_attention

The package loads libattn_c (the C API) with ctypes: no compiled extension,
so it works with whatever Python and torch the machine has. Set ATTN_LIBRARY
to the library's path, or keep the package where cmake --install put it, or
beside a build/. Kernels are compiled once per specialization (dtype, heads,
head dims, mask kinds, score_mod, scale) and cached in memory and on disk;
batch and sequence lengths are runtime parameters.

attn.sdpa is also the torch operator torch.ops.attn.sdpa (with a fake
implementation), so torch.compile (fullgraph too, and mode="reduce-overhead"
with CUDA graphs) and torch.export trace through it. Eager calls take a
direct path to the launch. Launches never allocate outside torch's caching
allocator and never synchronize, so they can be captured in CUDA graphs;
compiling cannot, so call attn.precompile (or run once) before capturing.
attn.sdpa is differentiable: torch.autograd (and torch.compile) run attn's
backward kernels through torch.ops.attn.sdpa_backward.

Compiles are logged to the "attn" logger (INFO), and to stderr with
ATTN_LOG=1.
"""

import atexit
import ctypes
import logging
import math
import os
import re
import struct
import threading

try:
    import torch
except ImportError:  # versions and compile errors work without torch
    torch = None

__all__ = ["sdpa", "precompile", "AttnError", "softcap", "alibi", "head_bias", "kernel_info", "library",
           "varlen", "with_kvcache", "write_flash_op"]

# The ATTN_C_ABI_VERSION (include/attn-c/attn.h) this package speaks.
_ABI_VERSION = 6

_logger = logging.getLogger("attn")


class AttnError(RuntimeError):
    """An attn compile or launch error, with attn's message."""


# ----------------------------------------------------------------------------
# The C API's structs, and a struct.Struct for each that fills it in one call.

# ATTN_MAX_SCORE_MOD_CAPTURES of attn-c/attn.h: the structs' array size, part
# of the C ABI; library() checks it against attn_max_score_mod_captures().
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
        # Ragged batches (appended in ABI 3; attn.varlen).
        ("cu_seqlens_q", ctypes.c_void_p), ("cu_seqlens_k", ctypes.c_void_p),
        ("max_seqlen_q", ctypes.c_int32), ("max_seqlen_k", ctypes.c_int32),
        ("sinks", ctypes.c_void_p),
        # Paged caches (appended in ABI 3; attn.with_kvcache).
        ("block_table", ctypes.c_void_p), ("block_table_stride", ctypes.c_int64),
        ("num_pages", ctypes.c_int32), ("page_size", ctypes.c_int32),
        ("batch_invariant", ctypes.c_int32),
    ]


class _BackwardArgs(ctypes.Structure):
    _fields_ = [
        ("batch", ctypes.c_int32), ("seq_q", ctypes.c_int32), ("seq_kv", ctypes.c_int32),
        ("q", _Tensor), ("k", _Tensor), ("v", _Tensor), ("o", _Tensor), ("grad_output", _Tensor),
        ("lse", ctypes.c_void_p),
        ("grad_q", _Tensor), ("grad_k", _Tensor), ("grad_v", _Tensor),
        ("lengths", ctypes.c_void_p), ("keep", _Tensor), ("bias", _Tensor), ("grad_bias", _Tensor),
        ("deterministic", ctypes.c_int32),
        ("score_mod_captures", ctypes.c_void_p * _MAX_SCORE_MOD_CAPTURES),
        ("sinks", ctypes.c_void_p), ("grad_sinks", ctypes.c_void_p),
        ("cu_seqlens_q", ctypes.c_void_p), ("cu_seqlens_k", ctypes.c_void_p),
    ]


class _CacheAppendArgs(ctypes.Structure):
    _fields_ = [
        ("batch", ctypes.c_int32), ("new_tokens", ctypes.c_int32), ("heads_q", ctypes.c_int32),
        ("heads_kv", ctypes.c_int32),
        ("k_new", _Tensor), ("v_new", _Tensor), ("k_cache", _Tensor), ("v_cache", _Tensor),
        ("capacity", ctypes.c_int32), ("cache_seqlens", ctypes.c_void_p), ("seqlens_out", ctypes.c_void_p),
        ("block_table", ctypes.c_void_p), ("block_table_stride", ctypes.c_int64),
        ("page_size", ctypes.c_int32), ("num_pages", ctypes.c_int32),
        ("rotary_cos", ctypes.c_void_p), ("rotary_sin", ctypes.c_void_p), ("rotary_positions", ctypes.c_int32),
        ("seq_q", ctypes.c_int32), ("q", _Tensor), ("q_out", _Tensor), ("q_at_each_position", ctypes.c_int32),
    ]


class _LaunchConfig(ctypes.Structure):
    _fields_ = [
        ("context", ctypes.c_void_p), ("device", ctypes.c_int32), ("stream", ctypes.c_void_p),
        ("workspace", ctypes.c_void_p), ("workspace_bytes", ctypes.c_uint64),
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


# attn_write_flash_op's (ABI 6): the description of an attn.flash and the
# text the library returns.
class _TextTensor(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("element", ctypes.c_char_p),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("rank", ctypes.c_int32)]


class _FlashOpText(ctypes.Structure):
    _fields_ = [
        ("function", ctypes.c_char_p), ("q", _TextTensor), ("k", _TextTensor), ("v", _TextTensor),
        ("lengths", _TextTensor), ("keep", _TextTensor), ("bias", _TextTensor),
        ("captures", ctypes.POINTER(_TextTensor)), ("num_captures", ctypes.c_int32),
        ("cu_seqlens_q", _TextTensor), ("cu_seqlens_k", _TextTensor), ("sinks", _TextTensor),
        ("block_table", _TextTensor),
        ("scale", ctypes.c_double), ("causal", ctypes.c_int32), ("has_window", ctypes.c_int32),
        ("window_left", ctypes.c_int64), ("window_right", ctypes.c_int64),
        ("bottom_right", ctypes.c_int32), ("transpose_k", ctypes.c_int32), ("score_mod", ctypes.c_char_p),
        ("return_lse", ctypes.c_int32), ("output_name", ctypes.c_char_p), ("lse_name", ctypes.c_char_p),
    ]


class _TextValue(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_uint64)]


_CODES = {ctypes.c_int32: "i", ctypes.c_int64: "q", ctypes.c_uint64: "Q", ctypes.c_void_p: "Q",
          ctypes.c_float: "f", ctypes.c_double: "d"}


def _leaves(ctype, offset):
    """(offset, struct code) of every scalar in `ctype`, in field order."""
    if issubclass(ctype, ctypes.Structure):
        out = []
        for name, field_type in ctype._fields_:
            out += _leaves(field_type, offset + getattr(ctype, name).offset)
        return out
    if issubclass(ctype, ctypes.Array):
        size = ctypes.sizeof(ctype._type_)
        return [leaf for i in range(ctype._length_) for leaf in _leaves(ctype._type_, offset + i * size)]
    return [(offset, _CODES[ctype])]


def _packer(structure):
    """A struct.Struct whose pack(*values) is `structure` with its scalars (nested
    structs and arrays flattened, pointers as ints) in field order: one call
    instead of one ctypes attribute store per field."""
    fmt, position = "<", 0
    for offset, code in _leaves(structure, 0):
        fmt += "x" * (offset - position) + code
        position = offset + struct.calcsize(code)
    fmt += "x" * (ctypes.sizeof(structure) - position)
    packer = struct.Struct(fmt)
    assert packer.size == ctypes.sizeof(structure)
    return packer


_FLASH_ARGS = _packer(_FlashArgs)
_BACKWARD_ARGS = _packer(_BackwardArgs)
_CACHE_APPEND_ARGS = _packer(_CacheAppendArgs)
_LAUNCH_CONFIG = _packer(_LaunchConfig)

# ----------------------------------------------------------------------------
# The library.

_lock = threading.RLock()
_lib = None
_context = None
_kernels = {}
_backward_kernels = {}  # (spec, bias_grad) -> _Kernel of attn_compile_training's backward
# Query lengths up to the library's attn_max_decode_queries() (decode,
# speculative decoding) get kernels of their own, so that the cost model
# picks tiles for a few rows; longer ones share one kernel per
# specialization. Set when the library loads: _decode_queries().
_DECODE_QUERIES = None

_LOG_HANDLER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)


def _forward_log(message, _user):
    _logger.info("%s", message.decode(errors="replace"))


_log_handler = _LOG_HANDLER_TYPE(_forward_log)


def _library_candidates():
    explicit = os.environ.get("ATTN_LIBRARY")
    if explicit:
        return [explicit]
    here = os.path.dirname(os.path.abspath(__file__))
    name = f"libattn_c.so.{_ABI_VERSION}"
    candidates = []
    try:
        from . import _install  # written by cmake --install
        candidates.append(os.path.join(here, _install.LIBRARY))
    except ImportError:
        pass
    build = os.path.join(here, "..", "..", "build", "lib")
    candidates += [os.path.join(here, name), os.path.join(build, name), os.path.join(build, "libattn_c.so")]
    return candidates


def library():
    """The loaded libattn_c (loads it, and checks its ABI version, on first use)."""
    global _lib, _DECODE_QUERIES
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        errors = []
        for path in _library_candidates():
            try:
                lib = ctypes.CDLL(os.path.abspath(path))
                break
            except OSError as e:
                errors.append(f"{path}: {e}")
        else:
            raise AttnError("cannot load libattn_c; build attn (scripts/build.sh) or set ATTN_LIBRARY (" +
                            "; ".join(errors) + ")")
        if not hasattr(lib, "attn_abi_version"):
            raise AttnError(f"{lib._name} predates ABI versions; this attn package needs C ABI "
                            f"{_ABI_VERSION}: rebuild attn or point ATTN_LIBRARY at a newer libattn_c")
        lib.attn_abi_version.restype = ctypes.c_int32
        abi = lib.attn_abi_version()
        if abi != _ABI_VERSION:
            raise AttnError(f"{lib._name} has C ABI version {abi}, but this attn package needs "
                            f"{_ABI_VERSION}: install the package and the library of one attn version, "
                            "or point ATTN_LIBRARY at a matching libattn_c")
        # The limits the structs and the specializations follow are the library's.
        if not hasattr(lib, "attn_max_decode_queries"):
            raise AttnError(f"{lib._name} predates attn_max_decode_queries(); rebuild attn or point "
                            "ATTN_LIBRARY at the libattn_c of this package's version")
        lib.attn_max_decode_queries.restype = ctypes.c_int32
        lib.attn_max_score_mod_captures.restype = ctypes.c_int32
        captures = lib.attn_max_score_mod_captures()
        if captures != _MAX_SCORE_MOD_CAPTURES:
            raise AttnError(f"{lib._name} takes {captures} score_mod captures, but this attn package's "
                            f"structs hold {_MAX_SCORE_MOD_CAPTURES}: install the package and the library "
                            "of one attn version")
        _DECODE_QUERIES = lib.attn_max_decode_queries()
        lib.attn_version.restype = ctypes.c_char_p
        lib.attn_last_error.restype = ctypes.c_char_p
        lib.attn_set_log_handler.argtypes = [_LOG_HANDLER_TYPE, ctypes.c_void_p]
        lib.attn_set_log_handler.restype = None
        lib.attn_context_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.attn_compile.argtypes = ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p] + [ctypes.c_int32] * 4 +
                                     [ctypes.POINTER(ctypes.c_void_p)])
        lib.attn_kernel_get_info.argtypes = [ctypes.c_void_p, ctypes.POINTER(_KernelInfo)]
        lib.attn_kernel_source.argtypes = [ctypes.c_void_p]
        lib.attn_kernel_source.restype = ctypes.c_char_p
        # Args and config go in as bytes from struct.pack: no ctypes objects.
        lib.attn_kernel_load.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.attn_workspace_size.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                            ctypes.POINTER(ctypes.c_uint64)]
        lib.attn_launch_on.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
        lib.attn_launch.argtypes = [ctypes.c_void_p, ctypes.POINTER(_FlashArgs), ctypes.c_void_p]
        lib.attn_kernel_destroy.argtypes = [ctypes.c_void_p]
        lib.attn_kernel_destroy.restype = None
        lib.attn_compile_training.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32,
                                              ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        lib.attn_backward_workspace_size.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                     ctypes.POINTER(ctypes.c_uint64)]
        lib.attn_launch_backward.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
        lib.attn_compile_cache_append.argtypes = ([ctypes.c_void_p, ctypes.c_char_p] + [ctypes.c_int32] * 5 +
                                                  [ctypes.POINTER(ctypes.c_void_p)])
        lib.attn_launch_cache_append.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
        lib.attn_write_flash_op.argtypes = [ctypes.POINTER(_FlashOpText), ctypes.POINTER(_TextValue)]
        lib.attn_text_value_free.argtypes = [ctypes.POINTER(_TextValue)]
        lib.attn_text_value_free.restype = None
        lib.attn_set_log_handler(_log_handler, None)
        _lib = lib
        return lib


@atexit.register
def _stop_logging():
    if _lib is not None:
        _lib.attn_set_log_handler(_LOG_HANDLER_TYPE(), None)


def __getattr__(name):
    if name == "__version__":  # the library's: one version for both
        return library().attn_version().decode()
    raise AttributeError(f"module 'attn' has no attribute {name!r}")


def _decode_queries():
    """attn_max_decode_queries() of the library (loading it)."""
    if _DECODE_QUERIES is None:
        library()
    return _DECODE_QUERIES


def _check(code):
    if code != 0:
        raise AttnError(library().attn_last_error().decode())


def _get_context():
    global _context
    if _context is None:
        with _lock:
            if _context is None:
                handle = ctypes.c_void_p()
                _check(library().attn_context_create(None, None, ctypes.byref(handle)))
                _context = handle
    return _context


# ----------------------------------------------------------------------------
# score_mod bodies.

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


# ----------------------------------------------------------------------------
# The kernel a call needs: its MLIR, compiled once per specialization.

def head_bias(num_heads):
    """A score_mod body that adds a learned bias per query head: pass the
    (num_heads,) float32 tensor as score_mod_captures=[bias]."""
    return (f"%bias = tensor.extract %capture0[%h] : tensor<{num_heads}xf32>\n"
            "%y = arith.addf %score, %bias : f32\n"
            "attn.yield %y : f32")


def _text_tensor(spec, keep):
    """A (shape, element) or (shape, element, name) spec as an attn_text_tensor
    (an empty one for None); the extents it points to are appended to keep."""
    if spec is None:
        return _TextTensor()
    if not 2 <= len(spec) <= 3:
        raise AttnError(f"attn.write_flash_op: a tensor is (shape, element) or (shape, element, name); got {spec!r}")
    shape, element = spec[0], spec[1]
    name = spec[2] if len(spec) == 3 else None
    extents = (ctypes.c_int64 * max(len(shape), 1))(*[-1 if d is None else int(d) for d in shape])
    keep.append(extents)
    return _TextTensor(name.encode() if name else None, element.encode(), extents, len(shape))


def write_flash_op(q, k, v, scale, *, function=None, lengths=None, keep=None, bias=None, captures=(),
                   cu_seqlens_q=None, cu_seqlens_k=None, sinks=None, block_table=None, causal=False,
                   window=None, bottom_right=False, transpose_k=False, score_mod=None, return_lse=False,
                   output="o", lse="lse"):
    """The MLIR text of one attn.flash, written by the library
    (attn_write_flash_op: the one writer of attn.flash text, which attn's
    C++ graphs use too). No torch or GPU needed.

    Each tensor is (shape, element) or (shape, element, name): extents with
    None for a dynamic one; element "f16", "bf16", "f32", "i32", "i64" or
    "i1"; name without '%' (defaults q, k, v, len, keep, bias, captured0..,
    cq, ck, sinks, table). lengths, keep and bias add their mask items
    (key_padding, keep, bias); window is (left, right), -1 unbounded; the
    score_mod is a region body over %score, %b, %h, %q_idx, %kv_idx and
    %capture0... function: a func.func of that name taking the operands
    and returning the results; None: the op statement alone. An AttnError
    names a field the text could not be written with."""
    keep_alive = []
    description = _FlashOpText()
    description.function = function.encode() if function else None
    for field, spec in (("q", q), ("k", k), ("v", v), ("lengths", lengths), ("keep", keep), ("bias", bias),
                        ("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k), ("sinks", sinks),
                        ("block_table", block_table)):
        setattr(description, field, _text_tensor(spec, keep_alive))
    captures = list(captures)
    if captures:
        description.captures = (_TextTensor * len(captures))(*(_text_tensor(c, keep_alive) for c in captures))
        description.num_captures = len(captures)
    description.scale = scale
    description.causal = bool(causal)
    if window is not None:
        description.has_window = 1
        description.window_left, description.window_right = (int(w) for w in window)
    description.bottom_right = bool(bottom_right)
    description.transpose_k = bool(transpose_k)
    description.score_mod = score_mod.encode() if score_mod else None
    description.return_lse = bool(return_lse)
    description.output_name = output.encode()
    description.lse_name = lse.encode()
    lib = library()
    text = _TextValue()
    _check(lib.attn_write_flash_op(ctypes.byref(description), ctypes.byref(text)))
    try:
        return ctypes.string_at(text.data, text.size).decode()
    finally:
        lib.attn_text_value_free(ctypes.byref(text))


def _mlir(dtype, hq, hkv, dqk, dv, scale, causal, bottom_right, window, has_lengths,
          keep, bias, score_mod, return_lse, sq=None, captures=(), sinks=False):
    """The attention as an attn.flash on dynamic batch and sequence sizes; sq,
    when given, fixes the query length."""
    def mask(spec):
        if spec is None:
            return None
        pattern, element = spec
        return [1 if one else (sq if d == 2 else None) for d, one in enumerate(pattern)], element
    return write_flash_op(
        ([None, hq, sq, dqk], dtype), ([None, hkv, None, dqk], dtype), ([None, hkv, None, dv], dtype), scale,
        function="sdpa", lengths=([None], "i32") if has_lengths else None, keep=mask(keep), bias=mask(bias),
        captures=captures, sinks=([hq], "f32") if sinks else None, causal=causal, window=window,
        bottom_right=bottom_right and (causal or window is not None), score_mod=score_mod,
        return_lse=return_lse)


# How attn_write_flash_op begins the line of a score_mod region's arguments
# in a function: _compile_error finds the body after it.
_SCORE_MOD_HEADER = "  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index"


# "<source>:LINE:COLUMN: error: ..." of attn_compile's messages.
_DIAGNOSTIC = re.compile(r"<source>:(\d+):(\d+): (error|warning|note|remark): (.*)$", re.M)


def _compile_error(message, text, score_mod, call, backward=False):
    """attn's compile error in terms of the user's arguments: an error inside
    the score_mod region names the score_mod line; others drop the location
    in generated MLIR and say which call it was. backward: the error came
    from compiling the call's backward (attn_compile_training)."""
    diagnostics = _DIAGNOSTIC.findall(message)
    if score_mod:
        lines = text.split("\n")
        first = next(i for i, line in enumerate(lines) if line.startswith(_SCORE_MOD_HEADER)) + 2  # 1-based
        body = score_mod.split("\n")
        for line, column, severity, what in diagnostics:
            index = int(line) - first
            if severity == "error" and 0 <= index < len(body):
                column = max(int(column) - 4, 1)  # the region's indent
                problem = "cannot be differentiated" if backward else "does not compile"
                return AttnError(f"attn.sdpa: the score_mod argument {problem}: line {index + 1}, "
                                 f"column {column}: {what}\n    {body[index]}\n(MLIR: {message.strip()})")
        if message.startswith("ParseError"):
            return AttnError(f"attn.sdpa: the score_mod argument breaks the generated MLIR (is it one region "
                             f"body ending in attn.yield?): {message}")
    errors = [re.sub(r"'attn\.flash(_bwd)?' op ", "", what)
              for _, _, severity, what in diagnostics if severity == "error"]
    where = "the backward of attn.sdpa" if backward else "attn.sdpa"
    return AttnError(f"{where}({call}): " + ("; ".join(errors) if errors else message))


def _capturing(device):
    """True if `device`'s current stream is capturing a CUDA graph."""
    with torch.cuda.device(device):
        return torch.cuda.is_current_stream_capturing()


class _Kernel:
    """A compiled kernel: its handle, and the workspace of the launch shapes seen."""
    __slots__ = ("handle", "ptr", "workspace")

    def __init__(self, handle):
        self.handle = handle           # ctypes.c_void_p, returned by return_kernel
        self.ptr = handle.value        # the same as an int, for the launch
        self.workspace = {}            # (batch, seq_q, seq_kv, num_splits, device) -> bytes


def _compiled_once(cache, key, device, capture_error, compile):
    """cache[key], or the kernel compile() returns, stored there on first
    use. Compiling holds _lock, so that threads asking for one key compile it
    once; where `device`'s stream is capturing a CUDA graph, which does not
    allow compiling, it raises AttnError(capture_error()) instead."""
    kernel = cache.get(key)
    if kernel is not None:
        return kernel
    with _lock:
        kernel = cache.get(key)
        if kernel is not None:
            return kernel
        if device is not None and _capturing(device):
            raise AttnError(capture_error())
        kernel = cache[key] = compile()
        return kernel


def _spec_source(spec):
    """What compiling the attention of `spec` (see _spec) takes: its MLIR,
    and the score_mod (for the lines of its errors), variant and tiles."""
    (dtype, hq, hkv, dqk, dv, scale, causal, bottom_right, window, has_lengths, keep, bias, score_mod,
     return_lse, static_sq, variant, tiles, captures, has_sinks) = spec
    text = _mlir(dtype, hq, hkv, dqk, dv, scale, causal, bottom_right, window, has_lengths, keep, bias,
                 score_mod, return_lse, static_sq, captures, has_sinks)
    return text, score_mod, variant, tiles


def _compile_kernel(text, score_mod, variant, tiles, describe, call="attn.sdpa"):
    """The kernel attn_compile makes of MLIR `text`; its errors name `call`."""
    handle = ctypes.c_void_p()
    lib = library()
    if lib.attn_compile(_get_context(), text.encode(), variant.encode(), *tiles, ctypes.byref(handle)):
        error = _compile_error(lib.attn_last_error().decode(), text, score_mod, describe())
        if call != "attn.sdpa":
            error = AttnError(str(error).replace("attn.sdpa", call, 1))
        raise error
    return _Kernel(handle)


def _kernel(spec, describe, device):
    """The kernel of `spec` (see _spec), compiled on first use."""
    return _compiled_once(
        _kernels, spec, device,
        lambda: (f"attn.sdpa({describe()}) needs a kernel compiled while a CUDA graph is being captured, "
                 "where compiling is not allowed: call attn.precompile with the same arguments (or run the "
                 "call once) before capturing"),
        lambda: _compile_kernel(*_spec_source(spec), describe))


def _backward_kernel(spec, bias_grad, describe, device):
    """The backward of the attention of `spec` (a spec of _spec with
    return_lse, no variant and no tiles: the backward picks its own), with
    the bias gradient if bias_grad, and the sinks' if the spec has sinks;
    compiled on first use."""
    def compile():
        text, score_mod, _, _ = _spec_source(spec)
        forward, backward = ctypes.c_void_p(), ctypes.c_void_p()
        lib = library()
        if lib.attn_compile_training(_get_context(), text.encode(), int(bias_grad), ctypes.byref(forward),
                                     ctypes.byref(backward)):
            raise _compile_error(lib.attn_last_error().decode(), text, score_mod, describe(), backward=True)
        # attn.sdpa's forward is its own kernel (_kernel, with the call's
        # variant and tiles); the one compiled with the backward goes.
        lib.attn_kernel_destroy(forward)
        return _Kernel(backward)

    return _compiled_once(
        _backward_kernels, (spec, bias_grad), device,
        lambda: (f"the backward of attn.sdpa({describe()}) needs a kernel compiled while a CUDA graph is "
                 "being captured, where compiling is not allowed: call attn.precompile with the same "
                 "arguments and backward=True (or run a training step once) before capturing"),
        compile)


def kernel_info(handle):
    """Name, tiles, registers, spills, cache outcome and build time of a kernel."""
    info = _KernelInfo()
    _check(library().attn_kernel_get_info(handle, ctypes.byref(info)))
    return {f: (getattr(info, f).decode() if isinstance(getattr(info, f), bytes) else getattr(info, f))
            for f, _ in _KernelInfo._fields_}


# ----------------------------------------------------------------------------
# Checking a call: every tensor argument, by name.

_DTYPE_NAMES = {}  # torch dtype -> MLIR element type, filled once torch is imported


def _describe(query, key, value):
    return ", ".join(f"{n} {tuple(t.shape)} {str(t.dtype).replace('torch.', '')} on {t.device}"
                     for n, t in (("query", query), ("key", key), ("value", value)))


def _check_captures(score_mod, captures, device):
    """The tensors a score_mod reads: at most _MAX_SCORE_MOD_CAPTURES, on the
    query's device, rank 0 to 4 with elements, of a dtype the kernels read."""
    captures = list(captures or ())
    if captures and not score_mod:
        raise AttnError("attn.sdpa: score_mod_captures needs a score_mod that reads them")
    if len(captures) > _MAX_SCORE_MOD_CAPTURES:
        raise AttnError(f"attn.sdpa: a score_mod reads at most {_MAX_SCORE_MOD_CAPTURES} tensors; "
                        f"score_mod_captures has {len(captures)}")
    for i, c in enumerate(captures):
        if not isinstance(c, torch.Tensor):
            raise AttnError(f"attn.sdpa: score_mod_captures[{i}] must be a tensor; got {type(c).__name__}")
        if c.device != device:
            raise AttnError(f"attn.sdpa: score_mod_captures[{i}] is on {c.device} but query is on {device}; "
                            f"move it with .to(query.device)")
        if c.dim() > 4 or c.numel() == 0:
            raise AttnError(f"attn.sdpa: score_mod_captures[{i}] must have rank <= 4 and elements; "
                            f"got shape {tuple(c.shape)}")
        if c.dtype not in _DTYPE_NAMES:
            raise AttnError(f"attn.sdpa: score_mod_captures[{i}] must be float32, float16, bfloat16, bool, "
                            f"int32 or int64; got {c.dtype}")
    return captures


def _check_sinks(sinks, hq, device, call="attn.sdpa", differentiable=False):
    """Attention sinks: one logit per query head on the query's device, as
    the float32 (hq,) the kernel reads (converted if needed), or None. A
    call that is not `differentiable` refuses sinks that require grad."""
    if sinks is None:
        return None
    if not isinstance(sinks, torch.Tensor):
        raise AttnError(f"{call}: sinks must be a tensor; got {type(sinks).__name__}")
    if sinks.device != device:
        raise AttnError(f"{call}: sinks is on {sinks.device} but the query is on {device}; move it with "
                        "sinks.to(query.device)")
    if sinks.numel() != hq or sinks.dim() != 1:
        raise AttnError(f"{call}: sinks must hold one logit per query head, shape ({hq},); got "
                        f"{tuple(sinks.shape)}")
    if not sinks.is_floating_point():
        raise AttnError(f"{call}: sinks must be floating point; got {sinks.dtype}")
    if sinks.requires_grad and _grad_enabled() and not differentiable:
        raise AttnError(f"{call} has no backward yet, and sinks requires grad with autograd on: the gradient "
                        "would be lost. Run the call under torch.no_grad() or torch.inference_mode(), or pass "
                        "sinks.detach()")
    return sinks.to(torch.float32).contiguous()


def _check_args(query, key, value, attn_mask, lengths, dropout_p, enable_gqa):
    """Shapes, dtypes and devices of a call; raises AttnError naming the
    argument. Returns (b, hq, sq, dqk, hkv, skv, dv, mask4) with mask4 the
    mask as a 4-d view (or None). Reads metadata only (FakeTensors too)."""
    if dropout_p != 0.0:
        raise AttnError("attn.sdpa: dropout is not supported (dropout_p must be 0)")
    device = query.device
    if device.type != "cuda":
        raise AttnError(f"attn.sdpa: query is on {device}; attn runs on CUDA tensors (query.cuda())")
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.dim() != 4:
            raise AttnError(f"attn.sdpa: {name} must be 4-d (batch, heads, seq, head_dim); got shape {tuple(t.shape)}")
        if t.device != device:
            raise AttnError(f"attn.sdpa: {name} is on {t.device} but query is on {device}; "
                            f"move it with {name}.to(query.device)")
    if not (query.dtype == key.dtype == value.dtype) or query.dtype not in (torch.float16, torch.bfloat16):
        raise AttnError(f"attn.sdpa: query, key and value must all be float16 or all bfloat16; got "
                        f"{query.dtype}, {key.dtype}, {value.dtype}")
    b, hq, sq, dqk = query.shape
    kb, hkv, skv, kd = key.shape
    vb, vh, vs, dv = value.shape
    if kb != b or vb != b:
        raise AttnError(f"attn.sdpa: batch sizes differ: query {b}, key {kb}, value {vb}")
    if kd != dqk:
        raise AttnError(f"attn.sdpa: key's head dim {kd} differs from query's {dqk}")
    if vh != hkv or vs != skv:
        raise AttnError(f"attn.sdpa: value has {vh} heads and {vs} keys, key {hkv} and {skv}; they must agree")
    if hq != hkv and not enable_gqa:
        raise AttnError(f"attn.sdpa: query has {hq} heads and key {hkv}; pass enable_gqa=True for GQA/MQA")
    if hq % hkv:
        raise AttnError(f"attn.sdpa: key heads {hkv} must divide query heads {hq}")
    mask4 = None
    if attn_mask is not None:
        if attn_mask.device != device:
            raise AttnError(f"attn.sdpa: attn_mask is on {attn_mask.device} but query is on {device}; "
                            "move it with attn_mask.to(query.device)")
        if attn_mask.dtype not in (torch.bool, torch.float32, torch.float16, torch.bfloat16):
            raise AttnError(f"attn.sdpa: attn_mask must be bool (True takes part) or float32, float16 or "
                            f"bfloat16 (added to the scores); got {attn_mask.dtype}")
        if attn_mask.dim() > 4:
            raise AttnError(f"attn.sdpa: attn_mask has {attn_mask.dim()} dimensions; at most 4")
        mask4 = attn_mask
        while mask4.dim() < 4:
            mask4 = mask4.unsqueeze(0)
        want = (b, hq, sq, skv)
        for d in range(4):
            if mask4.shape[d] != 1 and mask4.shape[d] != want[d]:
                raise AttnError(f"attn.sdpa: attn_mask of shape {tuple(attn_mask.shape)} does not broadcast to "
                                f"(batch, heads, query, key) = {want}: dimension {d} is {mask4.shape[d]}")
    if lengths is not None:
        if lengths.device != device:
            raise AttnError(f"attn.sdpa: lengths is on {lengths.device} but query is on {device}; "
                            "move it with lengths.to(query.device)")
        if lengths.dtype != torch.int32:
            raise AttnError(f"attn.sdpa: lengths must be int32; got {lengths.dtype} "
                            "(lengths.to(torch.int32))")
        if tuple(lengths.shape) != (b,):
            raise AttnError(f"attn.sdpa: lengths must have shape ({b},), one per batch; "
                            f"got {tuple(lengths.shape)}")
    return b, hq, sq, dqk, hkv, skv, dv, mask4


def _spec(query, hq, sq, dqk, hkv, skv, dv, mask4, scale, is_causal, bottom_right, window, has_lengths,
          score_mod, return_lse, variant, tiles, captures=(), sinks=None):
    """What the kernel is specialized on (the key of _kernels)."""
    dtype = _DTYPE_NAMES[query.dtype]
    keep = bias = None
    if mask4 is not None:
        # Size-1 dimensions broadcast (stride 0), whatever the call's sizes.
        pattern = tuple(size == 1 for size in mask4.shape)
        if mask4.dtype == torch.bool:
            keep = (pattern, "i1")
        else:
            bias = (pattern, _DTYPE_NAMES[mask4.dtype])
    if scale is None:
        scale = 1.0 / math.sqrt(dqk)
    if window is not None:
        window = (int(window[0]), int(window[1]))
    return (dtype, hq, hkv, dqk, dv, float(scale), bool(is_causal), bool(bottom_right), window, has_lengths,
            keep, bias, score_mod or None, bool(return_lse), sq if sq <= _decode_queries() else None,
            variant or "", tiles, tuple((tuple(c.shape), _DTYPE_NAMES[c.dtype]) for c in captures),
            sinks is not None)


def _requires_grad(query, key, value, attn_mask, captures):
    """True if autograd records a call with these tensors. (Plain loops and
    attribute reads: torch.compile traces them without a graph break.)"""
    if not _grad_enabled():
        return False
    if query.requires_grad or key.requires_grad or value.requires_grad:
        return True
    if attn_mask is not None and attn_mask.requires_grad:
        return True
    for c in captures or ():
        if c.requires_grad:
            return True
    return False


def _broadcast_dims(mask4, b, hq, sq, skv):
    """The dimensions (batch, heads, query, key) along which a mask of
    shape mask4 broadcasts: its bias gradient sums over them."""
    return [name for name, size, full in zip(("batch", "heads", "query", "key"), mask4.shape, (b, hq, sq, skv))
            if size == 1 and full != 1]


# ----------------------------------------------------------------------------
# The launch.

def _current_stream(device_index):
    return torch.cuda.current_stream(device_index).cuda_stream


def _run(query, key, value, attn_mask, lengths, dropout_p, is_causal, scale, enable_gqa, window, bottom_right,
         score_mod, return_lse, variant, tiles, num_splits, captures=(), sinks=None, batch_invariant=False):
    """Checks, finds (or compiles) the kernel, allocates the outputs and any
    workspace with torch's caching allocator on the current stream, and
    launches there. Returns (out, lse or None, kernel)."""
    b, hq, sq, dqk, hkv, skv, dv, mask4 = _check_args(query, key, value, attn_mask, lengths, dropout_p,
                                                      enable_gqa)
    captures = _check_captures(score_mod, captures, query.device)
    sinks = _check_sinks(sinks, hq, query.device, differentiable=True)
    spec = _spec(query, hq, sq, dqk, hkv, skv, dv, mask4, scale, is_causal, bottom_right, window,
                 lengths is not None, score_mod, return_lse, variant, tiles, captures, sinks)
    device = query.device
    dev = device.index if device.index is not None else torch.cuda.current_device()
    kernel = _kernel(spec, lambda: _describe(query, key, value), device)

    q = query if query.stride(3) == 1 else query.contiguous()
    k = key if key.stride(3) == 1 else key.contiguous()
    v = value if value.stride(3) == 1 else value.contiguous()
    out = torch.empty((b, hq, sq, dv), device=device, dtype=query.dtype)
    lse = torch.empty((b, hq, sq), device=device, dtype=torch.float32) if return_lse else None
    keep, bias = _mask_fields(mask4)
    if lengths is not None and lengths.stride(0) != 1:
        lengths = lengths.contiguous()
    # Captures are read contiguous, bool as bytes (the copies live until the
    # launch is enqueued).
    captures = [c.contiguous() for c in captures]
    capture_ptrs = _capture_pointers(captures)
    args = _FLASH_ARGS.pack(b, sq, skv, q.data_ptr(), *q.stride(), k.data_ptr(), *k.stride(),
                            v.data_ptr(), *v.stride(), out.data_ptr(), *out.stride(),
                            lse.data_ptr() if lse is not None else 0,
                            lengths.data_ptr() if lengths is not None else 0,
                            *keep, *bias, num_splits, *capture_ptrs, 0, 0, 0, 0,
                            sinks.data_ptr() if sinks is not None else 0, 0, 0, 0, 0, int(bool(batch_invariant)))
    stream = _current_stream(dev)
    lib = _lib
    # The strides too: operands TMA cannot read run a persistent kernel's
    # cp.async kernel, whose workspace differs.
    key_ = (b, sq, skv, num_splits, dev, bool(batch_invariant), q.stride(), k.stride(), v.stride())
    workspace_bytes = kernel.workspace.get(key_)
    if workspace_bytes is None:
        size = ctypes.c_uint64()
        if lib.attn_workspace_size(kernel.ptr, args, _LAUNCH_CONFIG.pack(0, dev, stream, 0, 0),
                                   ctypes.byref(size)):
            raise _launch_error(lib.attn_last_error().decode())
        if len(kernel.workspace) > 1024:
            kernel.workspace.clear()
        workspace_bytes = kernel.workspace[key_] = size.value
    workspace = torch.empty(workspace_bytes, device=device, dtype=torch.uint8) if workspace_bytes else None
    config = _LAUNCH_CONFIG.pack(0, dev, stream, workspace.data_ptr() if workspace is not None else 0,
                                 workspace_bytes)
    if lib.attn_launch_on(kernel.ptr, args, config):
        raise _launch_error(lib.attn_last_error().decode())
    return out, lse, kernel


def _mask_fields(mask4):
    """(keep, bias): the C API's (pointer, 4 strides) of the mask view, the
    one its dtype makes it, zeros for the other; size-1 dimensions broadcast
    (stride 0)."""
    none = (0, 0, 0, 0, 0)
    if mask4 is None:
        return none, none
    m = mask4.view(torch.uint8) if mask4.dtype == torch.bool else mask4
    s = m.stride()
    sh = m.shape
    fields = (m.data_ptr(), 0 if sh[0] == 1 else s[0], 0 if sh[1] == 1 else s[1],
              0 if sh[2] == 1 else s[2], 0 if sh[3] == 1 else s[3])
    return (fields, none) if mask4.dtype == torch.bool else (none, fields)


def _capture_pointers(captures):
    """The score_mod_captures slots of contiguous captures."""
    return [c.data_ptr() for c in captures] + [0] * (_MAX_SCORE_MOD_CAPTURES - len(captures))


def _grad_like(t):
    """The buffer of t's gradient: t's layout when it is dense with unit
    stride in its head dim (a BSHD tensor viewed as BHSD gets a BSHD
    gradient), else contiguous. The fake implementation allocates the same."""
    g = torch.empty_like(t)
    return g if g.stride(3) == 1 else t.new_empty(t.shape)


def _readable_gradient(t):
    """The output's gradient as the backward reads it (16-byte aligned, unit
    stride in the head dim, other strides multiples of 8 elements): autograd
    hands over any layout, an expanded one for out.sum()."""
    st = t.stride()
    if st[3] == 1 and st[0] % 8 == 0 and st[1] % 8 == 0 and st[2] % 8 == 0 and t.data_ptr() % 16 == 0:
        return t
    return t.contiguous()


def _backward_spec(query, key, value, attn_mask, lengths, is_causal, scale, enable_gqa, window, bottom_right,
                   score_mod, captures, sinks_grad=False):
    """Checks the call and returns (spec of its backward kernel, its sizes
    (b, hq, sq, dqk, hkv, skv, dv), mask4). The backward derives from the
    forward that writes the logsumexp and picks its own tiles, whatever
    variant and tiles the forward was given. Its sinks are there for their
    gradient (sinks_grad): constant sinks need nothing of it, since the
    logsumexp it reads counts them and they add no value."""
    b, hq, sq, dqk, hkv, skv, dv, mask4 = _check_args(query, key, value, attn_mask, lengths, 0.0, enable_gqa)
    captures = _check_captures(score_mod, captures, query.device)
    spec = _spec(query, hq, sq, dqk, hkv, skv, dv, mask4, scale, is_causal, bottom_right, window,
                 lengths is not None, score_mod, True, "", (0, 0, 0, 0), captures, True if sinks_grad else None)
    return spec, (b, hq, sq, dqk, hkv, skv, dv), mask4


def _run_backward(grad_out, query, key, value, out, lse, attn_mask, lengths, captures, sinks, is_causal, scale,
                  enable_gqa, window, bottom_right, score_mod, bias_grad, deterministic):
    """The backward of a call of _run with return_lse: finds (or compiles)
    the backward kernel, allocates dq, dk, dv (and the bias and sinks
    gradients) and the workspace with torch's caching allocator on the
    current stream, and launches there; no synchronization. Returns (dq, dk,
    dv, the attn_mask's gradient in its shape or an empty tensor without
    bias_grad, the float32 (hq,) gradient of sinks or an empty tensor
    without them)."""
    captures = list(captures or ())
    spec, (b, hq, sq, dqk, hkv, skv, dv), mask4 = _backward_spec(
        query, key, value, attn_mask, lengths, is_causal, scale, enable_gqa, window, bottom_right, score_mod,
        captures, sinks is not None)
    if bias_grad and (mask4 is None or mask4.dtype == torch.bool):
        raise AttnError("attn.sdpa: bias_grad needs a float attn_mask (a bias)")
    device = query.device
    dev = device.index if device.index is not None else torch.cuda.current_device()
    kernel = _backward_kernel(spec, bias_grad, lambda: _describe(query, key, value), device)

    q = query if query.stride(3) == 1 else query.contiguous()
    k = key if key.stride(3) == 1 else key.contiguous()
    v = value if value.stride(3) == 1 else value.contiguous()
    o = out if out.stride(3) == 1 else out.contiguous()
    do = _readable_gradient(grad_out.to(query.dtype))
    lse = lse.contiguous()
    grad_q, grad_k, grad_v = _grad_like(query), _grad_like(key), _grad_like(value)
    grad_bias = None
    grad_bias_fields = (0, 0, 0, 0, 0)
    if bias_grad:
        # An expanded bias (stride 0 over a dimension of size > 1) has a
        # gradient of its full shape: the kernel reads a copy and writes it.
        if any(mask4.stride(d) == 0 and mask4.shape[d] != 1 for d in range(4)):
            mask4 = mask4.contiguous()
        # Dimensions of size 1 are summed into (see attn_backward_args).
        grad_bias = torch.empty(mask4.shape, device=device, dtype=mask4.dtype)
        grad_bias_fields = (grad_bias.data_ptr(), *grad_bias.stride())
    keep, bias = _mask_fields(mask4)
    if lengths is not None and lengths.stride(0) != 1:
        lengths = lengths.contiguous()
    captures = [c.contiguous() for c in captures]
    grad_sinks = None
    if sinks is not None:
        sinks = _check_sinks(sinks.detach(), hq, device)
        grad_sinks = torch.empty((hq,), device=device, dtype=torch.float32)
    args = _BACKWARD_ARGS.pack(b, sq, skv, q.data_ptr(), *q.stride(), k.data_ptr(), *k.stride(),
                               v.data_ptr(), *v.stride(), o.data_ptr(), *o.stride(), do.data_ptr(), *do.stride(),
                               lse.data_ptr(), grad_q.data_ptr(), *grad_q.stride(), grad_k.data_ptr(),
                               *grad_k.stride(), grad_v.data_ptr(), *grad_v.stride(),
                               lengths.data_ptr() if lengths is not None else 0, *keep, *bias, *grad_bias_fields,
                               int(bool(deterministic)), *_capture_pointers(captures),
                               sinks.data_ptr() if sinks is not None else 0,
                               grad_sinks.data_ptr() if grad_sinks is not None else 0, 0, 0)
    lib = _lib
    size = ctypes.c_uint64()
    if lib.attn_backward_workspace_size(kernel.ptr, args, ctypes.byref(size)):
        raise _launch_error(lib.attn_last_error().decode())
    workspace = torch.empty(size.value, device=device, dtype=torch.uint8)
    config = _LAUNCH_CONFIG.pack(0, dev, _current_stream(dev), workspace.data_ptr(), size.value)
    if lib.attn_launch_backward(kernel.ptr, args, config):
        raise _launch_error(lib.attn_last_error().decode())
    empty = query.new_empty((0,), dtype=torch.float32)
    return (grad_q, grad_k, grad_v, empty if grad_bias is None else grad_bias.view(attn_mask.shape),
            empty if grad_sinks is None else grad_sinks)


# The C API's operand names, in the user's terms.
_OPERANDS = {"'q'": "query", "'k'": "key", "'v'": "value", "'o'": "the output", "'lse'": "the logsumexp output",
             "'lengths'": "lengths", "'keep'": "attn_mask", "'bias'": "attn_mask", "'workspace'": "the workspace",
             "'gradOutput'": "the output's gradient", "'gradQ'": "query's gradient", "'gradK'": "key's gradient",
             "'gradV'": "value's gradient", "'gradBias'": "attn_mask's gradient", "'sinks'": "sinks",
             "'gradSinks'": "the sinks' gradient"}


def _launch_error(message):
    for name, user in _OPERANDS.items():
        message = message.replace(name, f"{user} ({name})")
    return AttnError("attn.sdpa: " + message)


def _direct_call(query):
    """True for a plain eager call: no torch.compile/export tracing, no
    dispatch mode, a plain tensor. Those go through torch.ops.attn.sdpa."""
    return (not _is_compiling() and type(query) is _TorchTensor
            and (_dispatch_modes is None or not _dispatch_modes()))


def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
         enable_gqa=False, *, window=None, bottom_right=False, lengths=None, score_mod=None,
         score_mod_captures=(), return_lse=False, deterministic=None, variant="", block_m=0, block_n=0,
         num_warps=0, stages=0, num_splits=0, return_kernel=False, sinks=None, batch_invariant=False):
    """torch.nn.functional.scaled_dot_product_attention on attn's kernels.

    query (B, Hq, L, E), key (B, Hkv, S, E), value (B, Hkv, S, Ev), CUDA, f16
    or bf16, all on one device; any strides with a contiguous last dimension
    (e.g. BSHD memory viewed as BHSD). attn_mask: bool (True takes part) or
    float (added), broadcastable to (B, Hq, L, S), on the same device. Beyond
    torch: window=(left, right) sliding window, bottom_right to align
    causal/window to the last query, lengths (B,) int32 key padding (with
    bottom_right, each sequence's last query sees its key lengths[b] - 1,
    flash_attn's cache_seqlens; a graph aligned to the tensor's S instead
    fuses to #attn.mask<bottom_right = tensor, key_padding>),
    score_mod (an MLIR region body, see softcap and alibi),
    score_mod_captures (up to 4 CUDA tensors of float32, float16, bfloat16,
    bool, int32 or int64 that the body reads as %capture0.. with
    tensor.extract, like FlexAttention's captured buffers; see head_bias),
    return_lse for the natural-log logsumexp (B, Hq, L) in f32, sinks (Hq,)
    for attention sinks (gpt-oss: one logit per query head that joins every
    row's softmax denominator and adds no value), batch_invariant for
    results that are bitwise the same whatever else is in the batch and
    however many splits the launch has (keys split at fixed positions and
    always merged in order; RL rollouts, serving parity). variant
    ("sm80", "sm90", "sm90ws") and the tile sizes override the cost model; num_splits the split-KV count
    (0: the runtime's choice, 1: no split). Kernels are compiled once per
    specialization (dtypes, heads, head dims, masks, score_mod, options) for
    any batch and sequence lengths; query lengths up to 16 (decode) each get
    their own, with tiles for few rows. return_kernel (eager, without
    autograd) also returns the kernel's handle, for kernel_info.

    Differentiable (torch.autograd, torch.compile): gradients of query, key,
    value, a float attn_mask and sinks (learned, as gpt-oss's are), through
    attn's backward kernels (derived from the same attention, score_mod
    included; the forward then also writes the logsumexp, which the
    backward reads). deterministic=True runs the backward without atomics
    (bitwise identical gradients run to run); None follows
    torch.are_deterministic_algorithms_enabled(). variant and tiles apply
    to the forward only; the backward picks its own. Not differentiable:
    the returned logsumexp (it has no grad_fn), the score_mod_captures (an
    AttnError if one requires grad), and the backward itself (no double
    backward).

    Raises AttnError naming the argument at fault.
    """
    tiles = (block_m, block_n, num_warps, stages)
    differentiable = _requires_grad(query, key, value, attn_mask,
                                    [*(score_mod_captures or ()), *(() if sinks is None else (sinks,))])
    if not differentiable and _direct_call(query):
        out, lse, kernel = _run(query, key, value, attn_mask, lengths, dropout_p, is_causal, scale, enable_gqa,
                                window, bottom_right, score_mod, return_lse, variant, tiles, num_splits,
                                score_mod_captures, sinks, batch_invariant)
        result = (out, lse) if return_lse else out
        return (result, kernel.handle) if return_kernel else result
    if return_kernel:
        raise AttnError("attn.sdpa: return_kernel is only available in eager calls that autograd does not record")
    # The backward reads the forward's logsumexp: a recorded call writes it.
    out, lse = torch.ops.attn.sdpa(query, key, value, attn_mask, lengths, dropout_p, is_causal, scale,
                                   enable_gqa, list(score_mod_captures or ()), sinks,
                                   window=None if window is None else [window[0], window[1]],
                                   bottom_right=bottom_right, score_mod=score_mod,
                                   return_lse=bool(return_lse or differentiable), variant=variant, block_m=block_m,
                                   block_n=block_n, num_warps=num_warps, stages=stages, num_splits=num_splits,
                                   batch_invariant=batch_invariant, deterministic=deterministic)
    return (out, lse) if return_lse else out


def precompile(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
               enable_gqa=False, *, window=None, bottom_right=False, lengths=None, score_mod=None,
               score_mod_captures=(), return_lse=False, variant="", block_m=0, block_n=0, num_warps=0,
               stages=0, sinks=None, backward=False):
    """Compiles the kernel that attn.sdpa with these arguments runs and loads it
    on their device, without launching: call it before capturing a CUDA graph
    (compiling and loading are not allowed during capture). Only metadata is
    read, so the tensors may be uninitialized (torch.empty). backward=True:
    for a training step, the forward that autograd records (it writes the
    logsumexp) and the backward (with the attn_mask's gradient if attn_mask
    requires grad). Returns kernel_info of the forward kernel."""
    tiles = (block_m, block_n, num_warps, stages)
    b, hq, sq, dqk, hkv, skv, dv, mask4 = _check_args(query, key, value, attn_mask, lengths, dropout_p,
                                                      enable_gqa)
    captures = _check_captures(score_mod, score_mod_captures, query.device)
    sinks = _check_sinks(sinks, hq, query.device, "attn.precompile", differentiable=True)
    spec = _spec(query, hq, sq, dqk, hkv, skv, dv, mask4, scale, is_causal, bottom_right, window,
                 lengths is not None, score_mod, return_lse or backward, variant, tiles, captures, sinks)
    device = query.device
    describe = lambda: _describe(query, key, value)  # noqa: E731
    kernel = _kernel(spec, describe, device)
    dev = device.index if device.index is not None else torch.cuda.current_device()
    where = _LAUNCH_CONFIG.pack(0, dev, 0, 0, 0)
    _check(library().attn_kernel_load(kernel.ptr, where))
    if backward:
        backward_spec, _, _ = _backward_spec(query, key, value, attn_mask, lengths, is_causal, scale, enable_gqa,
                                             window, bottom_right, score_mod, captures,
                                             sinks is not None and sinks.requires_grad)
        bias_grad = attn_mask is not None and attn_mask.requires_grad
        _check(library().attn_kernel_load(_backward_kernel(backward_spec, bias_grad, describe, device).ptr, where))
    return kernel_info(kernel.handle)


# ----------------------------------------------------------------------------
# torch.ops.attn.sdpa: the registered operator, and its backward.

# Tensors are positional: autograd (register_autograd) takes no keyword-only
# tensors. lse is a 0-element tensor unless return_lse; a call that
# autograd records needs it.
_SCHEMA = ("sdpa(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, Tensor? lengths=None, "
           "float dropout_p=0.0, bool is_causal=False, float? scale=None, bool enable_gqa=False, "
           "Tensor[]? score_mod_captures=None, Tensor? sinks=None, *, "
           "int[]? window=None, bool bottom_right=False, str? score_mod=None, bool return_lse=False, "
           "str variant=\"\", int block_m=0, int block_n=0, int num_warps=0, int stages=0, "
           "int num_splits=0, bool batch_invariant=False, bool? deterministic=None) -> (Tensor, Tensor)")

# dq, dk, dv, the attn_mask's gradient (0 elements unless bias_grad) and the
# sinks' (0 elements without sinks: they are passed only for it).
_BACKWARD_SCHEMA = ("sdpa_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, "
                    "Tensor lse, Tensor? attn_mask, Tensor? lengths, Tensor[]? score_mod_captures, "
                    "Tensor? sinks, bool is_causal, float? scale, bool enable_gqa, *, int[]? window=None, "
                    "bool bottom_right=False, str? score_mod=None, bool bias_grad=False, "
                    "bool deterministic=False) -> (Tensor, Tensor, Tensor, Tensor, Tensor)")


def _op_impl(query, key, value, attn_mask=None, lengths=None, dropout_p=0.0, is_causal=False, scale=None,
             enable_gqa=False, score_mod_captures=None, sinks=None, *, window=None, bottom_right=False, score_mod=None,
             return_lse=False, variant="", block_m=0, block_n=0, num_warps=0, stages=0, num_splits=0,
             batch_invariant=False, deterministic=None):
    out, lse, _ = _run(query, key, value, attn_mask, lengths, dropout_p, is_causal, scale, enable_gqa, window,
                       bottom_right, score_mod, return_lse, variant, (block_m, block_n, num_warps, stages),
                       num_splits, score_mod_captures, sinks, batch_invariant)
    if lse is None:
        lse = torch.empty((0,), device=query.device, dtype=torch.float32)
    return out, lse


def _op_fake(query, key, value, attn_mask=None, lengths=None, dropout_p=0.0, is_causal=False, scale=None,
             enable_gqa=False, score_mod_captures=None, sinks=None, *, window=None, bottom_right=False, score_mod=None,
             return_lse=False, variant="", block_m=0, block_n=0, num_warps=0, stages=0, num_splits=0,
             batch_invariant=False, deterministic=None):
    b, hq, sq, dqk, hkv, skv, dv, _ = _check_args(query, key, value, attn_mask, lengths, dropout_p, enable_gqa)
    _check_captures(score_mod, score_mod_captures, query.device)
    if sinks is not None and (sinks.dim() != 1 or sinks.numel() != hq):
        raise AttnError(f"attn.sdpa: sinks must hold one logit per query head, shape ({hq},); got "
                        f"{tuple(sinks.shape)}")
    out = query.new_empty((b, hq, sq, dv))
    lse = query.new_empty((b, hq, sq) if return_lse else (0,), dtype=torch.float32)
    return out, lse


def _op_setup_context(ctx, inputs, keyword_only_inputs, output):
    """Runs when autograd records a call: refuses what the backward cannot
    do, saves what it reads, and (eager) compiles it, so that its errors
    come at the call."""
    query, key, value, attn_mask, lengths, _, is_causal, scale, enable_gqa, captures, *rest = inputs
    sinks = rest[0] if rest else None
    options = keyword_only_inputs
    captures = list(captures or ())
    for i, c in enumerate(captures):
        if c.requires_grad:
            raise AttnError(f"attn.sdpa: score_mod_captures[{i}] requires grad, but attn differentiates only "
                            f"query, key, value and a float attn_mask: pass score_mod_captures[{i}].detach()")
    # Constant sinks need nothing of the backward (_backward_spec).
    sinks_grad = sinks is not None and sinks.requires_grad
    if not options["return_lse"]:
        raise AttnError("torch.ops.attn.sdpa: a call that autograd records needs return_lse=True: the backward "
                        "reads the forward's logsumexp (attn.sdpa passes it)")
    bias_grad = attn_mask is not None and attn_mask.requires_grad
    deterministic = options["deterministic"]
    if deterministic is None:
        deterministic = torch.are_deterministic_algorithms_enabled()
    if bias_grad and deterministic:
        b, hq, sq, _, _, skv, _, mask4 = _check_args(query, key, value, attn_mask, lengths, 0.0, enable_gqa)
        summed = _broadcast_dims(mask4, b, hq, sq, skv)
        if summed:
            raise AttnError(f"attn.sdpa: the deterministic backward cannot sum the gradient of an attn_mask that "
                            f"broadcasts (shape {tuple(attn_mask.shape)}, over {', '.join(summed)}): expand it to "
                            f"{(b, hq, sq, skv)} (attn_mask.expand(...)), or pass deterministic=False")
    window = options["window"]
    if type(query) is _TorchTensor:  # eager (not traced): compile the backward now
        spec, _, _ = _backward_spec(query, key, value, attn_mask, lengths, is_causal, scale, enable_gqa, window,
                                    options["bottom_right"], options["score_mod"], captures, sinks_grad)
        _backward_kernel(spec, bias_grad, lambda: _describe(query, key, value), query.device)
    out, lse = output
    ctx.mark_non_differentiable(lse)
    ctx.save_for_backward(query, key, value, out, lse, attn_mask, lengths, sinks if sinks_grad else None,
                          *captures)
    ctx.attn = dict(is_causal=is_causal, scale=scale, enable_gqa=enable_gqa, window=window,
                    bottom_right=options["bottom_right"], score_mod=options["score_mod"], bias_grad=bias_grad,
                    deterministic=bool(deterministic))


def _op_backward(ctx, grad_out, grad_lse):
    query, key, value, out, lse, attn_mask, lengths, sinks, *captures = ctx.saved_tensors
    a = ctx.attn
    if _grad_enabled() and any(t is not None and t.requires_grad
                               for t in (grad_out, query, key, value, attn_mask, sinks)):
        raise AttnError("attn.sdpa has no double backward: its backward is not differentiable (a gradient "
                        "taken with create_graph=True cannot be differentiated again)")
    grad_q, grad_k, grad_v, grad_bias, grad_sinks = torch.ops.attn.sdpa_backward(
        grad_out, query, key, value, out, lse, attn_mask, lengths, captures, sinks, a["is_causal"], a["scale"],
        a["enable_gqa"], window=a["window"], bottom_right=a["bottom_right"],
        score_mod=_score_mod_token(a["score_mod"]),
        bias_grad=a["bias_grad"], deterministic=a["deterministic"])
    # One gradient per argument the call passed: the dispatcher drops
    # trailing arguments equal to their defaults, and needs_input_grad has
    # the structure of what remains (a list for score_mod_captures). By
    # position: query, key, value, attn_mask, ..., sinks (10).
    needs = ctx.needs_input_grad
    grads = {0: grad_q, 1: grad_k, 2: grad_v, 3: grad_bias if a["bias_grad"] else None,
             10: None if sinks is None else grad_sinks.to(sinks.dtype).view(sinks.shape)}
    out = []
    for i, need in enumerate(needs):
        if isinstance(need, (list, tuple)):
            out.append([None] * len(need))
        else:
            out.append(grads.get(i) if need else None)
    return tuple(out)


# The backward op's score_mod travels as hex: Inductor's generated wrapper
# for a traced backward failed to parse (SyntaxError, "unmatched '}'") with
# the multi-line MLIR text as an argument.
def _score_mod_token(score_mod):
    return None if score_mod is None else "hex:" + score_mod.encode().hex()


def _score_mod_text(token):
    if token is None or not token.startswith("hex:"):
        return token
    return bytes.fromhex(token[4:]).decode()


def _backward_op_impl(grad_out, query, key, value, out, lse, attn_mask, lengths, score_mod_captures, sinks,
                      is_causal, scale, enable_gqa, *, window=None, bottom_right=False, score_mod=None,
                      bias_grad=False, deterministic=False):
    return _run_backward(grad_out, query, key, value, out, lse, attn_mask, lengths, score_mod_captures, sinks,
                         is_causal, scale, enable_gqa, window, bottom_right, _score_mod_text(score_mod), bias_grad,
                         deterministic)


def _backward_op_fake(grad_out, query, key, value, out, lse, attn_mask, lengths, score_mod_captures, sinks,
                      is_causal, scale, enable_gqa, *, window=None, bottom_right=False, score_mod=None,
                      bias_grad=False, deterministic=False):
    _check_args(query, key, value, attn_mask, lengths, 0.0, enable_gqa)
    empty = query.new_empty((0,), dtype=torch.float32)
    grad_bias = attn_mask.new_empty(attn_mask.shape) if bias_grad else empty
    grad_sinks = query.new_empty((query.shape[1],), dtype=torch.float32) if sinks is not None else empty
    return _grad_like(query), _grad_like(key), _grad_like(value), grad_bias, grad_sinks


def _registered(name):
    """True if torch.ops.attn.<name> exists (another copy of this package
    registered it)."""
    try:
        getattr(torch.ops.attn, name).default
        return True
    except (AttributeError, RuntimeError):
        return False


def _define_differentiable_op(lib, name, schema, impl, fake, backward, setup_context, backward_schema,
                              backward_impl, backward_fake):
    """torch.ops.attn.<name> (traced by torch.compile through `fake`) with
    its autograd, whose backward is the op of `backward_schema`."""
    tags = tuple(getattr(torch.Tag, tag) for tag in ("pt2_compliant_tag", "needs_fixed_stride_order")
                 if hasattr(torch.Tag, tag))
    for op_schema, op_impl, op_fake in ((schema, impl, fake), (backward_schema, backward_impl, backward_fake)):
        lib.define(op_schema, tags=tags)
        op_name = "attn::" + op_schema.split("(", 1)[0]
        # CPU too, so that a CPU query gets attn's error rather than the dispatcher's.
        torch.library.impl(op_name, ("cpu", "cuda"), op_impl, lib=lib)
        torch.library.register_fake(op_name, op_fake, lib=lib)
    torch.library.register_autograd("attn::" + name, backward, setup_context=setup_context, lib=lib)
    _keep.append(lib)


def _register_op():
    if _registered("sdpa"):
        return
    _define_differentiable_op(torch.library.Library("attn", "DEF"), "sdpa", _SCHEMA, _op_impl, _op_fake,
                              _op_backward, _op_setup_context, _BACKWARD_SCHEMA, _backward_op_impl,
                              _backward_op_fake)


_keep = []
if torch is None:
    def _direct_call(query):  # noqa: F811
        raise AttnError("attn.sdpa needs PyTorch (import torch failed)")

    def _grad_enabled():
        return False
else:
    _TorchTensor = torch.Tensor
    _grad_enabled = torch.is_grad_enabled
    _is_compiling = torch.compiler.is_compiling
    _dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", None)
    _DTYPE_NAMES.update({torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32", torch.bool: "i1",
                         torch.int32: "i32", torch.int64: "i64"})
    if hasattr(torch._C, "_cuda_getCurrentRawStream"):
        _current_stream = torch._C._cuda_getCurrentRawStream  # noqa: F811  (an int, without a Stream object)
    _register_op()

# Serving forms (ragged batches, KV caches), with flash_attn's conventions.
from .serving import varlen, with_kvcache  # noqa: E402
