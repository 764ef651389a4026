// REQUIRES: gpu
// Speculative decode of 4 tokens with GQA 32/8: the kernel packs the 4
// tokens x 4 query heads of each K/V head into one block's rows, so K and V
// are read once per K/V head, under a causal mask and a window aligned to
// each sequence's length, key padding, a softcap score_mod and sinks;
// split-KV chosen, forced and off, each variant, BSHD memory.
// RUN: attn-run --check --profile --iters=1 --warmup=0 --splits=1 %s | FileCheck %s --check-prefix=PACKED
// RUN: attn-run --check %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 %s | FileCheck %s
// RUN: attn-run --check --variant=sm80 --splits=6 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --splits=1 %s | FileCheck %s
// RUN: attn-run --check --variant=sm90ws --splits=5 --layout=bshd %s | FileCheck %s
// RUN: attn-run --check --layout=bshd %s | FileCheck %s
// PACKED: check output 0 {{.*}} PASS
// PACKED: check output 1 {{.*}} PASS
// PACKED: {{.*}}1 split per query block, query heads packed
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
func.func @draft(%q: tensor<8x32x4x128xbf16>, %k: tensor<8x8x2000x128xbf16>, %v: tensor<8x8x2000x128xbf16>,
                 %len: tensor<8xi32>, %s: tensor<32xf32>) -> (tensor<8x32x4x128xbf16>, tensor<8x32x4xf32>) {
  %o, %lse = attn.flash %q, %k, %v lengths(%len : tensor<8xi32>) sinks(%s : tensor<32xf32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, window = [511, 0], bottom_right, key_padding>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32
  } : tensor<8x32x4x128xbf16>, tensor<8x8x2000x128xbf16>, tensor<8x8x2000x128xbf16> -> tensor<8x32x4x128xbf16>, tensor<8x32x4xf32>
  return %o, %lse : tensor<8x32x4x128xbf16>, tensor<8x32x4xf32>
}
