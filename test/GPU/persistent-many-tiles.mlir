// REQUIRES: gpu
// The persistent kernel with more work tiles than SMs: 40 heads x 4 query
// blocks of 128 = 160 tiles on 132 SMs, so some blocks take a second tile
// (their K/V and Q barriers wrap around to a new phase). Causal: the tiles
// run longest first, drawn from the dynamic scheduler's counter, so blocks
// take tiles of different lengths. f16, GQA 40/8.
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=128 --block-n=64 --num-warps=12 --stages=3 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @many(%q: tensor<1x40x500x64xf16>, %k: tensor<1x8x500x64xf16>, %v: tensor<1x8x500x64xf16>) -> tensor<1x40x500x64xf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>}
    : tensor<1x40x500x64xf16>, tensor<1x8x500x64xf16>, tensor<1x8x500x64xf16> -> tensor<1x40x500x64xf16>
  return %o : tensor<1x40x500x64xf16>
}
