//===- FlashKernel.cpp - Fused attention: checks, splits, the launch ------===//

#include "attn/Runtime/Kernel.h"
#include "attn/Variants/KernelVariants.h"
#include "TensorChecks.h"
#include "TmaView.h"

#include "attn/params.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace attn {

using detail::checkCaptures;
using detail::checkDevicePointer;
using detail::checkTensor;
using detail::clampWindowBound;
using detail::invalid;
using detail::TmaView;
using detail::encodeTmaView;
using detail::tmaRowsView;

bool FlashKernel::persistent() const {
  const KernelVariant *variant = findKernelVariant(spec_.variant);
  return spec_.kind == KernelKind::Flash && variant && variant->persistent;
}
bool FlashKernel::packsQueryHeads(int seqQ) const {
  return rowPacking(seqQ).packed();
}

RowPacking FlashKernel::rowPacking(int seqQ) const {
  RowPacking packing;
  if (spec_.kind != KernelKind::Flash || spec_.headsKV < 1)
    return packing;
  if (spec_.packGroup > 1) {
    // Compiled for it: (token, head) rows under any mask.
    packing.group = spec_.packGroup;
    packing.tokens = true;
  } else if (seqQ == 1 && !spec_.varlen && spec_.headsQ > spec_.headsKV &&
             !spec_.causal && !spec_.window && !spec_.keep && !spec_.bias &&
             !spec_.scoreMod) {
    packing.group = spec_.headsQ / spec_.headsKV;
  }
  return packing;
}

TileSchedule FlashKernel::schedule(int batch, int seqQ, int splits) const {
  // Ragged: one run of m-blocks per head over every sequence (a bound of
  // their count; the kernel finds each block's sequence).
  if (spec_.varlen)
    return makeTileSchedule(1, spec_.headsQ,
                            varlenMBlocks(batch, seqQ, spec_.blockM) *
                                spec_.blockM,
                            spec_.blockM, splits, spec_.causal || spec_.window);
  const RowPacking packing = rowPacking(seqQ);
  return makeTileSchedule(batch, packing.packed() ? spec_.headsKV : spec_.headsQ,
                          packing.rows(seqQ), spec_.blockM, splits,
                          spec_.causal || spec_.window);
}
Status FlashKernel::loadEntries(Driver &driver, Loaded &loaded) {
  Result<void *> combine =
      driver.getFunction(loaded.module, spec_.name + "_combine");
  if (!combine)
    return combine.status();
  loaded.combine = *combine;
  Result<int> resident =
      driver.occupancy(loaded.function, spec_.threads, spec_.sharedBytes);
  if (!resident)
    return resident.status();
  loaded.residentPerSm = std::max(*resident, 1);
  return Status::ok();
}

Kernel::Grid FlashKernel::grid(int batch, int seqQ) const {
  // One block per work tile, decoded by the kernel with the same schedule.
  Grid g;
  g.x = static_cast<unsigned>(schedule(batch, seqQ, 1).numTiles());
  g.y = g.z = 1;
  return g;
}

int FlashKernel::chooseSplits(long long blocks, int tilesPerBlock,
                         int multiprocessors, int residentPerSm) {
  const long long slots = static_cast<long long>(multiprocessors) *
                          std::max(residentPerSm, 1);
  if (blocks <= 0 || blocks >= slots)
    return 1; // a full wave already
  const int most = std::clamp(tilesPerBlock / 2, 1, kMaxSplits);
  if (blocks * most <= slots)
    return most; // not even one wave: as many as allowed
  // The share of the block slots that n splits keep busy over the waves they
  // take: a last wave that is mostly empty costs as much as a full one.
  auto waveEfficiency = [&](int n) {
    long long launched = blocks * n;
    long long waves = (launched + slots - 1) / slots;
    return static_cast<double>(launched) / static_cast<double>(waves * slots);
  };
  double best = 0;
  for (int n = 1; n <= most; ++n)
    best = std::max(best, waveEfficiency(n));
  // The fewest splits near the best: each split adds a partial output to
  // write and merge.
  for (int n = 1; n <= most; ++n)
    if (waveEfficiency(n) >= kSplitEfficiency * best)
      return n;
  return 1;
}

