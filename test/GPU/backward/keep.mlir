// REQUIRES: gpu
// a boolean mask broadcast over heads
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @keep(%q: tensor<2x4x257x64xbf16>, %k: tensor<2x4x255x64xbf16>, %v: tensor<2x4x255x64xbf16>, %keep: tensor<2x1x257x255xi1>) -> tensor<2x4x257x64xbf16> {
  %o = attn.flash %q, %k, %v keep(%keep : tensor<2x1x257x255xi1>) {scale = 0.125 : f32, mask = #attn.mask<keep>} : tensor<2x4x257x64xbf16>, tensor<2x4x255x64xbf16>, tensor<2x4x255x64xbf16> -> tensor<2x4x257x64xbf16>
  return %o : tensor<2x4x257x64xbf16>
}
