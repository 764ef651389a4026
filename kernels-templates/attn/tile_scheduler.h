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

/// One-token decode with GQA/MQA: the query heads of a K/V head become the
/// rows of one block, so K and V are read once per K/V head. Only valid
/// where no mask depends on the query's position or head (see
/// Kernel::packsQueryHeads): the rows are then views of q and o whose row
/// stride is the head stride.
struct RowPacking {
  /// Query heads per K/V head that share a block (1: not packed).
  int group = 1;
  ATTN_HOST_DEVICE bool packed() const { return group > 1; }
  /// Rows per (batch, launch head): the group's heads, or the queries.
  ATTN_HOST_DEVICE int rows(int seqQ) const { return packed() ? group : seqQ; }
};

/// Positional masks (causal, windows) make later query blocks longer: they
/// run longest first.
constexpr TileOrder tileOrderFor(bool positionalMask) {
  return positionalMask ? TileOrder::LongestFirst : TileOrder::Forward;
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

} // namespace attn
