// REQUIRES: gpu
// head dim 256, odd lengths (sm_90a: two warpgroups per 64 keys)
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x64x8x2 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm80 --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @hd256(%q: tensor<1x4x333x256xbf16>, %k: tensor<1x4x333x256xbf16>, %v: tensor<1x4x333x256xbf16>) -> tensor<1x4x333x256xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0625 : f32} : tensor<1x4x333x256xbf16>, tensor<1x4x333x256xbf16>, tensor<1x4x333x256xbf16> -> tensor<1x4x333x256xbf16>
  return %o : tensor<1x4x333x256xbf16>
}