/// Key tiles of one batch-invariant split of `spec`'s kernel.
static int invariantSplitTiles(const KernelSpec &spec) {
  return (FlashKernel::kInvariantSplitKeys + spec.blockN - 1) / spec.blockN;
}

/// The splits of a batch-invariant launch: enough for seqKV keys at the
/// fixed positions, at least two (every sequence goes through the merge),
/// more if asked for.
static int invariantSplits(const KernelSpec &spec, const FlashArgs &a) {
  const int64_t keysPerSplit = int64_t(invariantSplitTiles(spec)) * spec.blockN;
  const int64_t needed = (int64_t(a.seqKV) + keysPerSplit - 1) / keysPerSplit;
  return static_cast<int>(std::min<int64_t>(
      std::max<int64_t>({2, needed, a.splits}), FlashKernel::kMaxInvariantSplits));
}

Result<int> FlashKernel::splitsIn(Loaded &loaded, const FlashArgs &a) const {
  if (a.batchInvariant)
    return invariantSplits(spec_, a);
  if (a.splits > 0)
    return std::min(a.splits, kMaxSplits);
  // A few hundred instructions: cheaper than a lock around a memo.
  long long blocks = schedule(a.batch, a.seqQ, 1).numTiles();
  // A ragged batch's longest sequence, where the caller knows it; else
  // every key could be one sequence's.
  int keys = spec_.varlen && a.maxSeqlenK > 0 ? std::min(a.maxSeqlenK, a.seqKV)
                                              : a.seqKV;
  int tiles = (keys + spec_.blockN - 1) / spec_.blockN;
  int splits = chooseSplits(blocks, tiles, loaded.device->multiprocessors,
                            loaded.residentPerSm);
  return splits;
}

/// Rows of [batch, headsQ, seqQ] (a ragged batch's [headsQ, seqQ]): the
/// logsumexp's, what the splits write and the merge reads.
static size_t lseRows(const KernelSpec &spec, const FlashArgs &a) {
  return static_cast<size_t>(spec.varlen ? 1 : a.batch) * spec.headsQ * a.seqQ;
}

/// Bytes of the partial outputs and logsumexps of `splits` splits.
static size_t splitWorkspaceBytes(const KernelSpec &spec, const FlashArgs &a,
                                  int splits) {
  if (splits <= 1)
    return 0;
  return sizeof(float) * size_t(splits) * lseRows(spec, a) * (spec.headDimV + 1);
}

unsigned FlashKernel::persistentBlocks(const Loaded &loaded, long long tiles) {
  const long long slots = static_cast<long long>(loaded.device->multiprocessors) *
                          std::max(loaded.residentPerSm, 1);
  return static_cast<unsigned>(std::max<long long>(std::min(tiles, slots), 1));
}

FlashKernel::ForwardWorkspace FlashKernel::forwardWorkspace(const Loaded &loaded,
                                                const FlashArgs &a,
                                                int splits) const {
  ForwardWorkspace w;
  w.splitBytes = splitWorkspaceBytes(spec_, a, splits);
  w.bytes = w.splitBytes;
  const KernelVariant *variant = findKernelVariant(spec_.variant);
  if (variant && variant->persistent && (spec_.causal || spec_.window)) {
    // Tiles of different lengths: a block that drew short ones draws again
    // sooner. With one tile per block there is nothing to balance.
    const long long tiles = schedule(a.batch, a.seqQ, splits).numTiles();
    if (tiles > persistentBlocks(loaded, tiles)) {
      constexpr size_t kAlign = 256;
      w.counter = true;
      w.counterOffset = (w.splitBytes + kAlign - 1) / kAlign * kAlign;
      w.bytes = w.counterOffset + sizeof(int);
    }
  }
  return w;
}

