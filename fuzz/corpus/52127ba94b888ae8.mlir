func.func @mods(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %slope = arith.constant -0.0625 : f32
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    %dist = arith.subi %j, %i : index
    %di = arith.index_cast %dist : index to i32
    %df = arith.sitofp %di : i32 to f32
    %bias = arith.mulf %df, %slope : f32
    %zero = arith.constant 0 : index
    %neg = arith.cmpi slt, %dist, %zero : index
    %sel = arith.select %neg, %bias, %y : f32
    %r = arith.addf %sel, %y : f32
    attn.yield %r : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
