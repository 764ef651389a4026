func.func @window_causal_pad(%q: tensor<2x2x500x128xbf16>, %k: tensor<2x2x500x128xbf16>, %v: tensor<2x2x500x128xbf16>, %len: tensor<2xi32>) -> tensor<2x2x500x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x500x128xbf16>, tensor<2x2x500x128xbf16> -> tensor<2x2x500x500xf32>
  %t = attn.scale %s {factor = 0.0883883 : f32} : tensor<2x2x500x500xf32>
  %m = attn.mask %t lengths(%len : tensor<2xi32>) {kind = #attn.mask<causal, window = [64, -1], key_padding>} : tensor<2x2x500x500xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x2x500x500xf32> -> tensor<2x2x500x500xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x500x500xbf16>, tensor<2x2x500x128xbf16> -> tensor<2x2x500x128xbf16>
  return %o : tensor<2x2x500x128xbf16>
}
