func.func @transposes(%q: tensor<2x2x100x48xbf16>, %kt: tensor<2x2x48x150xbf16>, %a: tensor<1x3x70x90xf32>, %b: tensor<1x3x70x50xf32>) -> (tensor<2x2x100x150xf32>, tensor<1x3x90x50xf32>) {
  %s = attn.matmul %q, %kt : tensor<2x2x100x48xbf16>, tensor<2x2x48x150xbf16> -> tensor<2x2x100x150xf32>
  %p = attn.softmax %s {dim = 2} : tensor<2x2x100x150xf32> -> tensor<2x2x100x150xf32>
  %m = attn.matmul %a, %b {transpose_lhs} : tensor<1x3x70x90xf32>, tensor<1x3x70x50xf32> -> tensor<1x3x90x50xf32>
  return %p, %m : tensor<2x2x100x150xf32>, tensor<1x3x90x50xf32>
}
