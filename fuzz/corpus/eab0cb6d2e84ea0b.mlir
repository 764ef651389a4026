func.func @scores(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x8x256x64xbf16>) -> tensor<2x8x128x256xf32> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x8x128x64xbf16>, tensor<2x8x256x64xbf16> -> tensor<2x8x128x256xf32>
  return %s : tensor<2x8x128x256xf32>
}

func.func @gqa_output(%p: tensor<1x32x16x512xf16>, %v: tensor<1x8x512x128xf16>) -> tensor<1x32x16x128xf16> {
  %o = attn.matmul %p, %v : tensor<1x32x16x512xf16>, tensor<1x8x512x128xf16> -> tensor<1x32x16x128xf16>
  return %o : tensor<1x32x16x128xf16>
}

func.func @k_given_transposed(%q: tensor<1x4x64x32xbf16>, %kt: tensor<1x1x32x80xbf16>) -> tensor<1x4x64x80xf32> {
  %s = attn.matmul %q, %kt : tensor<1x4x64x32xbf16>, tensor<1x1x32x80xbf16> -> tensor<1x4x64x80xf32>
  return %s : tensor<1x4x64x80xf32>
}

func.func @plain_2d_and_dynamic(%a: tensor<?x16xf32>, %b: tensor<?x8xf32>) -> tensor<16x8xf32> {
  %c = attn.matmul %a, %b {transpose_lhs} : tensor<?x16xf32>, tensor<?x8xf32> -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}
