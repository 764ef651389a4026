func.func @chain(%q: tensor<1x4x200x32xbf16>, %k: tensor<1x2x64x32xbf16>, %v: tensor<1x2x64x32xbf16>, %len: tensor<1xi32>, %keep: tensor<1x1x200x64xi1>, %bias: tensor<1x4x1x64xbf16>) -> tensor<1x4x200x32xbf16> {
  %cap = arith.constant 30.0 : f32
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x4x200x32xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x4x200x64xf32>
  %t = attn.scale %s {factor = 0.17 : f32} : tensor<1x4x200x64xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<1x4x200x64xf32>
  %m = attn.mask %c lengths(%len : tensor<1xi32>) keep(%keep : tensor<1x1x200x64xi1>) bias(%bias : tensor<1x4x1x64xbf16>) {kind = #attn.mask<causal, bottom_right, window = [16, -1], key_padding, keep, bias>} : tensor<1x4x200x64xf32>
  %p = attn.softmax %m {dim = -1} : tensor<1x4x200x64xf32> -> tensor<1x4x200x64xf32>
  %w = arith.truncf %p : tensor<1x4x200x64xf32> to tensor<1x4x200x64xbf16>
  %o = attn.matmul %w, %v : tensor<1x4x200x64xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x4x200x32xbf16>
  return %o : tensor<1x4x200x32xbf16>
}
