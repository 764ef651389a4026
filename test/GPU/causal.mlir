// REQUIRES: gpu
// causal, top-left
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// One cp.async stage: each tile loaded and waited for in its own step.
// RUN: attn-run --check --variant=sm80 --stages=1 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --stages=1 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @causal(%q: tensor<2x4x512x64xbf16>, %k: tensor<2x4x512x64xbf16>, %v: tensor<2x4x512x64xbf16>) -> tensor<2x4x512x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16> -> tensor<2x4x512x512xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x512x512xf32>
  %k2 = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x4x512x512xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x512x512xf32> -> tensor<2x4x512x512xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x512x512xbf16>, tensor<2x4x512x64xbf16> -> tensor<2x4x512x64xbf16>
  return %o : tensor<2x4x512x64xbf16>
}
