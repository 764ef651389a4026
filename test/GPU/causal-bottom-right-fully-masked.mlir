// REQUIRES: gpu
// bottom-right with Sq > Skv: the first 600 rows see no key and must be 0, not NaN
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @causal_bottom_right_fully_masked(%q: tensor<2x4x700x64xbf16>, %k: tensor<2x4x100x64xbf16>, %v: tensor<2x4x100x64xbf16>) -> tensor<2x4x700x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x700x64xbf16>, tensor<2x4x100x64xbf16> -> tensor<2x4x700x100xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x700x100xf32>
  %k2 = attn.mask %t {kind = #attn.mask<causal, bottom_right>} : tensor<2x4x700x100xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x700x100xf32> -> tensor<2x4x700x100xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x700x100xbf16>, tensor<2x4x100x64xbf16> -> tensor<2x4x700x64xbf16>
  return %o : tensor<2x4x700x64xbf16>
}
