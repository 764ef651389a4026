func.func private @f() attributes {c = #attn.config<variant = "sm90", block_m = 128, block_n = 128, num_warps = 4, stages = 2>}
