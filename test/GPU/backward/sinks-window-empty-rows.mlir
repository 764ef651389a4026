// REQUIRES: gpu
// Sinks as a graph's [1, H, 1, 1] column, a bottom-right window with more
// queries than keys (rows that see no key weigh only their sink and add 0
// to its gradient), key padding, hd128, f16.
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
// CHECK: check output 4 {{.*}} PASS
func.func @sinks_window(%q: tensor<3x4x200x128xf16>, %k: tensor<3x4x150x128xf16>, %v: tensor<3x4x150x128xf16>, %len: tensor<3xi32>, %sinks: tensor<1x4x1x1xf32>) -> tensor<3x4x200x128xf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<3xi32>) sinks(%sinks : tensor<1x4x1x1xf32>) {scale = 0.088 : f32, mask = #attn.mask<window = [40, 0], bottom_right, key_padding>} : tensor<3x4x200x128xf16>, tensor<3x4x150x128xf16>, tensor<3x4x150x128xf16> -> tensor<3x4x200x128xf16>
  return %o : tensor<3x4x200x128xf16>
}
