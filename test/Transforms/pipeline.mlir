// RUN: attn-opt %s --attn-pipeline=arch=sm_80 | FileCheck %s
// RUN: attn-opt %s --pass-pipeline="builtin.module(attn-pipeline{arch=sm_89})" | FileCheck %s

// The pipeline fuses and configures; dead graph ops left by the exporter are
// removed first so they do not block fusion.
// CHECK-LABEL: func @with_dead_ops
// CHECK-NEXT: attn.flash %arg0, %arg1, %arg2 {config = #attn.config<variant = "sm80", {{.*}}>, mask = #attn.mask<causal>, plan = #attn.launch_plan<spill_block_n = [{{[0-9, ]+}}]>, scale = 1.250000e-01 : f32}
// CHECK-NEXT: return
func.func @with_dead_ops(%q: tensor<2x8x256x64xbf16>, %k: tensor<2x8x256x64xbf16>, %v: tensor<2x8x256x64xbf16>) -> tensor<2x8x256x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x8x256x64xbf16>, tensor<2x8x256x64xbf16> -> tensor<2x8x256x256xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x8x256x256xf32>
  %dead = attn.scale %t {factor = 2.0 : f32} : tensor<2x8x256x256xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x8x256x256xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x8x256x256xf32> -> tensor<2x8x256x256xbf16>
  %o = attn.matmul %p, %v : tensor<2x8x256x256xbf16>, tensor<2x8x256x64xbf16> -> tensor<2x8x256x64xbf16>
  return %o : tensor<2x8x256x64xbf16>
}
