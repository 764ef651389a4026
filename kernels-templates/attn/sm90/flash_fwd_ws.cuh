// Forward flash attention for sm_90a, warp-specialized and persistent:
// one block per SM loops over work tiles (tile_scheduler.h). Warpgroup 0 is
// the producer (fwd_ws_producer.cuh): a scheduler warp picks the tiles, one
// thread loads Q and K, another V, with TMA into shared memory
// (tile_slots.cuh), and the loads complete on mbarriers (pipeline.cuh: a
// full and an empty barrier per stage, K and V in rings of their own, so
// S = Q K^T can start before V lands). The other kConsumers warpgroups
// (fwd_ws_mainloop.cuh) each own 64 query rows of the tile, run the
// products and the softmax over its key tiles, taking turns at the tensor
// cores (named_barrier.cuh), and store the output (fwd_ws_epilogue.cuh).
// The tile and register shapes are fwd_ws_shape.cuh's.
//
// The configuration C is the cp.async kernel's (see flash_fwd.cuh), with
// kNumWarps = 4 * (kConsumers + 1) and kBlockM = 64 * kConsumers.
#pragma once
#include "attn/sm90/fwd_ws_mainloop.cuh"
#include "attn/sm90/fwd_ws_producer.cuh"

namespace attn {
namespace sm90 {

template <class C> struct FlashForwardWS {
  using Shape = FwdWsShape<C>;
  using Slots = TileSlots<C>;
  static constexpr int kSharedBytes =
      Slots::sharedBytes(Slots::kQBuffers, Slots::kStagesOutput);

  static __device__ void run(const FlashParams &p, const TmaMaps &maps,
                             char *smemRaw) {
    constexpr int kConsumers = Shape::kConsumers;
    const Slots smem(smemRaw);
    const int warpgroup = threadIdx.x / 128;
    if (threadIdx.x == 0) {
      // Full barriers: the loading thread's arrival (and its bytes); empty
      // ones: one thread of each consumer.
      smem.qRing.init(1, kConsumers);
      for (int s = 0; s < Shape::kStages; ++s) {
        smem.kRing.initStage(s, 1, kConsumers);
        smem.vRing.initStage(s, 1, kConsumers);
      }
      // The two loading threads and every consumer thread read a slot
      // before it is released.
      smem.tileRing.init(1, 2 + 128 * kConsumers);
      fenceBarrierInit();
    }
    __syncthreads();
    if (warpgroup == 0) {
      if (kConsumers > 1)
        releaseRegisters<Shape::kProducerRegisters>();
      const int warp = threadIdx.x / 32;
      // A paged cache's loaders are whole warps (FwdWsProducer::load).
      if (warp == 0 && (C::kPaged || electOne()))
        FwdWsProducer<C>::template load<false>(p, maps, smem);
      else if (warp == 1 && (C::kPaged || electOne()))
        FwdWsProducer<C>::template load<true>(p, maps, smem);
      else if (warp == 2 && electOne())
        FwdWsProducer<C>::schedule(p, smem);
    } else {
      if (kConsumers > 1)
        claimRegisters<Shape::kConsumerRegisters>();
      FwdWsMainloop<C>::run(p, maps, smem, warpgroup - 1);
    }
  }
};

} // namespace sm90
} // namespace attn
