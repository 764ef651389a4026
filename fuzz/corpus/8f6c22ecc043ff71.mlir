func.func private @f() attributes {
  c0 = #attn.config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 4, stages = 1>,
  c1 = #attn.config<variant = "sm80", block_m = 128, block_n = 128, num_warps = 8, stages = 2>
}
