// RUN: attn-opt --attn-lower-unfused %s | attn-translate --attn-to-cuda | FileCheck %s

// Each attn.kernel of the unfused path is one translation unit over
// attn/graph_ops.cuh: static shapes as constants (rank-4 views), a fixed
// grid that the template must agree with, and a name that says what it is.

// Q K^T with GQA (2 query heads per key head), f32 scores: 128x128 tiles.
// CHECK: // attn_matmul_bf16_f32_1x4x200x64_k32_tr_gqa2: 256 threads, grid 1x2x4
// CHECK: #include "attn/graph_ops.cuh"
// CHECK: using Element = attn::BF16;
// CHECK-NEXT: using Out = float;
// CHECK-NEXT: using LhsShape = attn::graph::Shape<1, 4, 200, 32>;
// CHECK-NEXT: using RhsShape = attn::graph::Shape<1, 2, 64, 32>;
// CHECK-NEXT: using OutShape = attn::graph::Shape<1, 4, 200, 64>;
// CHECK-NEXT: static constexpr bool kTransposeLhs = false;
// CHECK-NEXT: static constexpr bool kTransposeRhs = true;
// CHECK: using Kernel = attn::graph::Matmul<Config>;
// CHECK-NEXT: static_assert(Kernel::kThreads == 256 && Kernel::kGridX == 1 && Kernel::kGridY == 2 && Kernel::kGridZ == 4,
// CHECK: extern "C" __global__ void __launch_bounds__(Kernel::kThreads, Kernel::kMinBlocks) attn_matmul_bf16_f32_1x4x200x64_k32_tr_gqa2(const attn::GraphParams params) {
// CHECK-NEXT: Kernel::run(params);

// Element-wise ops: 1024 elements a block (51200 / 1024 = 50 blocks).
// CHECK: // attn_scale_f32_1x4x200x64: 256 threads, grid 50x1x1
// CHECK: return x * __int_as_float(0x3e2e147bu) /* 0.17 */;
// CHECK: using Kernel = attn::graph::Map<Config>;

// The score_mod region becomes a device function over the indices.
// CHECK: // attn_score_mod_f32_1x4x200x64: 256 threads, grid 50x1x1
// CHECK: static __device__ __forceinline__ float scoreMod(float score, long long b, long long h, long long q_idx, long long kv_idx, const void *const *captures) {
// CHECK: tanhf(
// CHECK: return scoreMod(x, idx[0], idx[1], idx[2], idx[3], p.in + 1);

// The mask names its kinds and the operand slot of each mask operand.
// CHECK: // attn_mask_f32_1x4x200x64_causalbr_window_padded_keep_bias: 256 threads, grid 50x1x1
// CHECK: using BiasElement = attn::BF16;
// CHECK-NEXT: static constexpr bool kCausal = true;
// CHECK-NEXT: static constexpr bool kBottomRight = true;
// CHECK-NEXT: static constexpr bool kBottomRightTensor = false;
// CHECK-NEXT: static constexpr bool kWindow = true;
// CHECK-NEXT: static constexpr int kWindowLeft = 16;
// CHECK-NEXT: static constexpr int kWindowRight = -1;
// CHECK-NEXT: static constexpr bool kKeyPadding = true;
// CHECK-NEXT: static constexpr bool kKeep = true;
// CHECK-NEXT: static constexpr bool kBias = true;
// CHECK-NEXT: static constexpr int kLengthsInput = 1;
// CHECK-NEXT: static constexpr int kKeepInput = 2;
// CHECK-NEXT: static constexpr int kBiasInput = 3;
// CHECK: return attn::graph::applyMask<Config>(x, p, idx);

// Softmax along the last dimension (dim = -1): one block per row.
// CHECK: // attn_softmax_f32_1x4x200x64_d3: 128 threads, grid 800x1x1
// CHECK: static constexpr int kDim = 3;
// CHECK: using Kernel = attn::graph::Softmax<Config>;

// CHECK: // attn_truncf_f32_bf16_1x4x200x64: 256 threads, grid 50x1x1
// CHECK: using Out = attn::BF16;
// CHECK: return x;

// CHECK: // attn_matmul_bf16_1x4x200x32_k64_gqa2: 256 threads, grid 1x2x4
// CHECK: static constexpr bool kTransposeRhs = false;
func.func @chain(%q: tensor<1x4x200x32xbf16>, %k: tensor<1x2x64x32xbf16>, %v: tensor<1x2x64x32xbf16>, %len: tensor<1xi32>, %keep: tensor<1x1x200x64xi1>, %bias: tensor<1x4x1x64xbf16>) -> tensor<1x4x200x32xbf16> {
  %cap = arith.constant 30.0 : f32
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x4x200x32xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x4x200x64xf32>
  %t = attn.scale %s {factor = 0.17 : f32} : tensor<1x4x200x64xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<1x4x200x64xf32>
  %m = attn.mask %c lengths(%len : tensor<1xi32>) keep(%keep : tensor<1x1x200x64xi1>) bias(%bias : tensor<1x4x1x64xbf16>) {kind = #attn.mask<causal, bottom_right, window = [16, -1], key_padding, keep, bias>} : tensor<1x4x200x64xf32>
  %p = attn.softmax %m {dim = -1} : tensor<1x4x200x64xf32> -> tensor<1x4x200x64xf32>
  %w = arith.truncf %p : tensor<1x4x200x64xf32> to tensor<1x4x200x64xbf16>
  %o = attn.matmul %w, %v : tensor<1x4x200x64xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x4x200x32xbf16>
  return %o : tensor<1x4x200x32xbf16>
}

// -----

// Lower ranks are viewed at rank 4; softmax along a leading dimension is
// along that dimension of the view; a transposed lhs reads it by strides.
// CHECK: // attn_softmax_f32_1x3x5x7_d2: 128 threads, grid 21x1x1
// CHECK: using Shape = attn::graph::Shape<1, 3, 5, 7>;
// CHECK: static constexpr int kDim = 2;
// CHECK: // attn_matmul_f32_1x1x7x5_k3_tl: 256 threads, grid 1x1x1
// CHECK: using LhsShape = attn::graph::Shape<1, 1, 3, 7>;
// CHECK: static constexpr bool kTransposeLhs = true;
func.func @ranks(%x: tensor<3x5x7xf32>, %a: tensor<3x7xf32>, %b: tensor<3x5xf32>) -> (tensor<3x5x7xf32>, tensor<7x5xf32>) {
  %p = attn.softmax %x {dim = 1} : tensor<3x5x7xf32> -> tensor<3x5x7xf32>
  %m = attn.matmul %a, %b {transpose_lhs} : tensor<3x7xf32>, tensor<3x5xf32> -> tensor<7x5xf32>
  return %p, %m : tensor<3x5x7xf32>, tensor<7x5xf32>
}
