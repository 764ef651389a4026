// REQUIRES: cuda-toolkit
// UNSUPPORTED: gpu
// The tiles for long keys of a dynamic key length are checked like the op's
// own: a hand-written launch plan's long_keys that does not fit is an error,
// and one that fits is compiled beside the first kernel and reported.
// RUN: not attn-run %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: 'attn.flash' op launch plan's long_keys needs {{[0-9]+}} bytes of shared memory; sm_90a allows
// RUN: sed 's/block_n = 256/block_n = 160/' %s > %t.mlir
// RUN: attn-run %t.mlir | FileCheck %s --check-prefix=GOOD
// GOOD: attn_fwd_bf16_hd128_causal_sm90ws_128x128w12s2
// GOOD-NEXT: attn_fwd_bf16_hd128_causal_sm90ws_128x160w12s2 {{.*}} (launches past 4096 keys)
func.func @f(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %v: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.flash %q, %k, %v {config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>, plan = #attn.launch_plan<long_keys = #attn.config<variant = "sm90ws", block_m = 128, block_n = 256, num_warps = 12, stages = 2>>, mask = #attn.mask<causal>, scale = 0.088 : f32} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}
