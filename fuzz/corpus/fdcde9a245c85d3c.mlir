func.func @integer_ops(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x200x64xbf16>, %v: tensor<2x4x200x64xbf16>) -> tensor<2x4x200x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x200xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x200x200xf32>
  %m = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %two = arith.constant 2 : index
    %odd = arith.remui %j, %two : index
    %oddi = arith.index_cast %odd : index to i32
    %isodd = arith.trunci %oddi : i32 to i1
    %m1 = arith.sitofp %isodd : i1 to f32
    %e = arith.extsi %isodd : i1 to i32
    %ef = arith.sitofp %e : i32 to f32
    %u = arith.uitofp %isodd : i1 to f32
    %qi = arith.index_cast %i : index to i32
    %ki = arith.index_cast %j : index to i32
    %three = arith.constant 3 : i32
    %kband = arith.shrui %ki, %three : i32
    %qband = arith.shrsi %qi, %three : i32
    %before = arith.cmpi ult, %kband, %qband : i32
    %d = arith.subi %qi, %ki : i32
    %c100 = arith.constant 100 : i32
    %far = arith.cmpi ugt, %d, %c100 : i32
    %c7 = arith.constant 7 : i32
    %fd = arith.floordivsi %d, %c7 : i32
    %cd = arith.ceildivsi %d, %c7 : i32
    %rem = arith.subi %cd, %fd : i32
    %zero = arith.constant 0 : i32
    %q0 = arith.divsi %qi, %zero : i32
    %r0 = arith.remsi %ki, %zero : i32
    %r0k = arith.subi %r0, %ki : i32
    %c40 = arith.constant 40 : i32
    %sh = arith.shli %ki, %c40 : i32
    %sr = arith.shrsi %d, %c40 : i32
    %undef0 = arith.addi %q0, %r0k : i32
    %undef1 = arith.addi %undef0, %sh : i32
    %undef = arith.addi %undef1, %sr : i32
    %undeff = arith.sitofp %undef : i32 to f32
    %remf = arith.sitofp %rem : i32 to f32
    %quarter = arith.constant 0.25 : f32
    %half = arith.constant 0.5 : f32
    %mquarter = arith.constant -0.25 : f32
    %a0 = arith.mulf %m1, %half : f32
    %a1 = arith.mulf %ef, %quarter : f32
    %a2 = arith.mulf %u, %mquarter : f32
    %a3 = arith.select %before, %quarter, %mquarter : f32
    %zf = arith.constant 0.0 : f32
    %a4 = arith.select %far, %mquarter, %zf : f32
    %a5 = arith.mulf %remf, %half : f32
    %a6 = arith.mulf %undeff, %quarter : f32
    %s0 = arith.addf %x, %a0 : f32
    %s1 = arith.addf %s0, %a1 : f32
    %s2 = arith.addf %s1, %a2 : f32
    %s3 = arith.addf %s2, %a3 : f32
    %s4 = arith.addf %s3, %a4 : f32
    %s5 = arith.addf %s4, %a5 : f32
    %y = arith.addf %s5, %a6 : f32
    attn.yield %y : f32
  } : tensor<2x4x200x200xf32>
  %c = attn.mask %m {kind = #attn.mask<causal>} : tensor<2x4x200x200xf32>
  %p = attn.softmax %c {dim = 3} : tensor<2x4x200x200xf32> -> tensor<2x4x200x200xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x200x200xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}
