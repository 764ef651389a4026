// REQUIRES: gpu
// head dim 128 in f16
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @hd128_f16(%q: tensor<2x4x300x128xf16>, %k: tensor<2x4x500x128xf16>, %v: tensor<2x4x500x128xf16>) -> tensor<2x4x300x128xf16> {
  %o = attn.flash %q, %k, %v {scale = 0.08838834764831843 : f32} : tensor<2x4x300x128xf16>, tensor<2x4x500x128xf16>, tensor<2x4x500x128xf16> -> tensor<2x4x300x128xf16>
  return %o : tensor<2x4x300x128xf16>
}
