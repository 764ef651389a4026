// RUN: attn-opt %s | attn-opt | FileCheck %s
// RUN: attn-opt %s --mlir-print-op-generic | attn-opt | FileCheck %s

// Ragged batches: packed [tokens, heads, dim] operands with the offsets of
// each sequence's queries and keys.

// CHECK-LABEL: func @varlen_gqa_causal_lse
// CHECK: attn.flash %{{.*}}, %{{.*}}, %{{.*}} cu_seqlens_q(%{{.*}} : tensor<5xi32>) cu_seqlens_k(%{{.*}} : tensor<5xi32>) {mask = #attn.mask<causal, bottom_right>, scale = 1.250000e-01 : f32}
// CHECK-SAME: : tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x32xbf16> -> tensor<300x8x32xbf16>, tensor<8x300xf32>
func.func @varlen_gqa_causal_lse(%q: tensor<300x8x64xbf16>, %k: tensor<500x2x64xbf16>, %v: tensor<500x2x32xbf16>,
                                 %cq: tensor<5xi32>, %ck: tensor<5xi32>) -> (tensor<300x8x32xbf16>, tensor<8x300xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<5xi32>) cu_seqlens_k(%ck : tensor<5xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x32xbf16> -> tensor<300x8x32xbf16>, tensor<8x300xf32>
  return %o, %lse : tensor<300x8x32xbf16>, tensor<8x300xf32>
}

// A score_mod with captures, a window and a configured kernel; dynamic
// token counts and batch.
// CHECK-LABEL: func @varlen_score_mod_dynamic
// CHECK: attn.flash %{{.*}}, %{{.*}}, %{{.*}} captures(%{{.*}} : tensor<4xf32>) cu_seqlens_q(%{{.*}} : tensor<?xi32>) cu_seqlens_k(%{{.*}} : tensor<?xi32>) {config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>, mask = #attn.mask<window = [16, 0]>, scale = 1.000000e+00 : f32} score_mod {
// CHECK: tensor.extract
// CHECK: } : tensor<?x4x64xf16>, tensor<?x4x64xf16>, tensor<?x4x64xf16> -> tensor<?x4x64xf16>
func.func @varlen_score_mod_dynamic(%q: tensor<?x4x64xf16>, %k: tensor<?x4x64xf16>, %v: tensor<?x4x64xf16>,
                                    %cq: tensor<?xi32>, %ck: tensor<?xi32>, %bias: tensor<4xf32>) -> tensor<?x4x64xf16> {
  %o = attn.flash %q, %k, %v captures(%bias : tensor<4xf32>) cu_seqlens_q(%cq : tensor<?xi32>) cu_seqlens_k(%ck : tensor<?xi32>)
      {scale = 1.0 : f32, mask = #attn.mask<window = [16, 0]>,
       config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %t: tensor<4xf32>):
    %hb = tensor.extract %t[%h] : tensor<4xf32>
    %y = arith.addf %x, %hb : f32
    attn.yield %y : f32
  } : tensor<?x4x64xf16>, tensor<?x4x64xf16>, tensor<?x4x64xf16> -> tensor<?x4x64xf16>
  return %o : tensor<?x4x64xf16>
}
