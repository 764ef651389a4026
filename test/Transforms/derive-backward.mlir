// RUN: attn-opt %s -split-input-file -attn-derive-backward | FileCheck %s
// RUN: attn-opt %s -split-input-file "-attn-derive-backward=bias-grad=true" | FileCheck %s --check-prefix=BIAS

// Plain GQA: one grad_output argument, a logsumexp added to the forward,
// and dq, dk, dv (dk and dv with the K/V heads) after the output.
// CHECK-LABEL: func @gqa
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x128x64xbf16>, %[[K:.*]]: tensor<2x2x128x64xbf16>, %[[V:.*]]: tensor<2x2x128x64xbf16>, %[[DO:.*]]: tensor<2x8x128x64xbf16>)
// CHECK-SAME: -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>)
// CHECK: %[[O:.*]], %[[LSE:.*]] = attn.flash %[[Q]], %[[K]], %[[V]] {mask = #attn.mask<causal>, scale = 1.250000e-01 : f32}
// CHECK-SAME: -> tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = attn.flash_bwd %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[LSE]] {mask = #attn.mask<causal>, scale = 1.250000e-01 : f32}
// CHECK-SAME: -> tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
// CHECK-NEXT: return %[[O]], %[[DQ]], %[[DK]], %[[DV]]
func.func @gqa(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x128x64xbf16>, %v: tensor<2x2x128x64xbf16>) -> tensor<2x8x128x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16> -> tensor<2x8x128x64xbf16>
  return %o : tensor<2x8x128x64xbf16>
}

// -----

// A forward that returns its logsumexp keeps it; the mask operands and
// transpose_k carry over. Without bias-grad there is no bias gradient.
// CHECK-LABEL: func @masks_and_lse
// CHECK-SAME: %[[LEN:[a-z0-9]+]]: tensor<2xi32>, %[[KEEP:[a-z0-9]+]]: tensor<2x1x64x64xi1>, %[[BARG:[a-z0-9]+]]: tensor<1x4x64x64xf32>, %[[DO:[a-z0-9]+]]: tensor<2x4x64x64xf16>)
// CHECK: %[[O:.*]], %[[LSE:.*]] = attn.flash
// CHECK: attn.flash_bwd %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[DO]], %[[LSE]] lengths(%[[LEN]] : tensor<2xi32>) keep(%[[KEEP]] : tensor<2x1x64x64xi1>) bias(%[[BARG]] : tensor<1x4x64x64xf32>)
// CHECK-SAME: {mask = #attn.mask<window = [16, 0], bottom_right, key_padding, keep, bias>, scale = 1.000000e+00 : f32, transpose_k}
// CHECK-SAME: -> tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>{{$}}
// CHECK: return %[[O]], %[[LSE]], %{{.*}}, %{{.*}}, %{{.*}} :
// BIAS-LABEL: func @masks_and_lse
// BIAS-SAME: -> (tensor<2x4x64x64xf16>, tensor<2x4x64xf32>, tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>, tensor<1x4x64x64xf32>)
// BIAS: %{{.*}}, %{{.*}}, %{{.*}}, %[[DBIAS:.*]] = attn.flash_bwd
// BIAS-SAME: -> tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>, tensor<1x4x64x64xf32>
// BIAS: return {{.*}}, %[[DBIAS]] :
func.func @masks_and_lse(%q: tensor<2x4x64x64xf16>, %kt: tensor<2x4x64x64xf16>, %v: tensor<2x4x64x64xf16>,
    %len: tensor<2xi32>, %keep: tensor<2x1x64x64xi1>, %bias: tensor<1x4x64x64xf32>) -> (tensor<2x4x64x64xf16>, tensor<2x4x64xf32>) {
  %o, %lse = attn.flash %q, %kt, %v lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x1x64x64xi1>) bias(%bias : tensor<1x4x64x64xf32>)
      {scale = 1.0 : f32, transpose_k, mask = #attn.mask<window = [16, 0], bottom_right, key_padding, keep, bias>}
      : tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16>, tensor<2x4x64x64xf16> -> tensor<2x4x64x64xf16>, tensor<2x4x64xf32>
  return %o, %lse : tensor<2x4x64x64xf16>, tensor<2x4x64xf32>
}