Result<int> FlashKernel::splitsFor(const FlashArgs &a, Device device) {
  if (a.batchInvariant)
    return invariantSplits(spec_, a);
  if (a.splits > 0)
    return std::min(a.splits, kMaxSplits);
  Result<InContext> in = enterLoaded(device, nullptr, false);
  if (!in)
    return in.status();
  return splitsIn(*in->loaded, a);
}

Result<size_t> FlashKernel::workspaceBytes(const FlashArgs &a, Stream stream,
                                           Device device) {
  if (Status s = validate(a); !s)
    return s;
  Result<InContext> in = enterLoaded(device, stream, true);
  if (!in)
    return in.status();
  Result<int> splits = splitsIn(*in->loaded, a);
  if (!splits)
    return splits.status();
  return forwardWorkspace(*in->loaded, a, *splits).bytes;
}
Status FlashKernel::validate(const FlashArgs &a) const {
  if (a.batch <= 0 || a.seqQ <= 0 || a.seqKV <= 0)
    return invalid("batch, seqQ and seqKV must be positive, got " +
                   std::to_string(a.batch) + ", " + std::to_string(a.seqQ) +
                   ", " + std::to_string(a.seqKV));
  auto mismatch = [&](const char *what, int64_t fixed, int64_t given) {
    return invalid(std::string("kernel ") + spec_.name + " was specialized for " +
                   what + " " + std::to_string(fixed) + " but the launch has " +
                   std::to_string(given));
  };
  if (spec_.batch >= 0 && spec_.batch != a.batch)
    return mismatch("batch", spec_.batch, a.batch);
  if (spec_.seqQ >= 0 && spec_.seqQ != a.seqQ)
    return mismatch("seqQ", spec_.seqQ, a.seqQ);
  if (spec_.seqKV >= 0 && spec_.seqKV != a.seqKV)
    return mismatch("seqKV", spec_.seqKV, a.seqKV);
  // Packed tensors of a ragged batch have no batch dimension.
  auto packed = [&](TensorArg t) {
    if (spec_.varlen)
      t.strides[0] = 0;
    return t;
  };
  if (Status s = checkTensor("q", packed(a.q), 3); !s)
    return s;
  // A transposed k is [B, H, D, S]: contiguous along the keys, its last
  // dimension, like every other operand.
  if (Status s = checkTensor("k", packed(a.k), 3); !s)
    return s;
  if (Status s = checkTensor("v", packed(a.v), 3); !s)
    return s;
  if (Status s = checkTensor("o", packed(a.o), 3); !s)
    return s;
  if (spec_.varlen && (!a.cuSeqlensQ || !a.cuSeqlensK))
    return invalid("kernel " + spec_.name +
                   " runs a ragged batch but 'cu_seqlens_q' or "
                   "'cu_seqlens_k' is null");
  if (const KernelVariant *variant = findKernelVariant(spec_.variant);
      spec_.varlen && variant && variant->persistent)
    return invalid("kernel " + spec_.name + " has a ragged batch, which the " +
                   spec_.variant + " variant does not read");
  if (!spec_.varlen && (a.cuSeqlensQ || a.cuSeqlensK))
    return invalid("'cu_seqlens_q'/'cu_seqlens_k' are set but kernel " +
                   spec_.name + " was compiled for a dense batch");
  if (spec_.paged) {
    if (!a.blockTable)
      return invalid("kernel " + spec_.name +
                     " reads a paged cache but 'block_table' is null");
    if (a.pageSize < 1 || a.numPages < 1 || a.seqKV % a.pageSize != 0 ||
        a.blockTableStride < a.seqKV / a.pageSize)
      return invalid("a paged cache needs pageSize >= 1, numPages >= 1, seqKV "
                     "a multiple of pageSize (pages per sequence x pageSize) "
                     "and blockTableStride at least the pages per sequence; "
                     "got pageSize " +
                     std::to_string(a.pageSize) + ", numPages " +
                     std::to_string(a.numPages) + ", seqKV " +
                     std::to_string(a.seqKV) + ", blockTableStride " +
                     std::to_string(a.blockTableStride));
  } else if (a.blockTable) {
    return invalid("'block_table' is set but kernel " + spec_.name +
                   " was compiled for contiguous K/V");
  }
  if (spec_.sinks != (a.sinks != nullptr))
    return invalid(spec_.sinks ? "the kernel has attention sinks but 'sinks' "
                                 "is null"
                               : "'sinks' is set but kernel " + spec_.name +
                                     " was compiled without sinks");
  if (a.maxSeqlenQ < 0 || a.maxSeqlenK < 0)
    return invalid("max_seqlen_q and max_seqlen_k must be 0 (unknown) or "
                   "positive, got " +
                   std::to_string(a.maxSeqlenQ) + " and " +
                   std::to_string(a.maxSeqlenK));
  if (spec_.writesLse && !a.lse)
    return invalid("the kernel writes logsumexp but 'lse' is null");
  if (spec_.keyPadding && !a.lengths)
    return invalid("the mask has key_padding but 'lengths' is null");
  if (spec_.keep && !a.keep.data)
    return invalid("the mask has keep but 'keep' is null");
  if (spec_.bias && !a.bias.data)
    return invalid("the mask has bias but 'bias' is null");
  if (Status s = checkCaptures(spec_, a.scoreModCaptures); !s)
    return s;
  if (a.batchInvariant && a.splits > kMaxInvariantSplits)
    return invalid("a batch-invariant launch takes at most " +
                   std::to_string(kMaxInvariantSplits) + " splits, got " +
                   std::to_string(a.splits));
  if (a.splits < 0)
    return invalid("splits must be 0 (the heuristic's), 1 or more; got " +
                   std::to_string(a.splits));
  // A spec is a value anyone can fill in: what grid() divides by and what
  // the kernel takes as int must be in range.
  if (spec_.headsQ < 1 || spec_.headsKV < 1 || spec_.headsQ % spec_.headsKV ||
      spec_.blockM < 1 || spec_.blockN < 1 || spec_.threads < 1 ||
      spec_.threads > 1024)
    return invalid("kernel " + spec_.name + " has an invalid spec: heads " +
                   std::to_string(spec_.headsQ) + "/" +
                   std::to_string(spec_.headsKV) + ", tile " +
                   std::to_string(spec_.blockM) + "x" +
                   std::to_string(spec_.blockN) + ", " +
                   std::to_string(spec_.threads) + " threads");
  // The grid as the launch computes it (grid(), times the requested
  // splits), in 64 bits: CUDA allows 2^31 - 1 blocks along x and 65535
  // along y (heads) and z (batch). A larger launch would be truncated.
  const RowPacking packing = rowPacking(a.seqQ);
  bool packedHeads = packing.packed();
  int64_t rows = packedHeads ? int64_t(packing.group) *
                                   (packing.tokens ? a.seqQ : 1)
                 : spec_.varlen
                     ? int64_t(varlenMBlocks(a.batch, a.seqQ, spec_.blockM)) *
                           spec_.blockM
                     : a.seqQ;
  int64_t gridX = (rows + spec_.blockM - 1) / spec_.blockM *
                  (a.batchInvariant ? invariantSplits(spec_, a)
                                    : std::min(std::max(a.splits, 1), kMaxSplits));
  int64_t gridY = packedHeads ? spec_.headsKV : spec_.headsQ,
          gridZ = spec_.varlen ? 1 : a.batch;
  if (gridX > 2147483647 || gridY > 65535 || gridZ > 65535)
    return invalid("the launch needs a grid of " + std::to_string(gridX) +
                   " x " + std::to_string(gridY) + " (heads) x " +
                   std::to_string(gridZ) +
                   " (batch) blocks; CUDA allows 2147483647 x 65535 x 65535");
  return Status::ok();
}

