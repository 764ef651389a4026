// REQUIRES: gpu
// head dim 40
// RUN: attn-run --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @hd40_f16(%q: tensor<2x4x130x40xf16>, %k: tensor<2x4x130x40xf16>, %v: tensor<2x4x130x40xf16>) -> tensor<2x4x130x40xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x130x40xf16>, tensor<2x4x130x40xf16> -> tensor<2x4x130x130xf32>
  %t = attn.scale %s {factor = 0.158113883 : f32} : tensor<2x4x130x130xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x130x130xf32> -> tensor<2x4x130x130xf16>
  %o = attn.matmul %p, %v : tensor<2x4x130x130xf16>, tensor<2x4x130x40xf16> -> tensor<2x4x130x40xf16>
  return %o : tensor<2x4x130x40xf16>
}
