func.func private @f() attributes {c = #attn.config<variant = "sm90ws", block_m = 64, block_n = 128, num_warps = 4, stages = 2>}
