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
