// The compile-time shape of the warp-specialized forward (flash_fwd_ws.cuh),
// derived from its configuration C: warpgroups, tiles, head dims in swizzle
// blocks, named barriers and register budgets. The configuration is the
// cp.async kernel's (see flash_fwd.cuh), with kNumWarps = 4 * (kConsumers +
// 1) and kBlockM = 64 * kConsumers.
#pragma once
#include "attn/mask.cuh"
#include "attn/sm90/named_barrier.cuh"
#include "attn/sm90/wgmma.cuh"

namespace attn {
namespace sm90 {

template <class C> struct FwdWsShape {
  using Ops = ElementOps<typename C::Element>;
  static constexpr int kConsumers = C::kNumWarps / 4 - 1;
  static constexpr int kThreads = C::kNumWarps * 32;
  static constexpr int kBlockM = C::kBlockM, kBlockN = C::kBlockN;
  static constexpr int kStages = C::kStages;
  static constexpr int kDimQK = C::kHeadDimQK, kDimV = C::kHeadDimV;
  // Head dims in 64-column swizzle blocks (the last may be partly padding,
  // which TMA fills with zeros).
  static constexpr int kBlocksQK = (kDimQK + 63) / 64;
  static constexpr int kBlocksV = (kDimV + 63) / 64;
  // Named barriers: 0 is __syncthreads, 1 + w the consumers' turns, then
  // one per consumer for its staged output.
  static constexpr int kOutputBarrier = 1 + kConsumers;
  static constexpr int kNTiles = kBlockN / 8;
  static constexpr int kOTiles = kDimV / 8;
  static constexpr TileOrder kOrder = tileOrderFor(Mask<C>::kPositional);
  // Registers per thread after reallocation: 128 producer threads and
  // 128 kConsumers consumer threads share what the launch gave the block
  // (65536 / kThreads each, rounded down to 8), or setmaxnreg.inc would
  // wait forever; one consumer needs no reallocation (KernelVariants.cpp's
  // register limits follow these).
  // A paged cache's loaders (loadPagedBox) need more than 24: two
  // consumers give up 8 each.
  static constexpr int kProducerRegisters =
      kConsumers == 2 ? (C::kPaged ? 40 : 24) : 32;
  static constexpr int kConsumerRegisters =
      kConsumers == 1 ? 255 : kConsumers == 2 ? (C::kPaged ? 232 : 240) : 160;

  static_assert(kConsumers >= 1 && kConsumers <= 3, "1 to 3 consumer warpgroups");
  static_assert(kBlockM == 64 * kConsumers, "each consumer owns 64 rows");
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256 && kBlockM <= 256,
                "a TMA box and a wgmma N hold at most 256 rows");
  static_assert(kDimQK % 16 == 0 && kDimV % 16 == 0,
                "head dims are whole k16 steps");
  static_assert(!C::kTransposeK, "TMA tiles of K^T would need MN-major K");
  static_assert(kBlockM % C::kPackGroup == 0,
                "Q's box holds whole tokens of packed (token, head) rows");
  static_assert(kConsumers == 1 ||
                    128 * kProducerRegisters +
                            128 * kConsumers * kConsumerRegisters <=
                        kThreads * (65536 / kThreads / 8 * 8),
                "the registers the launch gives one block per SM");

  using Product = Wgmma<typename C::Element, kBlockN>;
  using Update = Wgmma<typename C::Element, kDimV>;
  /// The consumers' turns at issuing products (barriers 1 + w).
  using Turns = WarpgroupTurns<kConsumers, 1>;
};

} // namespace sm90
} // namespace attn
