func.func @varlen(%q: tensor<1000x4x128xbf16>, %k: tensor<1000x4x128xbf16>, %v: tensor<1000x4x128xbf16>,
                  %cq: tensor<6xi32>, %ck: tensor<6xi32>, %bias: tensor<5x4xf32>) -> (tensor<1000x4x128xbf16>, tensor<4x1000xf32>) {
  %o, %lse = attn.flash %q, %k, %v captures(%bias : tensor<5x4xf32>) cu_seqlens_q(%cq : tensor<6xi32>) cu_seqlens_k(%ck : tensor<6xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, window = [100, 0], bottom_right>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %bias_t: tensor<5x4xf32>):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %th = math.tanh %d : f32
    %y0 = arith.mulf %th, %c : f32
    %hb = tensor.extract %bias_t[%b, %h] : tensor<5x4xf32>
    %y = arith.addf %y0, %hb : f32
    attn.yield %y : f32
  } : tensor<1000x4x128xbf16>, tensor<1000x4x128xbf16>, tensor<1000x4x128xbf16> -> tensor<1000x4x128xbf16>, tensor<4x1000xf32>
  return %o, %lse : tensor<1000x4x128xbf16>, tensor<4x1000xf32>
}
