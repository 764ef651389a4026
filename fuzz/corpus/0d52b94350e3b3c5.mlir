func.func @hd248(%q: tensor<1x2x64x248xbf16>, %k: tensor<1x2x100x248xbf16>, %v: tensor<1x2x100x248xbf16>) -> tensor<1x2x64x248xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x64x248xbf16>, tensor<1x2x100x248xbf16> -> tensor<1x2x64x100xf32>
  %t = attn.scale %s {factor = 0.0635001 : f32} : tensor<1x2x64x100xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x64x100xf32> -> tensor<1x2x64x100xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x64x100xbf16>, tensor<1x2x100x248xbf16> -> tensor<1x2x64x248xbf16>
  return %o : tensor<1x2x64x248xbf16>
}
