func.func private @f() attributes {c = #attn.config<variant = "sm90ws", block_m = 128, block_n = 272, num_warps = 12, stages = 2>}
