// REQUIRES: gpu
// a bias without its gradient
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --deterministic %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @bias_no_grad(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x200x64xbf16>, %v: tensor<2x4x200x64xbf16>, %bias: tensor<1x1x200x200xf32>) -> tensor<2x4x200x64xbf16> {
  %o = attn.flash %q, %k, %v bias(%bias : tensor<1x1x200x200xf32>) {scale = 0.125 : f32, mask = #attn.mask<bias>} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}
