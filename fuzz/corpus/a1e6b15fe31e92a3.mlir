func.func @two_padding_masks(%q: tensor<2x2x16x16xbf16>, %k: tensor<2x2x16x16xbf16>, %v: tensor<2x2x16x16xbf16>, %l0: tensor<2xi32>, %l1: tensor<2xi32>) -> tensor<2x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x16x16xbf16>, tensor<2x2x16x16xbf16> -> tensor<2x2x16x16xf32>
  %a = attn.mask %s lengths(%l0 : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x16x16xf32>
  %b = attn.mask %a lengths(%l1 : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x2x16x16xf32>
  %p = attn.softmax %b {dim = 3} : tensor<2x2x16x16xf32> -> tensor<2x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x16x16xbf16>, tensor<2x2x16x16xbf16> -> tensor<2x2x16x16xbf16>
  return %o : tensor<2x2x16x16xbf16>
}
