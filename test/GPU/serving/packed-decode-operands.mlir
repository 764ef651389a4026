// REQUIRES: gpu
// Packed rows (2 tokens x 8 query heads of each K/V head, GQA 64/8) index
// every per-head and per-query operand by the row's own token and head: a
// bias per (head, query, key), a keep mask per (batch, query, key), and a
// score_mod of the head and positions (ALiBi).
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=3 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 --splits=1 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --splits=2 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
func.func @operands(%q: tensor<4x64x2x64xbf16>, %k: tensor<4x8x700x64xbf16>, %v: tensor<4x8x700x64xbf16>,
                    %bias: tensor<1x64x2x700xf32>, %keep: tensor<4x1x2x700xi1>) -> tensor<4x64x2x64xbf16> {
  %o = attn.flash %q, %k, %v keep(%keep : tensor<4x1x2x700xi1>) bias(%bias : tensor<1x64x2x700xf32>)
      {scale = 0.125 : f32, mask = #attn.mask<keep, bias>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %one = arith.constant 1 : index
    %h1 = arith.addi %h, %one : index
    %hi = arith.index_cast %h1 : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %r = arith.constant -0.125 : f32
    %e = arith.mulf %hf, %r : f32
    %slope = math.exp2 %e : f32
    %d = arith.subi %j, %i : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %b2 = arith.mulf %slope, %df : f32
    %y = arith.addf %x, %b2 : f32
    attn.yield %y : f32
  } : tensor<4x64x2x64xbf16>, tensor<4x8x700x64xbf16>, tensor<4x8x700x64xbf16> -> tensor<4x64x2x64xbf16>
  return %o : tensor<4x64x2x64xbf16>
}
