// REQUIRES: gpu
// boolean mask broadcast over heads
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @keep(%q: tensor<2x4x256x64xbf16>, %k: tensor<2x4x256x64xbf16>, %v: tensor<2x4x256x64xbf16>, %keep: tensor<2x1x256x256xi1>) -> tensor<2x4x256x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16> -> tensor<2x4x256x256xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x256x256xf32>
  %k2 = attn.mask %t keep(%keep : tensor<2x1x256x256xi1>) {kind = #attn.mask<keep>} : tensor<2x4x256x256xf32>
  %p = attn.softmax %k2 {dim = 3} : tensor<2x4x256x256xf32> -> tensor<2x4x256x256xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x256x256xbf16>, tensor<2x4x256x64xbf16> -> tensor<2x4x256x64xbf16>
  return %o : tensor<2x4x256x64xbf16>
}
