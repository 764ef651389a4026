// REQUIRES: gpu
// Decode over a ragged batch: 64 sequences of one query each (as many
// packed queries as sequences) against 5000 packed keys of random lengths,
// GQA 32/8 at head dim 128; the runtime splits the keys (few blocks), and
// forced splits of 1 and 8.
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --splits=1 %s | FileCheck %s
// RUN: attn-run --check --splits=8 --variant=sm80 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @decode(%q: tensor<64x32x128xbf16>, %k: tensor<5000x8x128xbf16>, %v: tensor<5000x8x128xbf16>,
                  %cq: tensor<65xi32>, %ck: tensor<65xi32>) -> (tensor<64x32x128xbf16>, tensor<32x64xf32>) {
  %o, %lse = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<65xi32>) cu_seqlens_k(%ck : tensor<65xi32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<64x32x128xbf16>, tensor<5000x8x128xbf16>, tensor<5000x8x128xbf16> -> tensor<64x32x128xbf16>, tensor<32x64xf32>
  return %o, %lse : tensor<64x32x128xbf16>, tensor<32x64xf32>
}
