// One decode step of a serving engine over a paged KV cache (vLLM's and
// flash_attn's layout, Llama 3 8B's heads): 16 sequences, one new token
// each, against caches of pages of 16 keys. block_table maps each
// sequence's keys to its pages (64 pages: up to 1024 keys), cache_seqlens
// says how many it has. The cache is [pages, heads, page_size, dim] here,
// as BHSD with a page as the batch (flash_attn's (pages, page_size, heads,
// dim) memory is that with permuted strides: attn-run --layout=bshd).
// attn-run draws the tables (pages without repeats) and the lengths, or
// takes them with --set-input=3:... --set-input=4:...
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
