// RUN: attn-opt %s -attn-fuse -split-input-file -verify-diagnostics | FileCheck %s

// Chains that cannot be fused stay as they are, with a remark saying why.

// CHECK-LABEL: func @softmax_over_queries
// CHECK: attn.softmax
// CHECK-NOT: attn.flash
func.func @softmax_over_queries(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: softmax is over dimension 2, not the key axis 3}}
  %p = attn.softmax %s {dim = 2} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @probabilities_returned
// CHECK-NOT: attn.flash
func.func @probabilities_returned(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>) {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the attention probabilities have more than one user}}
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o, %p : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @score_mod_after_mask
// CHECK: attn.score_mod
// CHECK-NOT: attn.flash
func.func @score_mod_after_mask(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %m = attn.mask %s {kind = #attn.mask<causal>} : tensor<1x2x16x16xf32>
  %c = attn.score_mod %m {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.tanh %x : f32
    attn.yield %t : f32
  } : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: an attn.score_mod follows a mask or bias; the fused op applies score_mod first, and it could change masked scores}}
  %p = attn.softmax %c {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @scale_after_score_mod
// CHECK-NOT: attn.flash
func.func @scale_after_score_mod(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.tanh %x : f32
    attn.yield %t : f32
  } : tensor<1x2x16x16xf32>
  %t = attn.scale %c {factor = 0.25 : f32} : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: an attn.scale follows the attn.score_mod (the fused op scales first)}}
  %p = attn.softmax %t {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @two_score_mods
// CHECK-NOT: attn.flash
func.func @two_score_mods(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %a = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.tanh %x : f32
    attn.yield %t : f32
  } : tensor<1x2x16x16xf32>
  %c = attn.score_mod %a {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.exp %x : f32
    attn.yield %t : f32
  } : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the chain has more than one attn.score_mod}}
  %p = attn.softmax %c {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @negative_scale_after_mask
// CHECK-NOT: attn.flash
func.func @negative_scale_after_mask(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %m = attn.mask %s {kind = #attn.mask<causal>} : tensor<1x2x16x16xf32>
  %t = attn.scale %m {factor = -1.0 : f32} : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: a scale by a factor <= 0 follows a mask}}
  %p = attn.softmax %t {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @scale_after_bias
// CHECK-NOT: attn.flash
func.func @scale_after_bias(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %bias: tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %b = attn.mask %s bias(%bias : tensor<1x2x16x16xf32>) {kind = #attn.mask<bias>} : tensor<1x2x16x16xf32>
  %t = attn.scale %b {factor = 0.25 : f32} : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: a scale follows an additive bias (the fused op scales before adding bias)}}
  %p = attn.softmax %t {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @different_corners
// CHECK-NOT: attn.flash
func.func @different_corners(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x32x16xbf16>, %v: tensor<1x2x32x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x2x16x32xf32>
  %a = attn.mask %s {kind = #attn.mask<causal>} : tensor<1x2x16x32xf32>
  %b = attn.mask %a {kind = #attn.mask<window = [4, 0], bottom_right>} : tensor<1x2x16x32xf32>
  // expected-remark @+1 {{attention chain not fused: masks align to different corners (top-left and bottom-right)}}
  %p = attn.softmax %b {dim = 3} : tensor<1x2x16x32xf32> -> tensor<1x2x16x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x32xbf16>, tensor<1x2x32x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// A bottom-right window without key padding aligns to the tensor's 32 keys;
// one with key padding aligns to lengths: no one fused mask says both.
// CHECK-LABEL: func @bottom_right_two_key_counts
// CHECK-NOT: attn.flash
func.func @bottom_right_two_key_counts(%q: tensor<2x2x16x16xbf16>, %k: tensor<2x2x32x16xbf16>, %v: tensor<2x2x32x16xbf16>, %len: tensor<2xi32>) -> tensor<2x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x16x16xbf16>, tensor<2x2x32x16xbf16> -> tensor<2x2x16x32xf32>
  %a = attn.mask %s {kind = #attn.mask<causal, bottom_right>} : tensor<2x2x16x32xf32>
  %b = attn.mask %a lengths(%len : tensor<2xi32>) {kind = #attn.mask<window = [4, 0], bottom_right, key_padding>} : tensor<2x2x16x32xf32>
  // expected-remark @+1 {{attention chain not fused: bottom-right masks align to different key counts (the tensor's and the lengths of key padding)}}
  %p = attn.softmax %b {dim = 3} : tensor<2x2x16x32xf32> -> tensor<2x2x16x32xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x16x32xbf16>, tensor<2x2x32x16xbf16> -> tensor<2x2x16x16xbf16>
  return %o : tensor<2x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @two_padding_masks
// CHECK-NOT: attn.flash
func.func @two_padding_masks(%q: tensor<2x2x16x16xbf16>, %k: tensor<2x2x16x16xbf16>, %v: tensor<2x2x16x16xbf16>, %l0: tensor<2xi32>, %l1: tensor<2xi32>) -> tensor<2x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x16x16xbf16>, tensor<2x2x16x16xbf16> -> tensor<2x2x16x16xf32>
  %a = attn.mask %s lengths(%l0 : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x16x16xf32>
  %b = attn.mask %a lengths(%l1 : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: two masks each need a tensor operand of the same kind}}
  %p = attn.softmax %b {dim = 3} : tensor<2x2x16x16xf32> -> tensor<2x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x16x16xbf16>, tensor<2x2x16x16xbf16> -> tensor<2x2x16x16xbf16>
  return %o : tensor<2x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @f32_inputs
// CHECK-NOT: attn.flash
func.func @f32_inputs(%q: tensor<1x2x16x16xf32>, %k: tensor<1x2x16x16xf32>, %v: tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: q, k and v are not f16 or bf16}}
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  return %o : tensor<1x2x16x16xf32>
}

// -----

// CHECK-LABEL: func @scores_reused
// CHECK-NOT: attn.flash
func.func @scores_reused(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> (tensor<1x2x16x16xbf16>, tensor<1x2x16x16xf32>) {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %t = attn.scale %s {factor = 0.25 : f32} : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the intermediate 'attn.scale' result has another user}}
  %p = attn.softmax %t {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o, %t : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xf32>
}

// -----

// CHECK-LABEL: func @v_transposed
// CHECK-NOT: attn.flash
func.func @v_transposed(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %vt: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the matmul with v transposes an operand}}
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %vt {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @unknown_op_in_chain
// CHECK-NOT: attn.flash
func.func @unknown_op_in_chain(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %x: tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %a = arith.subf %s, %x : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the score chain passes through 'arith.subf', which cannot be fused}}
  %p = attn.softmax %a {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @softmax_of_argument
// CHECK-NOT: attn.flash
func.func @softmax_of_argument(%s: tensor<1x2x16x16xf32>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  // expected-remark @+1 {{attention chain not fused: the scores come from a block argument, not an attn.matmul}}
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @probabilities_not_lhs
// CHECK-NOT: attn.flash
func.func @probabilities_not_lhs(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the probabilities feed 'attn.matmul', not the lhs of an attn.matmul with v}}
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %v, %p : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @bias_add_after_score_mod
// CHECK-NOT: attn.flash
func.func @bias_add_after_score_mod(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %bias: tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %b = arith.addf %s, %bias : tensor<1x2x16x16xf32>
  %c = attn.score_mod %b {
  ^bb0(%x: f32, %bb: index, %h: index, %i: index, %j: index):
    %t = math.tanh %x : f32
    attn.yield %t : f32
  } : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: an attn.score_mod follows a mask or bias; the fused op applies score_mod first, and it could change masked scores}}
  %p = attn.softmax %c {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// CHECK-LABEL: func @select_fills_zero
// CHECK-NOT: attn.flash
func.func @select_fills_zero(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %keep: tensor<1x2x16x16xi1>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %zero = arith.constant dense<0.0> : tensor<1x2x16x16xf32>
  %m = arith.select %keep, %s, %zero : tensor<1x2x16x16xi1>, tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: an arith.select on the scores fills with something other than -inf}}
  %p = attn.softmax %m {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// The fused op's keep operand is a tensor; a scalar condition once became
// one and the pass produced IR that failed verification.
// CHECK-LABEL: func @select_scalar_condition
// CHECK: arith.select
// CHECK-NOT: attn.flash
func.func @select_scalar_condition(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %c: i1) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1x2x16x16xf32>
  %m = arith.select %c, %s, %ninf : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the arith.select on the scores has a scalar condition, not a keep mask}}
  %p = attn.softmax %m {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// Two finite factors whose product is no finite f32 (the fused op's scale).
// CHECK-LABEL: func @scale_product_overflows
// CHECK-COUNT-2: attn.scale
// CHECK-NOT: attn.flash
func.func @scale_product_overflows(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %t = attn.scale %s {factor = 1.0e38 : f32} : tensor<1x2x16x16xf32>
  %u = attn.scale %t {factor = 1.0e38 : f32} : tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the folded scale factor 1e+76 is not a finite f32}}
  %p = attn.softmax %u {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// What the matcher does not check itself, the fused op's verifier does
// before anything is replaced: dynamic heads.
// CHECK-LABEL: func @dynamic_heads
// CHECK: attn.softmax
// CHECK-NOT: attn.flash
func.func @dynamic_heads(%q: tensor<1x?x16x16xbf16>, %k: tensor<1x?x16x16xbf16>, %v: tensor<1x?x16x16xbf16>) -> tensor<1x?x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x?x16x16xbf16>, tensor<1x?x16x16xbf16> -> tensor<1x?x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the fused op would not verify: 'attn.flash' op heads (dimension 1) of q and k must be static}}
  %p = attn.softmax %s {dim = 3} : tensor<1x?x16x16xf32> -> tensor<1x?x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x?x16x16xbf16>, tensor<1x?x16x16xbf16> -> tensor<1x?x16x16xbf16>
  return %o : tensor<1x?x16x16xbf16>
}

// -----

// CHECK-LABEL: func @dynamic_value_head_dim
// CHECK-NOT: attn.flash
func.func @dynamic_value_head_dim(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x?xbf16>) -> tensor<1x2x16x?xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  // expected-remark @+1 {{attention chain not fused: the fused op would not verify: 'attn.flash' op head dim (dimension 3) of 'v' must be static}}
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x?xbf16> -> tensor<1x2x16x?xbf16>
  return %o : tensor<1x2x16x?xbf16>
}
