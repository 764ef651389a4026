// REQUIRES: gpu
// head dim 128, causal, GQA 4:1, odd lengths
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x64x4x2 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x128x8x1 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm80 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @hd128_causal_gqa(%q: tensor<2x8x777x128xbf16>, %k: tensor<2x2x777x128xbf16>, %v: tensor<2x2x777x128xbf16>) -> tensor<2x8x777x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.08838834764831843 : f32, mask = #attn.mask<causal>} : tensor<2x8x777x128xbf16>, tensor<2x2x777x128xbf16>, tensor<2x2x777x128xbf16> -> tensor<2x8x777x128xbf16>
  return %o : tensor<2x8x777x128xbf16>
}
