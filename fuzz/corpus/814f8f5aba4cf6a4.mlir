func.func private @f() attributes {c = #attn.config<variant = "sm90", block_m = 128, block_n = 96, num_warps = 8, stages = 2>}
