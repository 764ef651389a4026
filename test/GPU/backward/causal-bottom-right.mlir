// REQUIRES: gpu
// causal aligned bottom-right, more keys than queries
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x64x4x1 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --deterministic %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @causal_bottom_right(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x4x700x64xbf16>, %v: tensor<2x4x700x64xbf16>) -> tensor<2x4x300x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>} : tensor<2x4x300x64xbf16>, tensor<2x4x700x64xbf16>, tensor<2x4x700x64xbf16> -> tensor<2x4x300x64xbf16>
  return %o : tensor<2x4x300x64xbf16>
}
