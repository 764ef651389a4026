// REQUIRES: gpu
// gpt-oss / Gemma 2 fine-tuning on packed sequences: the backward of a
// ragged batch with learned sinks (their gradient summed over every
// sequence's rows), a sliding window aligned to each sequence's
// bottom-right, a softcap score_mod and a bias per (sequence, head) read
// from a capture; head dim 128.
// RUN: attn-run --backward --check %s | FileCheck %s
// RUN: attn-run --backward --deterministic --check --seed=5 %s | FileCheck %s
// CHECK: check output 0 {{.*}} PASS
// CHECK: check output 1 {{.*}} PASS
// CHECK: check output 2 {{.*}} PASS
// CHECK: check output 3 {{.*}} PASS
// CHECK: check output 4 {{.*}} PASS
func.func @varlen(%q: tensor<1000x4x128xbf16>, %k: tensor<1000x2x128xbf16>, %v: tensor<1000x2x128xbf16>,
                  %cq: tensor<6xi32>, %ck: tensor<6xi32>, %bias: tensor<5x4xf32>, %sinks: tensor<4xf32>) -> tensor<1000x4x128xbf16> {
  %o = attn.flash %q, %k, %v captures(%bias : tensor<5x4xf32>) cu_seqlens_q(%cq : tensor<6xi32>) cu_seqlens_k(%ck : tensor<6xi32>)
      sinks(%sinks : tensor<4xf32>)
      {scale = 0.0883883476 : f32, mask = #attn.mask<causal, window = [100, 0], bottom_right>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %bias_t: tensor<5x4xf32>):
    %c = arith.constant 30.0 : f32
    %d = arith.divf %x, %c : f32
    %th = math.tanh %d : f32
    %y0 = arith.mulf %th, %c : f32
    %hb = tensor.extract %bias_t[%b, %h] : tensor<5x4xf32>
    %y = arith.addf %y0, %hb : f32
    attn.yield %y : f32
  } : tensor<1000x4x128xbf16>, tensor<1000x2x128xbf16>, tensor<1000x2x128xbf16> -> tensor<1000x4x128xbf16>
  return %o : tensor<1000x4x128xbf16>
}
