func.func @captures_gqa(%q: tensor<2x8x130x128xbf16>, %k: tensor<2x2x257x128xbf16>, %v: tensor<2x2x257x128xbf16>,
                        %len: tensor<2xi32>, %blocks: tensor<8x5xf32>, %flip: tensor<8xi1>, %shift: tensor<2x8xi64>) -> tensor<2x8x130x128xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) captures(%blocks, %flip, %shift : tensor<8x5xf32>, tensor<8xi1>, tensor<2x8xi64>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<key_padding>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %bl_t: tensor<8x5xf32>, %fl_t: tensor<8xi1>, %sh_t: tensor<2x8xi64>):
    %c64 = arith.constant 64 : index
    %kb = arith.divui %j, %c64 : index
    %bias = tensor.extract %bl_t[%h, %kb] : tensor<8x5xf32>
    %flipped = tensor.extract %fl_t[%h] : tensor<8xi1>
    %neg = arith.negf %x : f32
    %y0 = arith.select %flipped, %neg, %x : f32
    %sh = tensor.extract %sh_t[%b, %h] : tensor<2x8xi64>
    %c16 = arith.constant 16 : i64
    %shm = arith.remui %sh, %c16 : i64
    %shf = arith.uitofp %shm : i64 to f32
    %tenth = arith.constant 0.1 : f32
    %s = arith.mulf %shf, %tenth : f32
    %y1 = arith.addf %y0, %bias : f32
    %y = arith.addf %y1, %s : f32
    attn.yield %y : f32
  } : tensor<2x8x130x128xbf16>, tensor<2x2x257x128xbf16>, tensor<2x2x257x128xbf16> -> tensor<2x8x130x128xbf16>
  return %o : tensor<2x8x130x128xbf16>
}
