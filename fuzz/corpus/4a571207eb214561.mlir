func.func @gemma(%q: tensor<4x16x4x256xbf16>, %kc: tensor<260x8x16x256xbf16>, %vc: tensor<260x8x16x256xbf16>,
                 %len: tensor<4xi32>, %table: tensor<4x64xi32>) -> tensor<4x16x4x256xbf16> {
  %o = attn.flash %q, %kc, %vc lengths(%len : tensor<4xi32>) block_table(%table : tensor<4x64xi32>)
      {scale = 0.0625 : f32, mask = #attn.mask<causal, bottom_right, key_padding>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 50.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<4x16x4x256xbf16>, tensor<260x8x16x256xbf16>, tensor<260x8x16x256xbf16> -> tensor<4x16x4x256xbf16>
  return %o : tensor<4x16x4x256xbf16>
}
