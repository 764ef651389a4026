// REQUIRES: gpu
// The persistent kernel's two Q buffers (hd64, and hd128 at 128-key tiles:
// the next tile's Q loads while this one runs), each block cycling both
// through several phases. Bottom-right causal with Sq > Skv gives work
// tiles of 0, 1 and 2 key tiles (query blocks 0-5 see no key, 6 one tile,
// 7 two; 640 tiles on 132 blocks), each buffer released after its last S
// or, with no keys, at once. hd128 f16 with a causal window of 200 keys
// (1 to 3 key tiles per work tile) and its LSE; these two draw tiles from
// the dynamic scheduler. A full mask (static order) at hd64, 192 tiles.
// With 2 and 3 stages, and 64-key tiles.
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=128 --block-n=128 --num-warps=12 --stages=3 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --block-m=128 --block-n=64 --num-warps=12 --stages=2 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @q_buffers(%q: tensor<2x40x1000x64xbf16>, %k: tensor<2x8x130x64xbf16>, %v: tensor<2x8x130x64xbf16>,
                     %q2: tensor<1x24x1500x128xf16>, %k2: tensor<1x24x1500x128xf16>, %v2: tensor<1x24x1500x128xf16>,
                     %q3: tensor<1x64x300x64xbf16>, %k3: tensor<1x64x450x64xbf16>, %v3: tensor<1x64x450x64xbf16>)
    -> (tensor<2x40x1000x64xbf16>, tensor<1x24x1500x128xf16>, tensor<1x24x1500xf32>, tensor<1x64x300x64xbf16>) {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<2x40x1000x64xbf16>, tensor<2x8x130x64xbf16>, tensor<2x8x130x64xbf16> -> tensor<2x40x1000x64xbf16>
  %o2, %lse = attn.flash %q2, %k2, %v2 {scale = 0.0883883461 : f32, mask = #attn.mask<causal, window = [200, 0]>}
    : tensor<1x24x1500x128xf16>, tensor<1x24x1500x128xf16>, tensor<1x24x1500x128xf16> -> tensor<1x24x1500x128xf16>, tensor<1x24x1500xf32>
  %o3 = attn.flash %q3, %k3, %v3 {scale = 0.125 : f32}
    : tensor<1x64x300x64xbf16>, tensor<1x64x450x64xbf16>, tensor<1x64x450x64xbf16> -> tensor<1x64x300x64xbf16>
  return %o, %o2, %lse, %o3 : tensor<2x40x1000x64xbf16>, tensor<1x24x1500x128xf16>, tensor<1x24x1500xf32>, tensor<1x64x300x64xbf16>
}