Status FlashKernel::checkPointers(const FlashArgs &a, int ordinal) const {
  const std::pair<const char *, const void *> pointers[] = {
      {"q", a.q.data},         {"k", a.k.data},
      {"v", a.v.data},         {"o", a.o.data},
      {"lse", a.lse},          {"lengths", a.lengths},
      {"keep", a.keep.data},   {"bias", a.bias.data},
      {"cu_seqlens_q", a.cuSeqlensQ}, {"cu_seqlens_k", a.cuSeqlensK},
      {"sinks", a.sinks}, {"block_table", a.blockTable},
      {"tileStats", a.tileStats},
      {"workspace", reinterpret_cast<const void *>(a.workspace)}};
  for (const auto &[name, pointer] : pointers)
    if (Status s = checkDevicePointer(name, pointer, ordinal); !s)
      return s;
  return Status::ok();
}

namespace {

/// q, k and v of a launch with `p`, as the tensor maps describe them;
/// packed decode rows read q as (head dim, query heads of a K/V head,
/// tokens, K/V heads, batch).
std::array<TmaView, 3> tmaViews(const KernelSpec &spec, const FlashParams &p) {
  TmaView q = tmaRowsView("q", p.q, spec.headDimQK, p.seq_q, p.heads_q,
                          p.batch, p.q_strides, spec.blockM);
  if (spec.packGroup > 1) {
    // A block's rows are token-major (token, query head) pairs of one K/V
    // head: a box of blockM / G tokens by the G heads, which land in shared
    // memory in that order.
    const int group = spec.packGroup;
    q = TmaView{"q",
                p.q,
                5,
                {uint64_t(spec.headDimQK), uint64_t(group), uint64_t(p.seq_q),
                 uint64_t(p.heads_q / group), uint64_t(p.batch)},
                {p.q_strides[1], p.q_strides[2], p.q_strides[1] * group,
                 p.q_strides[0]},
                {64, uint32_t(group), uint32_t(spec.blockM / group), 1, 1},
                {"head", "row", "head group", "batch"}};
  }
  if (spec.paged) {
    // Pages as the batch of page_size rows, read in boxes of a page (or of
    // a key tile, for pages that hold whole tiles): the kernel picks each
    // box's page from the block table.
    const int boxRows = std::min(p.page_size, spec.blockN);
    return {q,
            tmaRowsView("k", p.k, spec.headDimQK, p.page_size, p.heads_kv,
                        p.num_pages, p.k_strides, boxRows),
            tmaRowsView("v", p.v, spec.headDimV, p.page_size, p.heads_kv,
                        p.num_pages, p.v_strides, boxRows)};
  }
  return {q,
          tmaRowsView("k", p.k, spec.headDimQK, p.seq_kv, p.heads_kv, p.batch,
                      p.k_strides, spec.blockN),
          tmaRowsView("v", p.v, spec.headDimV, p.seq_kv, p.heads_kv, p.batch,
                      p.v_strides, spec.blockN)};
}

/// Why the TMA kernel cannot read `p`'s paged cache in boxes of a page, or
/// "": a box lands at a whole 8-row swizzle pattern (1024 bytes), the boxes
/// of a key tile of `blockN` keys are whole pages (or the tile a part of
/// one), pages are a power of two keys (the loaders shift, having no
/// registers to divide) and the table's entries have 32-bit offsets.
std::string pageBoxRejection(const FlashParams &p, int blockN) {
  const int size = p.page_size;
  if (size < 8 || (size & (size - 1)) != 0 ||
      (blockN % size != 0 && size % blockN != 0))
    return "pages of " + std::to_string(size) +
           " keys (TMA reads a paged cache in boxes of a page that tile the "
           "key tile of " +
           std::to_string(blockN) +
           ": pages of a power of two keys, at least 8, that divide it or "
           "that it divides)";
  if (static_cast<i64>(p.batch) * p.table_stride > 0x7fffffffLL)
    return "a block table of " +
           std::to_string(static_cast<i64>(p.batch) * p.table_stride) +
           " entries (TMA's loaders index at most 2^31 - 1)";
  return "";
}

} // namespace