// -----

// Softcap (python/attn softcap): d/ds [c tanh(s / c)] = (1 - tanh(s / c)^2) (1 / c) c;
// the final multiplication by c is not needed and is gone.
// CHECK-LABEL: func @softcap
// CHECK: attn.flash_bwd
// CHECK: score_mod {
// CHECK: math.tanh
// CHECK: arith.mulf
// CHECK: } score_mod_grad {
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[C:.*]] = arith.constant 3.000000e+01 : f32
// CHECK-DAG: %[[X:.*]] = arith.divf %[[S]], %[[C]] : f32
// CHECK-DAG: %[[DX:.*]] = arith.divf %[[ONE]], %[[C]] : f32
// CHECK-DAG: %[[T:.*]] = math.tanh %[[X]] : f32
// CHECK: %[[T2:.*]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK: %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[D:.*]] = arith.subf %[[ONE2]], %[[T2]] : f32
// CHECK: %[[DT:.*]] = arith.mulf %[[D]], %[[DX]] : f32
// CHECK: %[[DY:.*]] = arith.mulf %[[DT]], %[[C]] : f32
// CHECK-NEXT: attn.yield %[[DY]] : f32
func.func @softcap(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x4x64x64xbf16>, %v: tensor<1x4x64x64xbf16>) -> tensor<1x4x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %score, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  return %o : tensor<1x4x64x64xbf16>
}

// -----

// ALiBi (python/attn alibi): the bias is index arithmetic, exp2 of a
// head-dependent constant and sitofp, none of which depends on the score,
// so the derivative is 1 and nothing of the body remains.
// CHECK-LABEL: func @alibi
// CHECK: score_mod_grad {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: attn.yield %[[ONE]] : f32
// CHECK-NEXT: }
func.func @alibi(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x4x64x64xbf16>, %v: tensor<1x4x64x64xbf16>) -> tensor<1x4x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %one = arith.constant 1 : index
    %h1 = arith.addi %h, %one : index
    %hi = arith.index_cast %h1 : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %r = arith.constant -2.0 : f32
    %e = arith.mulf %hf, %r : f32
    %slope = math.exp2 %e : f32
    %d = arith.subi %kv_idx, %q_idx : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %b2 = arith.mulf %slope, %df : f32
    %y = arith.addf %score, %b2 : f32
    attn.yield %y : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  return %o : tensor<1x4x64x64xbf16>
}

// -----

