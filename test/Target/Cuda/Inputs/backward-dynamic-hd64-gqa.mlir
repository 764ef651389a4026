// The form attn.sdpa compiles (python/attn: dynamic batch and sequence
// lengths): ptxas-backward-ws.test compiles its backward.
func.func @sdpa(%q: tensor<?x32x?x64xbf16>, %k: tensor<?x8x?x64xbf16>, %v: tensor<?x8x?x64xbf16>) -> (tensor<?x32x?x64xbf16>, tensor<?x32x?xf32>) {
  %o, %lse = attn.flash %q, %k, %v {scale = 0.125 : f32} : tensor<?x32x?x64xbf16>, tensor<?x8x?x64xbf16>, tensor<?x8x?x64xbf16> -> tensor<?x32x?x64xbf16>, tensor<?x32x?xf32>
  return %o, %lse : tensor<?x32x?x64xbf16>, tensor<?x32x?xf32>
}
