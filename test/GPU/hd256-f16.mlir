// REQUIRES: gpu
// f16, head dim 256
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @hd256_f16(%q: tensor<2x4x384x256xf16>, %k: tensor<2x4x384x256xf16>, %v: tensor<2x4x384x256xf16>) -> tensor<2x4x384x256xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x384x256xf16>, tensor<2x4x384x256xf16> -> tensor<2x4x384x384xf32>
  %t = attn.scale %s {factor = 0.0625 : f32} : tensor<2x4x384x384xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x384x384xf32> -> tensor<2x4x384x384xf16>
  %o = attn.matmul %p, %v : tensor<2x4x384x384xf16>, tensor<2x4x384x256xf16> -> tensor<2x4x384x256xf16>
  return %o : tensor<2x4x384x256xf16>
}
