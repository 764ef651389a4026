func.func @captures(%q: tensor<2x4x200x64xbf16>, %k: tensor<2x4x200x64xbf16>, %v: tensor<2x4x200x64xbf16>,
                    %head_bias: tensor<4xf32>, %rel: tensor<399xbf16>, %doc: tensor<200xi32>) -> tensor<2x4x200x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x200xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x4x200x200xf32>
  %m = attn.score_mod %t captures(%head_bias, %rel, %doc : tensor<4xf32>, tensor<399xbf16>, tensor<200xi32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %hb_t: tensor<4xf32>, %rel_t: tensor<399xbf16>, %doc_t: tensor<200xi32>):
    %hb = tensor.extract %hb_t[%h] : tensor<4xf32>
    %off = arith.constant 199 : index
    %d = arith.subi %i, %j : index
    %r = arith.addi %d, %off : index
    %rel16 = tensor.extract %rel_t[%r] : tensor<399xbf16>
    %relf = arith.extf %rel16 : bf16 to f32
    %dq = tensor.extract %doc_t[%i] : tensor<200xi32>
    %dk = tensor.extract %doc_t[%j] : tensor<200xi32>
    %c20 = arith.constant 20 : i32
    %bq = arith.divui %dq, %c20 : i32
    %bk = arith.divui %dk, %c20 : i32
    %same = arith.cmpi eq, %bq, %bk : i32
    %y0 = arith.addf %x, %hb : f32
    %y1 = arith.addf %y0, %relf : f32
    %pen = arith.constant 2.0 : f32
    %y2 = arith.subf %y1, %pen : f32
    %y = arith.select %same, %y1, %y2 : f32
    attn.yield %y : f32
  } : tensor<2x4x200x200xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x200x200xf32> -> tensor<2x4x200x200xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x200x200xbf16>, tensor<2x4x200x64xbf16> -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}
