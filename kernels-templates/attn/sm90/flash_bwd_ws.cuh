// Backward flash attention for sm_90a, warp-specialized: the K/V-stationary
// kernel of sm90/flash_bwd.cuh with its loads and dQ reductions taken off the
// warpgroups that run the products.
//
// A block owns kBlockN = 128 keys of one (batch, K/V head), as there, and
// has three warpgroups:
//   producer (warpgroup 0, 24 registers): warp 0 loads K and V once and Q
//     and dO of each step by TMA into a kStages-deep ring of full/empty
//     mbarriers (pipeline.cuh); warp 3 copies the step's logsumexp and D
//     rows beside them. Warp 1 adds each step's staged dQ to the f32 sum by one bulk
//     reduction. Warp 2 zeroes K's and V's rows past the valid keys.
//   two consumers (240 registers), 64 keys each: FlashBackwardKV's step
//     (S^T, dP^T; P^T and dS^T element-wise; dV, dK from registers) on the
//     stage, then dQ / scale = dS K of their share of the query tile into
//     the staging buffer.
// Nobody waits at a block-wide barrier: the consumers meet each other only
// where dQ reads both halves of dS^T (named barrier kScoresStored; dS^T is
// double-buffered, so that the next step's stores need no second barrier),
// and the dQ writer where the staging fills and empties (kDqStaged,
// kDqFree). Tiles past seq_q / seq_kv read as zeros (TMA fills them); rows
// past a sequence's length (key padding) are zeroed once.
//
// The configuration C is FlashBackwardKV's with kNumWarps = 12, kBlockN =
// 128 and head dims of 64 or 128 (a consumer keeps dK and dV of its 64 keys
// whole); KernelVariants.cpp's sm90ws backward rows decide the same.
#pragma once
#include "attn/sm90/flash_bwd.cuh"
#include "attn/sm90/named_barrier.cuh"
#include "attn/sm90/pipeline.cuh"

