// REQUIRES: gpu
// The persistent kernel's dynamic scheduler: causal, 32 heads x 16 query
// blocks of 128 = 512 work tiles of 1 to 16 key tiles on 132 blocks, which
// draw tiles from a counter in the workspace (zeroed before each launch,
// so every timed run of --bench starts over). Each tile must run exactly
// once: query block m needs key tiles 0 .. m, 136 per head, 4352 of 8192,
// and masks its diagonal one, 16 per head. Run twice in one process (the
// check run and the timed runs) and with 3 stages.
// RUN: attn-run --check --profile --iters=3 --warmup=1 --variant=sm90ws --block-m=128 --block-n=128 --num-warps=12 --stages=2 %s | FileCheck %s
// RUN: attn-run --check --profile --iters=3 --warmup=1 --variant=sm90ws --block-m=128 --block-n=128 --num-warps=12 --stages=3 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: key tiles of attn_fwd_bf16_hd64_causal_sm90ws_128x128w12s{{[23]}}: 4352 of 8192 computed (46.9% skipped), 512 masked element-wise
func.func @dynamic(%q: tensor<1x32x2048x64xbf16>, %k: tensor<1x32x2048x64xbf16>, %v: tensor<1x32x2048x64xbf16>) -> tensor<1x32x2048x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>}
    : tensor<1x32x2048x64xbf16>, tensor<1x32x2048x64xbf16>, tensor<1x32x2048x64xbf16> -> tensor<1x32x2048x64xbf16>
  return %o : tensor<1x32x2048x64xbf16>
}
