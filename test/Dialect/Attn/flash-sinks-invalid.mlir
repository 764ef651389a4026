// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @per_kv_head(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %s: tensor<2xf32>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'sinks' must hold one logit per query head, shape 8 or 1x8x1x1, got 2}}
  %o = attn.flash %q, %k, %k sinks(%s : tensor<2xf32>) {scale = 1.0 : f32}
    : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}

// -----

func.func @per_query(%q: tensor<1x8x16x64xbf16>, %s: tensor<1x8x16x1xf32>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'sinks' must hold one logit per query head, shape 8 or 1x8x1x1, got 1x8x16x1}}
  %o = attn.flash %q, %q, %q sinks(%s : tensor<1x8x16x1xf32>) {scale = 1.0 : f32}
    : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}

// -----

func.func @element(%q: tensor<1x8x16x64xbf16>, %s: tensor<8xbf16>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{must be ranked tensor of 32-bit float values, but got 'tensor<8xbf16>'}}
  %o = attn.flash %q, %q, %q sinks(%s : tensor<8xbf16>) {scale = 1.0 : f32}
    : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}

// -----

func.func @empty(%q: tensor<1x8x16x64xbf16>, %s: tensor<0xf32>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'sinks' dimension 0 is 0; extents must be between 1 and 2147483647}}
  %o = attn.flash %q, %q, %q sinks(%s : tensor<0xf32>) {scale = 1.0 : f32}
    : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}
