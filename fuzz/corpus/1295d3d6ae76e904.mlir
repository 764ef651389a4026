func.func @alibi_window_dynamic(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x?xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<?x4x?x?xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %slope = arith.constant 0.0625 : f32
    %bias = arith.mulf %df, %slope : f32
    %y = arith.addf %x, %bias : f32
    attn.yield %y : f32
  } : tensor<?x4x?x?xf32>
  %m = attn.mask %c {kind = #attn.mask<window = [256, 0]>} : tensor<?x4x?x?xf32>
  %p = attn.softmax %m {dim = 3} : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xbf16>
  %o = attn.matmul %p, %v : tensor<?x4x?x?xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}
