// REQUIRES: gpu
// Block tables with entries past either end of the cache are clamped to it,
// in the kernel and in the reference; lengths past the table's keys are
// clamped to them (and negative ones to 0: zeros, -inf logsumexp). (Other
// adversarial tables run under compute-sanitizer in scripts/device-run.sh.)
// RUN: attn-run --check --set-input=3:64,-3,0,900 --set-input=4:5,-1,7,2147483647,3,3,3,3,0,1,2,3,-2147483648,9,9,9 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=3 --set-input=3:64,-3,0,900 --set-input=4:5,-1,7,2147483647,3,3,3,3,0,1,2,3,-2147483648,9,9,9 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --splits=3 --set-input=3:64,-3,0,900 --set-input=4:5,-1,7,2147483647,3,3,3,3,0,1,2,3,-2147483648,9,9,9 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @clamped(%q: tensor<4x4x2x64xbf16>, %kc: tensor<10x2x16x64xbf16>, %vc: tensor<10x2x16x64xbf16>,
                   %len: tensor<4xi32>, %table: tensor<4x4xi32>) -> (tensor<4x4x2x64xbf16>, tensor<4x4x2xf32>) {
  %o, %lse = attn.flash %q, %kc, %vc lengths(%len : tensor<4xi32>) block_table(%table : tensor<4x4xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<4x4x2x64xbf16>, tensor<10x2x16x64xbf16>, tensor<10x2x16x64xbf16> -> tensor<4x4x2x64xbf16>, tensor<4x4x2xf32>
  return %o, %lse : tensor<4x4x2x64xbf16>, tensor<4x4x2xf32>
}
