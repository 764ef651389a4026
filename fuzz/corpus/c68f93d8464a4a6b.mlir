func.func private @f() attributes {c = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 40, num_warps = 4, stages = 2>}
