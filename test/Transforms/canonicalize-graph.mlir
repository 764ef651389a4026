// RUN: attn-opt %s -attn-canonicalize-graph -split-input-file | FileCheck %s
// RUN: attn-opt %s --attn-pipeline=arch=sm_80 -split-input-file | FileCheck %s --check-prefix=PIPELINE

// score_mod bodies keep the ops they were written with: MLIR folds
// math.atan2(0, 0) to NaN where attn's (the reference's and the kernel's)
// is 0, and an index_cast or index_castui through i1 and back to its
// operand where attn's is bit 0 of it (issue 39). The graph around them is
// canonicalized: dead ops are erased and constants folded.

// CHECK-LABEL: func @score_mod_as_written
// CHECK-NOT: 0x7FC00000
// CHECK-DAG: %[[SCALE:.*]] = arith.constant dense<1.250000e-01> : tensor<1x2x16x16xf32>
// CHECK-DAG: %[[S:.*]] = attn.matmul
// CHECK-NOT: attn.scale
// CHECK: %[[T:.*]] = arith.mulf %[[S]], %[[SCALE]]
// CHECK: attn.score_mod %[[T]] {
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %[[I:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[A:.*]] = math.atan2 %[[ZERO]], %[[ZERO]] : f32
// CHECK-NEXT: %[[BIT:.*]] = arith.index_castui %[[J]] : index to i1
// CHECK-NEXT: %[[BACK:.*]] = arith.index_castui %[[BIT]] : i1 to index
// CHECK-NEXT: %[[SBIT:.*]] = arith.index_cast %[[I]] : index to i1
// CHECK-NEXT: %[[SBACK:.*]] = arith.index_cast %[[SBIT]] : i1 to index
// CHECK-NEXT: arith.addi %[[BACK]], %[[SBACK]] : index
// CHECK: arith.addf %[[X]], %[[A]] : f32
// CHECK: attn.yield
// CHECK: attn.softmax

// Through the pipeline, the fused op's score_mod is the one written.
// PIPELINE-LABEL: func @score_mod_as_written
// PIPELINE-NOT: 0x7FC00000
// PIPELINE: attn.flash %arg0, %arg1, %arg2 {config = #attn.config<{{.*}}>, scale = 1.250000e-01 : f32} score_mod {
// PIPELINE: math.atan2 %[[ZERO:.*]], %[[ZERO]] : f32
// PIPELINE: %[[BIT:.*]] = arith.index_castui %{{.*}} : index to i1
// PIPELINE-NEXT: arith.index_castui %[[BIT]] : i1 to index
// PIPELINE: %[[SBIT:.*]] = arith.index_cast %{{.*}} : index to i1
// PIPELINE-NEXT: arith.index_cast %[[SBIT]] : i1 to index
// PIPELINE: attn.yield
func.func @score_mod_as_written(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x2x16x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x16xf32>
  %dead = attn.scale %s {factor = 2.0 : f32} : tensor<1x2x16x16xf32>
  %quarter = arith.constant dense<0.25> : tensor<1x2x16x16xf32>
  %half = arith.constant dense<0.5> : tensor<1x2x16x16xf32>
  %eighth = arith.mulf %quarter, %half : tensor<1x2x16x16xf32>
  %t = arith.mulf %s, %eighth : tensor<1x2x16x16xf32>
  %m = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %zero = arith.constant 0.0 : f32
    %a = math.atan2 %zero, %zero : f32
    %bit = arith.index_castui %j : index to i1
    %back = arith.index_castui %bit : i1 to index
    %sbit = arith.index_cast %i : index to i1
    %sback = arith.index_cast %sbit : i1 to index
    %sum = arith.addi %back, %sback : index
    %n = arith.index_cast %sum : index to i64
    %f = arith.sitofp %n : i64 to f32
    %y0 = arith.addf %x, %a : f32
    %y = arith.addf %y0, %f : f32
    attn.yield %y : f32
  } : tensor<1x2x16x16xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x16x64xbf16>
  return %o : tensor<1x2x16x64xbf16>
}

// -----

// The op that holds a score_mod is canonicalized itself (one query drops
// its causal mask; a dead one is erased), its region is not.
// CHECK-LABEL: func @flash_as_written
// CHECK-NOT: mask =
// CHECK: attn.flash {{.*}} score_mod {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: math.atan2 %[[ZERO]], %[[ZERO]] : f32
// CHECK: attn.yield
// CHECK-NOT: attn.flash
// CHECK: return
func.func @flash_as_written(%q: tensor<1x2x1x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x2x1x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %zero = arith.constant 0.0 : f32
    %a = math.atan2 %zero, %zero : f32
    %y = arith.addf %x, %a : f32
    attn.yield %y : f32
  } : tensor<1x2x1x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x1x64xbf16>
  %dead = attn.flash %q, %k, %v {scale = 0.125 : f32} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %x : f32
  } : tensor<1x2x1x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x2x1x64xbf16>
  return %o : tensor<1x2x1x64xbf16>
}

// -----

// Both regions of attn.flash_bwd, the score_mod and its derivative.
// CHECK-LABEL: func @flash_bwd_as_written
// CHECK: attn.flash_bwd {{.*}} score_mod {
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: math.atan2 %[[ZERO]], %[[ZERO]] : f32
// CHECK: } score_mod_grad {
// CHECK: %[[BIT:.*]] = arith.index_castui %{{.*}} : index to i1
// CHECK-NEXT: arith.index_castui %[[BIT]] : i1 to index
// CHECK: attn.yield
func.func @flash_bwd_as_written(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>, %o: tensor<1x2x16x64xbf16>, %do: tensor<1x2x16x64xbf16>, %lse: tensor<1x2x16xf32>) -> (tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>) {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %zero = arith.constant 0.0 : f32
    %a = math.atan2 %zero, %zero : f32
    %y = arith.addf %x, %a : f32
    attn.yield %y : f32
  } score_mod_grad {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %bit = arith.index_castui %j : index to i1
    %back = arith.index_castui %bit : i1 to index
    %n = arith.index_cast %back : index to i64
    %f = arith.sitofp %n : i64 to f32
    attn.yield %f : f32
  } : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16xf32> -> tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
  return %dq, %dk, %dv : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
}
