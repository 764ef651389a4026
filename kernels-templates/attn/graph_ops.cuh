// The unfused path: one graph op per launch, every operand and result in
// global memory, the way PyTorch's math backend runs attention. These are
// the kernels of `--attn-lower-unfused`'s attn.kernel ops: a reference for
// the fused kernel inside the same tool, and the measure of what fusion
// saves (launches, bytes, time). They favour generality over speed: any
// element type (f32, F16, BF16 patterns), any strides, f32 arithmetic.
//
// Every shape is a compile-time constant of the emitted Config (operands
// viewed at rank 4); pointers and strides come in GraphParams.
//
//   Map<C>      one element in, one out: C::apply(x, p, idx) (scale, mask,
//               score_mod, casts); in place when p.out == p.in[0]
//   Softmax<C>  along dimension C::kDim, one block per slice
//   Matmul<C>   batched C = A B with transposes and GQA heads, 128x128 tiles
#pragma once
#include "attn/common.cuh"

namespace attn {
namespace graph {

/// A static rank-4 shape.
template <i64 D0, i64 D1, i64 D2, i64 D3> struct Shape {
  static constexpr i64 kNumel = D0 * D1 * D2 * D3;
  static constexpr i64 dim(int d) {
    return d == 0 ? D0 : d == 1 ? D1 : d == 2 ? D2 : D3;
  }
  /// The index of the linear (row-major) position `linear`.
  static __device__ __forceinline__ void unflatten(i64 linear, i64 (&idx)[4]) {
    idx[3] = linear % D3;
    linear /= D3;
    idx[2] = linear % D2;
    linear /= D2;
    idx[1] = linear % D1;
    idx[0] = linear / D1;
  }
};

__device__ __forceinline__ i64 offsetOf(const i64 (&idx)[4],
                                        const i64 (&strides)[4]) {
  return idx[0] * strides[0] + idx[1] * strides[1] + idx[2] * strides[2] +
         idx[3] * strides[3];
}

//===----------------------------------------------------------------------===//
// Element-wise ops
//===----------------------------------------------------------------------===//

/// C: In, Out, Shape (of the result), apply(float, const GraphParams &,
/// const i64 (&)[4]). Each thread maps kPerThread elements a block apart, so
/// that a warp's accesses are consecutive.
template <class C> struct Map {
  static constexpr int kThreads = 256, kPerThread = 4, kMinBlocks = 1;
  static constexpr i64 kGridX =
      (C::Shape::kNumel + kThreads * kPerThread - 1) / (kThreads * kPerThread);
  static constexpr i64 kGridY = 1, kGridZ = 1;

  static __device__ void run(const GraphParams &p) {
    const i64 first = blockIdx.x * i64(kThreads * kPerThread) + threadIdx.x;
#pragma unroll
    for (int e = 0; e < kPerThread; ++e) {
      i64 linear = first + e * kThreads;
      if (linear >= C::Shape::kNumel)
        return;
      i64 idx[4];
      C::Shape::unflatten(linear, idx);
      float x = ElementIO<typename C::In>::load(p.in[0], offsetOf(idx, p.in_strides[0]));
      ElementIO<typename C::Out>::store(p.out, offsetOf(idx, p.out_strides),
                                        C::apply(x, p, idx));
    }
  }
};

/// attn.mask on a [batch, heads, queries, keys] score: the positional masks
/// and key padding of the fused kernel (keyAllowed), a bool keep tensor, an
/// additive bias. C: Shape, kCausal, kBottomRight, kBottomRightTensor,
/// kWindow, kWindowLeft, kWindowRight, kKeyPadding, kKeep, kBias,
/// kLengthsInput, kKeepInput, kBiasInput (operand slots), BiasElement.
template <class C>
__device__ __forceinline__ float applyMask(float x, const GraphParams &p,
                                          const i64 (&idx)[4]) {
  using S = typename C::Shape;
  const int b = int(idx[0]), q = int(idx[2]), k = int(idx[3]);
  int kvEnd = int(S::dim(3));
  if (C::kKeyPadding) {
    // lengths is [batch]: at rank 4 its one dimension is the last.
    const int *lengths = static_cast<const int *>(p.in[C::kLengthsInput]);
    kvEnd = min(kvEnd, max(lengths[b * p.in_strides[C::kLengthsInput][3]], 0));
  }
  // Bottom-right aligns to each batch entry's own last key, or with
  // kBottomRightTensor to the tensor's.
  const int diagOffset =
      C::kBottomRight
          ? (C::kBottomRightTensor ? int(S::dim(3)) : kvEnd) - int(S::dim(2))
          : 0;
  bool ok = keyAllowed<C::kCausal, C::kWindow>(q, k, kvEnd, diagOffset,
                                              C::kWindowLeft, C::kWindowRight);
  if (C::kKeep)
    ok = ok && static_cast<const unsigned char *>(
                   p.in[C::kKeepInput])[offsetOf(idx, p.in_strides[C::kKeepInput])] != 0;
  if (C::kBias)
    x += ElementIO<typename C::BiasElement>::load(
        p.in[C::kBiasInput], offsetOf(idx, p.in_strides[C::kBiasInput]));
  return ok ? x : negInf();
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

/// A running (max, sum of exp(x - max)) pair, merged across threads.
struct SoftmaxState {
  float max = negInf(), sum = 0.f;

  __device__ __forceinline__ void add(float x) { merge(x, 1.f); }
  __device__ __forceinline__ void merge(float otherMax, float otherSum) {
    float m = fmaxf(max, otherMax);
    if (m == negInf())
      return; // both empty (or every entry masked so far)
    sum = sum * fastExp2((max - m) * kLog2e) + otherSum * fastExp2((otherMax - m) * kLog2e);
    max = m;
  }
};

/// C: In, Out, Shape, kDim. One block per slice along kDim: one pass for
/// the max and the sum (online), one to write. A slice that is all -inf
/// yields zeros.
template <class C> struct Softmax {
  static constexpr int kThreads = 128, kMinBlocks = 1;
  using S = typename C::Shape;
  static constexpr i64 kLength = S::dim(C::kDim);
  /// The shape of the slice starts: kDim collapsed to 1.
  using Starts = Shape<C::kDim == 0 ? 1 : S::dim(0), C::kDim == 1 ? 1 : S::dim(1),
                       C::kDim == 2 ? 1 : S::dim(2), C::kDim == 3 ? 1 : S::dim(3)>;
  static constexpr i64 kGridX = Starts::kNumel, kGridY = 1, kGridZ = 1;

  static __device__ void run(const GraphParams &p) {
    i64 idx[4];
    Starts::unflatten(blockIdx.x, idx);
    const i64 in0 = offsetOf(idx, p.in_strides[0]), inStep = p.in_strides[0][C::kDim];
    const i64 out0 = offsetOf(idx, p.out_strides), outStep = p.out_strides[C::kDim];

    SoftmaxState state;
    for (i64 i = threadIdx.x; i < kLength; i += kThreads)
      state.add(ElementIO<typename C::In>::load(p.in[0], in0 + i * inStep));
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
      state.merge(__shfl_xor_sync(0xffffffffu, state.max, offset),
                  __shfl_xor_sync(0xffffffffu, state.sum, offset));
    __shared__ float maxes[kThreads / 32], sums[kThreads / 32];
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) {
      maxes[warp] = state.max;
      sums[warp] = state.sum;
    }
    __syncthreads();
    SoftmaxState total;
#pragma unroll
    for (int w = 0; w < kThreads / 32; ++w)
      total.merge(maxes[w], sums[w]);

    const bool empty = total.max == negInf();
    const float inverse = empty ? 0.f : 1.f / total.sum;
    for (i64 i = threadIdx.x; i < kLength; i += kThreads) {
      float x = ElementIO<typename C::In>::load(p.in[0], in0 + i * inStep);
      float y = empty ? 0.f : fastExp2((x - total.max) * kLog2e) * inverse;
      ElementIO<typename C::Out>::store(p.out, out0 + i * outStep, y);
    }
  }
};

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

/// C: Element (of both operands), Out, LhsShape, RhsShape, OutShape (as
/// stored, rank 4), kTransposeLhs, kTransposeRhs. Out[b, h] = A B with
/// A = lhs[b, h] (or its transpose) and B = rhs[b, h / (heads / rhs heads)]
/// (or its transpose). A block computes a 128x128 tile of Out, a thread
/// 8x8 of it in f32, from 16-deep slices of A and B staged in shared memory.
template <class C> struct Matmul {
  static constexpr int kThreads = 256, kTile = 128, kDepth = 16;
  // Two blocks per SM (at most 128 registers a thread): one block's loads
  // overlap the other's arithmetic.
  static constexpr int kMinBlocks = 1;
  // Rows padded by 4 floats: the stores of a K-contiguous operand (16 of
  // them per row) then hit 32 different banks, and float4 reads stay aligned.
  static constexpr int kRow = kTile + 4;
  using L = typename C::LhsShape;
  using R = typename C::RhsShape;
  using O = typename C::OutShape;
  static constexpr i64 kM = O::dim(2), kN = O::dim(3);
  static constexpr i64 kK = C::kTransposeLhs ? L::dim(2) : L::dim(3);
  static constexpr i64 kHeadsPerRhsHead = O::dim(1) / R::dim(1);
  static constexpr i64 kGridX = (kN + kTile - 1) / kTile;
  static constexpr i64 kGridY = (kM + kTile - 1) / kTile;
  static constexpr i64 kGridZ = O::dim(0) * O::dim(1);

  /// Stages a kTile x kDepth slice of an operand, rows [r0, r0 + kTile) and
  /// depth [k0, k0 + kDepth), at tile[depth][row] (zeros outside). Rows are
  /// contiguous in memory when kRowsContiguous, else the depth is;
  /// consecutive threads walk the contiguous one, for coalescing.
  template <bool kRowsContiguous>
  static __device__ __forceinline__ void
  stage(float (&tile)[kDepth][kRow], const void *src, i64 base, i64 rowStride,
        i64 depthStride, i64 r0, i64 rows, i64 k0) {
    constexpr int kExtent = kRowsContiguous ? kTile : kDepth;
    constexpr int kStep = kThreads / kExtent; // of the other index, per pass
    const int fixed = threadIdx.x % kExtent, first = threadIdx.x / kExtent;
#pragma unroll
    for (int e = 0; e < kTile * kDepth / kThreads; ++e) {
      const int r = kRowsContiguous ? fixed : first + e * kStep;
      const int k = kRowsContiguous ? first + e * kStep : fixed;
      tile[k][r] = r0 + r < rows && k0 + k < kK
                       ? ElementIO<typename C::Element>::load(
                             src, base + (r0 + r) * rowStride + (k0 + k) * depthStride)
                       : 0.f;
    }
  }

  static __device__ void run(const GraphParams &p) {
    __shared__ __align__(16) float a[kDepth][kRow], bt[kDepth][kRow];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const i64 n0 = blockIdx.x * i64(kTile), m0 = blockIdx.y * i64(kTile);
    const i64 b = blockIdx.z / O::dim(1), h = blockIdx.z % O::dim(1);
    const i64 *ls = p.in_strides[0], *rs = p.in_strides[1];
    const i64 lhsBase = b * ls[0] + h * ls[1];
    const i64 rhsBase = b * rs[0] + (h / kHeadsPerRhsHead) * rs[1];
    // Strides of A along (m, k) and of B along (k, n).
    const i64 am = C::kTransposeLhs ? ls[3] : ls[2], ak = C::kTransposeLhs ? ls[2] : ls[3];
    const i64 bk = C::kTransposeRhs ? rs[3] : rs[2], bn = C::kTransposeRhs ? rs[2] : rs[3];

    float acc[8][8] = {};
    for (i64 k0 = 0; k0 < kK; k0 += kDepth) {
      stage<C::kTransposeLhs>(a, p.in[0], lhsBase, am, ak, m0, kM, k0);
      stage<!C::kTransposeRhs>(bt, p.in[1], rhsBase, bn, bk, n0, kN, k0);
      __syncthreads();
#pragma unroll
      for (int k = 0; k < kDepth; ++k) {
        // Rows ty*4 + {0..3} and 64 + ty*4 + {0..3}; columns likewise.
        float av[8], bv[8];
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          float4 x = *reinterpret_cast<const float4 *>(&a[k][half * 64 + ty * 4]);
          float4 y = *reinterpret_cast<const float4 *>(&bt[k][half * 64 + tx * 4]);
          av[half * 4 + 0] = x.x, av[half * 4 + 1] = x.y, av[half * 4 + 2] = x.z,
          av[half * 4 + 3] = x.w;
          bv[half * 4 + 0] = y.x, bv[half * 4 + 1] = y.y, bv[half * 4 + 2] = y.z,
          bv[half * 4 + 3] = y.w;
        }
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < 8; ++j)
            acc[i][j] += av[i] * bv[j];
      }
      __syncthreads();
    }

    const i64 outBase = b * p.out_strides[0] + h * p.out_strides[1];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const i64 m = m0 + (i / 4) * 64 + ty * 4 + i % 4;
      if (m >= kM)
        continue;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const i64 n = n0 + (j / 4) * 64 + tx * 4 + j % 4;
        if (n < kN)
          ElementIO<typename C::Out>::store(
              p.out, outBase + m * p.out_strides[2] + n * p.out_strides[3], acc[i][j]);
      }
    }
  }
};

} // namespace graph
} // namespace attn
