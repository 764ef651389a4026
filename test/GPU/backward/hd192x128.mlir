// REQUIRES: gpu
// head dims 192 (q/k) and 128 (v), causal
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @hd192x128(%q: tensor<2x4x513x192xbf16>, %k: tensor<2x4x513x192xbf16>, %v: tensor<2x4x513x128xbf16>) -> tensor<2x4x513x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.07216878364870323 : f32, mask = #attn.mask<causal>} : tensor<2x4x513x192xbf16>, tensor<2x4x513x192xbf16>, tensor<2x4x513x128xbf16> -> tensor<2x4x513x128xbf16>
  return %o : tensor<2x4x513x128xbf16>
}
