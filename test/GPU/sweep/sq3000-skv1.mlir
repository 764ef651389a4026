// REQUIRES: gpu
// Sweep case sq3000-skv1: the fused kernel (each variant that applies) and the
// unfused path against the float64 reference.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --unfused --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @sq3000_skv1(%q: tensor<1x2x3000x64xbf16>, %k: tensor<1x2x1x64xbf16>, %v: tensor<1x2x1x64xbf16>) -> tensor<1x2x3000x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x3000x64xbf16>, tensor<1x2x1x64xbf16> -> tensor<1x2x3000x1xf32>
  %t = attn.scale %s {factor = 0.1250000 : f32} : tensor<1x2x3000x1xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x3000x1xf32> -> tensor<1x2x3000x1xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x3000x1xbf16>, tensor<1x2x1x64xbf16> -> tensor<1x2x3000x64xbf16>
  return %o : tensor<1x2x3000x64xbf16>
}
