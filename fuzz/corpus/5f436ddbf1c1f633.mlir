func.func private @f() attributes {c = #attn.config<variant = "sm80", block_m = 96, block_n = 64, num_warps = 3, stages = 2>}
