// RUN: attn-opt %s -attn-select-config=arch=sm_90a | FileCheck %s

// Extents of 2^31 - 1 overflowed the cost model's 64-bit products (found
// by the fuzz target under UBSan; fuzz/regressions/ replays it there).

// CHECK-LABEL: func @huge
// CHECK: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>
func.func @huge(%q: tensor<2147483647x2147483647x2147483647x64xbf16>, %k: tensor<2147483647x2147483647x64x64xbf16>, %v: tensor<2147483647x2147483647x64x64xbf16>) -> tensor<2147483647x2147483647x2147483647x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<2147483647x2147483647x2147483647x64xbf16>, tensor<2147483647x2147483647x64x64xbf16>, tensor<2147483647x2147483647x64x64xbf16> -> tensor<2147483647x2147483647x2147483647x64xbf16>
  return %o : tensor<2147483647x2147483647x2147483647x64xbf16>
}
