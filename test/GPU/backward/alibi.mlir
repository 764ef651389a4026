// REQUIRES: gpu
// ALiBi: index arithmetic with a derivative of one
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @alibi(%q: tensor<2x8x256x64xbf16>, %k: tensor<2x8x256x64xbf16>, %v: tensor<2x8x256x64xbf16>) -> tensor<2x8x256x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %one = arith.constant 1 : index
    %h1 = arith.addi %h, %one : index
    %hi = arith.index_cast %h1 : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %e = arith.constant -1.0 : f32
    %ex = arith.mulf %hf, %e : f32
    %slope = math.exp2 %ex : f32
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %bias = arith.mulf %slope, %df : f32
    %y = arith.addf %x, %bias : f32
    attn.yield %y : f32
  } : tensor<2x8x256x64xbf16>, tensor<2x8x256x64xbf16>, tensor<2x8x256x64xbf16> -> tensor<2x8x256x64xbf16>
  return %o : tensor<2x8x256x64xbf16>
}
