func.func @cast_ops(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %p = arith.cmpi slt, %i, %j : index
    %0 = arith.extsi %p : i1 to i32
    %1 = arith.extui %p : i1 to i64
    %2 = arith.extsi %0 : i32 to i64
    %3 = arith.extui %0 : i32 to i64
    %4 = arith.trunci %2 : i64 to i32
    %5 = arith.trunci %4 : i32 to i1
    %6 = arith.index_cast %p : i1 to index
    %7 = arith.index_cast %6 : index to i32
    %8 = arith.index_castui %4 : i32 to index
    %9 = arith.index_castui %8 : index to i64
    %f0 = arith.sitofp %p : i1 to f32
    %f1 = arith.uitofp %p : i1 to f32
    %f2 = arith.sitofp %9 : i64 to f32
    %f3 = arith.uitofp %7 : i32 to f32
    %10 = arith.fptosi %x : f32 to i32
    %11 = arith.fptoui %x : f32 to i64
    %12 = arith.fptosi %x : f32 to i1
    %13 = arith.bitcast %x : f32 to i32
    %f4 = arith.bitcast %13 : i32 to f32
    %s0 = arith.addf %f0, %f1 : f32
    %s1 = arith.addf %s0, %f2 : f32
    %s2 = arith.addf %s1, %f3 : f32
    %s3 = arith.addf %s2, %f4 : f32
    %y = arith.select %5, %s3, %x : f32
    attn.yield %y : f32
  } : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}
