// RUN: attn-opt %s -verify-diagnostics -attn-select-config="arch=sm_90a backward-variant=sm90"

// A forced backward variant that cannot serve the operands is an error
// naming why (without the override, sm80 would serve).
func.func @hd256(%q: tensor<1x4x512x256xbf16>, %k: tensor<1x4x512x256xbf16>, %v: tensor<1x4x512x256xbf16>,
    %o: tensor<1x4x512x256xbf16>, %do: tensor<1x4x512x256xbf16>, %lse: tensor<1x4x512xf32>) -> tensor<1x4x512x256xbf16> {
  // expected-error @+1 {{backward variant sm90 needs head dims of 64 or 128 (whole 64-column swizzle blocks, dK and dV in registers), got 256/256}}
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.0625 : f32}
      : tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>,
        tensor<1x4x512x256xbf16>, tensor<1x4x512xf32>
      -> tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>, tensor<1x4x512x256xbf16>
  return %dq : tensor<1x4x512x256xbf16>
}
