// RUN: attn-translate --attn-to-cuda %s -split-input-file -verify-diagnostics

func.func @no_config(%q: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>)
    -> tensor<1x1x64x64xbf16> {
  // expected-error @+1 {{'attn.flash_bwd' op has no #attn.backward_config; run --attn-select-config first}}
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %q, %o, %o, %lse {scale = 0.125 : f32}
      : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>,
        tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
  return %dq : tensor<1x1x64x64xbf16>
}

// -----

func.func @transposed(%q: tensor<1x1x64x64xbf16>, %o: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>)
    -> tensor<1x1x64x64xbf16> {
  // expected-error @+1 {{'attn.flash_bwd' op has transpose_k, which the backward kernels do not support yet (the reference does); pass k as [batch, heads, seq, dim]}}
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %q, %o, %o, %lse {scale = 0.125 : f32, transpose_k,
      config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
      : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>,
        tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
  return %dq : tensor<1x1x64x64xbf16>
}

// -----

func.func @head_dim(%q: tensor<1x1x64x60xbf16>, %v: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>)
    -> tensor<1x1x64x60xbf16> {
  // expected-error @+1 {{'attn.flash_bwd' op head dims 60/64 are not supported by the backward kernels (multiples of 8 up to 256)}}
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %v, %v, %v, %lse {scale = 0.125 : f32,
      config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
      : tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>,
        tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x64xbf16>
  return %dq : tensor<1x1x64x60xbf16>
}

// -----

func.func @split(%q: tensor<1x1x64x40xbf16>, %lse: tensor<1x1x64xf32>)
    -> tensor<1x1x64x40xbf16> {
  // expected-error @+1 {{'attn.flash_bwd' op config splits head dims 40/40 over 4 warps per 16 keys, which does not give whole 8-column tiles}}
  %dq, %dk, %dv = attn.flash_bwd %q, %q, %q, %q, %q, %lse {scale = 0.125 : f32,
      config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 8, stages = 2>}
      : tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>,
        tensor<1x1x64x40xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>, tensor<1x1x64x40xbf16>
  return %dq : tensor<1x1x64x40xbf16>
}
