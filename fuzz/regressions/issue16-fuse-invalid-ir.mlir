func.func @scalar_select(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %c: i1) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1x2x16x16xf32>
  %m = arith.select %c, %s, %ninf : tensor<1x2x16x16xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
func.func @scale_overflow(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %t = attn.scale %s {factor = 1.0e38 : f32} : tensor<1x2x16x16xf32>
  %u = attn.scale %t {factor = 1.0e38 : f32} : tensor<1x2x16x16xf32>
  %p = attn.softmax %u {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
func.func @dynamic_heads(%q: tensor<1x?x16x16xbf16>, %k: tensor<1x?x16x16xbf16>, %v: tensor<1x?x16x16xbf16>) -> tensor<1x?x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x?x16x16xbf16>, tensor<1x?x16x16xbf16> -> tensor<1x?x16x16xf32>
  %p = attn.softmax %s {dim = 3} : tensor<1x?x16x16xf32> -> tensor<1x?x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x?x16x16xbf16>, tensor<1x?x16x16xbf16> -> tensor<1x?x16x16xbf16>
  return %o : tensor<1x?x16x16xbf16>
}
func.func @dynamic_head_dim(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x?xbf16>) -> tensor<1x2x16x?xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %p = attn.softmax %s {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x?xbf16> -> tensor<1x2x16x?xbf16>
  return %o : tensor<1x2x16x?xbf16>
}
