func.func @score_mod_captures(%q: tensor<1x2x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>, %slopes: tensor<2xf32>, %rel: tensor<63xbf16>) -> tensor<1x2x32x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x32xf32>
  %t = attn.scale %s {factor = 0.0625 : f32} : tensor<1x2x32x32xf32>
  %c = attn.score_mod %t captures(%slopes, %rel : tensor<2xf32>, tensor<63xbf16>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %st: tensor<2xf32>, %rt: tensor<63xbf16>):
    %slope = tensor.extract %st[%h] : tensor<2xf32>
    %off = arith.constant 31 : index
    %d = arith.subi %i, %j : index
    %r = arith.addi %d, %off : index
    %rel16 = tensor.extract %rt[%r] : tensor<63xbf16>
    %relf = arith.extf %rel16 : bf16 to f32
    %y0 = arith.mulf %slope, %relf : f32
    %y = arith.addf %x, %y0 : f32
    attn.yield %y : f32
  } : tensor<1x2x32x32xf32>
  %m = attn.mask %c {kind = #attn.mask<causal>} : tensor<1x2x32x32xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x32x32xbf16>, tensor<1x2x32x64xbf16> -> tensor<1x2x32x64xbf16>
  return %o : tensor<1x2x32x64xbf16>
}
