// REQUIRES: gpu
// score_mod captures in the backward: a learned scale per head multiplies
// the score (score_mod_grad reads it too) and a bf16 relative-position
// table adds to it (indices clamped); odd lengths, GQA, causal; both dQ
// modes.
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --deterministic %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @captures(%q: tensor<2x8x301x64xbf16>, %k: tensor<2x2x301x64xbf16>, %v: tensor<2x2x301x64xbf16>,
                    %scale_t: tensor<8xf32>, %rel_t: tensor<255xbf16>) -> tensor<2x8x301x64xbf16> {
  %o = attn.flash %q, %k, %v captures(%scale_t, %rel_t : tensor<8xf32>, tensor<255xbf16>)
      {scale = 0.125 : f32, mask = #attn.mask<causal>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %s_t: tensor<8xf32>, %r_t: tensor<255xbf16>):
    %s = tensor.extract %s_t[%h] : tensor<8xf32>
    %off = arith.constant 127 : index
    %d = arith.subi %i, %j : index
    %ri = arith.addi %d, %off : index
    %r16 = tensor.extract %r_t[%ri] : tensor<255xbf16>
    %r = arith.extf %r16 : bf16 to f32
    %y0 = arith.mulf %x, %s : f32
    %y = arith.addf %y0, %r : f32
    attn.yield %y : f32
  } : tensor<2x8x301x64xbf16>, tensor<2x2x301x64xbf16>, tensor<2x2x301x64xbf16> -> tensor<2x8x301x64xbf16>
  return %o : tensor<2x8x301x64xbf16>
}
