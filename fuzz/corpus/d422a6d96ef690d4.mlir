func.func @column(%q: tensor<2x4x257x128xf16>, %k: tensor<2x4x333x128xf16>, %v: tensor<2x4x333x128xf16>,
                  %len: tensor<2xi32>, %s: tensor<1x4x1x1xf32>) -> tensor<2x4x257x128xf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) sinks(%s : tensor<1x4x1x1xf32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<key_padding>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 20.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<2x4x257x128xf16>, tensor<2x4x333x128xf16>, tensor<2x4x333x128xf16> -> tensor<2x4x257x128xf16>
  return %o : tensor<2x4x257x128xf16>
}
