//===- KernelVariants.cpp - The tables of kernel variants -----------------===//
//
// The shared-memory and register models here mirror the templates in
// kernels-templates/attn/ (the emitted source static_asserts the shared
// memory; ptxas-report.test checks registers and spills).
//
//===----------------------------------------------------------------------===//

#include "attn/Variants/KernelVariants.h"
#include "attn/params.h"

#include <algorithm>

namespace attn {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// What every variant requires of a tile configuration.
std::string checkCommonTiles(const TileConfig &t) {
  if (t.blockN <= 0 || t.blockN % 16 != 0)
    return "block_n must be a positive multiple of 16, got " + str(t.blockN);
  // Bounded so that the kernel's 32-bit constants and the resource model's
  // products cannot overflow; no GPU holds a larger tile.
  constexpr int64_t maxTile = 1024;
  if (t.blockM > maxTile || t.blockN > maxTile)
    return "block_m and block_n must be at most " + str(maxTile) + ", got " +
           str(t.blockM) + " and " + str(t.blockN);
  if (t.stages < 1 || t.stages > 4)
    return "stages must be between 1 and 4, got " + str(t.stages);
  return "";
}

std::string checkHeadDims(const OperandShape &s, int64_t multiple) {
  for (int64_t dim : {s.headDimQK, s.headDimV})
    if (dim <= 0 || dim % multiple != 0 || dim > kMaxHeadDim)
      return "head dims that are multiples of " + str(multiple) + " up to " +
             str(kMaxHeadDim) + ", got " + str(s.headDimQK) + "/" +
             str(s.headDimV);
  return "";
}

/// What one thread may use when the block size does not limit it.
int64_t architectureRegisterLimit(const TileConfig &) { return 255; }

//===-- sm80: cp.async + mma.sync, any head dim that is a multiple of 8 ---===//

constexpr int64_t paddedHeadDim(int64_t headDim) {
  return (headDim + 15) / 16 * 16;
}
/// Row stride in elements of a [rows][headDim] tile: the padded head dim
/// plus one 16-byte chunk, so that 8 rows read by ldmatrix fall in 8
/// different bank groups.
constexpr int64_t sharedRowStride(int64_t headDim) {
  return paddedHeadDim(headDim) + 8;
}

std::string sm80Tiles(const TileConfig &t) {
  if (t.numWarps != 1 && t.numWarps != 2 && t.numWarps != 4 && t.numWarps != 8)
    return "num_warps must be 1, 2, 4 or 8, got " + str(t.numWarps);
  // Each warp owns 16 query rows of an m16n8k16 tile.
  if (t.blockM <= 0 || t.blockM % (16 * t.numWarps) != 0)
    return "block_m must be a positive multiple of 16 * num_warps = " +
           str(16 * t.numWarps) + ", got " + str(t.blockM);
  return checkCommonTiles(t);
}

std::string sm80Operands(const OperandShape &s) { return checkHeadDims(s, 8); }

/// Q and `stages` K and V tiles of padded rows; a transposed K tile is
/// [headDim][blockN].
int64_t sm80Shared(const TileConfig &t, const OperandShape &s) {
  int64_t q = t.blockM * sharedRowStride(s.headDimQK);
  int64_t k = s.transposeK ? paddedHeadDim(s.headDimQK) * (t.blockN + 8)
                           : t.blockN * sharedRowStride(s.headDimQK);
  int64_t v = t.blockN * sharedRowStride(s.headDimV);
  return 2 * (q + t.stages * (k + v));
}

/// The O and S accumulators of each warp's 16-row m-tiles, plus addressing
/// and softmax state, plus the index and operand arithmetic of element-wise
/// work on every tile, which ptxas showed to cost about 16 registers for one
/// m-tile and 64 more for each further one.
int64_t sm80Registers(const TileConfig &t, const OperandShape &s) {
  int64_t mTiles = t.blockM / (16 * t.numWarps);
  return mTiles * 4 * (paddedHeadDim(s.headDimV) / 8 + t.blockN / 8) + 64 +
         (s.elementwise ? 16 + 64 * (mTiles - 1) : 0);
}

std::vector<TileConfig> sm80Candidates(const OperandShape &) {
  std::vector<TileConfig> out;
  for (int64_t m : {64, 128})
    for (int64_t warps : {4, 8})
      for (int64_t n : {32, 64, 128})
        for (int64_t stages : {1, 2})
          if (m % (16 * warps) == 0)
            out.push_back({m, n, warps, stages});
  return out;
}

//===-- sm90: cp.async + wgmma, one block per tile -------------------------===//

std::string sm90Tiles(const TileConfig &t) {
  // wgmma: a warpgroup (4 warps) owns 64 rows; S is one m64nN product.
  if ((t.numWarps != 4 && t.numWarps != 8) || t.blockM != 16 * t.numWarps)
    return "sm90 needs whole warpgroups (num_warps 4 or 8) and block_m = 16 * "
           "num_warps, got block_m = " +
           str(t.blockM) + ", num_warps = " + str(t.numWarps);
  if (t.blockN != 64 && t.blockN != 128 && t.blockN != 192 && t.blockN != 256)
    return "sm90 needs block_n 64, 128, 192 or 256 (one wgmma N), got " +
           str(t.blockN);
  return checkCommonTiles(t);
}

std::string sm90Operands(const OperandShape &s) {
  if (s.transposeK)
    return "an untransposed k (K^T tiles would need MN-major wgmma "
           "operands)";
  return checkHeadDims(s, 64);
}

/// Dense 128-byte-swizzled tiles plus 1024 bytes to align them.
int64_t sm90Shared(const TileConfig &t, const OperandShape &s) {
  return 2 * (t.blockM * s.headDimQK +
              t.stages * t.blockN * (s.headDimQK + s.headDimV)) +
         1024;
}

/// A warpgroup's 64 x blockN S, its packed P and its 64 x headDimV O, spread
/// over 128 threads; a paged cache's page lookups cost about 40 more
/// (ptxas 13.0: head dim 256 with a score_mod spilled at 64 x 64 with 24
/// counted, head dim 128 with a score_mod 56 bytes at 128 x 128 with 24
/// counted once the softmax kept four partial maxima and sums). The
/// copies of common.cuh (TilePages with its entries a tile ahead,
/// PageByPage, PagedRowLookup, all in one kernel) measured +18 at head dim
/// 128 (64 x 64), +26 at head dim 64 (64 x 128) and +41 at 256 (64 x 64)
/// without a score_mod; 24 counted for the per-row lookups before them let
/// head dim 128 with a score_mod spill 12 bytes at 128 x 128 with eight
/// warps: 40 stays.
int64_t sm90Registers(const TileConfig &t, const OperandShape &s) {
  return t.blockN / 2 + t.blockN / 4 + s.headDimV / 2 + 40 +
         (s.elementwise ? 16 : 0) + (s.paged ? 40 : 0);
}

/// Two stages first: the prefill model (SelectConfig.cpp) scores a third
/// stage the same or lower (more shared memory, no more work per tile), so
/// only the decode model, for which a tile in flight is what counts, takes
/// it.
std::vector<TileConfig> sm90Candidates(const OperandShape &) {
  std::vector<TileConfig> out;
  for (int64_t warps : {4, 8})
    for (int64_t n : {64, 128})
      for (int64_t stages : {2, 3})
        out.push_back({16 * warps, n, warps, stages});
  return out;
}

//===-- sm90ws: TMA producer, warp-specialized consumers, persistent ------===//

/// Consumer warpgroups of a configuration (one more warpgroup produces).
int64_t wsConsumers(const TileConfig &t) { return t.numWarps / 4 - 1; }

std::string sm90wsTiles(const TileConfig &t) {
  if (t.numWarps != 8 && t.numWarps != 12 && t.numWarps != 16)
    return "sm90ws needs a producer and 1 to 3 consumer warpgroups (num_warps "
           "8, 12 or 16), got num_warps = " +
           str(t.numWarps);
  if (t.blockM != 64 * wsConsumers(t))
    return "sm90ws needs block_m = 64 rows per consumer warpgroup = " +
           str(64 * wsConsumers(t)) + ", got " + str(t.blockM);
  if (t.blockN > 256)
    return "sm90ws needs block_n of at most 256 (one TMA box, one wgmma N), "
           "got " +
           str(t.blockN);
  if (t.stages < 2)
    return "sm90ws needs at least 2 stages, got " + str(t.stages);
  return checkCommonTiles(t);
}

/// TMA boxes of 64 columns zero-fill the head dim's last block, and the
/// products step through it 16 columns at a time. Its TMA boxes and
/// persistent schedule address whole sequences of a dense batch; ragged
/// sequences start at any token. (A paged cache is read a box per page;
/// page sizes that cannot tile the key tile run the cp.async kernel, which
/// the launch says: Kernel::tmaRejection.)
std::string sm90wsOperands(const OperandShape &s) {
  if (s.varlen)
    return "a dense batch (ragged sequences at cu_seqlens offsets would need "
           "TMA boxes cut at each sequence's bounds)";
  if (s.paged && s.pageSize > 0 &&
      (s.pageSize < 8 || (s.pageSize & (s.pageSize - 1)) != 0))
    return "pages of a power of two keys from 8 (a TMA box per page), got " +
           str(s.pageSize);
  if (s.transposeK)
    return "an untransposed k (K^T tiles would need MN-major wgmma "
           "operands)";
  return checkHeadDims(s, 16);
}

/// Q, `stages` K and V tiles in 64-column swizzle blocks, 1024 bytes to
/// align them, the mbarriers (Q full/empty per Q buffer, per stage K and V
/// full/empty, per work-tile slot full/empty) and two 32-byte work-tile
/// slots, 16-byte aligned; and what fits beside them, first the output tile
/// staged for a TMA store, then a second Q buffer with one or two consumers
/// (sm90/tile_slots.cuh's kStagesOutput and kQBuffers).
int64_t sm90wsShared(const TileConfig &t, const OperandShape &s) {
  const int64_t blocksQK = (s.headDimQK + 63) / 64, blocksV = (s.headDimV + 63) / 64;
  auto bytes = [&](int64_t qBuffers, bool stagedOutput) {
    constexpr int64_t tileSlots = 2;
    const int64_t barriers = 8 * (2 * qBuffers + 4 * t.stages + 2 * tileSlots);
    return 1024 + qBuffers * 128 * blocksQK * t.blockM +
           t.stages * 128 * t.blockN * (blocksQK + blocksV) +
           (stagedOutput ? 128 * blocksV * t.blockM : 0) +
           (barriers + 15) / 16 * 16 + 32 * tileSlots;
  };
  const bool stagedOutput = bytes(1, true) <= kMaxSharedSm90;
  const bool twoQ = wsConsumers(t) < 3 && bytes(2, stagedOutput) <= kMaxSharedSm90;
  return bytes(twoQ ? 2 : 1, stagedOutput);
}

/// A consumer thread's S (blockN / 2), the packed P of the previous tile
/// (blockN / 4) and O (headDimV / 2), plus softmax and addressing state;
/// per-element loads of bias and keep cost about 56 more (their 64-bit
/// addressing), a score_mod alone about 24. Fitted to ptxas 13.0 on the GPU
/// suite's masks so that the largest blockN allowed compiles without spills
/// (ptxas-report.test).
///
/// Under the 160 registers of three consumers, ptxas fits a tile without
/// element-wise work in 8 fewer (hd64 192x128: no spill), but one with it
/// needs 8 more (hd64 192x96 with a window and a bias, estimated at 160,
/// spilled 136 bytes).
/// A paged cache's two consumers give its loaders 8 registers each
/// (232 of sm90wsRegisterLimit's 240), counted here as 8 more.
int64_t sm90wsRegisters(const TileConfig &t, const OperandShape &s) {
  const bool threeConsumers = wsConsumers(t) == 3;
  return 3 * t.blockN / 4 + s.headDimV / 2 + (threeConsumers ? 32 : 40) +
         (s.maskOperands ? 56 : s.elementwise ? (threeConsumers ? 32 : 24) : 0) +
         (s.paged && !threeConsumers ? 8 : 0);
}

/// After setmaxnreg (fwd_ws_shape.cuh): the producer keeps 24 (32 with three
/// consumers, 40 with two reading a paged cache) of the block's registers
/// per thread, the consumers share the rest; a single consumer needs no
/// reallocation.
int64_t sm90wsRegisterLimit(const TileConfig &t) {
  switch (wsConsumers(t)) {
  case 1:
    return 255;
  case 2:
    return 240;
  default:
    return 160;
  }
}

std::vector<TileConfig> sm90wsCandidates(const OperandShape &s) {
  std::vector<TileConfig> out;
  // Two consumers of 64 rows, or three (their registers limit blockN);
  // wgmma takes any N that is a multiple of 16. A paged cache's pages (a
  // power of two keys) tile key tiles of a power of two (a TMA box per
  // page), so only those.
  for (int64_t consumers : {2, 3})
    for (int64_t n = 64; n <= 256; n += 16)
      if (!s.paged || (n & (n - 1)) == 0)
        out.push_back({64 * consumers, n, 4 * (consumers + 1), 2});
  return out;
}

//===-- sm80 backward: cp.async + mma.sync, K/V-stationary ----------------===//
//
// kernels-templates/attn/sm80/flash_bwd.cuh. Each warp of the K/V-stationary
// kernel owns 16 keys of the block's tile; the warps that share them (the
// "warps per key tile") split the query tile and the head dims of dK and dV.
// Its dQ product puts warps along the query rows (whole m16 tiles) and the
// head dim. The deterministic dQ kernel gives each warp 16 query rows.

int64_t warpsPerKeyTile(const TileConfig &t) {
  return t.numWarps / (t.blockN / 16);
}
int64_t dqWarpsM(const TileConfig &t) {
  return std::min(t.numWarps, t.blockM / 16);
}
int64_t dqWarpsD(const TileConfig &t) { return t.numWarps / dqWarpsM(t); }
/// Keys per tile of the deterministic dQ kernel: block_n, but 16 for head
/// dims over 128, where ptxas keeps the dQ accumulator and the operands of
/// several key steps in flight (242 registers at head dim 256 with 32 keys,
/// 165 with 16).
int64_t dqBlockN(const TileConfig &t, const OperandShape &s) {
  return paddedHeadDim(s.headDimQK) > 128 ? 16 : t.blockN;
}

std::string sm80BackwardTiles(const TileConfig &t) {
  if (t.numWarps != 1 && t.numWarps != 2 && t.numWarps != 4 && t.numWarps != 8)
    return "num_warps must be 1, 2, 4 or 8, got " + str(t.numWarps);
  // Each warp owns 16 keys of the block's K/V tile.
  if (t.blockN <= 0 || t.blockN % 16 != 0 || t.numWarps % (t.blockN / 16) != 0)
    return "block_n must be 16 times a divisor of num_warps = " +
           str(t.numWarps) + " (16 keys per warp), got " + str(t.blockN);
  // The warps sharing 16 keys split the query tile in whole m16 tiles; the
  // deterministic dQ kernel gives each 16 query rows a warp (at most 8).
  int64_t shared = warpsPerKeyTile(t);
  if (t.blockM <= 0 || t.blockM % (16 * shared) != 0 || t.blockM > 128)
    return "block_m must be a multiple of 16 * " + str(shared) +
           " (the warps that share 16 keys) and at most 128, got " +
           str(t.blockM);
  if (t.stages < 1 || t.stages > 2)
    return "stages must be 1 or 2, got " + str(t.stages);
  return "";
}

std::string sm80BackwardOperands(const OperandShape &s) {
  if (s.transposeK)
    return "an untransposed k ([batch, heads, seq, dim]; the reference "
           "evaluates a transposed one)";
  return checkHeadDims(s, 8);
}

/// The head dims split evenly, in whole n8 tiles, over the warps that
/// share them (dK and dV in the K/V-stationary kernel, dQ there too).
std::string sm80BackwardTilesFor(const TileConfig &t, const OperandShape &s) {
  int64_t qk = paddedHeadDim(s.headDimQK), v = paddedHeadDim(s.headDimV);
  int64_t shared = warpsPerKeyTile(t);
  if (qk % (8 * shared) != 0 || v % (8 * shared) != 0 ||
      qk % (8 * dqWarpsD(t)) != 0)
    return "the config splits head dims " + str(s.headDimQK) + "/" +
           str(s.headDimV) + " over " + str(shared) +
           " warps per 16 keys, which does not give whole 8-column tiles";
  return "";
}

/// Row stride (elements) of the [keys][queries] tiles of P and dS.
int64_t backwardScoreStride(const TileConfig &t) { return t.blockM + 8; }

/// K and V of the block, `stages` Q and dO tiles with their logsumexp and
/// D rows (f32), dS and, when warps split the queries, P.
int64_t sm80BackwardShared(const TileConfig &t, const OperandShape &s) {
  int64_t qk = sharedRowStride(s.headDimQK), v = sharedRowStride(s.headDimV);
  int64_t scores =
      t.blockN * backwardScoreStride(t) * (warpsPerKeyTile(t) > 1 ? 2 : 1);
  return 2 * (t.blockN * (qk + v) + t.stages * t.blockM * (qk + v) + scores) +
         8 * t.stages * t.blockM;
}

/// Q and dO of the block, `stages` K and V tiles.
int64_t sm80BackwardDqShared(const TileConfig &t, const OperandShape &s) {
  int64_t qk = sharedRowStride(s.headDimQK), v = sharedRowStride(s.headDimV);
  return 2 * (t.blockM * (qk + v) + t.stages * dqBlockN(t, s) * (qk + v));
}

int64_t sm80BackwardDqThreads(const TileConfig &t) { return t.blockM / 16 * 32; }

/// The dK and dV accumulators and the larger of S with dP (16 keys by the
/// warp's queries) and a chunk of the dQ product, with a quarter more for
/// the operand fragments ptxas keeps in flight, plus addressing;
/// element-wise work (bias, keep, score_mod) adds index arithmetic. Fitted
/// to ptxas (sm_80, CUDA 13): 161-189 registers at head dims 32-64 with one
/// warp per 16 keys, 246 at 80, 124-174 with two or four.
int64_t sm80BackwardRegisters(const TileConfig &t, const OperandShape &s) {
  int64_t qk = paddedHeadDim(s.headDimQK), v = paddedHeadDim(s.headDimV);
  int64_t accumulators = (qk + v) / (2 * warpsPerKeyTile(t));
  int64_t scores = t.blockM / warpsPerKeyTile(t);
  // dQ in chunks of at most 64 columns per warp.
  int64_t dq = (t.blockM / 16 / dqWarpsM(t)) *
               std::min<int64_t>(qk / dqWarpsD(t), 64) / 2;
  return (accumulators + std::max(scores, dq)) * 5 / 4 + 40 +
         (s.elementwise ? 16 : 0);
}

/// The dQ accumulator and the S and dP of 16 rows by dqBlockN keys, plus
/// addressing and the element-wise work (ptxas: 163-174 at head dims 64-128
/// with 64 keys, 226 at 256 with 16 keys and a score_mod).
int64_t sm80BackwardDqRegisters(const TileConfig &t, const OperandShape &s) {
  return paddedHeadDim(s.headDimQK) / 2 + dqBlockN(t, s) + 48 +
         (s.elementwise ? 32 : 0);
}

/// Preferred first: large K/V tiles (each loads Q and dO once per query
/// tile), a double-buffered Q/dO pipeline, fewer warps per key tile (P
/// stays in registers at one). Later entries trade these for registers
/// (large head dims) and shared memory (sm_86/sm_89).
std::vector<TileConfig> sm80BackwardCandidates(const OperandShape &) {
  return {{64, 64, 4, 2}, {64, 64, 8, 2}, {64, 64, 4, 1}, {64, 64, 8, 1},
          {64, 32, 8, 2}, {64, 32, 8, 1}, {64, 16, 4, 2}, {64, 16, 4, 1}};
}

//===-- sm90 backward: cp.async + wgmma, K/V-stationary -------------------===//
//
// kernels-templates/attn/sm90/flash_bwd.cuh. One or two warpgroups share 64
// keys of the block (the "key split"); each computes S^T and dP^T of its
// keys for its share of the query tile and keeps dK and dV of its keys and
// its share of the head dims in registers, whole 64-column swizzle blocks
// of at most 128 columns. Its dQ product puts warpgroups along the query
// tile's m64 tiles, then along the head dim in whole 64-column blocks. The
// deterministic dQ kernel is the sm80 one on at most 64 keys per tile.

constexpr int64_t kSm90BackwardMaxHeadDim = 256;
/// dK and dV columns a warpgroup keeps in registers.
constexpr int64_t kSm90BackwardMaxSlice = 128;

int64_t sm90BackwardWarpgroups(const TileConfig &t) { return t.numWarps / 4; }
/// Warpgroups per 64 keys of the block.
int64_t sm90BackwardKeySplit(const TileConfig &t) {
  return t.blockN > 0 ? 64 * sm90BackwardWarpgroups(t) / t.blockN : 0;
}
int64_t sm90BackwardDqWarpgroupsD(const TileConfig &t) {
  return sm90BackwardWarpgroups(t) / std::max<int64_t>(t.blockM / 64, 1);
}
/// Keys per tile of its deterministic dQ kernel (the sm80 one's rule).
int64_t sm90BackwardDqBlockN(const TileConfig &t, const OperandShape &s) {
  return std::min<int64_t>(dqBlockN(t, s), 64);
}

std::string sm90BackwardTiles(const TileConfig &t) {
  if (t.numWarps != 4 && t.numWarps != 8)
    return "num_warps must be 4 or 8 (one or two warpgroups), got " +
           str(t.numWarps);
  int64_t split = sm90BackwardKeySplit(t);
  if (t.blockN % 64 != 0 || (split != 1 && split != 2) ||
      split * t.blockN != 64 * sm90BackwardWarpgroups(t))
    return "block_n must be 64 keys per warpgroup or per two warpgroups (" +
           str(16 * t.numWarps) +
           (t.numWarps == 8 ? " or 64" : "") + "), got " + str(t.blockN);
  // dS^T's m64 tiles go to whole warpgroups; the dQ kernel gives each 16
  // query rows a warp (at most 8).
  if (t.blockM != 64 && t.blockM != 128)
    return "block_m must be 64 or 128, got " + str(t.blockM);
  if (t.blockM / 64 > sm90BackwardWarpgroups(t))
    return "block_m must be at most 64 per warpgroup (" +
           str(64 * sm90BackwardWarpgroups(t)) + "), got " + str(t.blockM);
  if (t.stages < 1 || t.stages > 2)
    return "stages must be 1 or 2, got " + str(t.stages);
  return "";
}

std::string sm90BackwardOperands(const OperandShape &s) {
  if (s.transposeK)
    return "an untransposed k ([batch, heads, seq, dim])";
  // Its query tiles and dQ sums are laid out per (batch, head); a ragged
  // batch's backward runs sm80's kernels.
  if (s.varlen)
    return "dense batches (a ragged batch's backward runs variant sm80)";
  for (int64_t dim : {s.headDimQK, s.headDimV})
    if (dim <= 0 || dim % 64 != 0 || dim > kSm90BackwardMaxHeadDim)
      return "head dims that are multiples of 64 up to 256 (whole 64-column "
             "swizzle blocks, dK and dV in registers), got " +
             str(s.headDimQK) + "/" + str(s.headDimV);
  return "";
}

/// The warpgroups that share 64 keys split dK and dV, and those that share
/// the query tile split dQ's head dim, in whole 64-column blocks; a
/// warpgroup keeps at most 128 columns each of dK and dV.
std::string sm90BackwardTilesFor(const TileConfig &t, const OperandShape &s) {
  int64_t split = sm90BackwardKeySplit(t);
  for (int64_t dim : {s.headDimQK, s.headDimV})
    if (dim % (64 * split) != 0 || dim / split > kSm90BackwardMaxSlice)
      return "the config gives each 64 keys " + str(split) +
             " warpgroup(s), which does not split head dims " +
             str(s.headDimQK) + "/" + str(s.headDimV) +
             " into whole 64-column blocks of at most " +
             str(kSm90BackwardMaxSlice) + " columns of dK and dV each";
  int64_t dq = sm90BackwardDqWarpgroupsD(t);
  if (s.headDimQK % (64 * dq) != 0)
    return "the config splits dQ's head dim " + str(s.headDimQK) + " over " +
           str(dq) + " warpgroups, which does not give whole 64-column "
           "blocks";
  return "";
}

/// K and V of the block, `stages` Q and dO tiles with their logsumexp and
/// D rows (f32), dS^T (and P^T with two warpgroups per 64 keys), and the
/// slack that aligns the tiles to 1024 bytes; then, where it fits, the
/// query tile's dQ (f32) staged for one bulk reduction per step.
int64_t sm90BackwardShared(const TileConfig &t, const OperandShape &s) {
  int64_t scores = t.blockN * t.blockM * (sm90BackwardKeySplit(t) > 1 ? 2 : 1);
  int64_t unstaged = 2 * (t.blockN * (s.headDimQK + s.headDimV) +
                          t.stages * t.blockM * (s.headDimQK + s.headDimV) +
                          scores) +
                     8 * t.stages * t.blockM + 1024;
  int64_t stagedDq = 4 * t.blockM * s.headDimQK;
  return unstaged + stagedDq <= kMaxSharedSm90 ? unstaged + stagedDq
                                               : unstaged;
}

int64_t sm90BackwardDqShared(const TileConfig &t, const OperandShape &s) {
  int64_t qk = sharedRowStride(s.headDimQK), v = sharedRowStride(s.headDimV);
  return 2 * (t.blockM * (qk + v) +
              t.stages * sm90BackwardDqBlockN(t, s) * (qk + v));
}

/// dK and dV of the thread's keys and head-dim slice, S^T and dP^T of 64
/// keys by its share of the query tile, plus addressing; element-wise work
/// (bias, keep, score_mod) adds index arithmetic per query column. ptxas
/// (sm_90a, CUDA 13) takes what it can for the exponentials in flight:
/// 253-255 registers at 128 x 128 and head dim 64 and at 64 x 128 and 128,
/// with element-wise work too; at head dim 256 (two warpgroups per 64 keys)
/// 217-226 at 64 x 64 and 250-255 at 128 x 64, with a window, a bias and
/// its gradient, or a score_mod too.
int64_t sm90BackwardRegisters(const TileConfig &t, const OperandShape &s) {
  int64_t split = sm90BackwardKeySplit(t);
  int64_t accumulators = (s.headDimQK + s.headDimV) / (2 * split);
  return accumulators + t.blockM / split + 32 +
         (s.elementwise ? t.blockM / (4 * split) : 0);
}

int64_t sm90BackwardDqRegisters(const TileConfig &t, const OperandShape &s) {
  return paddedHeadDim(s.headDimQK) / 2 + sm90BackwardDqBlockN(t, s) + 48 +
         (s.elementwise ? 32 : 0);
}

/// Two warpgroups of 128 keys (Q and dO loaded once per 128 keys); query
/// tiles of 128 at head dim 64, of 64 at 128; one warpgroup of 64 keys
/// where element-wise work leaves too few registers for 128 x 128; two
/// warpgroups sharing 64 keys for head dims over 128, with query tiles of
/// 128 in one stage (the most that fits shared memory: on the H200 +6% at
/// hd256 S=4096 and 16k over 64-row tiles in two stages, -2% at S=1024
/// causal; bench/NOTES.md step 36).
std::vector<TileConfig> sm90BackwardCandidates(const OperandShape &) {
  return {{128, 128, 8, 2}, {64, 128, 8, 2}, {64, 128, 8, 1}, {64, 64, 4, 2},
          {128, 64, 8, 1},  {64, 64, 8, 2},  {64, 64, 8, 1}};
}

//===-- sm90ws backward: TMA producer, two wgmma consumers ----------------===//
//
// kernels-templates/attn/sm90/flash_bwd_ws.cuh: the sm90 step with one
// warpgroup per 64 keys of a 128-key block, run by two consumer
// warpgroups, and a producer warpgroup whose warps load by TMA and add the
// staged dQ (always staged) by bulk reductions.

/// The consumers as the sm90 model sees its two warpgroups.
TileConfig sm90wsConsumers(const TileConfig &t) {
  return {t.blockM, t.blockN, 8, t.stages};
}

std::string sm90wsBackwardTiles(const TileConfig &t) {
  if (t.numWarps != 12)
    return "num_warps must be 12 (a producer and two consumer warpgroups), "
           "got " + str(t.numWarps);
  if (t.blockN != 128)
    return "block_n must be 128 (64 keys per consumer), got " + str(t.blockN);
  return sm90BackwardTiles(sm90wsConsumers(t));
}

std::string sm90wsBackwardOperands(const OperandShape &s) {
  if (std::string why = sm90BackwardOperands(s); !why.empty())
    return why;
  if (s.headDimQK > 128 || s.headDimV > 128)
    return "head dims of 64 or 128 (a consumer keeps dK and dV of its keys "
           "in registers), got " + str(s.headDimQK) + "/" + str(s.headDimV);
  return "";
}

std::string sm90wsBackwardTilesFor(const TileConfig &t, const OperandShape &s) {
  return sm90BackwardTilesFor(sm90wsConsumers(t), s);
}

/// K and V of the block, `stages` Q and dO tiles with their logsumexp and
/// D rows (f32), dS^T twice, the query tile's dQ (f32), the barriers and
/// the 1024-byte alignment slack.
int64_t sm90wsBackwardShared(const TileConfig &t, const OperandShape &s) {
  return 1024 +
         2 * (t.blockN * (s.headDimQK + s.headDimV) +
              t.stages * t.blockM * (s.headDimQK + s.headDimV) +
              2 * t.blockN * t.blockM) +
         4 * t.blockM * s.headDimQK + 8 * t.stages * t.blockM +
         8 * (2 + 2 * t.stages);
}

/// The consumers' registers are the sm90 step's, without the loads'
/// addressing.
int64_t sm90wsBackwardRegisters(const TileConfig &t, const OperandShape &s) {
  return sm90BackwardRegisters(sm90wsConsumers(t), s);
}

/// Query tiles of 128 at head dim 64, of 64 at 128 (the staged dQ of 128
/// rows at 128 does not fit beside two stages).
std::vector<TileConfig> sm90wsBackwardCandidates(const OperandShape &) {
  return {{128, 128, 12, 2}, {64, 128, 12, 2}};
}

} // namespace

