// REQUIRES: gpu
// A causal mask aligned to the bottom-right of the tensor's 300 keys, then a
// separate key-padding mask: rows keep keys j <= i + 300 - 77 and j <
// lengths[b], so rows of a short sequence may keep none (issue 39: fused,
// this once aligned to lengths[b]; now #attn.mask<causal, bottom_right =
// tensor, key_padding>).
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --poison-padding %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --poison-padding %s | FileCheck %s
// RUN: attn-run --check --splits=3 %s | FileCheck %s
// RUN: attn-run --check --unfused %s | FileCheck %s
// RUN: attn-run --backward --check %s | FileCheck %s --check-prefix=BWD
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s --check-prefix=BWD
// CHECK: check output 0 {{.*}} PASS
// BWD: check output 0 {{.*}} PASS
// BWD: check output 1 {{.*}} PASS
// BWD: check output 2 {{.*}} PASS
// BWD: check output 3 {{.*}} PASS
func.func @bottom_right_tensor(%q: tensor<2x4x77x64xbf16>, %k: tensor<2x4x300x64xbf16>, %v: tensor<2x4x300x64xbf16>, %len: tensor<2xi32>) -> tensor<2x4x77x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x77x64xbf16>, tensor<2x4x300x64xbf16> -> tensor<2x4x77x300xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x77x300xf32>
  %a = attn.mask %t {kind = #attn.mask<causal, bottom_right>} : tensor<2x4x77x300xf32>
  %b = attn.mask %a lengths(%len : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x4x77x300xf32>
  %p = attn.softmax %b {dim = 3} : tensor<2x4x77x300xf32> -> tensor<2x4x77x300xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x77x300xbf16>, tensor<2x4x300x64xbf16> -> tensor<2x4x77x64xbf16>
  return %o : tensor<2x4x77x64xbf16>
}
