func.func @bf16_score_mod(%x: tensor<1x1x4x4xbf16>) -> tensor<1x1x4x4xbf16> {
  %y = attn.kernel "score_mod" in_place(%x) : (tensor<1x1x4x4xbf16>) -> tensor<1x1x4x4xbf16> {
  ^bb0(%a: tensor<1x1x4x4xbf16>):
    %b = attn.score_mod %a {
    ^bb0(%s: bf16, %i: index, %j: index, %k: index, %l: index):
      %n = arith.negf %s : bf16
      attn.yield %n : bf16
    } : tensor<1x1x4x4xbf16>
    attn.yield %b : tensor<1x1x4x4xbf16>
  }
  return %y : tensor<1x1x4x4xbf16>
}
