func.func private @f() attributes {m = #attn.mask<bottom_right, key_padding>}
