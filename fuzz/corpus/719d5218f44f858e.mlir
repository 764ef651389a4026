func.func private @f() attributes {c = #attn.backward_config<variant = "sm80", block_m = 32, block_n = 32, num_warps = 8, stages = 2>}
