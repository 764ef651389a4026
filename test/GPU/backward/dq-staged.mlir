// REQUIRES: gpu
// dQ staged in shared memory and added by bulk reductions (sm90, atomic
// mode): many query tiles per key block, the last one partial, GQA 2:1,
// more queries than keys; one and two stages, and one warpgroup per block.
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x128x8x1 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x64x4x2 --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --backward-tiles=64x128x12x1 --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @dq_staged(%q: tensor<2x4x1100x128xbf16>, %k: tensor<2x2x900x128xbf16>, %v: tensor<2x2x900x128xbf16>) -> tensor<2x4x1100x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.08838834764831843 : f32} : tensor<2x4x1100x128xbf16>, tensor<2x2x900x128xbf16>, tensor<2x2x900x128xbf16> -> tensor<2x4x1100x128xbf16>
  return %o : tensor<2x4x1100x128xbf16>
}
