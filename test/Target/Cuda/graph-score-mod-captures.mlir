// RUN: attn-opt --attn-lower-unfused %s | attn-translate --attn-to-cuda | FileCheck %s

// The unfused path's score_mod kernel: captures are the inputs after the
// scores.
// CHECK-LABEL: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK-NEXT: const float v0 = attn::scoremod::Capture<float>::load(captures[0], attn::scoremod::clampIndex(h, 4LL));
// CHECK-NEXT: const float v1 = (score + v0);
// CHECK-NEXT: return v1;
// CHECK-NEXT: }
// CHECK-NEXT: static __device__ __forceinline__ float apply(float x, const attn::GraphParams &p, const attn::i64 (&idx)[4]) {
// CHECK-NEXT: return scoreMod(x, idx[0], idx[1], idx[2], idx[3], p.in + 1);
func.func @graph(%s: tensor<1x4x16x16xf32>, %bias: tensor<4xf32>) -> tensor<1x4x16x16xf32> {
  %m = attn.score_mod %s captures(%bias : tensor<4xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %bias_t: tensor<4xf32>):
    %hb = tensor.extract %bias_t[%h] : tensor<4xf32>
    %y = arith.addf %x, %hb : f32
    attn.yield %y : f32
  } : tensor<1x4x16x16xf32>
  return %m : tensor<1x4x16x16xf32>
}
