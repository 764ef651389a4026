func.func @float_ops(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 0.5 : f32
    %0 = arith.addf %x, %c : f32
    %1 = arith.subf %0, %x : f32
    %2 = arith.mulf %1, %x : f32
    %3 = arith.divf %2, %x : f32
    %4 = arith.remf %3, %x : f32
    %5 = arith.negf %4 : f32
    %6 = arith.maximumf %5, %x : f32
    %7 = arith.minimumf %6, %x : f32
    %8 = arith.maxnumf %7, %x : f32
    %9 = arith.minnumf %8, %x : f32
    %10 = math.absf %9 : f32
    %11 = math.acos %10 : f32
    %12 = math.acosh %11 : f32
    %13 = math.asin %12 : f32
    %14 = math.asinh %13 : f32
    %15 = math.atan %14 : f32
    %16 = math.atanh %15 : f32
    %17 = math.atan2 %16, %x : f32
    %18 = math.cbrt %17 : f32
    %19 = math.ceil %18 : f32
    %20 = math.copysign %19, %x : f32
    %21 = math.cos %20 : f32
    %22 = math.cosh %21 : f32
    %23 = math.erf %22 : f32
    %24 = math.erfc %23 : f32
    %25 = math.exp %24 : f32
    %26 = math.exp2 %25 : f32
    %27 = math.expm1 %26 : f32
    %28 = math.floor %27 : f32
    %29 = math.fma %28, %x, %c : f32
    %30 = math.log %29 : f32
    %31 = math.log10 %30 : f32
    %32 = math.log1p %31 : f32
    %33 = math.log2 %32 : f32
    %34 = math.powf %33, %x : f32
    %35 = math.round %34 : f32
    %36 = math.roundeven %35 : f32
    %37 = math.rsqrt %36 : f32
    %38 = math.sin %37 : f32
    %39 = math.sinh %38 : f32
    %40 = math.sqrt %39 : f32
    %41 = math.tan %40 : f32
    %42 = math.tanh %41 : f32
    %43 = math.trunc %42 : f32
    %n = math.isnan %43 : f32
    %inf = math.isinf %43 : f32
    %f = math.isfinite %43 : f32
    %m = math.isnormal %43 : f32
    %a = arith.andi %n, %inf : i1
    %o = arith.ori %f, %m : i1
    %e = arith.xori %a, %o : i1
    %y = arith.select %e, %43, %x : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
