// RUN: attn-opt %s -split-input-file -attn-derive-backward -verify-diagnostics

func.func @no_rule(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    // expected-error @+1 {{'math.atan' op has no derivative rule (ScoreModDerivatives.cpp); --attn-derive-backward cannot differentiate the score_mod through it}}
    %y = math.atan %score : f32
    attn.yield %y : f32
  } : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o : tensor<1x1x16x64xbf16>
}

// -----

// Without a rule, an op is fine where it does not depend on the score.
func.func @no_rule_but_no_score(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    %c = arith.constant 0.5 : f32
    %a = math.atan %c : f32
    %y = arith.addf %score, %a : f32
    attn.yield %y : f32
  } : tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x16x64xbf16>
  return %o : tensor<1x1x16x64xbf16>
}

// -----

func.func @f64_value(%q: tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 0.125 : f32} score_mod {
  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: index):
    // expected-error @+1 {{'arith.extf' op must have one f32 result to be differentiated in a score_mod}}
    %w = arith.extf %score : f32 to f64
    %x = arith.mulf %w, %w : f64
    %y = arith.truncf %x : f64 to f32
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
