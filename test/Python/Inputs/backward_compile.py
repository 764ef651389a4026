# The Python package's path to the backward that needs no GPU and no torch:
# the training module it writes, attn_compile_training through ctypes, the
# error of a score_mod that cannot be differentiated, and the layout of its
# attn_backward_args (attn_backward_workspace_size reads the sizes, the mode
# and the bias strides from it).
import ctypes

import attn


def spec(score_mod=None, bias=None, keep=None, lengths=False, captures=(), causal=True, window=None,
         bottom_right=False, static_sq=None, hq=8, hkv=2, dqk=128, dv=128, sinks=False):
    """A spec as attn._backward_spec makes it (bf16, logsumexp, no variant
    or tiles; sinks for their gradient): the 19 fields of attn._spec."""
    return ("bf16", hq, hkv, dqk, dv, 0.125, causal, bottom_right, window, lengths, keep, bias, score_mod, True,
            static_sq, "", (0, 0, 0, 0), captures, sinks)


def describe():
    return "query (2, 8, 300, 128) bfloat16 on cuda:0"


def compile_backward(name, s, bias_grad=False):
    try:
        kernel = attn._backward_kernel(s, bias_grad, describe, None)
        print(f"{name}: {attn.kernel_info(kernel.handle)['name']}")
        return kernel
    except attn.AttnError as e:
        print(f"{name}: AttnError: {e}")


plain = compile_backward("plain", spec())
compile_backward("bias", spec(score_mod=attn.softcap(2.0), bias=((True, True, False, False), "f32")), True)
compile_backward("masks", spec(score_mod=attn.alibi(8), keep=((False, True, True, False), "i1"), lengths=True,
                               window=(64, 16), bottom_right=True, static_sq=7))
compile_backward("captures", spec(score_mod=attn.head_bias(8), captures=(((8,), "f32"),)))
compile_backward("hd192x128", spec(dqk=192, dv=128, causal=False))
compile_backward("sinks", spec(window=(127, 0), sinks=True))
assert attn._backward_kernel(spec(), False, describe, None) is plain  # cached
next_float_up = ("%i = arith.bitcast %score : f32 to i32\n"
                 "%one = arith.constant 1 : i32\n"
                 "%j = arith.addi %i, %one : i32\n"
                 "%f = arith.bitcast %j : i32 to f32\n"
                 "attn.yield %f : f32")
compile_backward("bitcast", spec(score_mod=next_float_up))
compile_backward("hd36", spec(dqk=36, dv=36))


def workspace(kernel, b, sq, skv, deterministic, bias=(0, 0, 0, 0, 0), grad_bias=(0, 0, 0, 0, 0)):
    none = (0, 0, 0, 0, 0)
    tensor = (1 << 20, 0, 0, 0, 1)
    args = attn._BACKWARD_ARGS.pack(b, sq, skv, *tensor, *tensor, *tensor, *tensor, *tensor, 1 << 20,
                                    *tensor, *tensor, *tensor, 0, *none, *bias, *grad_bias, deterministic,
                                    0, 0, 0, 0, 0, 0, 0, 0)
    size = ctypes.c_uint64()
    if attn.library().attn_backward_workspace_size(kernel.ptr, args, ctypes.byref(size)):
        return "error: " + attn.library().attn_last_error().decode()
    return size.value


print("workspace atomic", workspace(plain, 2, 300, 500, 0))
print("workspace deterministic", workspace(plain, 2, 300, 500, 1))
biased = attn._backward_kernel(spec(score_mod=attn.softcap(2.0), bias=((True, True, False, False), "f32")), True,
                               describe, None)
# A (1, 1, 300, 500) bias summed over batch and heads: an f32 sum of its size.
print("workspace broadcast bias", workspace(biased, 2, 300, 500, 0, bias=(1 << 20, 0, 0, 500, 1),
                                            grad_bias=(1 << 20, 0, 0, 500, 1)))
