// RUN: attn-opt %s -split-input-file -attn-derive-backward -verify-diagnostics

func.func @bits_of_the_score(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    // expected-error @+1 {{'arith.bitcast' op is not differentiable with respect to the score; --attn-derive-backward cannot differentiate the score_mod through it}}
    %i = arith.bitcast %score : f32 to i32
    %y = arith.bitcast %i : i32 to f32
    attn.yield %y : f32
  } : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o : tensor<1x1x16x64xbf16>
}

// -----

// A bitcast is fine where it does not depend on the score.
func.func @bits_of_a_constant(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %c = arith.constant 1056964608 : i32
    %a = arith.bitcast %c : i32 to f32
    %y = arith.addf %score, %a : f32
    attn.yield %y : f32
  } : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o : tensor<1x1x16x64xbf16>
}

// -----

func.func @used_elsewhere(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  // expected-error @+1 {{'attn.flash' op output is used by 'attn.flash'; --attn-derive-backward differentiates attn.flash ops whose output only the function returns}}
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  %o2 = attn.flash %o, %q, %q {scale = 0.125 : f32} : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o2 : tensor<1x1x16x64xbf16>
}

// -----

// expected-error @+1 {{found no attn.flash to differentiate; run --attn-fuse first}}
module {
  func.func @graph(%s: tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xbf16> {
    %p = attn.softmax %s {dim = 3} : tensor<1x1x16x16xf32> -> tensor<1x1x16x16xbf16>
    return %p : tensor<1x1x16x16xbf16>
  }
}

// -----

func.func @paged(%q: tensor<3x2x1x16xbf16>, %kc: tensor<20x2x8x16xbf16>, %len: tensor<3xi32>, %t: tensor<3x5xi32>) -> tensor<3x2x1x16xbf16> {
  // expected-error @+1 {{'attn.flash' op is a paged cache (block_table); --attn-derive-backward differentiates dense and ragged batches}}
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<3xi32>) block_table(%t : tensor<3x5xi32>)
      {scale = 1.0 : f32, mask = #attn.mask<key_padding>}
    : tensor<3x2x1x16xbf16>, tensor<20x2x8x16xbf16>, tensor<20x2x8x16xbf16> -> tensor<3x2x1x16xbf16>
  return %o : tensor<3x2x1x16xbf16>
}
