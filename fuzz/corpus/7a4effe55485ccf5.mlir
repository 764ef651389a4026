func.func private @f() attributes {
  m0 = #attn.mask<>,
  m1 = #attn.mask<bias, keep, key_padding, bottom_right, window = [128, 0], causal>,
  m2 = #attn.mask<window = [0, 7]>
}
