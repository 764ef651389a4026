# Compiles the MLIR attn.varlen writes for a few of its options through the
# C API (no torch, no GPU: NVRTC only) and prints each kernel's name.
import ctypes

import attn
from attn import serving

lib = attn.library()
cases = [
    ("bf16", 8, 2, 64, 64, serving._window_mask(True, (-1, -1)), None, True, ()),
    ("f16", 4, 4, 128, 128, serving._window_mask(False, (100, 0)), serving._score_mod_of(30.0, None), False, ()),
    ("bf16", 6, 3, 96, 96, serving._window_mask(True, (50, -1)), attn.head_bias(6), False, (((6,), "f32"),)),
]
for dtype, hq, hkv, dqk, dv, items, score_mod, lse, captures in cases:
    text = serving._varlen_mlir(dtype, hq, hkv, dqk, dv, 0.125, items, score_mod, lse, captures)
    handle = ctypes.c_void_p()
    if lib.attn_compile(attn._get_context(), text.encode(), b"", 0, 0, 0, 0, ctypes.byref(handle)):
        print("FAILED:", lib.attn_last_error().decode())
        continue
    info = attn.kernel_info(handle)
    print(info["name"], info["variant"], info["spill_bytes"])
# Sinks, ragged (gpt-oss: a sliding window) and dense (attn.sdpa's MLIR).
for text in [serving._varlen_mlir("bf16", 64, 8, 64, 64, 0.125, serving._window_mask(True, (127, 0)), None,
                                  True, (), sinks=True),
             attn._mlir("bf16", 64, 8, 64, 64, 0.125, True, True, (127, 0), False, None, None, None, False,
                        sq=1, sinks=True)]:
    handle = ctypes.c_void_p()
    if lib.attn_compile(attn._get_context(), text.encode(), b"", 0, 0, 0, 0, ctypes.byref(handle)):
        print("FAILED:", lib.attn_last_error().decode())
        continue
    info = attn.kernel_info(handle)
    print(info["name"], info["variant"], info["spill_bytes"])
# attn.with_kvcache: a dense cache and paged ones (decode, chunked prefill).
for text in [serving._kvcache_mlir("bf16", 32, 8, 128, 128, 1, 0.088, serving._window_mask(True, (-1, -1)),
                                   None, False, (), False, False),
             serving._kvcache_mlir("bf16", 64, 8, 64, 64, 4, 0.125, serving._window_mask(True, (127, 0)),
                                   None, True, (), True, True),
             serving._kvcache_mlir("f16", 16, 4, 128, 128, None, 0.088, serving._window_mask(True, (-1, -1)),
                                   serving._score_mod_of(30.0, None), False, (), False, True)]:
    handle = ctypes.c_void_p()
    if lib.attn_compile(attn._get_context(), text.encode(), b"", 0, 0, 0, 0, ctypes.byref(handle)):
        print("FAILED:", lib.attn_last_error().decode())
        continue
    info = attn.kernel_info(handle)
    print(info["name"], info["variant"], info["spill_bytes"])
for bad in [lambda: serving._window_mask(False, (-2, 0)), lambda: serving._window_mask(False, "x"),
            lambda: serving._score_mod_of(30.0, attn.alibi(4)), lambda: serving._score_mod_of(-1.0, None)]:
    try:
        bad()
        print("no error")
    except attn.AttnError as e:
        print("AttnError:", e)
