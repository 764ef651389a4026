func.func @plain(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x8x128x64xbf16>, %v: tensor<2x8x128x64xbf16>) -> tensor<2x8x128x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16> -> tensor<2x8x128x64xbf16>
  return %o : tensor<2x8x128x64xbf16>
}

func.func @configured_gqa_with_lse(%q: tensor<1x32x100x128xf16>, %k: tensor<1x8x300x128xf16>, %v: tensor<1x8x300x128xf16>) -> (tensor<1x32x100x128xf16>, tensor<1x32x100xf32>) {
  %o, %lse = attn.flash %q, %k, %v {scale = 0.0883883461 : f32, mask = #attn.mask<causal, bottom_right>,
      config = #attn.config<variant = "sm80", block_m = 128, block_n = 64, num_warps = 4, stages = 2>}
    : tensor<1x32x100x128xf16>, tensor<1x8x300x128xf16>, tensor<1x8x300x128xf16> -> tensor<1x32x100x128xf16>, tensor<1x32x100xf32>
  return %o, %lse : tensor<1x32x100x128xf16>, tensor<1x32x100xf32>
}

func.func @all_mask_operands_and_score_mod(%q: tensor<2x4x64x192xbf16>, %k: tensor<2x4x64x192xbf16>, %v: tensor<2x4x64x128xbf16>,
    %len: tensor<2xi32>, %keep: tensor<2x1x64x64xi1>, %bias: tensor<1x4x64x64xf32>) -> tensor<2x4x64x128xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x1x64x64xi1>) bias(%bias : tensor<1x4x64x64xf32>)
      {scale = 1.0 : f32, mask = #attn.mask<window = [32, 0], key_padding, keep, bias>} score_mod {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
      %t = math.tanh %x : f32
      attn.yield %t : f32
  } : tensor<2x4x64x192xbf16>, tensor<2x4x64x192xbf16>, tensor<2x4x64x128xbf16> -> tensor<2x4x64x128xbf16>
  return %o : tensor<2x4x64x128xbf16>
}

func.func @transposed_k_dynamic_sizes(%q: tensor<?x2x?x64xf16>, %kt: tensor<?x1x64x?xf16>, %v: tensor<?x1x?x64xf16>) -> tensor<?x2x?x64xf16> {
  %o = attn.flash %q, %kt, %v {scale = 1.0 : f32, transpose_k} : tensor<?x2x?x64xf16>, tensor<?x1x64x?xf16>, tensor<?x1x?x64xf16> -> tensor<?x2x?x64xf16>
  return %o : tensor<?x2x?x64xf16>
}

func.func @score_mod_captures(%q: tensor<2x4x64x64xbf16>, %k: tensor<2x2x64x64xbf16>, %v: tensor<2x2x64x64xbf16>, %bias: tensor<4xf32>) -> tensor<2x4x64x64xbf16> {
  %o = attn.flash %q, %k, %v captures(%bias : tensor<4xf32>) {scale = 0.125 : f32} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %bias_t: tensor<4xf32>):
    %hb = tensor.extract %bias_t[%h] : tensor<4xf32>
    %y = arith.addf %x, %hb : f32
    attn.yield %y : f32
  } : tensor<2x4x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x4x64x64xbf16>
  return %o : tensor<2x4x64x64xbf16>
}
