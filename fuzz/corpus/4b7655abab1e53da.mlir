func.func @positional(%s: tensor<2x8x128x256xf32>) -> tensor<2x8x128x256xf32> {
  %a = attn.mask %s {kind = #attn.mask<causal>} : tensor<2x8x128x256xf32>
  %b = attn.mask %a {kind = #attn.mask<bottom_right, causal>} : tensor<2x8x128x256xf32>
  %c = attn.mask %b {kind = #attn.mask<window = [256, 0]>} : tensor<2x8x128x256xf32>
  %d = attn.mask %c {kind = #attn.mask<window = [-1, 16], bottom_right>} : tensor<2x8x128x256xf32>
  return %d : tensor<2x8x128x256xf32>
}

func.func @with_operands(%s: tensor<2x8x128x256xf32>, %len: tensor<2xi32>,
                         %keep: tensor<2x1x128x256xi1>, %bias: tensor<1x8x1x256xf32>) -> tensor<2x8x128x256xf32> {
  %a = attn.mask %s lengths(%len : tensor<2xi32>) {kind = #attn.mask<key_padding>} : tensor<2x8x128x256xf32>
  %b = attn.mask %a keep(%keep : tensor<2x1x128x256xi1>) {kind = #attn.mask<keep>} : tensor<2x8x128x256xf32>
  %c = attn.mask %b bias(%bias : tensor<1x8x1x256xf32>) {kind = #attn.mask<bias>} : tensor<2x8x128x256xf32>
  %d = attn.mask %c lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x1x128x256xi1>) bias(%bias : tensor<1x8x1x256xf32>)
         {kind = #attn.mask<causal, key_padding, keep, bias>} : tensor<2x8x128x256xf32>
  return %d : tensor<2x8x128x256xf32>
}
