// REQUIRES: gpu
// head dim 72 (padded to 80 in shared memory), MQA
// RUN: attn-run --backward --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @hd72(%q: tensor<2x4x200x72xbf16>, %k: tensor<2x1x300x72xbf16>, %v: tensor<2x1x300x72xbf16>) -> tensor<2x4x200x72xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.11785113019775793 : f32} : tensor<2x4x200x72xbf16>, tensor<2x1x300x72xbf16>, tensor<2x1x300x72xbf16> -> tensor<2x4x200x72xbf16>
  return %o : tensor<2x4x200x72xbf16>
}
