// GPUs newer than the cost model's tables (sm_100: B200; sm_120: RTX 50xx)
// get the sm80 variant, with a remark, never sm90's wgmma (sm_90a only);
// sm_90 without the "a" has no wgmma either.
// RUN: attn-opt %s -verify-diagnostics -attn-select-config=arch=sm_120 | FileCheck %s --check-prefix=SM120
// RUN: attn-opt %s -attn-select-config=arch=sm_100a 2>&1 | FileCheck %s --check-prefix=SM100
// RUN: attn-opt %s -attn-select-config=arch=sm_90 2>&1 | FileCheck %s --check-prefix=SM90-PLAIN

// SM120: config = #attn.config<variant = "sm80"
// SM100: remark: no tuned cost model for sm_100a
// SM100: config = #attn.config<variant = "sm80"
// SM90-PLAIN: remark: no tuned cost model for sm_90:
// SM90-PLAIN: config = #attn.config<variant = "sm80"
func.func @hd128(%q: tensor<2x16x1024x128xbf16>, %k: tensor<2x16x1024x128xbf16>, %v: tensor<2x16x1024x128xbf16>) -> tensor<2x16x1024x128xbf16> {
  // expected-remark @+1 {{no tuned cost model for sm_120: using the sm80 variant (mma.sync) with conservative shared-memory limits}}
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32} : tensor<2x16x1024x128xbf16>, tensor<2x16x1024x128xbf16>, tensor<2x16x1024x128xbf16> -> tensor<2x16x1024x128xbf16>
  return %o : tensor<2x16x1024x128xbf16>
}
