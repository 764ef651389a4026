func.func @scalar_and_rank4(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x4x64x64xbf16>, %v: tensor<1x4x64x64xbf16>, %flag: tensor<f16>, %big: tensor<2x3x1x5xi64>) -> tensor<1x4x64x64xbf16> {
  %o = attn.flash %q, %k, %v captures(%flag, %big : tensor<f16>, tensor<2x3x1x5xi64>) {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %flag_t: tensor<f16>, %big_t: tensor<2x3x1x5xi64>):
    %f16 = tensor.extract %flag_t[] : tensor<f16>
    %f = arith.extf %f16 : f16 to f32
    %n = tensor.extract %big_t[%b, %h, %i, %j] : tensor<2x3x1x5xi64>
    %nf = arith.sitofp %n : i64 to f32
    %s = arith.mulf %x, %f : f32
    %y = arith.addf %s, %nf : f32
    attn.yield %y : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  return %o : tensor<1x4x64x64xbf16>
}
