// RUN: attn-opt %s -split-input-file -verify-diagnostics -attn-select-config=arch=sm_90a

// The verifier cannot know the GPU; attn-select-config checks a written
// plan's configs against the arch like the op's own.
func.func @written_long_keys_too_big(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %v: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  // expected-error @+1 {{'attn.flash' op launch plan's long_keys needs}}
  %o = attn.flash %q, %k, %v {scale = 0.088 : f32, config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 128, num_warps = 12, stages = 2>, plan = #attn.launch_plan<long_keys = #attn.config<variant = "sm90ws", block_m = 128, block_n = 256, num_warps = 12, stages = 2>>} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// A written config that does not fit is an error there too (before, only
// the compile path reported it).
func.func @written_too_big(%q: tensor<2x16x2048x128xbf16>, %k: tensor<2x16x2048x128xbf16>, %v: tensor<2x16x2048x128xbf16>) -> tensor<2x16x2048x128xbf16> {
  // expected-error @+1 {{'attn.flash' op config needs 296112 bytes of shared memory; sm_90a allows 232448}}
  %o = attn.flash %q, %k, %v {scale = 0.088 : f32, config = #attn.config<variant = "sm90ws", block_m = 128, block_n = 256, num_warps = 12, stages = 2>} : tensor<2x16x2048x128xbf16>, tensor<2x16x2048x128xbf16>, tensor<2x16x2048x128xbf16> -> tensor<2x16x2048x128xbf16>
  return %o : tensor<2x16x2048x128xbf16>
}
