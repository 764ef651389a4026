// REQUIRES: gpu
// One-token decode with GQA (4 query heads per K/V head): the launch packs the 4 query heads of a K/V head into the rows of one
// block, so 2 x 2 blocks read K/V once each (16 key tiles of 64, the last
// partial and masked), instead of 16 blocks reading each K/V head 4 times.
// The logsumexp has the same layout packed or not. Also in BSHD memory.
// RUN: attn-run --check --profile --iters=1 --warmup=0 --variant=sm80 --block-m=64 --block-n=64 --num-warps=4 --stages=2 %s | FileCheck %s --check-prefix=SM80
// RUN: attn-run --check --profile --iters=1 --warmup=0 --variant=sm90 --block-m=64 --block-n=64 --num-warps=4 --stages=2 %s | FileCheck %s --check-prefix=SM90
// RUN: attn-run --check --profile --iters=1 --warmup=0 --variant=sm90ws --block-m=128 --block-n=64 --num-warps=12 --stages=2 %s | FileCheck %s --check-prefix=WS
// RUN: attn-run --check --layout=bshd %s | FileCheck %s
// SM80: check output 0 {{.*}} PASS
// SM80: check output 1 {{.*}} PASS
// SM80: key tiles of attn_fwd_bf16_hd128_lse_sm80_64x64w4s2: 64 of 64 computed (0.0% skipped), 4 masked element-wise; 8 splits per query block, query heads packed
// SM90: check output 0 {{.*}} PASS
// SM90: check output 1 {{.*}} PASS
// SM90: key tiles of attn_fwd_bf16_hd128_lse_sm90_64x64w4s2: 64 of 64 computed (0.0% skipped), 4 masked element-wise; 8 splits per query block, query heads packed
// WS: check output 0 {{.*}} PASS
// WS: check output 1 {{.*}} PASS
// WS: key tiles of attn_fwd_bf16_hd128_lse_sm90ws_128x64w12s2: 64 of 64 computed (0.0% skipped), 4 masked element-wise; 8 splits per query block, query heads packed
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @decode(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x1000x128xbf16>, %v: tensor<2x2x1000x128xbf16>)
    -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = attn.flash %q, %k, %v {scale = 0.0883883461 : f32}
    : tensor<2x8x1x128xbf16>, tensor<2x2x1000x128xbf16>, tensor<2x2x1000x128xbf16> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
}
