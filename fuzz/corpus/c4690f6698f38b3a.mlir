func.func private @f() attributes {m = #attn.mask<window = [4294967296, 0]>}
