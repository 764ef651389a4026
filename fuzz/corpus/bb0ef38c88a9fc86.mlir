func.func @draft(%q: tensor<8x32x4x128xbf16>, %k: tensor<8x8x2000x128xbf16>, %v: tensor<8x8x2000x128xbf16>,
                 %len: tensor<8xi32>, %s: tensor<32xf32>) -> (tensor<8x32x4x128xbf16>, tensor<8x32x4xf32>) {
  %o, %lse = attn.flash %q, %k, %v lengths(%len : tensor<8xi32>) sinks(%s : tensor<32xf32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, window = [511, 0], bottom_right, key_padding>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<8x32x4x128xbf16>, tensor<8x8x2000x128xbf16>, tensor<8x8x2000x128xbf16> -> tensor<8x32x4x128xbf16>, tensor<8x32x4xf32>
  return %o, %lse : tensor<8x32x4x128xbf16>, tensor<8x32x4xf32>
}