const std::vector<KernelVariant> &kernelVariants() {
  static const std::vector<KernelVariant> variants = {
      {"sm90ws",
       "sm_90a: TMA producer warp, warp-specialized wgmma consumers, "
       "persistent",
       "attn/sm90/flash_fwd_ws.cuh", "attn::sm90::FlashForwardWS", 90, true,
       true, sm90wsTiles, sm90wsOperands, sm90wsShared, sm90wsRegisters,
       sm90wsRegisterLimit, sm90wsCandidates},
      {"sm90", "sm_90a: cp.async loads, wgmma products",
       "attn/sm90/flash_fwd.cuh", "attn::sm90::FlashForward", 90, true, false,
       sm90Tiles, sm90Operands, sm90Shared, sm90Registers,
       architectureRegisterLimit, sm90Candidates},
      {"sm80", "sm_80 and newer: cp.async loads, mma.sync products",
       "attn/sm80/flash_fwd.cuh", "attn::sm80::FlashForward", 80, false, false,
       sm80Tiles, sm80Operands, sm80Shared, sm80Registers,
       architectureRegisterLimit, sm80Candidates},
  };
  return variants;
}

const KernelVariant *findKernelVariant(std::string_view name) {
  for (const KernelVariant &v : kernelVariants())
    if (v.name == name)
      return &v;
  return nullptr;
}

