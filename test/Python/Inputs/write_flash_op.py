# Prints the attn.flash functions the package writes for attn.sdpa,
# attn.varlen and attn.with_kvcache (through attn.write_flash_op, the
# library's writer; no torch, no GPU), a statement alone, and the
# writer's errors.
import attn
from attn import serving

print(attn._mlir("bf16", 8, 2, 64, 64, 0.125, True, True, (127, 0), True, ((True, False, False, False), "i1"),
                 ((True, True, False, False), "f16"), attn.softcap(30.0), True, sq=1,
                 captures=(((8,), "f32"),), sinks=True))
print(serving._varlen_mlir("f16", 4, 4, 128, 128, 0.08838834764831845, serving._window_mask(True, (-1, -1)),
                           None, True, (), sinks=True))
print(serving._kvcache_mlir("bf16", 32, 8, 128, 128, None, 0.088, serving._window_mask(False, (255, 0)), None,
                            False, (), False, True))
print(attn.write_flash_op(([2, 4, 64, 32], "bf16", "query"), ([2, 4, 32, 64], "bf16"), ([2, 4, 64, 32], "bf16"),
                          1e-05, transpose_k=True, output="t0"))
# A rank-0 capture is tensor<f32> (the package wrote tensor<xf32> before).
print(attn.write_flash_op(([1, 1, 8, 64], "bf16"), ([1, 1, 8, 64], "bf16"), ([1, 1, 8, 64], "bf16"), 0.5,
                          captures=[((), "f32")], score_mod="attn.yield %score : f32").split(" {")[0])
t = ([1, 1, 8, 64], "bf16")
for bad in [lambda: attn.write_flash_op(t, t, ([8, 64], "bf16"), 0.5),
            lambda: attn.write_flash_op(t, t, t, 0.5, lengths=([1], "u8")),
            lambda: attn.write_flash_op(t, t, t, float("inf")),
            lambda: attn.write_flash_op(t, t, t, 0.5, captures=[((4,), "f32")]),
            lambda: attn.write_flash_op(t, t, t, 0.5, function="f", keep=([1], "i1", "q")),
            lambda: attn.write_flash_op(t, t, ([1],), 0.5)]:
    try:
        bad()
        print("no error")
    except attn.AttnError as e:
        print("AttnError:", e)
