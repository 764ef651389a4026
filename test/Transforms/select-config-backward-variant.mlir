// RUN: attn-opt %s -attn-select-config="arch=sm_90a backward-variant=sm80" | FileCheck %s
// RUN: attn-opt %s -attn-select-config="arch=sm_90a backward-variant=sm90" | FileCheck %s --check-prefix=SM90
// RUN: not attn-opt %s -attn-select-config="arch=sm_80 backward-variant=sm90" 2>&1 | FileCheck %s --check-prefix=WRONG-ARCH
// RUN: not attn-opt %s -attn-select-config="arch=sm_90a backward-variant=sm100" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// backward-variant forces the backward's variant, replacing a config the op
// carries; the forward's overrides leave it alone.
// CHECK: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>
// SM90: config = #attn.backward_config<variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>
// WRONG-ARCH: error: 'attn.flash_bwd' op backward variant sm90 does not run on sm_80
// UNKNOWN: error: unknown backward variant 'sm100'; expected one of sm90ws, sm90, sm80
func.func @hd64(%q: tensor<2x8x1024x64xbf16>, %k: tensor<2x8x1024x64xbf16>, %v: tensor<2x8x1024x64xbf16>,
    %o: tensor<2x8x1024x64xbf16>, %do: tensor<2x8x1024x64xbf16>, %lse: tensor<2x8x1024xf32>) -> tensor<2x8x1024x64xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse
      {scale = 0.125 : f32, config = #attn.backward_config<variant = "sm80", block_m = 32, block_n = 16, num_warps = 2, stages = 1>}
      : tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>,
        tensor<2x8x1024x64xbf16>, tensor<2x8x1024xf32>
      -> tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>
  return %dq : tensor<2x8x1024x64xbf16>
}
