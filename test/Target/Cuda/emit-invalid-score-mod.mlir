// RUN: not attn-translate --attn-to-cuda %s 2>&1 | FileCheck %s

// An op outside the score_mod table (ScoreModOps.h) is an error at that op,
// naming it, when the module is verified (before any emission).
// CHECK: emit-invalid-score-mod.mlir:[[@LINE+5]]:10: error: 'math.fpowi' op is not supported in a score_mod (it holds the arith ops on i1, i32, i64, index and f32 and the math ops that CUDA has; see ScoreModOps.h)
func.func @unsupported_op(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, config = #attn.config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 2 : i32
    %t = math.fpowi %x, %c : f32, i32
    attn.yield %t : f32
  } : tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
