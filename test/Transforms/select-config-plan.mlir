// RUN: attn-opt %s -split-input-file -verify-diagnostics -attn-select-config=arch=sm_90a | FileCheck %s
// RUN: attn-opt %s -split-input-file -verify-diagnostics "-attn-select-config=arch=sm_90a block-n=64" | FileCheck %s --check-prefix=TILES
// RUN: attn-opt %s -split-input-file -verify-diagnostics "-attn-select-config=arch=sm_90a variant=sm90ws" | FileCheck %s --check-prefix=VARIANT

// attn-select-config plans every kernel an op may launch (#attn.launch_plan):
// the runtime emits them all before compiling any and afterwards only picks.
// The model's tiles get narrower key tiles for where ptxas spills them, a
// persistent kernel the cp.async kernel of launches TMA cannot read (and
// its narrower tiles: the model's choice too).
// CHECK-LABEL: func @model
// CHECK: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>, plan = #attn.launch_plan<spill_block_n = [112, 96, 80, 64], cp_async = <variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>, cp_async_spill_block_n = [64]>
// Tiles given as options are kept as they are: no spill_block_n.
// TILES-LABEL: func @model
// TILES: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 64, num_warps = 12, stages = 2>, plan = #attn.launch_plan<cp_async = <variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>, cp_async_spill_block_n = [64]>
// A variant alone leaves the tiles to the model, which narrows them.
// VARIANT-LABEL: func @model
// VARIANT: plan = #attn.launch_plan<spill_block_n = [112, 96, 80, 64], cp_async =
func.func @model(%q: tensor<2x16x2048x128xbf16>, %k: tensor<2x16x2048x128xbf16>, %v: tensor<2x16x2048x128xbf16>) -> tensor<2x16x2048x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088 : f32} : tensor<2x16x2048x128xbf16>, tensor<2x16x2048x128xbf16>, tensor<2x16x2048x128xbf16> -> tensor<2x16x2048x128xbf16>
  return %o : tensor<2x16x2048x128xbf16>
}

// -----

// A written config is kept (it fits sm_90a) and not narrowed; it still
// gets its cp.async kernel.
// CHECK-LABEL: func @written
// CHECK: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 96, num_warps = 12, stages = 2>, plan = #attn.launch_plan<cp_async = <variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>, cp_async_spill_block_n = [64]>
func.func @written(%q: tensor<2x16x2048x128xbf16>, %k: tensor<2x16x2048x128xbf16>, %v: tensor<2x16x2048x128xbf16>) -> tensor<2x16x2048x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088 : f32, config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 96, num_warps = 12, stages = 2>} : tensor<2x16x2048x128xbf16>, tensor<2x16x2048x128xbf16>, tensor<2x16x2048x128xbf16> -> tensor<2x16x2048x128xbf16>
  return %o : tensor<2x16x2048x128xbf16>
}

// -----

// A written plan stays as written: here no cp.async kernel, so a launch TMA
// cannot read is an error that says why.
// CHECK-LABEL: func @written_plan
// CHECK: plan = #attn.launch_plan<spill_block_n = [64]>,
func.func @written_plan(%q: tensor<2x16x2048x128xbf16>, %k: tensor<2x16x2048x128xbf16>, %v: tensor<2x16x2048x128xbf16>) -> tensor<2x16x2048x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.088 : f32, config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 96, num_warps = 12, stages = 2>, plan = #attn.launch_plan<spill_block_n = [64]>} : tensor<2x16x2048x128xbf16>, tensor<2x16x2048x128xbf16>, tensor<2x16x2048x128xbf16> -> tensor<2x16x2048x128xbf16>
  return %o : tensor<2x16x2048x128xbf16>
}

// -----

// The backward's model choice gets the config of the next variant for where
// ptxas spills it (#attn.backward_plan).
// CHECK-LABEL: func @backward
// CHECK: config = #attn.backward_config<variant = "sm90ws", {{.*}}>, plan = #attn.backward_plan<spill = <variant = "sm90", {{.*}}>>
func.func @backward(%q: tensor<2x8x1024x64xbf16>, %k: tensor<2x8x1024x64xbf16>, %v: tensor<2x8x1024x64xbf16>,
    %o: tensor<2x8x1024x64xbf16>, %do: tensor<2x8x1024x64xbf16>, %lse: tensor<2x8x1024xf32>) -> tensor<2x8x1024x64xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32}
      : tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>,
        tensor<2x8x1024x64xbf16>, tensor<2x8x1024xf32>
      -> tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>
  return %dq : tensor<2x8x1024x64xbf16>
}

// -----

// A written backward config is kept without a plan.
// CHECK-LABEL: func @backward_written
// CHECK-NOT: backward_plan
// CHECK: return
func.func @backward_written(%q: tensor<2x8x1024x64xbf16>, %k: tensor<2x8x1024x64xbf16>, %v: tensor<2x8x1024x64xbf16>,
    %o: tensor<2x8x1024x64xbf16>, %do: tensor<2x8x1024x64xbf16>, %lse: tensor<2x8x1024xf32>) -> tensor<2x8x1024x64xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32, config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
      : tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>,
        tensor<2x8x1024x64xbf16>, tensor<2x8x1024xf32>
      -> tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>
  return %dq : tensor<2x8x1024x64xbf16>
}