// A score_mod that ignores the score has derivative 0; a score-dependent
// scale by a head-dependent factor keeps the factor (and what computes it).
// CHECK-LABEL: func @constant_and_scaled
// CHECK: score_mod_grad {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: attn.yield %[[Z]] : f32
// CHECK: score_mod_grad {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %[[H:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: %[[HI:.*]] = arith.index_cast %[[H]] : index to i32
// CHECK-NEXT: %[[HF:.*]] = arith.sitofp %[[HI]] : i32 to f32
// CHECK-NEXT: attn.yield %[[HF]] : f32
func.func @constant_and_scaled(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x4x64x64xbf16>, %v: tensor<1x4x64x64xbf16>)
    -> (tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>) {
  %o1 = attn.flash %q, %k, %v {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %c = arith.constant 2.0 : f32
    attn.yield %c : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  %o2 = attn.flash %q, %k, %v {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %y = arith.mulf %score, %hf : f32
    attn.yield %y : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  return %o1, %o2 : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
}

// -----

// Two attentions in one function: one grad_output each, in order, and
// their gradients after the results in the same order.
// CHECK-LABEL: func @two
// CHECK-SAME: %[[DO1:[a-z0-9]+]]: tensor<1x2x16x64xbf16>, %[[DO2:[a-z0-9]+]]: tensor<1x2x16x64xbf16>)
// CHECK: %[[O1:[a-z0-9_]+]], %{{.*}} = attn.flash
// CHECK: %[[O2:[a-z0-9_]+]], %{{.*}} = attn.flash
// CHECK: %[[DQ1:.*]], %[[DK1:.*]], %[[DV1:.*]] = attn.flash_bwd %{{.*}}, %{{.*}}, %{{.*}}, %[[O1]], %[[DO1]]
// CHECK: %[[DQ2:.*]], %[[DK2:.*]], %[[DV2:.*]] = attn.flash_bwd %{{.*}}, %{{.*}}, %{{.*}}, %[[O2]], %[[DO2]]
// CHECK: return %[[O1]], %[[O2]], %[[DQ1]], %[[DK1]], %[[DV1]], %[[DQ2]], %[[DK2]], %[[DV2]] :
func.func @two(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>)
    -> (tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>) {
  %o1 = attn.flash %q, %k, %v {scale = 0.125 : f32} : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
  %o2 = attn.flash %k, %q, %v {scale = 0.125 : f32, mask = #attn.mask<causal>} : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
  return %o1, %o2 : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
}

// -----

// A function without attn.flash stays as it is (another one has one).
// CHECK-LABEL: func @helper
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// CHECK-LABEL: func @attention
// CHECK: attn.flash_bwd
func.func @attention(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o : tensor<1x1x16x64xbf16>
}

// -----

// Captures carry over to the backward, as operands and as the arguments of
// both regions; the derivative reads them where the score_mod does (not
// the table that only adds to the score), and a score read through a
// piecewise-constant op (floor) and a comparison only picks a branch.
// CHECK-LABEL: func @captures
// CHECK-SAME: %[[SLOPES:[a-z0-9]+]]: tensor<4xf32>, %[[REL:[a-z0-9]+]]: tensor<15xbf16>, %[[DO:[a-z0-9]+]]: tensor<1x4x8x64xbf16>)
// CHECK: attn.flash_bwd {{.*}} captures(%[[SLOPES]], %[[REL]] : tensor<4xf32>, tensor<15xbf16>)
// CHECK: score_mod {
// CHECK: } score_mod_grad {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %[[H:.*]]: index, %{{.*}}: index, %{{.*}}: index, %[[ST:.*]]: tensor<4xf32>, %{{.*}}: tensor<15xbf16>):
// CHECK: %[[SLOPE:.*]] = tensor.extract %[[ST]][%[[H]]] : tensor<4xf32>
// CHECK-NOT: tensor<15xbf16>
// CHECK: %[[FL:.*]] = math.floor
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %[[FL]]
// CHECK: %[[D:.*]] = arith.select %[[NEG]], %[[SLOPE]], %{{.*}} : f32
// CHECK-NEXT: attn.yield %[[D]] : f32
func.func @captures(%q: tensor<1x4x8x64xbf16>, %slopes: tensor<4xf32>, %rel: tensor<15xbf16>) -> tensor<1x4x8x64xbf16> {
  %o = attn.flash %q, %q, %q captures(%slopes, %rel : tensor<4xf32>, tensor<15xbf16>) {scale = 0.125 : f32} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %slopes_t: tensor<4xf32>, %rel_t: tensor<15xbf16>):
    %slope = tensor.extract %slopes_t[%h] : tensor<4xf32>
    %off = arith.constant 7 : index
    %d = arith.subi %i, %j : index
    %r = arith.addi %d, %off : index
    %rel16 = tensor.extract %rel_t[%r] : tensor<15xbf16>
    %relf = arith.extf %rel16 : bf16 to f32
    %y0 = arith.mulf %x, %slope : f32
    %y1 = arith.addf %y0, %relf : f32
    %fl = math.floor %x : f32
    %z = arith.constant 0.0 : f32
    %neg = arith.cmpf olt, %fl, %z : f32
    %y = arith.select %neg, %y1, %relf : f32
    attn.yield %y : f32
  } : tensor<1x4x8x64xbf16>, tensor<1x4x8x64xbf16>, tensor<1x4x8x64xbf16> -> tensor<1x4x8x64xbf16>
  return %o : tensor<1x4x8x64xbf16>
}

// -----

// Sinks go to the backward, which returns their gradient last (after the
// bias's with bias-grad); its type is the sinks', printed once.
// CHECK-LABEL: func @sinks
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<4xf32>, %[[DO:[a-z0-9]+]]: tensor<1x4x16x64xbf16>) -> (tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<4xf32>)
// CHECK: %[[O:.*]], %[[LSE:.*]] = attn.flash {{.*}} sinks(%[[S]] : tensor<4xf32>)
// CHECK: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]], %[[DS:.*]] = attn.flash_bwd %{{.*}}, %[[O]], %[[DO]], %[[LSE]] bias({{.*}}) sinks(%[[S]] : tensor<4xf32>) {{.*}} -> tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>{{$}}
// CHECK: return %[[O]], %[[DQ]], %[[DK]], %[[DV]], %[[DS]] :
// BIAS-LABEL: func @sinks
// BIAS: %{{.*}}, %{{.*}}, %{{.*}}, %[[DB:.*]], %[[DS:.*]] = attn.flash_bwd {{.*}} bias(%{{.*}} : tensor<1x4x16x16xf32>) sinks(%{{.*}} : tensor<4xf32>) {{.*}} -> tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x16xf32>{{$}}
// BIAS: return {{.*}}, %[[DB]], %[[DS]] : {{.*}}, tensor<1x4x16x16xf32>, tensor<4xf32>
func.func @sinks(%q: tensor<1x4x16x64xbf16>, %bias: tensor<1x4x16x16xf32>, %s: tensor<4xf32>) -> tensor<1x4x16x64xbf16> {
  %o = attn.flash %q, %q, %q bias(%bias : tensor<1x4x16x16xf32>) sinks(%s : tensor<4xf32>) {scale = 0.125 : f32, mask = #attn.mask<causal, bias>} : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return %o : tensor<1x4x16x64xbf16>
}

// -----

// A ragged batch: the offsets and the sinks carry over, the logsumexp is
// [Hq, Tq] as the forward writes it, and the packed gradients have the
// packed operands' types.
// CHECK-LABEL: func @ragged
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<300x8x64xbf16>, %[[K:[a-z0-9]+]]: tensor<500x2x64xbf16>, %[[V:[a-z0-9]+]]: tensor<500x2x64xbf16>, %[[CQ:[a-z0-9]+]]: tensor<5xi32>, %[[CK:[a-z0-9]+]]: tensor<5xi32>, %[[S:[a-z0-9]+]]: tensor<8xf32>, %[[DO:[a-z0-9]+]]: tensor<300x8x64xbf16>)
// CHECK: %[[O:.*]], %[[LSE:.*]] = attn.flash %[[Q]], %[[K]], %[[V]] cu_seqlens_q(%[[CQ]] : tensor<5xi32>) cu_seqlens_k(%[[CK]] : tensor<5xi32>) sinks(%[[S]] : tensor<8xf32>)
// CHECK-SAME: -> tensor<300x8x64xbf16>, tensor<8x300xf32>
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]], %[[DS:.*]] = attn.flash_bwd %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[LSE]] cu_seqlens_q(%[[CQ]] : tensor<5xi32>) cu_seqlens_k(%[[CK]] : tensor<5xi32>) sinks(%[[S]] : tensor<8xf32>)
// CHECK-SAME: {mask = #attn.mask<causal, bottom_right>, scale = 1.250000e-01 : f32}
// CHECK-SAME: : tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<8x300xf32>
// CHECK-SAME: -> tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>{{$}}
// CHECK-NEXT: return %[[O]], %[[DQ]], %[[DK]], %[[DV]], %[[DS]]
func.func @ragged(%q: tensor<300x8x64xbf16>, %k: tensor<500x2x64xbf16>, %v: tensor<500x2x64xbf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>, %sinks: tensor<8xf32>) -> tensor<300x8x64xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<5xi32>) cu_seqlens_k(%ck : tensor<5xi32>) sinks(%sinks : tensor<8xf32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
      : tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16> -> tensor<300x8x64xbf16>
  return %o : tensor<300x8x64xbf16>
}
