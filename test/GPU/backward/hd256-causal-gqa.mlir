// REQUIRES: gpu
// head dim 256, causal bottom-right, GQA 4:1, odd lengths with more keys
// than queries: two warpgroups per 64 keys split the queries of S^T and the
// head dims of dK and dV (sm_90a)
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x64x8x2 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm80 --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @hd256_causal_gqa(%q: tensor<2x8x301x256xbf16>, %k: tensor<2x2x517x256xbf16>, %v: tensor<2x2x517x256xbf16>) -> tensor<2x8x301x256xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0625 : f32, mask = #attn.mask<causal, bottom_right>} : tensor<2x8x301x256xbf16>, tensor<2x2x517x256xbf16>, tensor<2x2x517x256xbf16> -> tensor<2x8x301x256xbf16>
  return %o : tensor<2x8x301x256xbf16>
}
