// REQUIRES: gpu
// f16, head dim 64
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @hd64_f16(%q: tensor<2x4x384x64xf16>, %k: tensor<2x4x384x64xf16>, %v: tensor<2x4x384x64xf16>) -> tensor<2x4x384x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x384x64xf16>, tensor<2x4x384x64xf16> -> tensor<2x4x384x384xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x384x384xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x384x384xf32> -> tensor<2x4x384x384xf16>
  %o = attn.matmul %p, %v : tensor<2x4x384x384xf16>, tensor<2x4x384x64xf16> -> tensor<2x4x384x64xf16>
  return %o : tensor<2x4x384x64xf16>
}
