// Ragged prefill as an inference server batches it (flash_attn's varlen
// form, Llama 3 8B's heads): 8 prompts of different lengths packed into
// 4096 tokens [tokens, heads, dim], each attending causally to its own keys
// only. cu_seqlens_q and cu_seqlens_k hold each prompt's first token (and
// the total); nothing is padded, so nothing padded is computed. attn-run
// draws the prompts' lengths at random (--seed), or takes them with
// --set-input=3:0,... --set-input=4:0,...
func.func @varlen_prefill(%q: tensor<4096x32x128xbf16>, %k: tensor<4096x8x128xbf16>,
                          %v: tensor<4096x8x128xbf16>, %cu_seqlens_q: tensor<9xi32>,
                          %cu_seqlens_k: tensor<9xi32>)
    -> (tensor<4096x32x128xbf16>, tensor<32x4096xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cu_seqlens_q : tensor<9xi32>)
      cu_seqlens_k(%cu_seqlens_k : tensor<9xi32>)
      {scale = 0.0883883461 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<4096x32x128xbf16>, tensor<4096x8x128xbf16>, tensor<4096x8x128xbf16>
    -> tensor<4096x32x128xbf16>, tensor<32x4096xf32>
  return %o, %lse : tensor<4096x32x128xbf16>, tensor<32x4096xf32>
}
