// RUN: attn-translate --attn-to-cuda %s -split-input-file -verify-diagnostics

// A GPU kernel of the unfused path needs static shapes.
func.func @dynamic(%x: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  // expected-error @+1 {{'attn.kernel' op the result has type 'tensor<1x2x?x8xf32>'; a GPU kernel needs a static shape}}
  %y = attn.kernel "scale" in_place(%x) : (tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  ^bb0(%a: tensor<1x2x?x8xf32>):
    %b = attn.scale %a {factor = 2.0 : f32} : tensor<1x2x?x8xf32>
    attn.yield %b : tensor<1x2x?x8xf32>
  }
  return %y : tensor<1x2x?x8xf32>
}

// -----

// The templates view operands at rank 4 at most.
func.func @rank5(%x: tensor<2x1x2x8x8xf32>) -> tensor<2x1x2x8x8xf32> {
  // expected-error @+1 {{'attn.kernel' op the result has rank 5; the graph-op kernels handle rank <= 4}}
  %y = attn.kernel "softmax"(%x) : (tensor<2x1x2x8x8xf32>) -> tensor<2x1x2x8x8xf32> {
  ^bb0(%a: tensor<2x1x2x8x8xf32>):
    %b = attn.softmax %a {dim = 4} : tensor<2x1x2x8x8xf32> -> tensor<2x1x2x8x8xf32>
    attn.yield %b : tensor<2x1x2x8x8xf32>
  }
  return %y : tensor<2x1x2x8x8xf32>
}

// -----

// Batch times heads is grid dimension z of a matmul: at most 65535.
func.func @too_many_heads(%a: tensor<70000x4x4xf32>) -> tensor<70000x4x4xf32> {
  // expected-error @+1 {{'attn.kernel' op needs 70000 blocks along grid dimension 2; CUDA allows 65535}}
  %y = attn.kernel "matmul"(%a, %a) : (tensor<70000x4x4xf32>, tensor<70000x4x4xf32>) -> tensor<70000x4x4xf32> {
  ^bb0(%l: tensor<70000x4x4xf32>, %r: tensor<70000x4x4xf32>):
    %b = attn.matmul %l, %r : tensor<70000x4x4xf32>, tensor<70000x4x4xf32> -> tensor<70000x4x4xf32>
    attn.yield %b : tensor<70000x4x4xf32>
  }
  return %y : tensor<70000x4x4xf32>
}

// -----

// A score_mod computes on f32 (and integers), not on 16-bit scores (the
// fused kernel's score_mod sees f32).
func.func @bf16_score_mod(%x: tensor<1x1x4x4xbf16>) -> tensor<1x1x4x4xbf16> {
  %y = attn.kernel "score_mod" in_place(%x) : (tensor<1x1x4x4xbf16>) -> tensor<1x1x4x4xbf16> {
  ^bb0(%a: tensor<1x1x4x4xbf16>):
    %b = attn.score_mod %a {
    ^bb0(%s: bf16, %i: index, %j: index, %k: index, %l: index):
      // expected-error @+1 {{'arith.negf' op computes on 'bf16'; a score_mod computes on i1, i32, i64, index and f32}}
      %n = arith.negf %s : bf16
      attn.yield %n : bf16
    } : tensor<1x1x4x4xbf16>
    attn.yield %b : tensor<1x1x4x4xbf16>
  }
  return %y : tensor<1x1x4x4xbf16>
}

// -----

// Four extents that each fit 32 bits overflow the 64-bit element count:
// this was emitted with a grid of 0 blocks.
func.func @elements_overflow(%x: tensor<65536x65536x65536x65536xf32>) -> tensor<65536x65536x65536x65536xf32> {
  // expected-error @+1 {{'attn.kernel' op the result has more than 2^63 elements; a graph-op kernel indexes them with 64-bit integers}}
  %y = attn.kernel "scale" in_place(%x) : (tensor<65536x65536x65536x65536xf32>) -> tensor<65536x65536x65536x65536xf32> {
  ^bb0(%a: tensor<65536x65536x65536x65536xf32>):
    %b = attn.scale %a {factor = 2.0 : f32} : tensor<65536x65536x65536x65536xf32>
    attn.yield %b : tensor<65536x65536x65536x65536xf32>
  }
  return %y : tensor<65536x65536x65536x65536xf32>
}
