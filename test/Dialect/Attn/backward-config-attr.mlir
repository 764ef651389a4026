// RUN: attn-opt %s | attn-opt | FileCheck %s

// CHECK: c = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>
func.func private @one_warp_per_key_tile() attributes {c = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
// Four warps share each 16 keys: block_m splits into 4 query tiles of 16.
// CHECK: c = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 8, stages = 1>
func.func private @shared_key_tiles() attributes {c = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 8, stages = 1>}
