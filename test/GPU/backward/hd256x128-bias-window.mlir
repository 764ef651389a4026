// REQUIRES: gpu
// head dims 256 (q, k) and 128 (v), f16: a window with a full bias and its
// gradient, key padding; on sm_90a two warpgroups per 64 keys, each with
// 128 columns of dK and 64 of dV
// RUN: attn-run --backward --check --bias-grad %s | FileCheck %s
// RUN: attn-run --backward --check --bias-grad --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x64x8x2 --check --bias-grad %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm80 --check --bias-grad %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
// CHECK: check output 4 {{.*}} PASS
func.func @hd256x128_bias_window(%q: tensor<2x4x190x256xf16>, %k: tensor<2x4x333x256xf16>, %v: tensor<2x4x333x128xf16>, %bias: tensor<2x4x190x333xf32>, %len: tensor<2xi32>) -> tensor<2x4x190x128xf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) bias(%bias : tensor<2x4x190x333xf32>) {scale = 0.0625 : f32, mask = #attn.mask<window = [100, 50], key_padding, bias>} : tensor<2x4x190x256xf16>, tensor<2x4x333x256xf16>, tensor<2x4x333x128xf16> -> tensor<2x4x190x128xf16>
  return %o : tensor<2x4x190x128xf16>
}
