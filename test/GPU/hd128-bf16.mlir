// REQUIRES: gpu
// bf16, head dim 128
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @hd128_bf16(%q: tensor<2x4x384x128xbf16>, %k: tensor<2x4x384x128xbf16>, %v: tensor<2x4x384x128xbf16>) -> tensor<2x4x384x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x384x128xbf16>, tensor<2x4x384x128xbf16> -> tensor<2x4x384x384xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<2x4x384x384xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x384x384xf32> -> tensor<2x4x384x384xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x384x384xbf16>, tensor<2x4x384x128xbf16> -> tensor<2x4x384x128xbf16>
  return %o : tensor<2x4x384x128xbf16>
}
