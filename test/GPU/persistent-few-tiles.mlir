// REQUIRES: gpu
// The persistent kernel with fewer work tiles than SMs (2 heads x 3 query
// blocks = 6), and with exactly one (one head, 100 queries): the grid is
// cut to the tiles. Non-causal, head dims 128 and 256, bf16.
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @few(%q: tensor<1x2x300x128xbf16>, %k: tensor<1x2x700x128xbf16>, %v: tensor<1x2x700x128xbf16>,
               %q1: tensor<1x1x100x256xbf16>, %k1: tensor<1x1x90x256xbf16>, %v1: tensor<1x1x90x256xbf16>)
    -> (tensor<1x2x300x128xbf16>, tensor<1x1x100x256xbf16>) {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32}
    : tensor<1x2x300x128xbf16>, tensor<1x2x700x128xbf16>, tensor<1x2x700x128xbf16> -> tensor<1x2x300x128xbf16>
  %o1 = attn.flash %q1, %k1, %v1 {scale = 0.0625 : f32}
    : tensor<1x1x100x256xbf16>, tensor<1x1x90x256xbf16>, tensor<1x1x90x256xbf16> -> tensor<1x1x100x256xbf16>
  return %o, %o1 : tensor<1x2x300x128xbf16>, tensor<1x1x100x256xbf16>
}
