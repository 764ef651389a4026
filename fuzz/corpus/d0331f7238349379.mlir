func.func @hd256_score_mod(%q: tensor<4x16x4x256xbf16>, %kc: tensor<260x8x16x256xbf16>, %len: tensor<4xi32>, %t: tensor<4x64xi32>) -> tensor<4x16x4x256xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<4xi32>) block_table(%t : tensor<4x64xi32>)
      {scale = 0.0625 : f32, mask = #attn.mask<key_padding>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %t2 = math.tanh %x : f32
    attn.yield %t2 : f32
  } : tensor<4x16x4x256xbf16>, tensor<260x8x16x256xbf16>, tensor<260x8x16x256xbf16> -> tensor<4x16x4x256xbf16>
  return %o : tensor<4x16x4x256xbf16>
}