std::string knownVariantNames() {
  std::string names;
  for (const KernelVariant &v : kernelVariants())
    names += (names.empty() ? "" : ", ") + std::string(v.name);
  return names;
}

std::string BackwardKernelVariant::checkFits(const TileConfig &tiles,
                                             const OperandShape &shape,
                                             int64_t maxSharedPerBlock) const {
  int64_t smem = maxSharedBytes(tiles, shape);
  if (smem > maxSharedPerBlock)
    return "config needs " + std::to_string(smem) +
           " bytes of shared memory; the arch allows " +
           std::to_string(maxSharedPerBlock);
  int64_t regs = registers(tiles, shape);
  if (regs > registerLimit)
    return "config needs about " + std::to_string(regs) +
           " registers per thread in the K/V-stationary kernel; the limit is " +
           std::to_string(registerLimit);
  int64_t dqRegs = dqRegisters(tiles, shape);
  if (dqRegs > dqRegisterLimit)
    return "config needs about " + std::to_string(dqRegs) +
           " registers per thread in the dQ kernel; the limit is " +
           std::to_string(dqRegisterLimit);
  return "";
}

const std::vector<BackwardKernelVariant> &backwardKernelVariants() {
  static const std::vector<BackwardKernelVariant> variants = {
      // Faster than sm90 where it serves (bench/NOTES.md step 54); where
      // ptxas spills it (masks' element-wise work past its consumers' 240
      // registers), its launch plan's spill config (sm90) runs instead.
      {"sm90ws",
       "sm_90a: TMA producer warp, warp-specialized wgmma consumers",
       "attn/sm90/flash_bwd_ws.cuh", "attn::sm90::FlashBackwardKVWS",
       "attn::sm90::FlashBackwardQ", 90, true, true, true, sm90wsBackwardTiles,
       sm90wsBackwardOperands, sm90wsBackwardTilesFor, sm90wsBackwardShared,
       sm90BackwardDqShared, sm80BackwardDqThreads, sm90wsBackwardRegisters,
       sm90BackwardDqRegisters, 240, 224, sm90wsBackwardCandidates},
      {"sm90", "sm_90a: cp.async loads, wgmma products",
       "attn/sm90/flash_bwd.cuh", "attn::sm90::FlashBackwardKV",
       "attn::sm90::FlashBackwardQ", 90, true, true, false, sm90BackwardTiles,
       sm90BackwardOperands, sm90BackwardTilesFor, sm90BackwardShared,
       sm90BackwardDqShared, sm80BackwardDqThreads, sm90BackwardRegisters,
       sm90BackwardDqRegisters, 240, 224, sm90BackwardCandidates},
      {"sm80", "sm_80 and newer: cp.async loads, mma.sync products",
       "attn/sm80/flash_bwd.cuh", "attn::sm80::FlashBackwardKV",
       // The dQ kernel's extra pass (S and dP again) was faster than the
       // atomics of the K/V-stationary kernel on all 36 shapes of the H200
       // backward grid (bench/NOTES.md, session 6).
       "attn::sm80::FlashBackwardQ", 80, false, false, false, sm80BackwardTiles,
       sm80BackwardOperands, sm80BackwardTilesFor, sm80BackwardShared,
       sm80BackwardDqShared, sm80BackwardDqThreads, sm80BackwardRegisters,
       sm80BackwardDqRegisters,
       // ptxas spills at the 255 limit; the dQ kernel holds only dQ across
       // its loop and stays below its estimate (165 at head dim 256).
       200, 224, sm80BackwardCandidates},
  };
  return variants;
}

const BackwardKernelVariant *findBackwardKernelVariant(std::string_view name) {
  for (const BackwardKernelVariant &v : backwardKernelVariants())
    if (v.name == name)
      return &v;
  return nullptr;
}

std::string knownBackwardVariantNames() {
  std::string names;
  for (const BackwardKernelVariant &v : backwardKernelVariants())
    names += (names.empty() ? "" : ", ") + std::string(v.name);
  return names;
}

} // namespace attn
