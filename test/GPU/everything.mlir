// REQUIRES: gpu
// GQA + bottom-right causal window + padding + keep + bias + softcap
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @everything(%q: tensor<2x8x333x128xbf16>, %k: tensor<2x2x555x128xbf16>, %v: tensor<2x2x555x128xbf16>, %len: tensor<2xi32>, %keep: tensor<1x1x333x555xi1>, %bias: tensor<1x8x1x555xf32>) -> tensor<2x8x333x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x8x333x128xbf16>, tensor<2x2x555x128xbf16> -> tensor<2x8x333x555xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<2x8x333x555xf32>
  %m = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 20.0 : f32
    %d = arith.divf %x, %c : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %c : f32
    attn.yield %y : f32
  } : tensor<2x8x333x555xf32>
  %k2 = attn.mask %m lengths(%len : tensor<2xi32>) keep(%keep : tensor<1x1x333x555xi1>) bias(%bias : tensor<1x8x1x555xf32>) {kind = #attn.mask<causal, bottom_right, window = [200, 0], key_padding, keep, bias>} : tensor<2x8x333x555xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x8x333x555xf32> -> tensor<2x8x333x555xbf16>
  %o = attn.matmul %p, %v : tensor<2x8x333x555xbf16>, tensor<2x2x555x128xbf16> -> tensor<2x8x333x128xbf16>
  return %o : tensor<2x8x333x128xbf16>
}
