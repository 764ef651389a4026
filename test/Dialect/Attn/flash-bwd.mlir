// RUN: attn-opt %s | attn-opt | FileCheck %s
// RUN: attn-opt %s --mlir-print-op-generic | attn-opt | FileCheck %s

// CHECK-LABEL: func @plain_gqa
// CHECK: attn.flash_bwd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {mask = #attn.mask<causal>, scale = 1.250000e-01 : f32}
// CHECK-SAME: : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
// CHECK-SAME: -> tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
func.func @plain_gqa(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x128x64xbf16>, %v: tensor<2x2x128x64xbf16>,
    %o: tensor<2x8x128x64xbf16>, %do: tensor<2x8x128x64xbf16>, %lse: tensor<2x8x128xf32>)
    -> (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>) {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 0.125 : f32, mask = #attn.mask<causal>}
      : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>,
        tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
      -> tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
  return %dq, %dk, %dv : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
}

// CHECK-LABEL: func @everything
// CHECK: attn.flash_bwd {{.*}} lengths(%{{.*}} : tensor<2xi32>) keep(%{{.*}} : tensor<2x1x64x64xi1>) bias(%{{.*}} : tensor<1x4x64x64xf32>) captures(%{{.*}} : tensor<4xf32>)
// CHECK-SAME: mask = #attn.mask<window = [32, 0], bottom_right, key_padding, keep, bias>
// CHECK-SAME: transpose_k
// CHECK-SAME: score_mod {
// CHECK: tensor.extract
// CHECK: math.tanh
// CHECK: attn.yield
// CHECK: } score_mod_grad {
// CHECK: arith.mulf
// CHECK: attn.yield
// CHECK: } : tensor<2x4x64x192xf16>, tensor<2x4x192x64xf16>, tensor<2x4x64x128xf16>, tensor<2x4x64x128xf16>, tensor<2x4x64x128xf16>, tensor<2x4x64xf32>
// CHECK-SAME: -> tensor<2x4x64x192xf16>, tensor<2x4x192x64xf16>, tensor<2x4x64x128xf16>, tensor<1x4x64x64xf32>
func.func @everything(%q: tensor<2x4x64x192xf16>, %kt: tensor<2x4x192x64xf16>, %v: tensor<2x4x64x128xf16>,
    %o: tensor<2x4x64x128xf16>, %do: tensor<2x4x64x128xf16>, %lse: tensor<2x4x64xf32>,
    %len: tensor<2xi32>, %keep: tensor<2x1x64x64xi1>, %bias: tensor<1x4x64x64xf32>,
    %cap: tensor<4xf32>) -> tensor<1x4x64x64xf32> {
  %dq, %dk, %dv, %dbias = attn.flash_bwd %q, %kt, %v, %o, %do, %lse lengths(%len : tensor<2xi32>)
      keep(%keep : tensor<2x1x64x64xi1>) bias(%bias : tensor<1x4x64x64xf32>)
      captures(%cap : tensor<4xf32>)
      {scale = 1.0 : f32, transpose_k, mask = #attn.mask<window = [32, 0], bottom_right, key_padding, keep, bias>}
      score_mod {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %c: tensor<4xf32>):
      %s = tensor.extract %c[%h] : tensor<4xf32>
      %y = arith.mulf %x, %s : f32
      %t = math.tanh %y : f32
      attn.yield %t : f32
  } score_mod_grad {
    ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %c: tensor<4xf32>):
      %one = arith.constant 1.0 : f32
      %s = tensor.extract %c[%h] : tensor<4xf32>
      %y = arith.mulf %x, %s : f32
      %t = math.tanh %y : f32
      %t2 = arith.mulf %t, %t : f32
      %d = arith.subf %one, %t2 : f32
      %g = arith.mulf %d, %s : f32
      attn.yield %g : f32
  } : tensor<2x4x64x192xf16>, tensor<2x4x192x64xf16>, tensor<2x4x64x128xf16>, tensor<2x4x64x128xf16>,
      tensor<2x4x64x128xf16>, tensor<2x4x64xf32>
    -> tensor<2x4x64x192xf16>, tensor<2x4x192x64xf16>, tensor<2x4x64x128xf16>, tensor<1x4x64x64xf32>
  return %dbias : tensor<1x4x64x64xf32>
}

