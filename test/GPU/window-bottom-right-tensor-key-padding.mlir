// REQUIRES: gpu
// Key padding, then a two-query window [0, 2] aligned to the bottom-right of
// the tensor's 40 keys (issue 39: gen-graphs.py --seed 20261205, case 30,
// rel L2 error 19.7 when fused to lengths[b]'s alignment).
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --splits=2 %s | FileCheck %s
// RUN: attn-run --backward --check %s | FileCheck %s --check-prefix=BWD
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s --check-prefix=BWD
// CHECK: check output 0 {{.*}} PASS
// BWD: check output 0 {{.*}} PASS
// BWD: check output 1 {{.*}} PASS
// BWD: check output 2 {{.*}} PASS
// BWD: check output 3 {{.*}} PASS
func.func @window_bottom_right_tensor(%q: tensor<3x2x2x128xf16>, %k: tensor<3x2x40x128xf16>, %v: tensor<3x2x40x128xf16>, %len: tensor<3xi32>) -> tensor<3x2x2x128xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<3x2x2x128xf16>, tensor<3x2x40x128xf16> -> tensor<3x2x2x40xf32>
  %t = attn.scale %s {factor = 0.0883883461 : f32} : tensor<3x2x2x40xf32>
  %a = attn.mask %t lengths(%len : tensor<3xi32>) {kind = #attn.mask<key_padding>} : tensor<3x2x2x40xf32>
  %b = attn.mask %a {kind = #attn.mask<window = [0, 2], bottom_right>} : tensor<3x2x2x40xf32>
  %p = attn.softmax %b {dim = 3} : tensor<3x2x2x40xf32> -> tensor<3x2x2x40xf16>
  %o = attn.matmul %p, %v : tensor<3x2x2x40xf16>, tensor<3x2x40x128xf16> -> tensor<3x2x2x128xf16>
  return %o : tensor<3x2x2x128xf16>
}
