// REQUIRES: gpu
// Batch-invariant launches: every sequence's keys are split at fixed
// positions (every 2048 keys) and always merged in order, so its output is
// bitwise the same whatever the launch's split count (attn-run runs each
// launch again with 3 more splits and compares the bits) and whatever else
// is in the batch (python/tests/test_serving.py). Decode with packed rows,
// causal and sinks over caches of up to 6000 keys.
// RUN: attn-run --check --batch-invariant %s | FileCheck %s
// RUN: attn-run --check --batch-invariant --splits=7 %s | FileCheck %s
// RUN: attn-run --check --batch-invariant --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --batch-invariant --variant=sm90 %s | FileCheck %s
// CHECK: batch-invariant: PASS
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @decode(%q: tensor<6x32x2x128xbf16>, %k: tensor<6x8x6000x128xbf16>, %v: tensor<6x8x6000x128xbf16>,
                  %len: tensor<6xi32>, %s: tensor<32xf32>) -> (tensor<6x32x2x128xbf16>, tensor<6x32x2xf32>) {
  %o, %lse = attn.flash %q, %k, %v lengths(%len : tensor<6xi32>) sinks(%s : tensor<32xf32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<6x32x2x128xbf16>, tensor<6x8x6000x128xbf16>, tensor<6x8x6000x128xbf16> -> tensor<6x32x2x128xbf16>, tensor<6x32x2xf32>
  return %o, %lse : tensor<6x32x2x128xbf16>, tensor<6x32x2xf32>
}
