func.func @integer_ops(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %a = arith.index_cast %i : index to i32
    %c = arith.index_cast %j : index to i32
    %w = arith.index_cast %i : index to i64
    %0 = arith.addi %a, %c : i32
    %1 = arith.subi %w, %w : i64
    %2 = arith.muli %i, %j : index
    %3 = arith.divsi %a, %c : i32
    %4 = arith.divui %w, %1 : i64
    %5 = arith.ceildivsi %i, %j : index
    %6 = arith.ceildivui %a, %c : i32
    %7 = arith.floordivsi %w, %1 : i64
    %8 = arith.remsi %i, %j : index
    %9 = arith.remui %a, %c : i32
    %10 = arith.shli %w, %1 : i64
    %11 = arith.shrsi %a, %c : i32
    %12 = arith.shrui %i, %j : index
    %13 = arith.andi %a, %c : i32
    %14 = arith.ori %w, %1 : i64
    %15 = arith.xori %i, %j : index
    %16 = arith.maxsi %a, %c : i32
    %17 = arith.minsi %w, %1 : i64
    %18 = arith.maxui %i, %j : index
    %19 = arith.minui %a, %c : i32
    %sum, %carry = arith.addui_extended %a, %c : i32, i1
    %lo, %hi = arith.mulsi_extended %w, %1 : i64
    %ulo, %uhi = arith.mului_extended %a, %c : i32
    %20 = math.absi %a : i32
    %21 = math.ctlz %w : i64
    %22 = math.cttz %a : i32
    %23 = math.ctpop %w : i64
    %p = arith.cmpi eq, %a, %c : i32
    %24 = arith.addi %p, %carry : i1
    %25 = arith.muli %24, %p : i1
    %26 = arith.divsi %25, %p : i1
    %f = arith.uitofp %26 : i1 to f32
    %y = arith.addf %x, %f : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
