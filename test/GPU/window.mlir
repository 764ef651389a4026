// REQUIRES: gpu
// sliding window of 64 keys back, no causal
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @window(%q: tensor<2x4x1000x64xbf16>, %k: tensor<2x4x1000x64xbf16>, %v: tensor<2x4x1000x64xbf16>) -> tensor<2x4x1000x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x1000x64xbf16>, tensor<2x4x1000x64xbf16> -> tensor<2x4x1000x1000xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x1000x1000xf32>
  %k2 = attn.mask %t {kind = #attn.mask<window = [64, 0]>} : tensor<2x4x1000x1000xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x1000x1000xf32> -> tensor<2x4x1000x1000xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x1000x1000xbf16>, tensor<2x4x1000x64xbf16> -> tensor<2x4x1000x64xbf16>
  return %o : tensor<2x4x1000x64xbf16>
}
