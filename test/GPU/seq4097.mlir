// REQUIRES: gpu
// 4097 tokens, causal
// RUN: attn-run --check --check-slices=2 %s | FileCheck %s
// RUN: attn-run --check --check-slices=2 --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --check-slices=2 --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @seq4097(%q: tensor<1x2x4097x128xbf16>, %k: tensor<1x2x4097x128xbf16>, %v: tensor<1x2x4097x128xbf16>) -> tensor<1x2x4097x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x4097x128xbf16>, tensor<1x2x4097x128xbf16> -> tensor<1x2x4097x4097xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<1x2x4097x4097xf32>
  %k2 = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x2x4097x4097xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<1x2x4097x4097xf32> -> tensor<1x2x4097x4097xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x4097x4097xbf16>, tensor<1x2x4097x128xbf16> -> tensor<1x2x4097x128xbf16>
  return %o : tensor<1x2x4097x128xbf16>
}
