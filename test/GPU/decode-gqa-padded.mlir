// REQUIRES: gpu
// One-token decode with MQA (all 6 query heads on one K/V head) and a key
// length per batch: packed launches mask by the batch's length alone.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// With NaN in the keys no sequence reads (an uninitialized cache):
// RUN: attn-run --check --poison-padding --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --poison-padding %s | FileCheck %s
// RUN: attn-run --check --poison-padding --variant=sm90ws --splits=3 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @decode_padded(%q: tensor<3x6x1x64xf16>, %k: tensor<3x1x3000x64xf16>, %v: tensor<3x1x3000x64xf16>, %len: tensor<3xi32>) -> tensor<3x6x1x64xf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<3xi32>) {scale = 0.125 : f32, mask = #attn.mask<key_padding>}
    : tensor<3x6x1x64xf16>, tensor<3x1x3000x64xf16>, tensor<3x1x3000x64xf16> -> tensor<3x6x1x64xf16>
  return %o : tensor<3x6x1x64xf16>
}