std::string FlashKernel::tmaRejection(const FlashParams &p) const {
  if (spec_.paged)
    if (std::string why = pageBoxRejection(p, spec_.blockN);
        !why.empty())
      return why;
  for (const TmaView &t : tmaViews(spec_, p))
    if (std::string why = detail::tmaRejection(t); !why.empty())
      return why;
  return "";
}

Status FlashKernel::encodeTmaMaps(Driver &driver, const FlashParams &p,
                             TmaMaps &maps) const {
  const bool bf16 = spec_.element == ElementType::BF16;
  TensorMap *targets[3] = {&maps.q, &maps.k, &maps.v};
  const std::array<TmaView, 3> views = tmaViews(spec_, p);
  for (int i = 0; i < 3; ++i)
    if (Status s = encodeTmaView(driver, bf16, views[i], targets[i]); !s)
      return s;
  // The output by TMA in boxes of one consumer warpgroup's 64 rows, where
  // the kernel stages it; a view TMA cannot store leaves the threads' own
  // stores.
  const TmaView o = tmaRowsView("o", p.o, spec_.headDimV, p.seq_q, p.heads_q,
                                p.batch, p.o_strides, 64);
  maps.stages_output = spec_.packGroup == 1 &&
                       reinterpret_cast<uintptr_t>(p.o) % 16 == 0 &&
                       static_cast<bool>(encodeTmaView(driver, bf16, o, &maps.o));
  return Status::ok();
}

