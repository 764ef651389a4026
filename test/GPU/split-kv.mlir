// REQUIRES: gpu
// Split-KV: blocks share a query block's key tiles and a second kernel
// merges their outputs and logsumexps. Forced to 7 splits, to none, and the
// runtime's choice; each variant. With 64x64 tiles and the causal mask
// aligned to the bottom-right, query block m needs 12 + m key tiles (70 of
// 80 per head), the last two masked: 7 splits take shares of 2 or 3 tiles,
// and the last split of some blocks gets none. The split changes neither
// which tiles are computed nor which are masked.
// RUN: attn-run --check --profile --iters=1 --warmup=0 --splits=7 --variant=sm80 --block-m=64 --block-n=64 --num-warps=4 --stages=2 %s | FileCheck %s --check-prefix=SPLIT7
// RUN: attn-run --check --profile --iters=1 --warmup=0 --splits=1 --variant=sm80 --block-m=64 --block-n=64 --num-warps=4 --stages=2 %s | FileCheck %s --check-prefix=SPLIT1
// RUN: attn-run --check --splits=7 --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --profile --iters=1 --warmup=0 --splits=7 --variant=sm90ws --block-m=128 --block-n=64 --num-warps=12 --stages=2 %s | FileCheck %s --check-prefix=WS7
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// SPLIT7: check output 0 {{.*}} PASS
// SPLIT7: check output 1 {{.*}} PASS
// SPLIT7: key tiles of attn_fwd_bf16_hd64_causalbr_lse_sm80_64x64w4s2: 140 of 160 computed (12.5% skipped), 20 masked element-wise; 7 splits per query block
// SPLIT1: check output 0 {{.*}} PASS
// SPLIT1: check output 1 {{.*}} PASS
// SPLIT1: key tiles of attn_fwd_bf16_hd64_causalbr_lse_sm80_64x64w4s2: 140 of 160 computed (12.5% skipped), 20 masked element-wise; 1 split per query block
// The persistent kernel, 128 x 64, 3 query blocks: block m needs
// ceil((828 + 128 m) / 64) key tiles (13, 15, 16: 44 of 48 per head), its
// last two or three masked (8 per head); the splits change neither.
// WS7: check output 0 {{.*}} PASS
// WS7: check output 1 {{.*}} PASS
// WS7: key tiles of attn_fwd_bf16_hd64_causalbr_lse_sm90ws_128x64w12s2: 88 of 96 computed (8.3% skipped), 16 masked element-wise; 7 splits per query block
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @split(%q: tensor<1x2x300x64xbf16>, %k: tensor<1x2x1000x64xbf16>, %v: tensor<1x2x1000x64xbf16>)
    -> (tensor<1x2x300x64xbf16>, tensor<1x2x300xf32>) {
  %o, %lse = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<1x2x300x64xbf16>, tensor<1x2x1000x64xbf16>, tensor<1x2x1000x64xbf16> -> tensor<1x2x300x64xbf16>, tensor<1x2x300xf32>
  return %o, %lse : tensor<1x2x300x64xbf16>, tensor<1x2x300xf32>
}
