func.func private @f() attributes {c = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 16, stages = 2>}
