func.func @masks(%q: tensor<2x4x77x32xbf16>, %k: tensor<2x1x1000x32xbf16>, %v: tensor<2x1x1000x32xbf16>, %len: tensor<2xi32>, %keep: tensor<2x1x77x1000xi1>, %bias: tensor<2x4x1x1000xbf16>) -> tensor<2x4x77x32xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x77x32xbf16>, tensor<2x1x1000x32xbf16> -> tensor<2x4x77x1000xf32>
  %t = attn.scale %s {factor = 0.1767767 : f32} : tensor<2x4x77x1000xf32>
  %m = attn.mask %t lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x1x77x1000xi1>) bias(%bias : tensor<2x4x1x1000xbf16>) {kind = #attn.mask<window = [300, 40], key_padding, keep, bias>} : tensor<2x4x77x1000xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x77x1000xf32> -> tensor<2x4x77x1000xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x77x1000xbf16>, tensor<2x1x1000x32xbf16> -> tensor<2x4x77x32xbf16>
  return %o : tensor<2x4x77x32xbf16>
}
