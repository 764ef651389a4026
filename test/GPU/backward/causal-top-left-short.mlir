// REQUIRES: gpu
// top-left causal with fewer queries than keys: keys past the diagonal get zero dK and dV
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @causal_top_left_short(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x600x64xbf16>, %v: tensor<2x4x600x64xbf16>) -> tensor<2x4x200x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<2x4x200x64xbf16>, tensor<2x4x600x64xbf16>, tensor<2x4x600x64xbf16> -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}
