// RUN: attn-translate --attn-to-cuda %s | FileCheck %s

// Every mask item and operand is a typed constant of the Config; units are
// separated by '// -----'.
// CHECK-LABEL: attn_fwd_f16_hd64x32_kt_causalbr_window_padded_keep_bias_lse_sm80_64x32w4s1
// CHECK: using Element = attn::F16;
// CHECK: using BiasElement = attn::BF16;
// CHECK: static constexpr int kHeadDimV = 32;
// CHECK: static constexpr bool kCausal = true;
// CHECK: static constexpr bool kBottomRight = true;
// CHECK: static constexpr bool kWindow = true;
// CHECK: static constexpr bool kKeyPadding = true;
// CHECK: static constexpr bool kKeep = true;
// CHECK: static constexpr bool kBias = true;
// CHECK: static constexpr bool kTransposeK = true;
// CHECK: static constexpr bool kWriteLse = true;
// CHECK: // -----
// CHECK: attn_fwd_bf16_hd64_window_sm80_64x64w4s2
// CHECK: static constexpr bool kCausal = false;
// CHECK: static constexpr bool kWindow = true;
func.func @masks(%q: tensor<2x4x64x64xf16>, %kt: tensor<2x2x64x96xf16>, %v: tensor<2x2x96x32xf16>,
                 %len: tensor<2xi32>, %keep: tensor<2x1x64x96xi1>, %bias: tensor<1x4x1x96xbf16>)
    -> (tensor<2x4x64x32xf16>, tensor<2x4x64xf32>) {
  %o, %lse = attn.flash %q, %kt, %v lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x1x64x96xi1>) bias(%bias : tensor<1x4x1x96xbf16>)
      {scale = 0.125 : f32, transpose_k, mask = #attn.mask<causal, window = [16, 0], bottom_right, key_padding, keep, bias>,
       config = #attn.config<variant = "sm80", block_m = 64, block_n = 32, num_warps = 4, stages = 1>}
    : tensor<2x4x64x64xf16>, tensor<2x2x64x96xf16>, tensor<2x2x96x32xf16> -> tensor<2x4x64x32xf16>, tensor<2x4x64xf32>
  return %o, %lse : tensor<2x4x64x32xf16>, tensor<2x4x64xf32>
}
func.func @window(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<window = [8, 8]>,
       config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>}
    : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
