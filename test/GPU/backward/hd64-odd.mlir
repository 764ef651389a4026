// REQUIRES: gpu
// head dim 64, odd lengths, GQA 2:1; both dQ modes
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=64x64x4x2 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --backward-tiles=128x128x8x1 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm80 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @hd64_odd(%q: tensor<2x4x1000x64xbf16>, %k: tensor<2x2x999x64xbf16>, %v: tensor<2x2x999x64xbf16>) -> tensor<2x4x1000x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} : tensor<2x4x1000x64xbf16>, tensor<2x2x999x64xbf16>, tensor<2x2x999x64xbf16> -> tensor<2x4x1000x64xbf16>
  return %o : tensor<2x4x1000x64xbf16>
}