namespace attn {
namespace sm90 {

/// The consumer warpgroups as FlashBackwardKV sees its own two.
template <class C> struct ConsumerWarps : C {
  static constexpr int kNumWarps = 8;
};

template <class C> struct FlashBackwardKVWS {
  using Ops = ElementOps<typename C::Element>;
  using Scores = BackwardScores<C>;
  /// The step's products and stores, shared with the cp.async kernel.
  using Step = FlashBackwardKV<ConsumerWarps<C>>;
  static constexpr int kThreads = C::kNumWarps * 32;
  static constexpr int kConsumers = 2;
  static constexpr int kBlockM = C::kBlockM, kBlockN = C::kBlockN;
  static constexpr int kStages = C::kStages;
  static constexpr int kDimQK = C::kHeadDimQK, kDimV = C::kHeadDimV;

  static constexpr int kBytesK = 2 * kBlockN * kDimQK;
  static constexpr int kBytesV = 2 * kBlockN * kDimV;
  static constexpr int kBytesQ = 2 * kBlockM * kDimQK;
  static constexpr int kBytesDO = 2 * kBlockM * kDimV;
  static constexpr int kBytesDS = 2 * kBlockN * kBlockM;
  static constexpr int kBytesDq = 4 * kBlockM * kDimQK;
  static constexpr int kBytesRows = 4 * kStages * kBlockM; // LSE or D
  // Barriers: K and V loaded, K and V ready (their padding zeroed), then
  // the stage ring's full and empty ones.
  static constexpr int kBarrierBytes = 8 * (2 + 2 * kStages);
  // The slack lets the tiles start on the swizzle's 1024-byte period.
  static constexpr int kSharedBytes =
      1024 + kBytesK + kBytesV + kStages * (kBytesQ + kBytesDO) +
      2 * kBytesDS + kBytesDq + 2 * kBytesRows + kBarrierBytes;
  using DqAccum = TiledDqAccum<C, kBlockM>;

  // 128 producer threads and 256 consumer threads share the 168 registers
  // a thread of one block of 384 per SM gets.
  static constexpr int kProducerRegisters = 24, kConsumerRegisters = 240;
  static_assert(128 * kProducerRegisters + 256 * kConsumerRegisters <=
                    kThreads * (65536 / kThreads / 8 * 8),
                "the registers the launch gives one block per SM");
  // Named barriers (0 is __syncthreads): both consumers' dS^T stored; the
  // staged dQ full (consumers arrive, the writer warp waits) and free (the
  // other way round).
  static constexpr int kScoresStored = 1, kDqStaged = 2, kDqFree = 3;
  static constexpr int kConsumerThreads = 128 * kConsumers;
  static constexpr int kDqThreads = kConsumerThreads + 32;
  static __device__ __forceinline__ NamedBarrier scoresStored() {
    return {kScoresStored, kConsumerThreads};
  }
  static __device__ __forceinline__ NamedBarrier dqStaged() {
    return {kDqStaged, kDqThreads};
  }
  static __device__ __forceinline__ NamedBarrier dqFree() {
    return {kDqFree, kDqThreads};
  }

  static_assert(C::kNumWarps == 12 && kBlockN == 128,
                "a producer and two consumers of 64 keys each");
  static_assert(Step::kKeySplit == 1 && Step::kScoreCols == kBlockM,
                "each consumer takes its 64 keys by the whole query tile");
  static_assert(kDimQK <= 128 && kDimV <= 128,
                "a consumer keeps dK and dV of its keys in registers");
  static_assert(Step::kStageDq && sizeof(typename Step::DqAccum) ==
                                      sizeof(DqAccum),
                "the query tile's dQ staged in shared memory");

  /// Shared addresses of the tiles, rows and barriers.
  struct Layout {
    u32 k, v, q, dout, ds, dq, lse, delta, bars;
    float *lseRows, *deltaRows;
    StageRing<kStages> stageRing; // each step's Q, dO and rows
    __device__ __forceinline__ explicit Layout(char *smem) {
      const u32 base = sharedAddress(smem);
      k = (base + 1023) & ~1023u;
      v = k + kBytesK;
      q = v + kBytesV;
      dout = q + kStages * kBytesQ;
      ds = dout + kStages * kBytesDO;
      dq = ds + 2 * kBytesDS;
      lse = dq + kBytesDq;
      delta = lse + kBytesRows;
      bars = delta + kBytesRows;
      lseRows = reinterpret_cast<float *>(smem + (lse - base));
      deltaRows = reinterpret_cast<float *>(smem + (delta - base));
      stageRing = {bars + 16};
    }
    __device__ __forceinline__ u32 keysLoaded() const { return bars; }
    __device__ __forceinline__ u32 keysReady() const { return bars + 8; }
  };
  /// Step t's place in the stage ring: the step index is the ring's count.
  using StepState = PipelineState<kStages, int>;

  /// What every role of the block knows about its work.
  struct Block {
    int b, hk, group, n0;
    KeyBlockSteps<C, kBlockM, kBlockN> steps;
    __device__ __forceinline__ Block(const FlashBwdParams &p, WorkTile w)
        : b(w.b), hk(w.h), group(p.heads_q / p.heads_kv),
          n0(w.mBlock * kBlockN), steps(p, w.b, w.h, p.heads_q / p.heads_kv,
                                        w.mBlock * kBlockN) {}
    __device__ __forceinline__ int head(int t) const {
      return steps.head(t, hk * group);
    }
  };

  /// One thread of the producer's warp 0: K and V, then each step's Q and
  /// dO by TMA. A stage's full barrier expects this thread's arrival with
  /// the bytes and those of warp 3's lanes after the rows (copyRows).
  static __device__ void loadTiles(const BackwardTmaMaps &maps,
                                   const Layout &smem, const Block &block) {
    prefetchTensorMap(&maps.q);
    prefetchTensorMap(&maps.dout);
    barrierExpectBytes(smem.keysLoaded(), kBytesK + kBytesV);
#pragma unroll 1
    for (int j = 0; j < kDimQK / 64; ++j)
      tmaLoad4d(smem.k + j * kBlockN * 128, &maps.k, smem.keysLoaded(), 64 * j,
                block.n0, block.hk, block.b);
#pragma unroll 1
    for (int j = 0; j < kDimV / 64; ++j)
      tmaLoad4d(smem.v + j * kBlockN * 128, &maps.v, smem.keysLoaded(), 64 * j,
                block.n0, block.hk, block.b);
#pragma unroll 1
    for (int t = 0; t < block.steps.steps; ++t) {
      const StepState state{t};
      const int stage = state.stage();
      const int h = block.head(t), m0 = block.steps.row(t);
      // The consumers are done with the stage's last use.
      smem.stageRing.acquire(state);
      smem.stageRing.commitBytes(state, kBytesQ + kBytesDO);
#pragma unroll 1
      for (int j = 0; j < kDimQK / 64; ++j)
        tmaLoad4d(smem.q + stage * kBytesQ + j * kBlockM * 128, &maps.q,
                  smem.stageRing.full(stage), 64 * j, m0, h, block.b);
#pragma unroll 1
      for (int j = 0; j < kDimV / 64; ++j)
        tmaLoad4d(smem.dout + stage * kBytesDO + j * kBlockM * 128, &maps.dout,
                  smem.stageRing.full(stage), 64 * j, m0, h, block.b);
    }
  }

  /// The producer's warp 3: each step's logsumexp and D rows (rows past
  /// seq_q read 0), every lane arriving on the stage's full barrier after
  /// its rows. (A warp of its own, so that each producer loop stays small
  /// within the 24 registers: with one warp doing both, the kernel that
  /// torch's NVRTC built spilled 4 bytes; bench/NOTES.md step 54.)
  static __device__ void copyRows(const FlashBwdParams &p, const Layout &smem,
                                  const Block &block) {
    const int lane = threadIdx.x % 32;
#pragma unroll 1
    for (int t = 0; t < block.steps.steps; ++t) {
      const StepState state{t};
      const int stage = state.stage();
      const int m0 = block.steps.row(t);
      smem.stageRing.acquire(state);
      const i64 row0 =
          (static_cast<i64>(block.b) * p.heads_q + block.head(t)) * p.seq_q + m0;
#pragma unroll 1
      for (int i = lane; i < kBlockM; i += 32) {
        const bool valid = m0 + i < p.seq_q;
        smem.lseRows[stage * kBlockM + i] = valid ? p.lse[row0 + i] : 0.f;
        smem.deltaRows[stage * kBlockM + i] = valid ? p.delta[row0 + i] : 0.f;
      }
      smem.stageRing.commit(state);
    }
  }

  /// Warp 1 of the producer: each step's staged dQ, once both consumers
  /// stored theirs, to the f32 sum by one bulk reduction; the staging is
  /// free again once the reduction read it.
  static __device__ void writeDq(const FlashBwdParams &p, const Layout &smem,
                                 const Block &block) {
    const bool leader = threadIdx.x % 32 == 0;
    const int steps = block.steps.steps;
#pragma unroll 1
    for (int t = 0; t < steps; ++t) {
      dqStaged().sync();
      if (leader) {
        Step::reduceStagedDq(p, block.b, block.head(t), block.steps.row(t),
                             smem.dq);
        bulkWait</*kRead=*/true>();
      }
      __syncwarp();
      // (The consumers wait for it before every step's staging but the
      // first.)
      if (t + 1 < steps)
        dqFree().arrive();
    }
    if (leader)
      bulkWait</*kRead=*/false>();
  }

  /// Warp 2 of the producer: once K and V landed, zeroes their rows past
  /// the block's valid keys (past the sequence's length with key padding,
  /// where TMA read what lies there; and past seq_kv, where it wrote zeros
  /// already), then lets the consumers read them. (In the consumers, the
  /// loop cost registers the step needs.)
  static __device__ void prepareKeys(const Layout &smem, const Block &block) {
    barrierWait(smem.keysLoaded(), 0);
    const int keys = max(block.steps.keysValid, 0);
    if (keys < kBlockN) {
      constexpr int kChunksK = kDimQK / 64 * 8, kChunksV = kDimV / 64 * 8;
      const int rows = kBlockN - keys;
      for (int i = threadIdx.x % 32; i < rows * (kChunksK + kChunksV); i += 32) {
        const bool isK = i < rows * kChunksK;
        const int j = isK ? i : i - rows * kChunksK;
        const int chunks = isK ? kChunksK : kChunksV;
        const int row = keys + j / chunks, c = j % chunks;
        storeShared4((isK ? smem.k : smem.v) + (c / 8) * (kBlockN * 128) +
                         row * 128 + (c % 8) * 16,
                     0, 0, 0, 0);
      }
      // The generic proxy's zeros are read by wgmma.
      fenceSharedForAsyncProxy();
    }
    barrierArrive(smem.keysReady());
  }

  /// Consumer w (0 or 1): keys 64 w .. 64 w + 63 of the block.
  static __device__ void consume(const FlashBwdParams &p, const Layout &smem,
                                 const Block &block, int w) {
    const int warp = threadIdx.x / 32 % 4;
    const int keyRow0 = 64 * w + 16 * warp;
    const int dqm = w % Step::kDqWarpgroupsM, dqd = w / Step::kDqWarpgroupsM;
    const bool atomicDq = p.dq_accum != nullptr;
    const int steps = block.steps.steps;

    const u64 kRows = sharedDescriptor(smem.k + w * 64 * 128, 16, 1024);
    const u64 vRows = sharedDescriptor(smem.v + w * 64 * 128, 16, 1024);
    const u64 kCols =
        sharedDescriptor(smem.k + dqd * (Step::kDqCols / 64) * (kBlockN * 128),
                         kBlockN * 128, 1024);

    float dk[kDimQK / 8][4], dv[kDimV / 8][4];
    zeroFragments(dk);
    zeroFragments(dv);

    if (steps > 0)
      barrierWait(smem.keysReady(), 0);
#pragma unroll 1
    for (int t = 0; t < steps; ++t) {
      const StepState state{t};
      const int stage = state.stage();
      smem.stageRing.wait(state);
      const int m0 = block.steps.row(t);
      const Mask<C> mask(p, block.b, block.head(t), m0, kBlockM);
      const u32 q = smem.q + stage * kBytesQ, dout = smem.dout + stage * kBytesDO;
      float s[kBlockM / 8][4], dp[kBlockM / 8][4];
      u32 pA[kBlockM / 16][4], dsA[kBlockM / 16][4];
      Step::issueScores(s, dp, kRows, vRows, q, dout, 0);
      wgmmaWait<0>();
      fenceAccumulators(s);
      fenceAccumulators(dp);

      Scores::applyKeyRows(p, mask, kBlockM, block.n0, kBlockN,
                           block.n0 + keyRow0, 0,
                           smem.lseRows + stage * kBlockM,
                           smem.deltaRows + stage * kBlockM, s, dp);
#pragma unroll
      for (int kk = 0; kk < kBlockM / 16; ++kk) {
        packP<Ops>(pA[kk], s, kk);
        packP<Ops>(dsA[kk], dp, kk);
      }
      // dS^T of step t in buffer t % 2: both consumers passed the barrier
      // of step t - 1 after their dQ of step t - 2 read it.
      const u32 ds = smem.ds + (t % 2) * kBytesDS;
      if (atomicDq)
        Step::storeScores(ds, keyRow0, 0, dsA);
      Step::issueKeyGradients(
          dv, dk, pA, dsA, sharedDescriptor(dout, kBlockM * 128, 1024),
          sharedDescriptor(q, kBlockM * 128, 1024), w, 0, 0);
      if (atomicDq) {
        // Both consumers' dS^T, written by the generic proxy, is read by
        // wgmma.
        fenceSharedForAsyncProxy();
        scoresStored().sync();
        const u64 dsCols = sharedDescriptor(ds + dqm * (kBlockN * 128),
                                            kBlockN * 128, 1024);
#pragma unroll
        for (int c = 0; c < Step::kDqCols / Step::kDqChunk; ++c) {
          float dq[Step::kDqChunk / 8][4];
          Step::issueDq(dq, dsCols, kCols, c);
          // The writer's reduction of step t - 1 read the staging.
          if (c == 0 && t > 0)
            dqFree().sync();
          wgmmaWait<0>();
          fenceAccumulators(dq);
          Step::stageDqChunk(smem.dq, dqm, dqd * Step::kDqCols + c * Step::kDqChunk,
                             dq);
        }
        // The staging, written by the generic proxy, is read by the bulk
        // reduction.
        fenceProxyAsyncShared();
        dqStaged().arrive();
      } else {
        wgmmaWait<0>();
      }
      fenceAccumulators(dk);
      fenceAccumulators(dv);
      // Q, dO and the rows of the stage are read: every consumer thread
      // arrives (its reads of the rows are its own to order).
      smem.stageRing.release(state);
    }
    storeKeyGradients<Ops, kDimQK, kDimV>(p, sequenceExtent<C>(p, block.b),
                                          block.b, block.hk,
                                          block.n0 + keyRow0, 0, 0, dk, dv);
  }

  static __device__ void run(const FlashBwdParams &p,
                             const BackwardTmaMaps &maps, char *smemRaw) {
    const Layout smem(smemRaw);
    const Block block(p, backwardBlock</*kQueryTiles=*/false>());
    if (threadIdx.x == 0) {
      barrierInit(smem.keysLoaded(), 1);
      barrierInit(smem.keysReady(), 32);
      smem.stageRing.init(1 + 32, kConsumerThreads);
      fenceBarrierInit();
    }
    __syncthreads();
    const int warpgroup = threadIdx.x / 128;
    // A block without steps (keys no query sees) loads nothing and stores
    // zero gradients.
    if (warpgroup == 0) {
      releaseRegisters<kProducerRegisters>();
      const int warp = threadIdx.x / 32;
      if (warp == 0 && block.steps.steps > 0) {
        if (electOne())
          loadTiles(maps, smem, block);
      } else if (warp == 3 && block.steps.steps > 0)
        copyRows(p, smem, block);
      else if (warp == 1 && block.steps.steps > 0 && p.dq_accum)
        writeDq(p, smem, block);
      else if (warp == 2 && block.steps.steps > 0)
        prepareKeys(smem, block);
    } else {
      claimRegisters<kConsumerRegisters>();
      consume(p, smem, block, warpgroup - 1);
    }
  }
};

} // namespace sm90
} // namespace attn
