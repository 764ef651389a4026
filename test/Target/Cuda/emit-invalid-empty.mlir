// RUN: not attn-translate --attn-to-cuda %s 2>&1 | FileCheck %s

// CHECK: error: no attn.flash or attn.kernel to emit; run --attn-pipeline or --attn-lower-unfused first
func.func @nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
