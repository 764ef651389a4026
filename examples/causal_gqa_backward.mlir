// Training step of causal grouped-query attention (Llama 3 style: 16 query
// heads share 4 K/V heads, bf16, 1024 tokens). attn-run --backward fuses
// the graph, derives its backward (--attn-derive-backward) and runs both:
// the forward, which saves its logsumexp, then dQ, dK and dV of a random
// output gradient, dK and dV summed over the 4 query heads of each K/V head.
//   attn-run --backward --check --bench examples/causal_gqa_backward.mlir
func.func @causal_gqa_backward(%q: tensor<2x16x1024x128xbf16>, %k: tensor<2x4x1024x128xbf16>,
                               %v: tensor<2x4x1024x128xbf16>) -> tensor<2x16x1024x128xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs}
      : tensor<2x16x1024x128xbf16>, tensor<2x4x1024x128xbf16> -> tensor<2x16x1024x1024xf32>
  %t = attn.scale %s {factor = 0.0883883461 : f32} : tensor<2x16x1024x1024xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x16x1024x1024xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x16x1024x1024xf32> -> tensor<2x16x1024x1024xbf16>
  %o = attn.matmul %p, %v
      : tensor<2x16x1024x1024xbf16>, tensor<2x4x1024x128xbf16> -> tensor<2x16x1024x128xbf16>
  return %o : tensor<2x16x1024x128xbf16>
}
