// REQUIRES: gpu
// Mistral-style causal sliding window
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @window_causal(%q: tensor<2x4x1024x128xbf16>, %k: tensor<2x4x1024x128xbf16>, %v: tensor<2x4x1024x128xbf16>) -> tensor<2x4x1024x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x1024x128xbf16>, tensor<2x4x1024x128xbf16> -> tensor<2x4x1024x1024xf32>
  %t = attn.scale %s {factor = 0.0883883476 : f32} : tensor<2x4x1024x1024xf32>
  %k2 = attn.mask %t {kind = #attn.mask<causal, window = [128, 0]>} : tensor<2x4x1024x1024xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x1024x1024xf32> -> tensor<2x4x1024x1024xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x1024x1024xbf16>, tensor<2x4x1024x128xbf16> -> tensor<2x4x1024x128xbf16>
  return %o : tensor<2x4x1024x128xbf16>
}
