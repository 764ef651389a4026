// RUN: attn-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{spill_block_n must list positive key tiles, most keys first (each below the one before)}}
func.func private @f() attributes {p = #attn.launch_plan<spill_block_n = [64, 96]>}

// -----

// expected-error @+1 {{cp_async_spill_block_n needs cp_async}}
func.func private @f() attributes {p = #attn.launch_plan<cp_async_spill_block_n = [64]>}

// -----

// expected-error @+1 {{cp_async names the persistent (TMA) variant sm90ws; it must load with cp.async}}
func.func private @f() attributes {p = #attn.launch_plan<cp_async = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>>}

// -----

func.func @no_config(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{'attn.flash' op has a launch plan but no config}}
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, plan = #attn.launch_plan<spill_block_n = [64]>} : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @not_narrower(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{'attn.flash' op launch plan's spill_block_n lists 128 keys per tile, not fewer than its config's 128}}
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 128, block_n = 128, num_warps = 8, stages = 2>, plan = #attn.launch_plan<spill_block_n = [128, 64]>} : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @bad_tile(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{'attn.flash' op launch plan's long_keys_spill_block_n entry 40: block_n must be a positive multiple of 16, got 40}}
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 128, block_n = 128, num_warps = 8, stages = 2>, plan = #attn.launch_plan<long_keys = #attn.config<variant = "sm80", block_m = 128, block_n = 64, num_warps = 8, stages = 2>, long_keys_spill_block_n = [40]>} : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16> -> tensor<1x4x128x64xbf16>
  return %o : tensor<1x4x128x64xbf16>
}

// -----

func.func @bwd_plan_no_config(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x128x64xbf16>, %v: tensor<1x4x128x64xbf16>,
    %o: tensor<1x4x128x64xbf16>, %do: tensor<1x4x128x64xbf16>, %lse: tensor<1x4x128xf32>) -> tensor<1x4x128x64xbf16> {
  // expected-error @+1 {{'attn.flash_bwd' op has a backward plan but no config}}
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32, plan = #attn.backward_plan<spill = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>>}
      : tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>,
        tensor<1x4x128x64xbf16>, tensor<1x4x128xf32>
      -> tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>, tensor<1x4x128x64xbf16>
  return %dq : tensor<1x4x128x64xbf16>
}
