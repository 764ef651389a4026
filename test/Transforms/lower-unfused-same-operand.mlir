// RUN: attn-opt %s -attn-lower-unfused | FileCheck %s

// An op that reads one tensor twice (self-attention's q @ q^T) becomes a
// kernel with that tensor as both inputs, which verifies.

// CHECK-LABEL: func @self
// CHECK: attn.kernel "matmul"(%[[Q:.*]], %[[Q]])
func.func @self(%q: tensor<1x1x8x16xbf16>) -> tensor<1x1x8x8xf32> {
  %s = attn.matmul %q, %q {transpose_rhs} : tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16> -> tensor<1x1x8x8xf32>
  return %s : tensor<1x1x8x8xf32>
}
