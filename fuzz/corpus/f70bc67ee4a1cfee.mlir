func.func @captures(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x4x64x64xbf16>, %v: tensor<1x4x64x64xbf16>, %bias: tensor<4xf32>, %rel: tensor<127xbf16>, %tab: tensor<1x4x8xi32>, %flag: tensor<f16>, %big: tensor<2x3x1x5xi64>, %keep: tensor<4x4xi1>) -> tensor<1x4x64x64xbf16> {
  %o = attn.flash %q, %k, %v captures(%bias, %rel, %tab, %keep : tensor<4xf32>, tensor<127xbf16>, tensor<1x4x8xi32>, tensor<4x4xi1>) {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %bias_t: tensor<4xf32>, %rel_t: tensor<127xbf16>, %tab_t: tensor<1x4x8xi32>, %keep_t: tensor<4x4xi1>):
    %hb = tensor.extract %bias_t[%h] : tensor<4xf32>
    %off = arith.constant 63 : index
    %d = arith.subi %i, %j : index
    %r = arith.addi %d, %off : index
    %rel16 = tensor.extract %rel_t[%r] : tensor<127xbf16>
    %relf = arith.extf %rel16 : bf16 to f32
    %c8 = arith.constant 8 : index
    %jm = arith.remui %j, %c8 : index
    %t = tensor.extract %tab_t[%b, %h, %jm] : tensor<1x4x8xi32>
    %tf = arith.sitofp %t : i32 to f32
    %c4 = arith.constant 4 : index
    %im = arith.remui %i, %c4 : index
    %km = arith.remui %j, %c4 : index
    %kp = tensor.extract %keep_t[%im, %km] : tensor<4x4xi1>
    %s0 = arith.addf %x, %hb : f32
    %s1 = arith.addf %s0, %relf : f32
    %s2 = arith.addf %s1, %tf : f32
    %y = arith.select %kp, %s2, %x : f32
    attn.yield %y : f32
  } : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16> -> tensor<1x4x64x64xbf16>
  return %o : tensor<1x4x64x64xbf16>
}
