// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_90a -verify-diagnostics

func.func @hd_not_multiple_of_8(%q: tensor<1x1x64x60xbf16>, %k: tensor<1x1x64x60xbf16>, %v: tensor<1x1x64x60xbf16>,
    %o: tensor<1x1x64x60xbf16>, %do: tensor<1x1x64x60xbf16>, %lse: tensor<1x1x64xf32>) -> tensor<1x1x64x60xbf16> {
  // expected-error @+1 {{backward variant sm80 needs head dims that are multiples of 8 up to 256, got 60/60}}
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32}
      : tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>,
        tensor<1x1x64x60xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>, tensor<1x1x64x60xbf16>
  return %dq : tensor<1x1x64x60xbf16>
}

// -----

// The reference evaluates a transposed k; the kernels do not.
func.func @transposed(%q: tensor<1x1x64x64xbf16>, %kt: tensor<1x1x64x64xbf16>,
    %o: tensor<1x1x64x64xbf16>, %lse: tensor<1x1x64xf32>) -> tensor<1x1x64x64xbf16> {
  // expected-error @+1 {{backward variant sm80 needs an untransposed k ([batch, heads, seq, dim]; the reference evaluates a transposed one)}}
  %dq, %dk, %dv = attn.flash_bwd %q, %kt, %q, %o, %o, %lse {scale = 0.125 : f32, transpose_k}
      : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>,
        tensor<1x1x64x64xbf16>, tensor<1x1x64xf32>
      -> tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
  return %dq : tensor<1x1x64x64xbf16>
}
