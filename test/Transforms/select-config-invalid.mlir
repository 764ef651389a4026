// RUN: attn-opt %s -split-input-file -verify-diagnostics -attn-select-config=arch=sm_86
// RUN: not attn-opt %s -attn-select-config=arch=sm_75 2>&1 | FileCheck %s --check-prefix=ARCH

// ARCH: error: attn cannot target 'sm_75': its kernels need sm_80 or newer (A100: sm_80; A10, A40, RTX 30xx: sm_86; L4, L40, RTX 40xx: sm_89; H100, H200: sm_90a; newer GPUs such as sm_100 or sm_120 run the sm80 kernels)

func.func @head_dim_not_multiple_of_8(%q: tensor<1x1x64x100xbf16>, %k: tensor<1x1x64x100xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  // expected-error @+1 {{head dim 100 of q/k is not a multiple of 8; no kernel supports it}}
  %o = attn.flash %q, %k, %v {scale = 0.1 : f32} : tensor<1x1x64x100xbf16>, tensor<1x1x64x100xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}

// -----

func.func @head_dim_too_large(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x512xbf16>) -> tensor<1x1x64x512xbf16> {
  // expected-error @+1 {{head dim 512 of v exceeds the largest supported, 256}}
  %o = attn.flash %q, %k, %v {scale = 0.1 : f32} : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x512xbf16> -> tensor<1x1x64x512xbf16>
  return %o : tensor<1x1x64x512xbf16>
}
