// RUN: attn-opt %s -attn-lower-unfused -split-input-file | FileCheck %s

// Every graph op becomes its own kernel; scale, mask and score_mod rewrite
// the score tensor in place, matmul, softmax and casts write new tensors.
// CHECK-LABEL: func @causal_softcap
// CHECK: %[[S:.*]] = attn.kernel "matmul"(%arg0, %arg1) : (tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16>) -> tensor<1x2x64x64xf32> {
// CHECK-NEXT: ^bb0(%[[Q:.*]]: tensor<1x2x64x32xbf16>, %[[K:.*]]: tensor<1x2x64x32xbf16>):
// CHECK-NEXT: %[[R:.*]] = attn.matmul %[[Q]], %[[K]] {transpose_rhs}
// CHECK-NEXT: attn.yield %[[R]]
// CHECK: %[[T:.*]] = attn.kernel "scale" in_place(%[[S]])
// CHECK: %[[C:.*]] = attn.kernel "score_mod" in_place(%[[T]])
// The region's constant comes along (the kernel is isolated from above).
// CHECK: arith.constant 3.000000e+01 : f32
// CHECK: attn.score_mod
// CHECK: %[[M:.*]] = attn.kernel "mask" in_place(%[[C]], %arg3)
// CHECK: attn.mask {{.*}} lengths({{.*}}) {kind = #attn.mask<causal, key_padding>}
// CHECK: %[[P:.*]] = attn.kernel "softmax"(%[[M]])
// CHECK: %[[W:.*]] = attn.kernel "truncf"(%[[P]])
// CHECK: %[[O:.*]] = attn.kernel "matmul"(%[[W]], %arg2)
// CHECK: return %[[O]]
func.func @causal_softcap(%q: tensor<1x2x64x32xbf16>, %k: tensor<1x2x64x32xbf16>, %v: tensor<1x2x64x32xbf16>, %len: tensor<1xi32>) -> tensor<1x2x64x32xbf16> {
  %cap = arith.constant 30.0 : f32
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x2x64x64xf32>
  %t = attn.scale %s {factor = 0.17 : f32} : tensor<1x2x64x64xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xf32>
  %m = attn.mask %c lengths(%len : tensor<1xi32>) {kind = #attn.mask<causal, key_padding>} : tensor<1x2x64x64xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x64x64xf32> -> tensor<1x2x64x64xf32>
  %w = arith.truncf %p : tensor<1x2x64x64xf32> to tensor<1x2x64x64xbf16>
  %o = attn.matmul %w, %v : tensor<1x2x64x64xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x2x64x32xbf16>
  return %o : tensor<1x2x64x32xbf16>
}

// -----

// A fused op stays fused; scalar arith outside graph chains is untouched.
// CHECK-LABEL: func @already_fused
// CHECK-NOT: attn.kernel
// CHECK: attn.flash
// CHECK-NOT: attn.kernel
func.func @already_fused(%q: tensor<1x1x16x16xbf16>) -> tensor<1x1x16x16xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.25 : f32} : tensor<1x1x16x16xbf16>, tensor<1x1x16x16xbf16>, tensor<1x1x16x16xbf16> -> tensor<1x1x16x16xbf16>
  return %o : tensor<1x1x16x16xbf16>
}

// -----

// A division or product of the scores by a splat constant, as exporters
// write `scores / sqrt(d)`, runs as the attn.scale it means.
// CHECK-LABEL: func @divided_scores
// CHECK: %[[S:.*]] = attn.kernel "matmul"
// CHECK: %[[D:.*]] = attn.kernel "scale" in_place(%[[S]])
// CHECK: attn.scale %{{.*}} {factor = 1.250000e-01 : f32}
// CHECK: %[[M:.*]] = attn.kernel "scale" in_place(%[[D]])
// CHECK: attn.scale %{{.*}} {factor = 2.000000e+00 : f32}
// CHECK-NOT: arith.divf
// CHECK: attn.kernel "softmax"(%[[M]])
func.func @divided_scores(%q: tensor<1x1x8x16xf16>, %k: tensor<1x1x8x16xf16>, %v: tensor<1x1x8x16xf16>) -> tensor<1x1x8x16xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16> -> tensor<1x1x8x8xf32>
  %eight = arith.constant dense<8.0> : tensor<1x1x8x8xf32>
  %d = arith.divf %s, %eight : tensor<1x1x8x8xf32>
  %two = arith.constant dense<2.0> : tensor<1x1x8x8xf32>
  %m = arith.mulf %two, %d : tensor<1x1x8x8xf32>
  %p = attn.softmax %m {dim = 3 : i64} : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xf16>
  %o = attn.matmul %p, %v : tensor<1x1x8x8xf16>, tensor<1x1x8x16xf16> -> tensor<1x1x8x16xf16>
  return %o : tensor<1x1x8x16xf16>
}
