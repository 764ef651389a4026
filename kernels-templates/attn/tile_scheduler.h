// The tile scheduler: which work tiles a forward launch has, in which order
// they run, and how many blocks the launch takes. Plain C++ compiled both by
// the runtime (g++), which sizes the grid from it, and by NVRTC, whose
// kernels decode their tiles with it: the host never re-derives what the
// device decodes.
//
// A work tile is one query block (kBlockM rows) of one (batch, head) and one
// split of its key tiles. The launch's heads are the query heads, or the K/V
// heads when the query heads of a K/V head are packed into one block's rows
// (RowPacking).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define ATTN_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define ATTN_HOST_DEVICE inline
#endif

namespace attn {

struct WorkTile {
  int b, h, mBlock, split;
};

/// The order of the work tiles. `Forward`: the m-blocks of one (batch, head)
/// are neighbours, so blocks that run together share K and V in L2.
/// `LongestFirst`: for causal masks and windows, where later query blocks
/// see more keys, the longest tiles start first so the short ones fill the
/// tail; (batch, head) pairs are taken in sections of `sectionPairs`, the
/// m-blocks of a section in descending order with its pairs fastest, so the
/// K/V of a section stays in L2 while its tiles run.
enum class TileOrder : int { Forward = 0, LongestFirst = 1 };

struct TileSchedule {
  int batch = 0, heads = 0, mBlocks = 0, splits = 1;
  TileOrder order = TileOrder::Forward;
  int sectionPairs = 1;

  ATTN_HOST_DEVICE long long numTiles() const {
    return static_cast<long long>(batch) * heads * mBlocks * splits;
  }

  /// The work tile of a launch-wide index in [0, numTiles()); launches
  /// have fewer than 2^31 tiles (the runtime checks), so 32 bits suffice.
  /// A kernel knows its order at compile time (kOrder must equal `order`:
  /// both follow tileOrderFor), which keeps the other decode out of it.
  template <TileOrder kOrder>
  ATTN_HOST_DEVICE WorkTile tile(int index) const {
    WorkTile t;
    t.split = index % splits;
    const int rest = index / splits;
    int pair;
    if (kOrder == TileOrder::Forward) {
      t.mBlock = rest % mBlocks;
      pair = rest / mBlocks;
    } else {
      const int perSection = sectionPairs * mBlocks;
      const int section = rest / perSection;
      const int first = section * sectionPairs;
      // The last section may hold fewer pairs.
      const int left = batch * heads - first;
      const int inSection = left < sectionPairs ? left : sectionPairs;
      const int within = rest - section * perSection;
      t.mBlock = mBlocks - 1 - within / inSection;
      pair = first + within % inSection;
    }
    t.h = pair % heads;
    t.b = pair / heads;
    return t;
  }
  ATTN_HOST_DEVICE WorkTile tile(int index) const {
    return order == TileOrder::Forward ? tile<TileOrder::Forward>(index)
                                       : tile<TileOrder::LongestFirst>(index);
  }
};

/// Decode with GQA/MQA: the query heads of a K/V head become the rows of one
/// block, so K and V are read once per K/V head. A kernel with packed rows
/// takes (token, head) pairs of a few tokens under any mask; otherwise
/// one-token decode with no mask that depends on the query's position or
/// head packs by strides (see Kernel::packsQueryHeads): the rows are then
/// views of q and o whose row stride is the head stride.
struct RowPacking {
  /// Query heads per K/V head that share a block (1: not packed).
  int group = 1;
  /// The rows are (token, head) pairs of every query token (a kernel with
  /// packed rows, C::kPackGroup; mask.cuh), not views of one token's heads.
  bool tokens = false;
  ATTN_HOST_DEVICE bool packed() const { return group > 1; }
  /// Rows per (batch, launch head): the group's heads (of each token), or
  /// the queries.
  ATTN_HOST_DEVICE int rows(int seqQ) const {
    return !packed() ? seqQ : tokens ? seqQ * group : group;
  }
};

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
/// Ragged batches: the launch's m-blocks of a head are those of every
/// sequence in turn, and its schedule has batch 1 and an upper bound of
/// their count as mBlocks (varlenMBlocks). Turns t.mBlock, an index into
/// them, into the sequence t.b and the m-block within it, from the clamped
/// offsets: each warp scans 32 sequences' block counts at a time. False for
/// an index past the last block (the tile has no rows). Every lane of the
/// warp must call it.
__device__ __forceinline__ bool resolveVarlenTile(WorkTile &t,
                                                  const int *cuSeqlensQ,
                                                  int batch, int totalQ,
                                                  int blockM) {
  const int lane = threadIdx.x % 32;
  const int index = t.mBlock;
  int before = 0; // m-blocks of the sequences already scanned
  for (int b0 = 0; b0 < batch; b0 += 32) {
    const int b = b0 + lane;
    int blocks = 0;
    if (b < batch) {
      const int start = min(max(cuSeqlensQ[b], 0), totalQ);
      const int end = min(max(cuSeqlensQ[b + 1], start), totalQ);
      blocks = (end - start + blockM - 1) / blockM;
    }
    int inclusive = blocks;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const int other = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d)
        inclusive += other;
    }
    const int chunk = __shfl_sync(0xffffffffu, inclusive, 31);
    if (index < before + chunk) {
      const unsigned holds =
          __ballot_sync(0xffffffffu, index < before + inclusive);
      const int first = __ffs(holds) - 1;
      const int exclusive = __shfl_sync(0xffffffffu, inclusive - blocks, first);
      t.b = b0 + first;
      t.mBlock = index - before - exclusive;
      return true;
    }
    before += chunk;
  }
  return false;
}
#endif

