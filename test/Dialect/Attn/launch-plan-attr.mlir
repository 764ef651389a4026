// RUN: attn-opt %s | attn-opt | FileCheck %s

// A launch plan round-trips: the narrower key tiles as lists, the other
// configs without their mnemonic.
// CHECK: p0 = #attn.launch_plan<spill_block_n = [96, 64]>
// CHECK-SAME: p1 = #attn.launch_plan<long_keys = <variant = "sm90ws", block_m = 128, block_n = 176, num_warps = 12, stages = 2>, long_keys_spill_block_n = [160], cp_async = <variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>, cp_async_spill_block_n = [64]>
// CHECK-SAME: p2 = #attn.backward_plan<spill = <variant = "sm90", block_m = 64, block_n = 128, num_warps = 8, stages = 2>>
func.func private @f() attributes {
  p0 = #attn.launch_plan<spill_block_n = [96, 64]>,
  p1 = #attn.launch_plan<long_keys = #attn.config<variant = "sm90ws", block_m = 128, block_n = 176, num_warps = 12, stages = 2>, long_keys_spill_block_n = [160], cp_async = #attn.config<variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>, cp_async_spill_block_n = [64]>,
  p2 = #attn.backward_plan<spill = #attn.backward_config<variant = "sm90", block_m = 64, block_n = 128, num_warps = 8, stages = 2>>
}
