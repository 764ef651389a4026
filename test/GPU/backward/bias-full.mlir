// REQUIRES: gpu
// a full f32 bias and its gradient (written in place)
// RUN: attn-run --backward --check --bias-grad %s | FileCheck %s
// RUN: attn-run --backward --check --bias-grad --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --bias-grad %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x64x4x2 --check --bias-grad %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --bias-grad --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm80 --check --bias-grad %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
// CHECK: check output 4 {{.*}} PASS
func.func @bias_full(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x300x64xbf16>, %v: tensor<2x4x300x64xbf16>, %bias: tensor<2x4x200x300xf32>) -> tensor<2x4x200x64xbf16> {
  %o = attn.flash %q, %k, %v bias(%bias : tensor<2x4x200x300xf32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bias>} : tensor<2x4x200x64xbf16>, tensor<2x4x300x64xbf16>, tensor<2x4x300x64xbf16> -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}