FlashParams FlashKernel::operandParams(const FlashArgs &a) const {
  FlashParams p{};
  p.heads_q = spec_.headsQ;
  p.heads_kv = spec_.headsKV;
  p.scale = spec_.scale;
  p.scale_log2 = spec_.scale * 1.4426950408889634f;
  p.q = a.q.data;
  p.k = a.k.data;
  p.v = a.v.data;
  p.o = const_cast<void *>(a.o.data);
  p.lse = a.lse;
  p.lengths = a.lengths;
  p.keep = static_cast<const unsigned char *>(a.keep.data);
  p.bias = a.bias.data;
  p.tile_stats = a.tileStats;
  for (int i = 0; i < kMaxScoreModCaptures; ++i)
    p.score_mod_captures[i] = a.scoreModCaptures[i];
  // The kernel reads rows along dimension 2: keys, or the head dim of a
  // transposed k ([B, H, D, S]).
  for (int d = 0; d < 3; ++d) {
    p.q_strides[d] = a.q.strides[d];
    p.k_strides[d] = a.k.strides[d];
    p.v_strides[d] = a.v.strides[d];
    p.o_strides[d] = a.o.strides[d];
  }
  for (int d = 0; d < 4; ++d) {
    p.keep_strides[d] = a.keep.strides[d];
    p.bias_strides[d] = a.bias.strides[d];
  }
  p.batch = a.batch;
  p.seq_q = a.seqQ;
  p.seq_kv = a.seqKV;
  p.cu_seqlens_q = a.cuSeqlensQ;
  p.cu_seqlens_k = a.cuSeqlensK;
  p.sinks = a.sinks;
  p.sink_strides[0] = 1; // a launch head is a query head; rows are queries
  p.sink_strides[1] = 0;
  p.block_table = a.blockTable;
  p.table_stride = a.blockTableStride;
  p.num_pages = a.numPages;
  p.page_size = a.pageSize;
  if (spec_.varlen) // packed: sequences are found by offset
    p.q_strides[0] = p.k_strides[0] = p.v_strides[0] = p.o_strides[0] = 0;
  // A ragged batch's totals bound each sequence's, so clamping the window
  // at them changes no mask either.
  p.window_left = clampWindowBound(spec_.windowLeft, a.seqQ, a.seqKV);
  p.window_right = clampWindowBound(spec_.windowRight, a.seqQ, a.seqKV);
  return p;
}

void FlashKernel::packQueryHeads(FlashParams &p, const FlashArgs &a) const {
  RowPacking packing = rowPacking(a.seqQ);
  if (!packing.packed() || packing.tokens)
    return;
  // One query per head: view q and o as [batch, headsKV, group, dim], whose
  // rows are heads (stride of a head). The logsumexp, [batch, headsQ, 1],
  // has the same layout either way.
  const int group = packing.group;
  p.q_strides[1] = a.q.strides[1] * group;
  p.q_strides[2] = a.q.strides[1];
  p.o_strides[1] = a.o.strides[1] * group;
  p.o_strides[2] = a.o.strides[1];
  p.heads_q = spec_.headsKV;
  p.seq_q = group;
  p.sink_strides[0] = group;
  p.sink_strides[1] = 1;
}

