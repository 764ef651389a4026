func.func @paged_decode(%q: tensor<16x32x1x128xbf16>, %k_cache: tensor<1100x8x16x128xbf16>,
                        %v_cache: tensor<1100x8x16x128xbf16>, %cache_seqlens: tensor<16xi32>,
                        %block_table: tensor<16x64xi32>) -> tensor<16x32x1x128xbf16> {
  %o = attn.flash %q, %k_cache, %v_cache lengths(%cache_seqlens : tensor<16xi32>)
      block_table(%block_table : tensor<16x64xi32>)
      {scale = 0.0883883461 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<16x32x1x128xbf16>, tensor<1100x8x16x128xbf16>, tensor<1100x8x16x128xbf16>
    -> tensor<16x32x1x128xbf16>
  return %o : tensor<16x32x1x128xbf16>
}
