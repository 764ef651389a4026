// REQUIRES: gpu
// a bf16 bias shared by the batch, and its gradient summed over it (f32 atomics)
// RUN: attn-run --backward --check --bias-grad %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --bias-grad %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
// CHECK: check output 4 {{.*}} PASS
func.func @bias_broadcast(%q: tensor<2x4x129x64xbf16>, %k: tensor<2x2x300x64xbf16>, %v: tensor<2x2x300x64xbf16>, %bias: tensor<1x4x129x300xbf16>) -> tensor<2x4x129x64xbf16> {
  %o = attn.flash %q, %k, %v bias(%bias : tensor<1x4x129x300xbf16>) {scale = 0.125 : f32, mask = #attn.mask<bias>} : tensor<2x4x129x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x2x300x64xbf16> -> tensor<2x4x129x64xbf16>
  return %o : tensor<2x4x129x64xbf16>
}
