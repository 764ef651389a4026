// REQUIRES: gpu
// The schedule computes only the key tiles a mask can reach and masks
// element-wise only the tiles on a mask's boundary; the kernel's tile
// counters (attn-run --profile) must match the counts below exactly.
//
// Causal, 1024 x 1024, 2 heads. sm80 128x64: query block m (rows 128m ..
// 128m + 127) needs key tiles 0 .. 2m + 1, so 2 (1 + ... + 8) = 72 of 128
// per head, and only its last two (the diagonal) are masked: 16 per head.
// RUN: attn-run --check --profile --iters=1 --warmup=0 --variant=sm80 --block-m=128 --block-n=64 --num-warps=4 --stages=2 %s | FileCheck %s --check-prefix=SM80
// SM80: check output 0 {{.*}} PASS
// SM80: key tiles of attn_fwd_bf16_hd64_causal_sm80_128x64w4s2: 144 of 256 computed (43.8% skipped), 32 masked element-wise
//
// sm90 64x128: query block m (rows 64m .. 64m + 63) needs key tiles
// 0 .. floor(m / 2), 2 (1 + ... + 8) = 72 of 128 per head, and masks its
// last one: 16 per head.
// RUN: attn-run --check --profile --iters=1 --warmup=0 --variant=sm90 --block-m=64 --block-n=128 --num-warps=4 --stages=2 %s | FileCheck %s --check-prefix=SM90
// SM90: check output 0 {{.*}} PASS
// SM90: key tiles of attn_fwd_bf16_hd64_causal_sm90_64x128w4s2: 144 of 256 computed (43.8% skipped), 32 masked element-wise
//
// sm90ws 128x128 (persistent): query block m needs key tiles 0 .. m,
// 36 of 64 per head, and masks its last one: 8 per head.
// RUN: attn-run --check --profile --iters=1 --warmup=0 --variant=sm90ws --block-m=128 --block-n=128 --num-warps=12 --stages=2 %s | FileCheck %s --check-prefix=WS
// WS: check output 0 {{.*}} PASS
// WS: key tiles of attn_fwd_bf16_hd64_causal_sm90ws_128x128w12s2: 72 of 128 computed (43.8% skipped), 16 masked element-wise
func.func @causal(%q: tensor<1x2x1024x64xbf16>, %k: tensor<1x2x1024x64xbf16>, %v: tensor<1x2x1024x64xbf16>) -> tensor<1x2x1024x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x1024x64xbf16>, tensor<1x2x1024x64xbf16> -> tensor<1x2x1024x1024xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x1024x1024xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<1x2x1024x1024xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x1024x1024xf32> -> tensor<1x2x1024x1024xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x1024x1024xbf16>, tensor<1x2x1024x64xbf16> -> tensor<1x2x1024x64xbf16>
  return %o : tensor<1x2x1024x64xbf16>
}
