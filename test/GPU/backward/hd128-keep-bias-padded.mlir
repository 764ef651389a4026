// REQUIRES: gpu
// head dim 128 with a keep mask, a broadcast bf16 bias and its gradient,
// and key padding: element-wise work in the warp-specialized backward's
// consumers (sm90ws, the model's choice where ptxas does not spill it),
// GQA 2:1, odd lengths; and the cp.async variant.
// RUN: attn-run --backward --check --bias-grad %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90ws --check --bias-grad %s | FileCheck %s
// RUN: attn-run --backward --backward-variant=sm90 --check --bias-grad %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
// CHECK: check output 4 {{.*}} PASS
func.func @hd128_keep_bias_padded(%q: tensor<2x4x301x128xbf16>, %k: tensor<2x2x433x128xbf16>, %v: tensor<2x2x433x128xbf16>,
    %keep: tensor<2x1x301x433xi1>, %bias: tensor<1x4x301x433xbf16>, %len: tensor<2xi32>) -> tensor<2x4x301x128xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x1x301x433xi1>) bias(%bias : tensor<1x4x301x433xbf16>)
      {scale = 0.08838834764831843 : f32, mask = #attn.mask<key_padding, keep, bias>}
      : tensor<2x4x301x128xbf16>, tensor<2x2x433x128xbf16>, tensor<2x2x433x128xbf16> -> tensor<2x4x301x128xbf16>
  return %o : tensor<2x4x301x128xbf16>
}
