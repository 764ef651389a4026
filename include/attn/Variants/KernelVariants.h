//===- KernelVariants.h - The tables of kernel variants ---------*- C++ -*-===//
//
// Every forward-attention kernel variant in one table: what it needs of the
// GPU and the operands, which tiles it takes, its shared-memory and register
// model, and how it is launched. Plain C++ below the dialect: the
// #attn.config verifier, the flash op's verifier, the cost model, the CUDA
// emitter and the runtime all read it, so a variant's rules live here once.
// The backward's variants (attn.flash_bwd, #attn.backward_config) have a
// table of their own beside it, read by the same readers. Its library
// (lib/Variants) needs neither MLIR nor CUDA: the dialect links it, not the
// JIT runtime.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_VARIANTS_KERNELVARIANTS_H
#define ATTN_VARIANTS_KERNELVARIANTS_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

/// Largest head dimension any kernel supports.
constexpr int64_t kMaxHeadDim = 256;

/// Key lengths up to which a persistent kernel's key tiles had better divide
/// 128 (bench/NOTES.md steps 17 and 19): 4096 under a causal mask or a
/// window, whose diagonal tiles cost the most, 2048 otherwise. Where the key
/// length is dynamic, an attn.flash gets those tiles and, as its launch
/// plan's long_keys (#attn.launch_plan), the tiles for longer keys: both are
/// compiled and a launch with more keys than this runs the second
/// (Kernel::setLongKeysKernel).
constexpr int64_t alignedKeysUpTo(bool causalOrWindow) {
  return causalOrWindow ? 4096 : 2048;
}

/// A tile configuration (what #attn.config<...> holds besides the variant).
struct TileConfig {
  int64_t blockM = 0, blockN = 0, numWarps = 0, stages = 0;
};

/// What a variant must support of the attention's operands.
struct OperandShape {
  int64_t headDimQK = 0, headDimV = 0;
  bool transposeK = false;
  /// bias, keep or score_mod: element-wise work on every key tile.
  bool elementwise = false;
  /// bias or keep: per-element loads of a mask operand (part of
  /// elementwise).
  bool maskOperands = false;
  /// Ragged batches: sequences at offsets (cu_seqlens) in packed tensors.
  bool varlen = false;
  /// Paged K/V caches: keys found through a block table.
  bool paged = false;
  /// Keys per page where the cache's type says (0: dynamic).
  int64_t pageSize = 0;
};

struct KernelVariant {
  std::string_view name;    ///< as #attn.config spells it
  std::string_view summary; ///< one line for messages and docs
  /// The header the emitted source includes and the template it
  /// instantiates with its Config.
  std::string_view header, kernelTemplate;
  /// Compute capability the variant needs (80: sm_80 and newer), and
  /// whether it needs the arch-specific sm_90a target (wgmma, setmaxnreg).
  int minCapability;
  bool archSpecific;
  /// One block per SM looping over the work tiles, Q/K/V by TMA: the
  /// launch passes tensor maps and sizes the grid to the GPU.
  bool persistent;

  /// Why the tiles are not valid for the variant ("" if they are).
  std::string (*checkTiles)(const TileConfig &tiles);
  /// What the variant needs that the operands lack, as a phrase after
  /// "needs" ("" if it supports them).
  std::string (*checkOperands)(const OperandShape &shape);
  /// Dynamic shared memory of one block, in bytes (the template
  /// static_asserts the same number).
  int64_t (*sharedBytes)(const TileConfig &tiles, const OperandShape &shape);
  /// Estimated registers per thread of the threads that hold accumulators,
  /// and what such a thread may use.
  int64_t (*registers)(const TileConfig &tiles, const OperandShape &shape);
  int64_t (*registerLimit)(const TileConfig &tiles);
  /// Tile configurations the cost model considers for the operands.
  std::vector<TileConfig> (*candidates)(const OperandShape &shape);

  int64_t threads(const TileConfig &tiles) const { return 32 * tiles.numWarps; }
};

/// Every variant, in order of preference where several apply.
const std::vector<KernelVariant> &kernelVariants();
/// The variant called `name`, or null.
const KernelVariant *findKernelVariant(std::string_view name);
/// "sm80, sm90, sm90ws": for messages.
std::string knownVariantNames();

