// REQUIRES: gpu
// Gemma-2 softcap: the derived score_mod_grad on the GPU
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm80 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @softcap(%q: tensor<2x8x511x128xbf16>, %k: tensor<2x4x511x128xbf16>, %v: tensor<2x4x511x128xbf16>) -> tensor<2x8x511x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.5 : f32, mask = #attn.mask<causal>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<2x8x511x128xbf16>, tensor<2x4x511x128xbf16>, tensor<2x4x511x128xbf16> -> tensor<2x8x511x128xbf16>
  return %o : tensor<2x8x511x128xbf16>
}
