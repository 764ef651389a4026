func.func @flash_unsupported_op(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1x8x64xbf16>, %v: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.extf %x : f32 to f64
    %y = arith.truncf %d : f64 to f32
    attn.yield %y : f32
  } : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}
