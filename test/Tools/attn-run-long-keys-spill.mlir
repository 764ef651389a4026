// REQUIRES: cuda-toolkit
// UNSUPPORTED: gpu
// A dynamic key length gets a second kernel for long keys (the launch
// plan's long_keys); where ptxas spills it, the plan's narrower tiles of it
// are compiled instead, as for the op's own config (pickWithoutSpills in
// lib/API/Compile.cpp). This score_mod (a gather per captured tensor and
// score, as in test/GPU/score-mod/captures.mlir) spills at 128x128 and, for
// long keys, at 128x192; narrowed to the same tiles, one kernel serves
// every length.
// RUN: rm -rf %t && mkdir -p %t
// RUN: attn-run --arch=sm_90a --cache-dir=%t %s 2>&1 | FileCheck %s
// CHECK: remark: ptxas spilled {{[0-9]+}} bytes at 128x128 (sm90ws); compiled with block_n [[N:[0-9]+]], which does not spill
// CHECK: remark: ptxas spilled {{[0-9]+}} bytes at 128x192 (sm90ws) for long keys; compiled with block_n {{[0-9]+}}, which does not spill
// The columns are: kernel, variant, registers, spill bytes, stack bytes.
// CHECK: {{^attn_fwd_bf16_hd64_mod_sm90ws_128x}}[[N]]{{w12s2 +sm90ws +[0-9]+ +0 +0 }}
// CHECK-NOT: {{^attn_fwd_[a-z0-9_]+ +sm[0-9a-z]+ +[0-9]+ +[1-9]}}
// CHECK-NOT: launches past
//
// The lowered IR says what was compiled: the picked tiles, no long_keys,
// and of the narrower tiles only those below the pick.
// RUN: attn-run --arch=sm_90a --cache-dir=%t --print-ir %s 2>&1 | FileCheck %s --check-prefix=IR
// IR: attn.flash
// IR-SAME: config = #attn.config<variant = "sm90ws", block_m = 128, block_n = [[N:[0-9]+]]
// IR-NOT: long_keys
//
// IR that attn-opt's pipeline wrote carries the plan, so it compiles to the
// same kernels:
// RUN: attn-opt --attn-pipeline="arch=sm_90a" %s -o %t/written.mlir
// RUN: FileCheck %s --check-prefix=WRITTEN-IR < %t/written.mlir
// WRITTEN-IR: long_keys = <variant = "sm90ws", block_m = 128, block_n = 192
// RUN: attn-run --arch=sm_90a --cache-dir=%t %t/written.mlir 2>&1 | FileCheck %s
// Without the plan, tiles written in the input are kept, spills and all
// (the model's, here): the kernel of each.
// RUN: sed -e 's/, plan = #attn.launch_plan<.*>, scale/, scale/' %t/written.mlir > %t/no-plan.mlir
// RUN: attn-run --arch=sm_90a --cache-dir=%t %t/no-plan.mlir 2>&1 | FileCheck %s --check-prefix=NO-PLAN
// NO-PLAN-NOT: remark: ptxas spilled
// NO-PLAN: {{^attn_fwd_bf16_hd64_mod_sm90ws_128x128w12s2 +sm90ws +[0-9]+ +[1-9][0-9]* }}
func.func @captures(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>,
                    %head_bias: tensor<4xf32>, %rel: tensor<8191xbf16>, %doc: tensor<4096xi32>) -> tensor<?x4x?x64xbf16> {
  %o = attn.flash %q, %k, %v captures(%head_bias, %rel, %doc : tensor<4xf32>, tensor<8191xbf16>, tensor<4096xi32>) {scale = 1.250000e-01 : f32} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %hb_t: tensor<4xf32>, %rel_t: tensor<8191xbf16>, %doc_t: tensor<4096xi32>):
    %hb = tensor.extract %hb_t[%h] : tensor<4xf32>
    %off = arith.constant 4095 : index
    %d = arith.subi %i, %j : index
    %r = arith.addi %d, %off : index
    %rel16 = tensor.extract %rel_t[%r] : tensor<8191xbf16>
    %relf = arith.extf %rel16 : bf16 to f32
    %dq = tensor.extract %doc_t[%i] : tensor<4096xi32>
    %dk = tensor.extract %doc_t[%j] : tensor<4096xi32>
    %c20 = arith.constant 20 : i32
    %bq = arith.divui %dq, %c20 : i32
    %bk = arith.divui %dk, %c20 : i32
    %same = arith.cmpi eq, %bq, %bk : i32
    %y0 = arith.addf %x, %hb : f32
    %y1 = arith.addf %y0, %relf : f32
    %pen = arith.constant 2.0 : f32
    %y2 = arith.subf %y1, %pen : f32
    %y = arith.select %same, %y1, %y2 : f32
    attn.yield %y : f32
  } : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}
