// REQUIRES: gpu
// f16, head dim 128
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @hd128_f16(%q: tensor<2x4x384x128xf16>, %k: tensor<2x4x384x128xf16>, %v: tensor<2x4x384x128xf16>) -> tensor<2x4x384x128xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x384x128xf16>, tensor<2x4x384x128xf16> -> tensor<2x4x384x384xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<2x4x384x384xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x384x384xf32> -> tensor<2x4x384x384xf16>
  %o = attn.matmul %p, %v : tensor<2x4x384x384xf16>, tensor<2x4x384x128xf16> -> tensor<2x4x384x128xf16>
  return %o : tensor<2x4x384x128xf16>
}
