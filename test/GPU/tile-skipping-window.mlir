// REQUIRES: gpu
// A sliding window of 256 keys to the left (none to the right) on 2048
// keys: query block m of 128 rows reaches keys 128m - 256 .. 128m + 127, so
// with 64-key tiles block 0 computes 2 tiles, block 1 computes 4 and every
// later block 6 of 32: 2 + 4 + 14 x 6 = 90 of 512. A tile is full only if
// every row of the block keeps all its keys: those at 128m - 128 and
// 128m - 64, two per block from block 1 on; the other 90 - 30 are masked.
// RUN: attn-run --check --profile --iters=1 --warmup=0 --variant=sm80 --block-m=128 --block-n=64 --num-warps=4 --stages=2 %s | FileCheck %s
// The persistent kernel with the same tiles computes and masks the same.
// RUN: attn-run --check --profile --iters=1 --warmup=0 --variant=sm90ws --block-m=128 --block-n=64 --num-warps=12 --stages=2 %s | FileCheck %s --check-prefix=WS
// CHECK: check output 0 {{.*}} PASS
// CHECK: key tiles of attn_fwd_bf16_hd64_window_sm80_128x64w4s2: 90 of 512 computed (82.4% skipped), 60 masked element-wise
// WS: check output 0 {{.*}} PASS
// WS: key tiles of attn_fwd_bf16_hd64_window_sm90ws_128x64w12s2: 90 of 512 computed (82.4% skipped), 60 masked element-wise
func.func @window(%q: tensor<1x1x2048x64xbf16>, %k: tensor<1x1x2048x64xbf16>, %v: tensor<1x1x2048x64xbf16>) -> tensor<1x1x2048x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x1x2048x64xbf16>, tensor<1x1x2048x64xbf16> -> tensor<1x1x2048x2048xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x1x2048x2048xf32>
  %m = attn.mask %t {kind = #attn.mask<window = [256, 0]>} : tensor<1x1x2048x2048xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x1x2048x2048xf32> -> tensor<1x1x2048x2048xbf16>
  %o = attn.matmul %p, %v : tensor<1x1x2048x2048xbf16>, tensor<1x1x2048x64xbf16> -> tensor<1x1x2048x64xbf16>
  return %o : tensor<1x1x2048x64xbf16>
}