Status FlashKernel::enqueueAttention(Driver &driver, Loaded &loaded,
                                const FlashArgs &a, Stream stream,
                                const TmaMaps *maps, CombineLaunch &combine) {
  if (Status s = checkPointers(a, loaded.ordinal); !s)
    return s;
  FlashParams p = operandParams(a);
  Result<int> splits = splitsIn(loaded, a);
  if (!splits)
    return splits.status();
  p.schedule = schedule(a.batch, a.seqQ, *splits);
  p.split_tiles = a.batchInvariant ? invariantSplitTiles(spec_) : 0;
  // One block per work tile; CUDA's grid takes at most 2^31 - 1 along x.
  if (p.schedule.numTiles() > 0x7fffffffLL)
    return invalid("the launch has " + std::to_string(p.schedule.numTiles()) +
                   " work tiles (batch " + std::to_string(a.batch) +
                   " x heads x query blocks x splits); CUDA allows 2147483647 "
                   "blocks");
  const size_t rows = lseRows(spec_, a);
  const ForwardWorkspace workspace = forwardWorkspace(loaded, a, *splits);
  if (*splits > 1) {
    // The caller's memory: a launch neither allocates nor synchronizes.
    size_t needed = workspace.splitBytes;
    if (!a.workspace || a.workspaceBytes < needed)
      return invalid("kernel " + spec_.name + " splits this launch " +
                     std::to_string(*splits) + " ways and needs " +
                     std::to_string(needed) + " bytes of workspace; got " +
                     std::to_string(a.workspace ? a.workspaceBytes : 0) +
                     " (FlashArgs::workspace, sized by "
                     "KernelGroup::workspaceBytes; or splits = 1)");
    p.partial_o = reinterpret_cast<float *>(a.workspace);
    p.partial_lse = p.partial_o + *splits * rows * spec_.headDimV;
    // The merge reads the rows unpacked.
    constexpr int kRowsPerBlock = kCombineThreads / 32;
    combine.params = p;
    combine.blocks =
        static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  }
  packQueryHeads(p, a);
  if (!persistent()) {
    void *args[] = {&p};
    return driver.launch(loaded.function,
                         static_cast<unsigned>(p.schedule.numTiles()), 1, 1,
                         spec_.threads, spec_.sharedBytes, stream, args);
  }
  if (!maps)
    return invalid("kernel " + spec_.name +
                   " reads q, k and v by TMA and was launched without their "
                   "tensor maps (launch it through its KernelGroup)");
  // One block per SM loops over the work tiles.
  const unsigned blocks = persistentBlocks(loaded, p.schedule.numTiles());
  p.schedule.sectionPairs = persistentSectionPairs(p.schedule, blocks);
  // The dynamic scheduler's counter starts at 0 in stream order (a
  // workspace sized before this release has no room: static order).
  if (workspace.counter && a.workspace && a.workspaceBytes >= workspace.bytes) {
    const DevicePtr counter = a.workspace + workspace.counterOffset;
    if (Status s = driver.fillWordsAsync(counter, 0, 1, stream); !s)
      return s;
    p.tile_counter = reinterpret_cast<int *>(counter);
  }
  TmaMaps tensorMaps = *maps;
  void *args[] = {&p, &tensorMaps};
  return driver.launch(loaded.function, blocks, 1, 1, spec_.threads,
                       spec_.sharedBytes, stream, args);
}

Status FlashKernel::enqueueCombine(Driver &driver, const Loaded &loaded,
                              CombineLaunch &combine, Stream stream) const {
  void *args[] = {&combine.params};
  return driver.launch(loaded.combine, combine.blocks, 1, 1, kCombineThreads, 0,
                       stream, args);
}} // namespace attn
