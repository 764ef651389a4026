// RUN: not attn-opt %s "-attn-select-config=arch=sm_90a variant=sm90ws" 2>&1 | FileCheck %s
// RUN: attn-opt %s "-attn-select-config=arch=sm_90a variant=sm80" | FileCheck %s --check-prefix=SM80

// A forced variant none of whose tiles fits (head dim 256 with a bias: the
// warp-specialized consumers' registers), and no tiles given: the error
// says that, not what some default tiles lack.
// CHECK: select-config-variant-no-fit.mlir:[[@LINE+4]]:8: error: 'attn.flash' op variant sm90ws has no tile configuration that fits sm_90a for head dims 256/256 with these operands (registers or shared memory); give its tiles (block-m, block-n, num-warps, stages) or another variant
// CHECK-NOT: invalid tile override
// SM80: config = #attn.config<variant = "sm80"
func.func @f(%q: tensor<2x8x512x256xbf16>, %k: tensor<2x8x512x256xbf16>, %v: tensor<2x8x512x256xbf16>, %b: tensor<2x8x512x512xf32>) -> tensor<2x8x512x256xbf16> {
  %o = attn.flash %q, %k, %v bias(%b : tensor<2x8x512x512xf32>) {scale = 0.0625 : f32, mask = #attn.mask<causal, bias>} : tensor<2x8x512x256xbf16>, tensor<2x8x512x256xbf16>, tensor<2x8x512x256xbf16> -> tensor<2x8x512x256xbf16>
  return %o : tensor<2x8x512x256xbf16>
}
