// RUN: attn-opt %s -attn-fuse -split-input-file | FileCheck %s

// The order torch's SDPA math path uses: q @ k^T, scale, softmax, @ v.
// CHECK-LABEL: func @scale_after_matmul
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x64x32xbf16>, %[[K:.*]]: tensor<2x4x64x32xbf16>, %[[V:.*]]: tensor<2x4x64x32xbf16>)
// CHECK-NEXT: %[[O:.*]] = attn.flash %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f32} : tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16> -> tensor<2x4x64x32xbf16>
// CHECK-NEXT: return %[[O]]
func.func @scale_after_matmul(%q: tensor<2x4x64x32xbf16>, %k: tensor<2x4x64x32xbf16>, %v: tensor<2x4x64x32xbf16>) -> tensor<2x4x64x32xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x64x32xbf16>, tensor<2x4x64x32xbf16> -> tensor<2x4x64x64xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x64x64xf32>
  %p = attn.softmax %t {dim = 3} : tensor<2x4x64x64xf32> -> tensor<2x4x64x64xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x64x64xbf16>, tensor<2x4x64x32xbf16> -> tensor<2x4x64x32xbf16>
  return %o : tensor<2x4x64x32xbf16>
}

// -----

// Scale folded into q before the first matmul.
// CHECK-LABEL: func @scale_on_q
// CHECK-NOT: attn.scale
// CHECK: attn.flash %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32}
func.func @scale_on_q(%q: tensor<1x2x16x16xf16>, %k: tensor<1x2x16x16xf16>, %v: tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16> {
  %qs = attn.scale %q {factor = 0.25 : f32} : tensor<1x2x16x16xf16>
  %s = attn.matmul %qs, %k {transpose_rhs} : tensor<1x2x16x16xf16>, tensor<1x2x16x16xf16> -> tensor<1x2x16x16xf32>
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x16xf16> -> tensor<1x2x16x16xf16>
  return %o : tensor<1x2x16x16xf16>
}

// -----

// sqrt(scale) on both q and k, as some exporters split it.
// CHECK-LABEL: func @scale_split_over_q_and_k
// CHECK-NOT: attn.scale
// CHECK: attn.flash %arg0, %arg1, %arg2 {scale = 0.124999993 : f32}
func.func @scale_split_over_q_and_k(%q: tensor<1x2x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>) -> tensor<1x2x16x64xf16> {
  %qs = attn.scale %q {factor = 0.353553385 : f32} : tensor<1x2x16x64xf16>
  %ks = attn.scale %k {factor = 0.353553385 : f32} : tensor<1x2x16x64xf16>
  %s = attn.matmul %qs, %ks {transpose_rhs} : tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x2x16x16xf32>
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x64xf16> -> tensor<1x2x16x64xf16>
  return %o : tensor<1x2x16x64xf16>
}

// -----

// A positive scale after a mask commutes with it.
// CHECK-LABEL: func @mask_then_scale
// CHECK: attn.flash %arg0, %arg1, %arg2 {mask = #attn.mask<causal>, scale = 5.000000e-01 : f32}
func.func @mask_then_scale(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %m = attn.mask %s {kind = #attn.mask<causal>} : tensor<1x2x16x16xf32>
  %t = attn.scale %m {factor = 0.5 : f32} : tensor<1x2x16x16xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// Several scales multiply.
// CHECK-LABEL: func @two_scales
// CHECK: attn.flash %arg0, %arg1, %arg2 {scale = 1.000000e-01 : f32}
func.func @two_scales(%q: tensor<1x1x16x16xbf16>, %k: tensor<1x1x16x16xbf16>, %v: tensor<1x1x16x16xbf16>) -> tensor<1x1x16x16xbf16> {
  %qs = attn.scale %q {factor = 0.5 : f32} : tensor<1x1x16x16xbf16>
  %s = attn.matmul %qs, %k {transpose_rhs} : tensor<1x1x16x16xbf16>, tensor<1x1x16x16xbf16> -> tensor<1x1x16x16xf32>
  %t = attn.scale %s {factor = 0.2 : f32} : tensor<1x1x16x16xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x1x16x16xf32> -> tensor<1x1x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x1x16x16xbf16>, tensor<1x1x16x16xbf16> -> tensor<1x1x16x16xbf16>
  return %o : tensor<1x1x16x16xbf16>
}

// -----

// Key padding then causal, and causal then key padding, give one mask.
// CHECK-LABEL: func @padding_then_causal
// CHECK: attn.flash %arg0, %arg1, %arg2 lengths(%arg3 : tensor<2xi32>) {mask = #attn.mask<causal, key_padding>, scale = 1.250000e-01 : f32}
// CHECK-LABEL: func @causal_then_padding
// CHECK: attn.flash %arg0, %arg1, %arg2 lengths(%arg3 : tensor<2xi32>) {mask = #attn.mask<causal, key_padding>, scale = 1.250000e-01 : f32}
func.func @padding_then_causal(%q: tensor<2x2x32x64xbf16>, %k: tensor<2x2x32x64xbf16>, %v: tensor<2x2x32x64xbf16>, %len: tensor<2xi32>) -> tensor<2x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x32x64xbf16>, tensor<2x2x32x64xbf16> -> tensor<2x2x32x32xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x2x32x32xf32>
  %a = attn.mask %t lengths(%len : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x32x32xf32>
  %b = attn.mask %a {kind = #attn.mask<causal>} : tensor<2x2x32x32xf32>
  %p = attn.softmax %b {dim = 3} : tensor<2x2x32x32xf32> -> tensor<2x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x32x32xbf16>, tensor<2x2x32x64xbf16> -> tensor<2x2x32x64xbf16>
  return %o : tensor<2x2x32x64xbf16>
}
func.func @causal_then_padding(%q: tensor<2x2x32x64xbf16>, %k: tensor<2x2x32x64xbf16>, %v: tensor<2x2x32x64xbf16>, %len: tensor<2xi32>) -> tensor<2x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x32x64xbf16>, tensor<2x2x32x64xbf16> -> tensor<2x2x32x32xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x2x32x32xf32>
  %a = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x2x32x32xf32>
  %b = attn.mask %a lengths(%len : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x32x32xf32>
  %p = attn.softmax %b {dim = 3} : tensor<2x2x32x32xf32> -> tensor<2x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x32x32xbf16>, tensor<2x2x32x64xbf16> -> tensor<2x2x32x64xbf16>
  return %o : tensor<2x2x32x64xbf16>
}

// -----

// A bottom-right mask without key padding aligns to the tensor's keys, and a
// separate key-padding mask then hides keys past lengths: the fused mask
// keeps that alignment (bottom_right = tensor), in either order. With both
// in one attn.mask the alignment is to lengths (plain bottom_right).
// CHECK-LABEL: func @bottom_right_then_padding
// CHECK: attn.flash %arg0, %arg1, %arg2 lengths(%arg3 : tensor<2xi32>) {mask = #attn.mask<window = [2, 0], bottom_right = tensor, key_padding>, scale = 1.250000e-01 : f32}
// CHECK-LABEL: func @padding_then_bottom_right
// CHECK: attn.flash %arg0, %arg1, %arg2 lengths(%arg3 : tensor<2xi32>) {mask = #attn.mask<causal, bottom_right = tensor, key_padding>, scale = 1.250000e-01 : f32}
// CHECK-LABEL: func @bottom_right_with_padding
// CHECK: attn.flash %arg0, %arg1, %arg2 lengths(%arg3 : tensor<2xi32>) {mask = #attn.mask<causal, bottom_right, key_padding>, scale = 1.250000e-01 : f32}
func.func @bottom_right_then_padding(%q: tensor<2x2x4x64xbf16>, %k: tensor<2x2x40x64xbf16>, %v: tensor<2x2x40x64xbf16>, %len: tensor<2xi32>) -> tensor<2x2x4x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x4x64xbf16>, tensor<2x2x40x64xbf16> -> tensor<2x2x4x40xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x2x4x40xf32>
  %a = attn.mask %t {kind = #attn.mask<window = [2, 0], bottom_right>} : tensor<2x2x4x40xf32>
  %b = attn.mask %a lengths(%len : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x4x40xf32>
  %p = attn.softmax %b {dim = 3} : tensor<2x2x4x40xf32> -> tensor<2x2x4x40xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x4x40xbf16>, tensor<2x2x40x64xbf16> -> tensor<2x2x4x64xbf16>
  return %o : tensor<2x2x4x64xbf16>
}
func.func @padding_then_bottom_right(%q: tensor<2x2x4x64xbf16>, %k: tensor<2x2x40x64xbf16>, %v: tensor<2x2x40x64xbf16>, %len: tensor<2xi32>) -> tensor<2x2x4x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x4x64xbf16>, tensor<2x2x40x64xbf16> -> tensor<2x2x4x40xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x2x4x40xf32>
  %a = attn.mask %t lengths(%len : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x4x40xf32>
  %b = attn.mask %a {kind = #attn.mask<causal, bottom_right>} : tensor<2x2x4x40xf32>
  %p = attn.softmax %b {dim = 3} : tensor<2x2x4x40xf32> -> tensor<2x2x4x40xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x4x40xbf16>, tensor<2x2x40x64xbf16> -> tensor<2x2x4x64xbf16>
  return %o : tensor<2x2x4x64xbf16>
}
func.func @bottom_right_with_padding(%q: tensor<2x2x4x64xbf16>, %k: tensor<2x2x40x64xbf16>, %v: tensor<2x2x40x64xbf16>, %len: tensor<2xi32>) -> tensor<2x2x4x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x4x64xbf16>, tensor<2x2x40x64xbf16> -> tensor<2x2x4x40xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x2x4x40xf32>
  %a = attn.mask %t lengths(%len : tensor<2xi32>) {kind = #attn.mask<causal, bottom_right, key_padding>} : tensor<2x2x4x40xf32>
  %p = attn.softmax %a {dim = 3} : tensor<2x2x4x40xf32> -> tensor<2x2x4x40xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x4x40xbf16>, tensor<2x2x40x64xbf16> -> tensor<2x2x4x64xbf16>
  return %o : tensor<2x2x4x64xbf16>
}

// -----

// Two windows intersect.
// CHECK-LABEL: func @windows_intersect
// CHECK: attn.flash %arg0, %arg1, %arg2 {mask = #attn.mask<causal, window = [64, 8]>, scale = 1.000000e+00 : f32}
func.func @windows_intersect(%q: tensor<1x1x256x64xbf16>, %k: tensor<1x1x256x64xbf16>, %v: tensor<1x1x256x64xbf16>) -> tensor<1x1x256x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x1x256x64xbf16>, tensor<1x1x256x64xbf16> -> tensor<1x1x256x256xf32>
  %a = attn.mask %s {kind = #attn.mask<window = [128, 8]>} : tensor<1x1x256x256xf32>
  %b = attn.mask %a {kind = #attn.mask<causal, window = [64, -1]>} : tensor<1x1x256x256xf32>
  %p = attn.softmax %b {dim = 3} : tensor<1x1x256x256xf32> -> tensor<1x1x256x256xbf16>
  %o = attn.matmul %p, %v : tensor<1x1x256x256xbf16>, tensor<1x1x256x64xbf16> -> tensor<1x1x256x64xbf16>
  return %o : tensor<1x1x256x64xbf16>
}

// -----

// Bias and a boolean keep mask, each with its operand.
// CHECK-LABEL: func @bias_and_keep
// CHECK: attn.flash %arg0, %arg1, %arg2 keep(%arg4 : tensor<1x1x32x32xi1>) bias(%arg3 : tensor<1x4x32x32xf32>) {mask = #attn.mask<keep, bias>, scale = 1.250000e-01 : f32}
func.func @bias_and_keep(%q: tensor<2x4x32x64xbf16>, %k: tensor<2x4x32x64xbf16>, %v: tensor<2x4x32x64xbf16>, %bias: tensor<1x4x32x32xf32>, %keep: tensor<1x1x32x32xi1>) -> tensor<2x4x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x32x64xbf16>, tensor<2x4x32x64xbf16> -> tensor<2x4x32x32xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x32x32xf32>
  %b = attn.mask %t bias(%bias : tensor<1x4x32x32xf32>) {kind = #attn.mask<bias>} : tensor<2x4x32x32xf32>
  %m = attn.mask %b keep(%keep : tensor<1x1x32x32xi1>) {kind = #attn.mask<keep>} : tensor<2x4x32x32xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x32x32xf32> -> tensor<2x4x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x32x32xbf16>, tensor<2x4x32x64xbf16> -> tensor<2x4x32x64xbf16>
  return %o : tensor<2x4x32x64xbf16>
}

// -----

// Softcap through score_mod, then a causal mask: the region moves into the op.
// CHECK-LABEL: func @softcap_then_causal
// CHECK: attn.flash %arg0, %arg1, %arg2 {mask = #attn.mask<causal>, scale = 6.250000e-02 : f32} score_mod {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK: math.tanh
// CHECK: attn.yield
// CHECK-NOT: attn.score_mod
func.func @softcap_then_causal(%q: tensor<1x2x32x256xbf16>, %k: tensor<1x2x32x256xbf16>, %v: tensor<1x2x32x256xbf16>) -> tensor<1x2x32x256xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x32x256xbf16>, tensor<1x2x32x256xbf16> -> tensor<1x2x32x32xf32>
  %t = attn.scale %s {factor = 0.0625 : f32} : tensor<1x2x32x32xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %cap = arith.constant 50.0 : f32
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<1x2x32x32xf32>
  %m = attn.mask %c {kind = #attn.mask<causal>} : tensor<1x2x32x32xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x256xbf16> -> tensor<1x2x32x256xbf16>
  return %o : tensor<1x2x32x256xbf16>
}

// -----

// A score_mod with captures (a bias per head, a relative-position table):
// the captures become operands of attn.flash and the region keeps reading
// them as its block arguments.
// CHECK-LABEL: func @score_mod_captures
// CHECK: attn.flash %arg0, %arg1, %arg2 captures(%arg3, %arg4 : tensor<2xf32>, tensor<63xbf16>) {mask = #attn.mask<causal>, scale = 6.250000e-02 : f32} score_mod {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %[[H:.*]]: index, %{{.*}}: index, %{{.*}}: index, %[[SLOPES:.*]]: tensor<2xf32>, %[[REL:.*]]: tensor<63xbf16>):
// CHECK: tensor.extract %[[SLOPES]][%[[H]]] : tensor<2xf32>
// CHECK: tensor.extract %[[REL]]
// CHECK: attn.yield
// CHECK-NOT: attn.score_mod
func.func @score_mod_captures(%q: tensor<1x2x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>, %slopes: tensor<2xf32>, %rel: tensor<63xbf16>) -> tensor<1x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xf32>
  %t = attn.scale %s {factor = 0.0625 : f32} : tensor<1x2x32x32xf32>
  %c = attn.score_mod %t captures(%slopes, %rel : tensor<2xf32>, tensor<63xbf16>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %st: tensor<2xf32>, %rt: tensor<63xbf16>):
    %slope = tensor.extract %st[%h] : tensor<2xf32>
    %off = arith.constant 31 : index
    %d = arith.subi %i, %j : index
    %r = arith.addi %d, %off : index
    %rel16 = tensor.extract %rt[%r] : tensor<63xbf16>
    %relf = arith.extf %rel16 : bf16 to f32
    %y0 = arith.mulf %slope, %relf : f32
    %y = arith.addf %x, %y0 : f32
    attn.yield %y : f32
  } : tensor<1x2x32x32xf32>
  %m = attn.mask %c {kind = #attn.mask<causal>} : tensor<1x2x32x32xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  return %o : tensor<1x2x32x64xbf16>
}

// -----

// Softmax in f32 with a cast of the probabilities, and scores computed in
// bf16 and widened before the softmax: the casts disappear.
// CHECK-LABEL: func @casts_around_softmax
// CHECK-NOT: arith.
// CHECK: attn.flash %arg0, %arg1, %arg2 {scale = 1.250000e-01 : f32}
// CHECK-NOT: arith.
func.func @casts_around_softmax(%q: tensor<1x2x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>) -> tensor<1x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xbf16>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x32x32xbf16>
  %w = arith.extf %t : tensor<1x2x32x32xbf16> to tensor<1x2x32x32xf32>
  %p = attn.softmax %w {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xf32>
  %pb = arith.truncf %p : tensor<1x2x32x32xf32> to tensor<1x2x32x32xbf16>
  %o = attn.matmul %pb, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  return %o : tensor<1x2x32x64xbf16>
}

// -----

// K given transposed ([B, H, D, S]) instead of through transpose_rhs.
// CHECK-LABEL: func @k_given_transposed
// CHECK: attn.flash %arg0, %arg1, %arg2 {scale = 1.250000e-01 : f32, transpose_k} : tensor<1x2x48x64xf16>, tensor<1x2x64x80xf16>, tensor<1x2x80x64xf16> -> tensor<1x2x48x64xf16>
func.func @k_given_transposed(%q: tensor<1x2x48x64xf16>, %kt: tensor<1x2x64x80xf16>, %v: tensor<1x2x80x64xf16>) -> tensor<1x2x48x64xf16> {
  %s = attn.matmul %q, %kt : tensor<1x2x48x64xf16>, tensor<1x2x64x80xf16> -> tensor<1x2x48x80xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x48x80xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x48x80xf32> -> tensor<1x2x48x80xf16>
  %o = attn.matmul %p, %v : tensor<1x2x48x80xf16>, tensor<1x2x80x64xf16> -> tensor<1x2x48x64xf16>
  return %o : tensor<1x2x48x64xf16>
}

// -----

// GQA (8 query heads per K/V head) and MQA (one K/V head).
// CHECK-LABEL: func @gqa
// CHECK: attn.flash {{.*}} : tensor<1x32x16x128xbf16>, tensor<1x4x512x128xbf16>, tensor<1x4x512x128xbf16> -> tensor<1x32x16x128xbf16>
// CHECK-LABEL: func @mqa
// CHECK: attn.flash {{.*}} : tensor<2x8x1x64xf16>, tensor<2x1x300x64xf16>, tensor<2x1x300x64xf16> -> tensor<2x8x1x64xf16>
func.func @gqa(%q: tensor<1x32x16x128xbf16>, %k: tensor<1x4x512x128xbf16>, %v: tensor<1x4x512x128xbf16>) -> tensor<1x32x16x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x32x16x128xbf16>, tensor<1x4x512x128xbf16> -> tensor<1x32x16x512xf32>
  %t = attn.scale %s {factor = 0.0883883461 : f32} : tensor<1x32x16x512xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x32x16x512xf32> -> tensor<1x32x16x512xbf16>
  %o = attn.matmul %p, %v : tensor<1x32x16x512xbf16>, tensor<1x4x512x128xbf16> -> tensor<1x32x16x128xbf16>
  return %o : tensor<1x32x16x128xbf16>
}
func.func @mqa(%q: tensor<2x8x1x64xf16>, %k: tensor<2x1x300x64xf16>, %v: tensor<2x1x300x64xf16>) -> tensor<2x8x1x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x8x1x64xf16>, tensor<2x1x300x64xf16> -> tensor<2x8x1x300xf32>
  %p = attn.softmax %s {dim = 3} : tensor<2x8x1x300xf32> -> tensor<2x8x1x300xf16>
  %o = attn.matmul %p, %v : tensor<2x8x1x300xf16>, tensor<2x1x300x64xf16> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

// An f32 output: the fused op writes bf16, widened once.
// CHECK-LABEL: func @f32_output
// CHECK: %[[O:.*]] = attn.flash {{.*}} -> tensor<1x2x16x64xbf16>
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[O]] : tensor<1x2x16x64xbf16> to tensor<1x2x16x64xf32>
// CHECK-NEXT: return %[[W]]
func.func @f32_output(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x2x16x64xf32> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x16xf32>
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xf32>
  return %o : tensor<1x2x16x64xf32>
}

// -----

// Bottom-right causal for a chunk of new queries against a longer cache, and
// different q/k and v head dims (192/128).
// CHECK-LABEL: func @bottom_right_dqk_ne_dv
// CHECK: attn.flash %arg0, %arg1, %arg2 {mask = #attn.mask<causal, bottom_right>, scale = 0.0721687824 : f32} : tensor<1x4x100x192xbf16>, tensor<1x4x700x192xbf16>, tensor<1x4x700x128xbf16> -> tensor<1x4x100x128xbf16>
func.func @bottom_right_dqk_ne_dv(%q: tensor<1x4x100x192xbf16>, %k: tensor<1x4x700x192xbf16>, %v: tensor<1x4x700x128xbf16>) -> tensor<1x4x100x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x4x100x192xbf16>, tensor<1x4x700x192xbf16> -> tensor<1x4x100x700xf32>
  %t = attn.scale %s {factor = 0.0721687824 : f32} : tensor<1x4x100x700xf32>
  %m = attn.mask %t {kind = #attn.mask<causal, bottom_right>} : tensor<1x4x100x700xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x4x100x700xf32> -> tensor<1x4x100x700xbf16>
  %o = attn.matmul %p, %v : tensor<1x4x100x700xbf16>, tensor<1x4x700x128xbf16> -> tensor<1x4x100x128xbf16>
  return %o : tensor<1x4x100x128xbf16>
}

// -----

// Two attention layers in one function fuse independently; unrelated ops stay.
// CHECK-LABEL: func @two_layers
// CHECK: %[[A:.*]] = attn.flash %arg0, %arg1, %arg2 {mask = #attn.mask<causal>, scale = 1.250000e-01 : f32}
// CHECK: %[[B:.*]] = attn.flash %[[A]], %arg1, %arg2 {scale = 1.250000e-01 : f32}
// CHECK: return %[[B]]
func.func @two_layers(%q: tensor<1x2x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>) -> tensor<1x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x32x32xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x2x32x32xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %a = attn.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  %s2 = attn.matmul %a, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xf32>
  %t2 = attn.scale %s2 {factor = 0.125 : f32} : tensor<1x2x32x32xf32>
  %p2 = attn.softmax %t2 {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %b = attn.matmul %p2, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  return %b : tensor<1x2x32x64xbf16>
}

// -----

// ALiBi through score_mod with a sliding window, dynamic batch and sequence.
// CHECK-LABEL: func @alibi_window_dynamic
// CHECK: attn.flash %arg0, %arg1, %arg2 {mask = #attn.mask<window = [256, 0]>, scale = 1.250000e-01 : f32} score_mod {
// CHECK: arith.subi
// CHECK: } : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
func.func @alibi_window_dynamic(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x?xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<?x4x?x?xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %slope = arith.constant 0.0625 : f32
    %bias = arith.mulf %df, %slope : f32
    %y = arith.addf %x, %bias : f32
    attn.yield %y : f32
  } : tensor<?x4x?x?xf32>
  %m = attn.mask %c {kind = #attn.mask<window = [256, 0]>} : tensor<?x4x?x?xf32>
  %p = attn.softmax %m {dim = 3} : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xbf16>
  %o = attn.matmul %p, %v : tensor<?x4x?x?xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// Exported with plain arith on tensors: scores / sqrt(d) as a divf by a splat
// constant, a multiply on q, the bias as an addf, and softmax over dim -1.
// CHECK-LABEL: func @arith_exported
// CHECK-NOT: arith.{{mulf|divf|addf}}
// CHECK: attn.flash %arg0, %arg1, %arg2 bias(%arg3 : tensor<1x2x32x32xf32>) {mask = #attn.mask<causal, bias>, scale = 6.250000e-02 : f32}
// CHECK-NOT: arith.{{mulf|divf|addf}}
func.func @arith_exported(%q: tensor<1x2x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>, %bias: tensor<1x2x32x32xf32>) -> tensor<1x2x32x64xbf16> {
  %half = arith.constant dense<0.5> : tensor<1x2x32x64xbf16>
  %qs = arith.mulf %q, %half : tensor<1x2x32x64xbf16>
  %s = attn.matmul %qs, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xf32>
  %sqrt_d = arith.constant dense<8.0> : tensor<1x2x32x32xf32>
  %t = arith.divf %s, %sqrt_d : tensor<1x2x32x32xf32>
  %b = arith.addf %bias, %t : tensor<1x2x32x32xf32>
  %m = attn.mask %b {kind = #attn.mask<causal>} : tensor<1x2x32x32xf32>
  %p = attn.softmax %m {dim = -1} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  return %o : tensor<1x2x32x64xbf16>
}

// -----

// masked_fill(~keep, -inf) exported as arith.select with a splat -inf.
// CHECK-LABEL: func @select_masked_fill
// CHECK: attn.flash %arg0, %arg1, %arg2 keep(%arg3 : tensor<2x4x32x48xi1>) {mask = #attn.mask<keep>, scale = 1.250000e-01 : f32}
// CHECK-NOT: arith.select
func.func @select_masked_fill(%q: tensor<2x4x32x64xf16>, %k: tensor<2x4x48x64xf16>, %v: tensor<2x4x48x64xf16>, %keep: tensor<2x4x32x48xi1>) -> tensor<2x4x32x64xf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x32x64xf16>, tensor<2x4x48x64xf16> -> tensor<2x4x32x48xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x32x48xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x4x32x48xf32>
  %m = arith.select %keep, %t, %ninf : tensor<2x4x32x48xi1>, tensor<2x4x32x48xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x32x48xf32> -> tensor<2x4x32x48xf16>
  %o = attn.matmul %p, %v : tensor<2x4x32x48xf16>, tensor<2x4x48x64xf16> -> tensor<2x4x32x64xf16>
  return %o : tensor<2x4x32x64xf16>
}
