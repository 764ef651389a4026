//===- KernelSpec.h - What the runtime needs to launch a kernel -*- C++ -*-===//
//
// Produced by the CUDA emitter from a configured attn.flash or
// attn.flash_bwd, or an attn.kernel, consumed by the runtime. Plain C++: the
// runtime has no MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUNTIME_KERNELSPEC_H
#define ATTN_RUNTIME_KERNELSPEC_H

#include "attn/Runtime/ElementType.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// What a kernel computes: fused attention (FlashParams), one graph op of
/// the unfused path (GraphParams), or the backward of fused attention
/// (FlashBwdParams: the entry and its _pre, _dq and _convert kernels).
enum class KernelKind { Flash, GraphOp, FlashBackward, CacheAppend };

/// The arguments a kernel of `kind` launches with: "FlashArgs", ...
const char *launchArgsName(KernelKind kind);

/// One emitted kernel and its launch contract.
struct KernelSpec {
  std::string name;   ///< extern "C" entry point, readable (attn_fwd_bf16_...)
  std::string source; ///< one CUDA C++ translation unit
  std::string variant; ///< template family ("sm80", "sm90"; "graph" for graph ops)
  KernelKind kind = KernelKind::Flash;

  // Launch geometry: grid = (ceil(seqQ / blockM), headsQ, batch).
  int threads = 0;
  int sharedBytes = 0;
  int blockM = 0, blockN = 0, numWarps = 0, stages = 0;

  // What the kernel was specialized on.
  ElementType element = ElementType::BF16;
  int headDimQK = 0, headDimV = 0;
  int headsQ = 0, headsKV = 0;
  bool transposeK = false;
  bool causal = false, bottomRight = false, window = false;
  /// bottom_right = tensor: the diagonal follows seqKV, not key padding's
  /// lengths (#attn.mask).
  bool bottomRightTensor = false;
  int windowLeft = -1, windowRight = -1;
  bool keyPadding = false, keep = false, bias = false, scoreMod = false;
  int scoreModCaptures = 0; ///< tensors the score_mod reads (FlashArgs)
  ElementType biasElement = ElementType::F32;
  bool writesLse = false;
  float scale = 1.0f;
  /// Ragged batches: q, k, v and o packed [tokens, heads, dim], sequences
  /// at offsets (FlashArgs::cuSeqlensQ / cuSeqlensK).
  bool varlen = false;
  /// Attention sinks: one f32 logit per query head (FlashArgs::sinks); of a
  /// backward, their gradient (BackwardArgs::gradSinks).
  bool sinks = false;
  /// Packed rows: G query heads per K/V head share a block, its rows the
  /// (token, head) pairs of a few tokens (decode with GQA, any mask); 1:
  /// not packed (one-token decode may still pack heads by strides,
  /// Kernel::rowPacking).
  int packGroup = 1;
  /// Paged K/V caches read through a block table (FlashArgs::blockTable);
  /// seqKV is then the keys per sequence (pages per sequence x page size).
  bool paged = false;

  // The backward: whether it computes the bias gradient, and the threads and
  // dynamic shared memory of its deterministic dQ kernel (<name>_dq).
  bool biasGrad = false;
  int backwardDqThreads = 0, backwardDqSharedBytes = 0;

  // The cache append (CacheAppend, with `paged`): the rotated leading dims
  // of q and k (0: none), and whether they rotate in adjacent pairs (GPT-J)
  // rather than halves (GPT-NeoX).
  int rotaryDim = 0;
  bool rotaryInterleaved = false;

  // Shapes from the IR; -1 where dynamic (given at launch). A ragged
  // batch's: its sequences and the packed tokens of q and k.
  int64_t batch = -1, seqQ = -1, seqKV = -1;

  // Graph-op kernels: static shapes, so a fixed grid. Operands and result
  // are viewed at rank 4 (leading dimensions of size 1); an input dimension
  // of size 1 that the result does not share broadcasts (stride 0).
  std::string graphOp; ///< the payload: "matmul", "mask", "softmax", ...
  std::vector<std::array<int64_t, 4>> inputShapes;
  std::array<int64_t, 4> outputShape = {0, 0, 0, 0};
  std::array<unsigned, 3> grid = {0, 0, 0};
};

} // namespace attn

#endif // ATTN_RUNTIME_KERNELSPEC_H
