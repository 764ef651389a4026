// RUN: attn-opt %s -attn-fuse -split-input-file | FileCheck %s

// A bias added to scores that a keep mask has already filled: which operand
// of the addf is the bias is decided by which one leads back to q @ k^T
// through the ops the chain takes, each by its score operand. A select's
// first operand is its keep condition, not the scores (issue 39: this graph,
// from gen-graphs.py --seed 1205001, case 16, stayed unfused with "the
// scores come from a block argument").

// CHECK-LABEL: func @keep_select_then_bias
// CHECK-NOT: arith.select
// CHECK-NOT: arith.addf
// CHECK: attn.flash %arg0, %arg1, %arg2 keep(%arg3 : tensor<1x1x5x8xi1>) bias(%arg4 : tensor<1x1x5x8xf32>) {mask = #attn.mask<keep, bias>, scale = 9.375000e-02 : f32, transpose_k}
// CHECK-NOT: attn.softmax
func.func @keep_select_then_bias(%q: tensor<1x1x5x64xf16>, %k: tensor<1x1x64x8xf16>, %v: tensor<1x1x8x64xf16>, %keep: tensor<1x1x5x8xi1>, %bias: tensor<1x1x5x8xf32>) -> tensor<1x1x5x64xf16> {
  %s = attn.matmul %q, %k : tensor<1x1x5x64xf16>, tensor<1x1x64x8xf16> -> tensor<1x1x5x8xf32>
  %d = arith.constant dense<10.666666666666666> : tensor<1x1x5x8xf32>
  %t = arith.divf %s, %d : tensor<1x1x5x8xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1x1x5x8xf32>
  %m = arith.select %keep, %t, %ninf : tensor<1x1x5x8xi1>, tensor<1x1x5x8xf32>
  %b = arith.addf %m, %bias : tensor<1x1x5x8xf32>
  %p = attn.softmax %b {dim = 3} : tensor<1x1x5x8xf32> -> tensor<1x1x5x8xf16>
  %o = attn.matmul %p, %v : tensor<1x1x5x8xf16>, tensor<1x1x8x64xf16> -> tensor<1x1x5x64xf16>
  return %o : tensor<1x1x5x64xf16>
}

// -----

// The same with the bias on the left and the scores reaching the matmul
// through a mask and a cast as well.
// CHECK-LABEL: func @bias_plus_masked_scores
// CHECK-NOT: arith.addf
// CHECK: attn.flash %arg0, %arg1, %arg2 keep(%arg3 : tensor<1x2x16x32xi1>) bias(%arg4 : tensor<1x2x16x32xf32>) {mask = #attn.mask<causal, keep, bias>, scale = 1.250000e-01 : f32}
func.func @bias_plus_masked_scores(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>, %keep: tensor<1x2x16x32xi1>, %bias: tensor<1x2x16x32xf32>) -> tensor<1x2x16x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x16x32xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x16x32xf32>
  %c = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x2x16x32xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1x2x16x32xf32>
  %m = arith.select %keep, %c, %ninf : tensor<1x2x16x32xi1>, tensor<1x2x16x32xf32>
  %b = arith.addf %bias, %m : tensor<1x2x16x32xf32>
  %p = attn.softmax %b {dim = 3} : tensor<1x2x16x32xf32> -> tensor<1x2x16x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x16x64xbf16>
  return %o : tensor<1x2x16x64xbf16>
}

// -----

// A bias computed from a matmul of its own, by an op the chain cannot take:
// following first operands reached that matmul and took the bias for the
// scores; the scores are the operand that reaches q @ k^T through chain ops.
// CHECK-LABEL: func @bias_from_a_matmul
// CHECK: %[[E:.*]] = math.exp
// CHECK: attn.flash %arg0, %arg1, %arg2 bias(%[[E]] : tensor<1x2x16x32xf32>) {mask = #attn.mask<bias>, scale = 1.000000e+00 : f32}
func.func @bias_from_a_matmul(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>, %x: tensor<1x2x16x8xbf16>, %y: tensor<1x2x8x32xbf16>) -> tensor<1x2x16x64xbf16> {
  %r = attn.matmul %x, %y : tensor<1x2x16x8xbf16>, tensor<1x2x8x32xbf16> -> tensor<1x2x16x32xf32>
  %e = math.exp %r : tensor<1x2x16x32xf32>
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x16x32xf32>
  %b = arith.addf %e, %s : tensor<1x2x16x32xf32>
  %p = attn.softmax %b {dim = 3} : tensor<1x2x16x32xf32> -> tensor<1x2x16x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x16x64xbf16>
  return %o : tensor<1x2x16x64xbf16>
}
