// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_86 | FileCheck %s --check-prefix=SM86
// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_90a 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// The backward gets its own tiles. Head dim 64: on sm_90a the
// warp-specialized wgmma variant, two consumer warpgroups of 64 keys and a
// producer, query tiles of 128; on sm_86 one warp
// per 16 keys, P in registers, a double-buffered Q/dO pipeline.
// SM90-LABEL: func @hd64
// SM90: config = #attn.backward_config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>
// SM86-LABEL: func @hd64
// SM86: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>
func.func @hd64(%q: tensor<2x8x1024x64xbf16>, %k: tensor<2x8x1024x64xbf16>, %v: tensor<2x8x1024x64xbf16>,
    %o: tensor<2x8x1024x64xbf16>, %do: tensor<2x8x1024x64xbf16>, %lse: tensor<2x8x1024xf32>) -> tensor<2x8x1024x64xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32}
      : tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>,
        tensor<2x8x1024x64xbf16>, tensor<2x8x1024xf32>
      -> tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>
  return %dq : tensor<2x8x1024x64xbf16>
}

// -----

// Head dim 128: query tiles of 64 on sm_90a (the registers of dK and dV);
// on sm_86 two warps share each 16 keys (dK and dV in half the registers)
// and its 99 KB of shared memory take one Q/dO stage.
// SM90-LABEL: func @hd128
// SM90: config = #attn.backward_config<variant = "sm90ws", block_m = 64, block_n = 128, num_warps = 12, stages = 2>
// SM86-LABEL: func @hd128
// SM86: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 8, stages = 1>
func.func @hd128(%q: tensor<2x8x1024x128xbf16>, %k: tensor<2x8x1024x128xbf16>, %v: tensor<2x8x1024x128xbf16>,
    %o: tensor<2x8x1024x128xbf16>, %do: tensor<2x8x1024x128xbf16>, %lse: tensor<2x8x1024xf32>) -> tensor<2x8x1024x128xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32}
      : tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>,
        tensor<2x8x1024x128xbf16>, tensor<2x8x1024xf32>
      -> tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>
  return %dq : tensor<2x8x1024x128xbf16>
}

// -----

// A config given by hand is kept.
// SM90-LABEL: func @given
// SM90: config = #attn.backward_config<variant = "sm80", block_m = 32, block_n = 16, num_warps = 2, stages = 1>
func.func @given(%q: tensor<2x8x1024x64xbf16>, %k: tensor<2x8x1024x64xbf16>, %v: tensor<2x8x1024x64xbf16>,
    %o: tensor<2x8x1024x64xbf16>, %do: tensor<2x8x1024x64xbf16>, %lse: tensor<2x8x1024xf32>) -> tensor<2x8x1024x64xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse
      {scale = 0.125 : f32, config = #attn.backward_config<variant = "sm80", block_m = 32, block_n = 16, num_warps = 2, stages = 1>}
      : tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>,
        tensor<2x8x1024x64xbf16>, tensor<2x8x1024xf32>
      -> tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>, tensor<2x8x1024x64xbf16>
  return %dq : tensor<2x8x1024x64xbf16>
}

// -----

// Head dim 256: dK and dV of 64 keys would not fit a warpgroup's registers;
// two warpgroups share 64 keys, each with half of the head dims; 128-row
// query tiles in one stage fill shared memory. (The warp-specialized
// variant's consumers hold both whole: it says why it does not serve.)
// SM90-LABEL: func @hd256
// SM90: config = #attn.backward_config<variant = "sm90", block_m = 128, block_n = 64, num_warps = 8, stages = 1>
// REMARK: remark: backward variant sm90ws needs head dims of 64 or 128 (a consumer keeps dK and dV of its keys in registers), got 256/256; using backward variant sm90
func.func @hd256(%q: tensor<1x4x512x256xbf16>, %k: tensor<1x4x512x256xbf16>, %v: tensor<1x4x512x256xbf16>,
    %o: tensor<1x4x512x256xbf16>, %do: tensor<1x4x512x256xbf16>, %lse: tensor<1x4x512xf32>) -> tensor<1x4x512x256xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.0625 : f32}
      : tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>,
        tensor<1x4x512x256xbf16>, tensor<1x4x512xf32>
      -> tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>
  return %dq : tensor<1x4x512x256xbf16>
}

// -----

// Head dim 192: neither one warpgroup per 64 keys (192 columns of dK and
// dV) nor two (96: not whole 64-column blocks) serve; sm_90a takes the
// sm80 variant and says why.
// SM90-LABEL: func @hd192
// SM90: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 8, stages = 2>
// REMARK: remark: backward variant sm90ws needs head dims of 64 or 128 (a consumer keeps dK and dV of its keys in registers), got 192/192; using backward variant sm80
// REMARK: remark: backward variant sm90 has no tiles for head dims 192/192 on sm_90a (the config gives each 64 keys 1 warpgroup(s), which does not split head dims 192/192 into whole 64-column blocks of at most 128 columns of dK and dV each); using backward variant sm80
// REMARK-NOT: remark
func.func @hd192(%q: tensor<1x4x512x192xbf16>, %k: tensor<1x4x512x192xbf16>, %v: tensor<1x4x512x192xbf16>,
    %o: tensor<1x4x512x192xbf16>, %do: tensor<1x4x512x192xbf16>, %lse: tensor<1x4x512xf32>) -> tensor<1x4x512x192xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.0625 : f32}
      : tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>,
        tensor<1x4x512x192xbf16>, tensor<1x4x512xf32>
      -> tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>
  return %dq : tensor<1x4x512x192xbf16>
}
