func.func private @f() attributes {m = #attn.mask<window = [-1, -1]>}