// CHECK-LABEL: func @configured
// CHECK: attn.flash_bwd
// CHECK-SAME: config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 8, stages = 1>
func.func @configured(%q: tensor<2x4x64x192xf16>, %k: tensor<2x4x64x192xf16>, %v: tensor<2x4x64x128xf16>,
    %o: tensor<2x4x64x128xf16>, %do: tensor<2x4x64x128xf16>, %lse: tensor<2x4x64xf32>) -> tensor<2x4x64x192xf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse
      {scale = 1.0 : f32, config = #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 8, stages = 1>}
      : tensor<2x4x64x192xf16>, tensor<2x4x64x192xf16>, tensor<2x4x64x128xf16>, tensor<2x4x64x128xf16>,
        tensor<2x4x64x128xf16>, tensor<2x4x64xf32>
      -> tensor<2x4x64x192xf16>, tensor<2x4x64x192xf16>, tensor<2x4x64x128xf16>
  return %dq : tensor<2x4x64x192xf16>
}

// CHECK-LABEL: func @dynamic_sizes
// CHECK: attn.flash_bwd {{.*}} : tensor<?x2x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?xf32>
func.func @dynamic_sizes(%q: tensor<?x2x?x64xbf16>, %k: tensor<?x1x?x64xbf16>, %v: tensor<?x1x?x64xbf16>,
    %o: tensor<?x2x?x64xbf16>, %do: tensor<?x2x?x64xbf16>, %lse: tensor<?x2x?xf32>) -> tensor<?x2x?x64xbf16> {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse {scale = 1.0 : f32}
      : tensor<?x2x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x2x?x64xbf16>,
        tensor<?x2x?x64xbf16>, tensor<?x2x?xf32>
      -> tensor<?x2x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x64xbf16>
  return %dq : tensor<?x2x?x64xbf16>
}

// The sinks' gradient is the last result; its type is the sinks' (a
// [1, H, 1, 1] column here), which the op prints once.
// CHECK-LABEL: func @sinks
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[DS:.*]] = attn.flash_bwd {{.*}} sinks(%{{.*}} : tensor<1x2x1x1xf32>) {{.*}} -> tensor<1x2x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>{{$}}
// CHECK: return %[[DS]] : tensor<1x2x1x1xf32>
func.func @sinks(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %lse: tensor<1x2x64xf32>,
    %s: tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  %dq, %dk, %dv, %ds = attn.flash_bwd %q, %k, %k, %q, %q, %lse sinks(%s : tensor<1x2x1x1xf32>)
      {scale = 0.125 : f32}
      : tensor<1x2x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x2x64x64xbf16>,
        tensor<1x2x64x64xbf16>, tensor<1x2x64xf32>
      -> tensor<1x2x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>
  return %ds : tensor<1x2x1x1xf32>
}

// A ragged batch: packed operands and gradients, the logsumexp [Hq, Tq].
// CHECK-LABEL: func @ragged
// CHECK: attn.flash_bwd {{.*}} cu_seqlens_q(%{{.*}} : tensor<4xi32>) cu_seqlens_k(%{{.*}} : tensor<4xi32>) {mask = #attn.mask<causal, bottom_right>, scale = 1.250000e-01 : f32}
// CHECK-SAME: : tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>, tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<8x300xf32>
// CHECK-SAME: -> tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>
func.func @ragged(%q: tensor<300x8x64xbf16>, %k: tensor<500x2x64xbf16>, %v: tensor<500x2x64xbf16>,
    %o: tensor<300x8x64xbf16>, %do: tensor<300x8x64xbf16>, %lse: tensor<8x300xf32>, %cq: tensor<4xi32>, %ck: tensor<4xi32>)
    -> (tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>) {
  %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse cu_seqlens_q(%cq : tensor<4xi32>) cu_seqlens_k(%ck : tensor<4xi32>)
      {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
      : tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>,
        tensor<300x8x64xbf16>, tensor<300x8x64xbf16>, tensor<8x300xf32>
      -> tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>
  return %dq, %dk, %dv : tensor<300x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16>
}
