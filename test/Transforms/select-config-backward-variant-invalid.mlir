// RUN: attn-opt %s -verify-diagnostics -attn-select-config="arch=sm_90a backward-variant=sm90"

// A forced backward variant that cannot serve the operands is an error
// naming why (without the override, sm80 would serve).
func.func @hd192(%q: tensor<1x4x512x192xbf16>, %k: tensor<1x4x512x192xbf16>, %v: tensor<1x4x512x192xbf16>,
    %o: tensor<1x4x512x192xbf16>, %do: tensor<1x4x512x192xbf16>, %lse: tensor<1x4x512xf32>) -> tensor<1x4x512x192xbf16> {
  // expected-error @+1 {{backward variant sm90 has no tiles for head dims 192/192 on sm_90a (the config gives each 64 keys 1 warpgroup(s), which does not split head dims 192/192 into whole 64-column blocks of at most 128 columns of dK and dV each)}}
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.0625 : f32}
      : tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>,
        tensor<1x4x512x192xbf16>, tensor<1x4x512xf32>
      -> tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>, tensor<1x4x512x192xbf16>
  return %dq : tensor<1x4x512x192xbf16>
}
