// RUN: attn-opt %s -attn-select-config="arch=sm_90a backward-tiles=64x64x4x1" | FileCheck %s
// RUN: attn-opt %s -attn-select-config="arch=sm_90a backward-variant=sm80 backward-tiles=64x32x8x2" | FileCheck %s --check-prefix=SM80
// RUN: attn-opt %s -attn-select-config="arch=sm_90a backward-tiles=64x32x8x2" | FileCheck %s --check-prefix=TO-SM80
// RUN: attn-opt %s -attn-select-config="arch=sm_90a backward-tiles=128x128x12x2" | FileCheck %s --check-prefix=WS
// RUN: not attn-opt %s -attn-select-config="arch=sm_90a backward-tiles=64x64x3x2" 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not attn-opt %s -attn-select-config="arch=sm_90a backward-variant=sm90 backward-tiles=64x32x8x2" 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: not attn-opt %s -attn-select-config="arch=sm_90a backward-tiles=64x64x8x2" 2>&1 | FileCheck %s --check-prefix=KEY-SPLIT
// RUN: not attn-opt %s -attn-select-config="arch=sm_90a backward-tiles=64x128x8x1" 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not attn-opt %s -attn-select-config="arch=sm_90a backward-tiles=128x128x8" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not attn-opt %s -attn-select-config="arch=sm_90a backward-tiles=64x0x4x2" 2>&1 | FileCheck %s --check-prefix=MALFORMED-ZERO

// backward-tiles forces the backward's tiles, replacing a config the op
// carries; without backward-variant they go to the first variant whose
// tile rules take them (the warp-specialized one's 12 warps, sm90's 4 or 8
// with 64 keys per warpgroup, sm80's); tiles the variant cannot run are an
// error saying why.
// CHECK: config = #attn.backward_config<variant = "sm90", block_m = 64, block_n = 64, num_warps = 4, stages = 1>
// TO-SM80: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 8, stages = 2>
// WS: config = #attn.backward_config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>
// NONE: error: 'attn.flash_bwd' op backward tiles 64x64x3x2 do not serve any backward variant on sm_90a (sm90ws: num_warps must be 12 (a producer and two consumer warpgroups), got 3; sm90: num_warps must be 4 or 8 (one or two warpgroups), got 3; sm80: num_warps must be 1, 2, 4 or 8, got 3)
// SM80: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 8, stages = 2>
// INVALID: error: 'attn.flash_bwd' op backward tiles 64x32x8x2 do not serve backward variant sm90: block_n must be 64 keys per warpgroup or per two warpgroups (128 or 64), got 32
// KEY-SPLIT: error: 'attn.flash_bwd' op backward tiles 64x64x8x2 do not serve backward variant sm90: the config gives each 64 keys 2 warpgroup(s), which does not split head dims 64/64 into whole 64-column blocks of at most 128 columns of dK and dV each
// SPLIT: error: 'attn.flash_bwd' op backward tiles 64x128x8x1 do not serve backward variant sm90: the config splits dQ's head dim 64 over 2 warpgroups, which does not give whole 64-column blocks
// MALFORMED: error: backward-tiles '128x128x8' is not BLOCK_MxBLOCK_NxWARPSxSTAGES (four positive integers, e.g. 64x128x8x2)
// MALFORMED-ZERO: error: backward-tiles '64x0x4x2' is not BLOCK_MxBLOCK_NxWARPSxSTAGES
func.func @hd64(%q: tensor<2x8x1024x64xbf16>, %k: tensor<2x8x1024x64xbf16>, %v: tensor<2x8x1024x64xbf16>,
    %o: tensor<2x8x1024x64xbf16>, %do: tensor<2x8x1024x64xbf16>, %lse: tensor<2x8x1024xf32>) -> tensor<2x8x1024x64xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse
      {scale = 0.125 : f32, config = #attn.backward_config<variant = "sm80", block_m = 32, block_n = 16, num_warps = 2, stages = 1>}
      : tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>,
        tensor<2x8x1024x64xbf16>, tensor<2x8x1024xf32>
      -> tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>
  return %dq : tensor<2x8x1024x64xbf16>
}
