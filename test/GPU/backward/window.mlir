// REQUIRES: gpu
// a two-sided sliding window
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --check %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @window(%q: tensor<2x4x900x64xbf16>, %k: tensor<2x4x900x64xbf16>, %v: tensor<2x4x900x64xbf16>) -> tensor<2x4x900x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<window = [100, 37]>} : tensor<2x4x900x64xbf16>, tensor<2x4x900x64xbf16>, tensor<2x4x900x64xbf16> -> tensor<2x4x900x64xbf16>
  return %o : tensor<2x4x900x64xbf16>
}
