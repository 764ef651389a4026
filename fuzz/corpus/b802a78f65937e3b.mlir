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
