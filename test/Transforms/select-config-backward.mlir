// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_86 | FileCheck %s --check-prefix=SM86

// The backward gets its own tiles. Head dim 64: one warp per 16 keys, P in
// registers, a double-buffered Q/dO pipeline (the wgmma variant is opt-in:
// select-config-backward-variant.mlir).
// SM90-LABEL: func @hd64
// SM90: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>
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

// Head dim 128: two warps share each 16 keys (dK and dV in half the
// registers); sm_86's 99 KB of shared memory take one Q/dO stage.
// SM90-LABEL: func @hd128
// SM90: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 8, stages = 2>
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

// Head dim 256: 32 keys per block.
// SM90-LABEL: func @hd256
// SM90: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 8, stages = 2>
func.func @hd256(%q: tensor<1x4x512x256xbf16>, %k: tensor<1x4x512x256xbf16>, %v: tensor<1x4x512x256xbf16>,
    %o: tensor<1x4x512x256xbf16>, %do: tensor<1x4x512x256xbf16>, %lse: tensor<1x4x512xf32>) -> tensor<1x4x512x256xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.0625 : f32}
      : tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>,
        tensor<1x4x512x256xbf16>, tensor<1x4x512xf32>
      -> tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>
  return %dq : tensor<1x4x512x256xbf16>
}