/// Ragged batches: an upper bound of the m-blocks of `batch` sequences of
/// `totalQ` packed queries (each sequence adds at most one partial block),
/// the schedule's mBlocks. The kernel finds each block's sequence
/// (resolveVarlenTile); the host never reads the offsets.
inline int varlenMBlocks(int batch, int totalQ, int blockM) {
  // Each sequence with a query (at most min(batch, totalQ) of them) adds at
  // most one partial block; the bound is at most totalQ.
  const long long sequences = batch < totalQ ? batch : totalQ;
  return static_cast<int>((static_cast<long long>(totalQ) +
                           sequences * (blockM - 1)) /
                          blockM);
}

/// Positional masks (causal, windows) make later query blocks longer: they
/// run longest first.
constexpr TileOrder tileOrderFor(bool positionalMask) {
  return positionalMask ? TileOrder::LongestFirst : TileOrder::Forward;
}

/// The sections of a persistent launch's LongestFirst order. With one
/// (batch, head) pair per section, each pair's longest tile is among the
/// last drawn of its section, so at the end one block still runs it while
/// the others idle: simulated over the prefill grid's causal shapes (blocks
/// drawing one tile ahead), the blocks are busy 76-91% of the time; with 8
/// tiles per block in a section, 96-99% (bench/NOTES.md step 40). But a
/// section's first wave must run several tiles of each pair, which read the
/// pair's key tiles in the same order a tile or two apart and so share
/// them in L2: at most blocks / 4 pairs. (hd256 S=1024 causal with 128
/// pairs in a section, one tile each per wave, read all of K/V from HBM and
/// ran 19% slower than with one pair.)
constexpr int kSectionTilesPerBlock = 8;
constexpr int kSectionTilesPerPair = 4;

/// The pairs per section for a persistent launch of `blocks` blocks.
inline int persistentSectionPairs(const TileSchedule &s, long long blocks) {
  const long long perPair = static_cast<long long>(s.mBlocks) * s.splits;
  const long long pairs = static_cast<long long>(s.batch) * s.heads;
  if (s.order != TileOrder::LongestFirst || perPair < 1 || pairs < 1)
    return 1;
  long long wanted = (kSectionTilesPerBlock * blocks + perPair - 1) / perPair;
  const long long shared = blocks / kSectionTilesPerPair;
  wanted = wanted < shared ? wanted : shared;
  return static_cast<int>(wanted < 1 ? 1 : wanted > pairs ? pairs : wanted);
}

/// The schedule of a launch: `rows` query rows per (batch, head) in blocks
/// of `blockM`.
inline TileSchedule makeTileSchedule(int batch, int heads, int rows,
                                     int blockM, int splits,
                                     bool positionalMask,
                                     int sectionPairs = 1) {
  TileSchedule s;
  s.batch = batch;
  s.heads = heads;
  s.mBlocks = (rows + blockM - 1) / blockM;
  s.splits = splits < 1 ? 1 : splits;
  s.order = tileOrderFor(positionalMask);
  // A section never holds more than every pair (keeps its products in
  // range of the 32-bit decode).
  const long long pairs = static_cast<long long>(batch) * heads;
  s.sectionPairs = sectionPairs < 1 ? 1
                   : sectionPairs > pairs ? static_cast<int>(pairs)
                                          : sectionPairs;
  return s;
}

/// Blocks per section of the backward's schedule: enough that the last
/// wave holds short tiles, few enough (batch, head) pairs in flight that
/// their Q, dO and dQ sums stay in L2.
constexpr int kBackwardSectionBlocks = 256;

/// The backward's blocks over a grid of (tiles, heads, batch), one tile
/// each, longest first: the decode of LongestFirst starts every section's
/// last tile first, which positional masks make the longest query tile of
/// the Q-stationary dQ kernel; the K/V-stationary kernel mirrors the tile
/// index, as there the first key tiles see the most queries.
ATTN_HOST_DEVICE TileSchedule backwardSchedule(int tiles, int heads,
                                               int batch) {
  TileSchedule s;
  s.batch = batch;
  s.heads = heads;
  s.mBlocks = tiles;
  s.order = TileOrder::LongestFirst;
  const int pairs = batch * heads;
  const int wanted = (kBackwardSectionBlocks + tiles - 1) / tiles;
  s.sectionPairs = wanted < pairs ? wanted : pairs;
  return s;
}

} // namespace attn
