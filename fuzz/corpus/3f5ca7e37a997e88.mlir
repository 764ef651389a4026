func.func private @f() attributes {m = #attn.mask<causual>}
