func.func @two_score_mods(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %a = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.tanh %x : f32
    attn.yield %t : f32
  } : tensor<1x2x16x16xf32>
  %c = attn.score_mod %a {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %t = math.exp %x : f32
    attn.yield %t : f32
  } : tensor<1x2x16x16xf32>
  %p = attn.softmax %c {dim = 3} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
