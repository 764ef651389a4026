func.func private @f() attributes {c = #attn.config<variant = "sm80", block_m = 4294967360, block_n = 64, num_warps = 4, stages = 2>}
