// The form attn.sdpa compiles (python/attn: dynamic batch and sequence
// lengths): ptxas-backward-ws.test compiles its backward.
func.func @sdpa(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %v: tensor<?x16x?x128xbf16>) -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  %o, %lse = attn.flash %q, %k, %v {scale = 0.08838834764831843 : f32, mask = #attn.mask<causal>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
  return %o, %lse : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}
