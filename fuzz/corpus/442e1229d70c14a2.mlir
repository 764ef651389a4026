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
