func.func @compare_ops(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %a = arith.index_cast %i : index to i32
    %c = arith.index_cast %j : index to i32
    %0 = arith.cmpi eq, %a, %c : i32
    %1 = arith.cmpi ne, %i, %j : index
    %2 = arith.cmpi slt, %a, %c : i32
    %3 = arith.cmpi sle, %a, %c : i32
    %4 = arith.cmpi sgt, %a, %c : i32
    %5 = arith.cmpi sge, %a, %c : i32
    %6 = arith.cmpi ult, %a, %c : i32
    %7 = arith.cmpi ule, %a, %c : i32
    %8 = arith.cmpi ugt, %a, %c : i32
    %9 = arith.cmpi uge, %a, %c : i32
    %10 = arith.cmpi slt, %0, %1 : i1
    %11 = arith.cmpi ult, %2, %3 : i1
    %z = arith.constant 0.0 : f32
    %f0 = arith.cmpf false, %x, %z : f32
    %f1 = arith.cmpf oeq, %x, %z : f32
    %f2 = arith.cmpf ogt, %x, %z : f32
    %f3 = arith.cmpf oge, %x, %z : f32
    %f4 = arith.cmpf olt, %x, %z : f32
    %f5 = arith.cmpf ole, %x, %z : f32
    %f6 = arith.cmpf one, %x, %z : f32
    %f7 = arith.cmpf ord, %x, %z : f32
    %f8 = arith.cmpf ueq, %x, %z : f32
    %f9 = arith.cmpf ugt, %x, %z : f32
    %f10 = arith.cmpf uge, %x, %z : f32
    %f11 = arith.cmpf ult, %x, %z : f32
    %f12 = arith.cmpf ule, %x, %z : f32
    %f13 = arith.cmpf une, %x, %z : f32
    %f14 = arith.cmpf uno, %x, %z : f32
    %f15 = arith.cmpf true, %x, %z : f32
    %s = arith.select %f15, %10, %11 : i1
    %t = arith.select %s, %a, %c : i32
    %y0 = arith.sitofp %t : i32 to f32
    %y = arith.select %f14, %y0, %x : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
