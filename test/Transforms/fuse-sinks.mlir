// RUN: attn-opt %s -attn-fuse -split-input-file -verify-diagnostics | FileCheck %s

// Attention sinks as a graph writes them (gpt-oss): a per-head logit
// broadcast to a [B, H, Sq, 1] column (attn.mask adding a [1, H, 1, 1] bias
// to zeros), concatenated to the masked scores along the keys, the softmax
// over both, the sink column sliced off, then @ v. The chain becomes one
// attn.flash with the sinks operand; what is not that shape stays, with a
// remark.

// CHECK-LABEL: func @gpt_oss
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x64x64xbf16>, %[[K:.*]]: tensor<2x2x64x64xbf16>, %[[V:.*]]: tensor<2x2x64x64xbf16>, %[[S:.*]]: tensor<1x8x1x1xf32>)
// CHECK-NEXT: %[[O:.*]] = attn.flash %[[Q]], %[[K]], %[[V]] sinks(%[[S]] : tensor<1x8x1x1xf32>) {mask = #attn.mask<causal, window = [31, 0]>, scale = 1.250000e-01 : f32}
// CHECK-NEXT: return %[[O]]
func.func @gpt_oss(%q: tensor<2x8x64x64xbf16>, %k: tensor<2x2x64x64xbf16>, %v: tensor<2x2x64x64xbf16>, %sinks: tensor<1x8x1x1xf32>) -> tensor<2x8x64x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x8x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x8x64x64xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x8x64x64xf32>
  %m = attn.mask %t {kind = #attn.mask<causal, window = [31, 0]>} : tensor<2x8x64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<2x8x64x1xf32>
  %col = attn.mask %zero bias(%sinks : tensor<1x8x1x1xf32>) {kind = #attn.mask<bias>} : tensor<2x8x64x1xf32>
  %cat = tensor.concat dim(3) %m, %col : (tensor<2x8x64x64xf32>, tensor<2x8x64x1xf32>) -> tensor<2x8x64x65xf32>
  %p = attn.softmax %cat {dim = 3} : tensor<2x8x64x65xf32> -> tensor<2x8x64x65xf32>
  %pk = tensor.extract_slice %p[0, 0, 0, 0] [2, 8, 64, 64] [1, 1, 1, 1] : tensor<2x8x64x65xf32> to tensor<2x8x64x64xf32>
  %ph = arith.truncf %pk : tensor<2x8x64x64xf32> to tensor<2x8x64x64xbf16>
  %o = attn.matmul %ph, %v : tensor<2x8x64x64xbf16>, tensor<2x2x64x64xbf16> -> tensor<2x8x64x64xbf16>
  return %o : tensor<2x8x64x64xbf16>
}

// -----

// The column of a bias that varies by query is not a sink per head.
// CHECK-LABEL: func @column_per_query
// CHECK-NOT: attn.flash
func.func @column_per_query(%q: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %b: tensor<1x2x16x1xf32>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %q {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %zero = arith.constant dense<0.0> : tensor<1x2x16x1xf32>
  %col = attn.mask %zero bias(%b : tensor<1x2x16x1xf32>) {kind = #attn.mask<bias>} : tensor<1x2x16x1xf32>
  %cat = tensor.concat dim(3) %s, %col : (tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>) -> tensor<1x2x16x17xf32>
  // expected-remark @+1 {{attention chain not fused: the sink column's bias is not f32 logits per head ([1, heads, 1, 1])}}
  %p = attn.softmax %cat {dim = 3} : tensor<1x2x16x17xf32> -> tensor<1x2x16x17xbf16>
  %pk = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 16, 16] [1, 1, 1, 1] : tensor<1x2x16x17xbf16> to tensor<1x2x16x16xbf16>
  %o = attn.matmul %pk, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// A column that is an argument: nothing says it is the same for every
// query.
// CHECK-LABEL: func @column_argument
// CHECK-NOT: attn.flash
func.func @column_argument(%q: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %col: tensor<1x2x16x1xf32>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %q {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %cat = tensor.concat dim(3) %s, %col : (tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>) -> tensor<1x2x16x17xf32>
  // expected-remark @+1 {{attention chain not fused: the column concatenated to the scores is not a sink column (attn.mask adding a per-head bias to a splat 0)}}
  %p = attn.softmax %cat {dim = 3} : tensor<1x2x16x17xf32> -> tensor<1x2x16x17xbf16>
  %pk = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 16, 16] [1, 1, 1, 1] : tensor<1x2x16x17xbf16> to tensor<1x2x16x16xbf16>
  %o = attn.matmul %pk, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// The slice keeps the sink column and drops a key.
// CHECK-LABEL: func @slice_drops_a_key
// CHECK-NOT: attn.flash
func.func @slice_drops_a_key(%q: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %sinks: tensor<1x2x1x1xf32>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %q {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %zero = arith.constant dense<0.0> : tensor<1x2x16x1xf32>
  %col = attn.mask %zero bias(%sinks : tensor<1x2x1x1xf32>) {kind = #attn.mask<bias>} : tensor<1x2x16x1xf32>
  %cat = tensor.concat dim(3) %s, %col : (tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>) -> tensor<1x2x16x17xf32>
  // expected-remark @+1 {{attention chain not fused: the tensor.extract_slice of the probabilities is not the scores' columns without the sink column}}
  %p = attn.softmax %cat {dim = 3} : tensor<1x2x16x17xf32> -> tensor<1x2x16x17xbf16>
  %pk = tensor.extract_slice %p[0, 0, 0, 1] [1, 2, 16, 16] [1, 1, 1, 1] : tensor<1x2x16x17xbf16> to tensor<1x2x16x16xbf16>
  %o = attn.matmul %pk, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}

// -----

// Concatenated along the queries: not a sink.
// CHECK-LABEL: func @concat_queries
// CHECK-NOT: attn.flash
func.func @concat_queries(%q: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>, %row: tensor<1x2x1x16xf32>) -> tensor<1x2x17x16xbf16> {
  %s = attn.matmul %q, %q {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %cat = tensor.concat dim(2) %s, %row : (tensor<1x2x16x16xf32>, tensor<1x2x1x16xf32>) -> tensor<1x2x17x16xf32>
  // expected-remark @+1 {{attention chain not fused: the softmax input is a tensor.concat that is not the scores and one sink column along the keys}}
  %p = attn.softmax %cat {dim = 3} : tensor<1x2x17x16xf32> -> tensor<1x2x17x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x17x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x17x16xbf16>
  return %o : tensor<1x2x17x16xbf16>
}

// -----

// The sink column takes part in the product with v (a value of its own):
// not an attention sink.
// CHECK-LABEL: func @sink_with_a_value
// CHECK-NOT: attn.flash
func.func @sink_with_a_value(%q: tensor<1x2x16x16xbf16>, %v: tensor<1x2x17x16xbf16>, %sinks: tensor<1x2x1x1xf32>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %q {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %zero = arith.constant dense<0.0> : tensor<1x2x16x1xf32>
  %col = attn.mask %zero bias(%sinks : tensor<1x2x1x1xf32>) {kind = #attn.mask<bias>} : tensor<1x2x16x1xf32>
  %cat = tensor.concat dim(3) %s, %col : (tensor<1x2x16x16xf32>, tensor<1x2x16x1xf32>) -> tensor<1x2x16x17xf32>
  // expected-remark @+1 {{attention chain not fused: the sink column is not sliced off the probabilities before the matmul with v}}
  %p = attn.softmax %cat {dim = 3} : tensor<1x2x16x17xf32> -> tensor<1x2x16x17xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x17xbf16>, tensor<1x2x17x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
}
