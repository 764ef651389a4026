// REQUIRES: gpu
// window bounds past every key (the runtime clamps them to seq_q + seq_kv, or
// the kernels' diagonal +- bound sums overflow) with key padding
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --check --deterministic %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --deterministic %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
func.func @window_wide_key_padding(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x4x700x64xbf16>, %v: tensor<2x4x700x64xbf16>, %len: tensor<2xi32>) -> tensor<2x4x300x64xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) {scale = 0.125 : f32, mask = #attn.mask<window = [2147483647, 2147483600], key_padding>} : tensor<2x4x300x64xbf16>, tensor<2x4x700x64xbf16>, tensor<2x4x700x64xbf16> -> tensor<2x4x300x64xbf16>
  return %o : tensor<2x4x300x64xbf16>
}
