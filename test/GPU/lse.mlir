// REQUIRES: gpu
// The fused op given directly, with its logsumexp result.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @lse(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x4x500x64xbf16>, %v: tensor<2x4x500x64xbf16>)
    -> (tensor<2x4x300x64xbf16>, tensor<2x4x300xf32>) {
  %o, %lse = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<2x4x300x64xbf16>, tensor<2x4x500x64xbf16>, tensor<2x4x500x64xbf16> -> tensor<2x4x300x64xbf16>, tensor<2x4x300xf32>
  return %o, %lse : tensor<2x4x300x64xbf16>, tensor<2x4x300xf32>
}
