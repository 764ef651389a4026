func.func @flash_score_mod_empty_body(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = "attn.flash"(%q, %k, %v) <{scale = 1.0 : f32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
  }) : (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