/// A backward variant: the kernels of one attn.flash_bwd. Its main kernel
/// is K/V-stationary (a block owns block_n keys of one K/V head and sweeps
/// the query tiles of block_m rows; dK, dV in registers, dQ by f32
/// atomics); a Q-stationary kernel computes dQ instead in the deterministic
/// mode (a block owns block_m query rows). TileConfig is what
/// #attn.backward_config holds besides the variant.
struct BackwardKernelVariant {
  std::string_view name;    ///< as #attn.backward_config spells it
  std::string_view summary; ///< one line for messages and docs
  /// The header the emitted source includes, and the templates of the
  /// K/V-stationary and the deterministic dQ kernel (each with a Config).
  std::string_view header, kvTemplate, dqTemplate;
  int minCapability;
  bool archSpecific;
  /// Whether a launch that does not ask for the deterministic mode adds dQ
  /// with atomics in the K/V-stationary kernel; if not, the dQ kernel
  /// computes it (no atomics: deterministic too) where that was faster.
  bool atomicDq;
  /// Whether the K/V-stationary kernel reads q, k, v and gradOutput by TMA
  /// (a second kernel parameter, BackwardTmaMaps, encoded per launch).
  bool tma;

  /// Why the tiles are not valid for the variant ("" if they are).
  std::string (*checkTiles)(const TileConfig &tiles);
  /// What the variant needs that the operands lack, as a phrase after
  /// "needs" ("" if it supports them).
  std::string (*checkOperands)(const OperandShape &shape);
  /// Why the tiles do not serve the operands (head dims that the warps
  /// cannot split), "" if they do.
  std::string (*checkTilesFor)(const TileConfig &tiles,
                               const OperandShape &shape);
  /// Dynamic shared memory of a block of the K/V-stationary and of the dQ
  /// kernel, bytes (the templates static_assert the same numbers), and the
  /// dQ kernel's threads.
  int64_t (*sharedBytes)(const TileConfig &tiles, const OperandShape &shape);
  int64_t (*dqSharedBytes)(const TileConfig &tiles, const OperandShape &shape);
  int64_t (*dqThreads)(const TileConfig &tiles);
  /// Estimated registers per thread of each kernel, and the most each may
  /// use without spilling (below the architecture's 255: ptxas needs room
  /// for temporaries).
  int64_t (*registers)(const TileConfig &tiles, const OperandShape &shape);
  int64_t (*dqRegisters)(const TileConfig &tiles, const OperandShape &shape);
  int64_t registerLimit, dqRegisterLimit;
  /// Tile configurations in order of preference: the cost model takes the
  /// first that fits.
  std::vector<TileConfig> (*candidates)(const OperandShape &shape);

  int64_t threads(const TileConfig &tiles) const { return 32 * tiles.numWarps; }
  /// The larger of the two kernels' shared memory.
  int64_t maxSharedBytes(const TileConfig &tiles,
                         const OperandShape &shape) const {
    int64_t kv = sharedBytes(tiles, shape), dq = dqSharedBytes(tiles, shape);
    return kv > dq ? kv : dq;
  }
  /// Why the tiles do not fit `maxSharedPerBlock` bytes of shared memory or
  /// the register limits with the operands ("" if they fit).
  std::string checkFits(const TileConfig &tiles, const OperandShape &shape,
                        int64_t maxSharedPerBlock) const;
};

/// Static query lengths up to this pack the query heads of a K/V head into
/// a block's rows with the tokens (decode, speculative decoding), and the
/// cost model picks their tiles by its memory model: each such length gets
/// a kernel of its own.
constexpr int64_t kMaxPackedTokens = 16;

/// Query heads per K/V head whose rows share a block in a kernel of
/// `variant` (its rows are then (token, head) pairs: the emitter's
/// kPackGroup), or 1: decode of a few static tokens with GQA/MQA. The TMA
/// kernel loads a block's rows as one box of (head, token) pairs, so its
/// groups must divide the 64 rows of a consumer warpgroup.
inline int64_t packedRowGroup(const KernelVariant &variant, int64_t headsQ,
                              int64_t headsKV, int64_t seqQ, bool varlen) {
  if (varlen || headsKV < 1 || headsQ <= headsKV || seqQ < 1 ||
      seqQ > kMaxPackedTokens)
    return 1;
  const int64_t group = headsQ / headsKV;
  if (variant.persistent && 64 % group != 0)
    return 1;
  return group;
}

/// Every backward variant, in order of preference.
const std::vector<BackwardKernelVariant> &backwardKernelVariants();
/// The backward variant called `name`, or null.
const BackwardKernelVariant *findBackwardKernelVariant(std::string_view name);
/// "sm80": for messages.
std::string knownBackwardVariantNames();

} // namespace attn

#endif // ATTN_VARIANTS_KERNELVARIANTS_H
