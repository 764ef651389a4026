func.func @too_many_heads(%a: tensor<70000x4x4xf32>) -> tensor<70000x4x4xf32> {
  %y = attn.kernel "matmul"(%a, %a) : (tensor<70000x4x4xf32>, tensor<70000x4x4xf32>) -> tensor<70000x4x4xf32> {
  ^bb0(%l: tensor<70000x4x4xf32>, %r: tensor<70000x4x4xf32>):
    %b = attn.matmul %l, %r : tensor<70000x4x4xf32>, tensor<70000x4x4xf32> -> tensor<70000x4x4xf32>
    attn.yield %b : tensor<70000x4x4xf32>
  }
  return %y : tensor<70000x4x4xf32>
}
