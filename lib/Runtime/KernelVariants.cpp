//===- KernelVariants.cpp - The table of forward kernel variants ----------===//
//
// The shared-memory and register models here mirror the templates in
// kernels-templates/attn/ (the emitted source static_asserts the shared
// memory; ptxas-report.test checks registers and spills).
//
//===----------------------------------------------------------------------===//

#include "attn/Runtime/KernelVariants.h"

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
/// over 128 threads.
int64_t sm90Registers(const TileConfig &t, const OperandShape &s) {
  return t.blockN / 2 + t.blockN / 4 + s.headDimV / 2 + 40 +
         (s.elementwise ? 16 : 0);
}

std::vector<TileConfig> sm90Candidates(const OperandShape &) {
  std::vector<TileConfig> out;
  for (int64_t warps : {4, 8})
    for (int64_t n : {64, 128})
      out.push_back({16 * warps, n, warps, 2});
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
/// products step through it 16 columns at a time.
std::string sm90wsOperands(const OperandShape &s) {
  if (s.transposeK)
    return "an untransposed k (K^T tiles would need MN-major wgmma "
           "operands)";
  return checkHeadDims(s, 16);
}

/// Q, `stages` K and V tiles in 64-column swizzle blocks, 1024 bytes to
/// align them, the mbarriers (Q full/empty, per stage K and V full/empty,
/// per work-tile slot full/empty) and two 32-byte work-tile slots, 16-byte
/// aligned.
int64_t sm90wsShared(const TileConfig &t, const OperandShape &s) {
  const int64_t blocksQK = (s.headDimQK + 63) / 64, blocksV = (s.headDimV + 63) / 64;
  constexpr int64_t tileSlots = 2;
  const int64_t barriers = 8 * (2 + 4 * t.stages + 2 * tileSlots);
  return 1024 + 128 * blocksQK * t.blockM +
         t.stages * 128 * t.blockN * (blocksQK + blocksV) +
         (barriers + 15) / 16 * 16 + 32 * tileSlots;
}

/// A consumer thread's S (blockN / 2), the packed P of the previous tile
/// (blockN / 4) and O (headDimV / 2), plus softmax and addressing state;
/// per-element loads of bias and keep cost about 56 more (their 64-bit
/// addressing), a score_mod alone about 24. Fitted to ptxas 13.0 on the GPU
/// suite's masks so that the largest blockN allowed compiles without spills
/// (ptxas-report.test).
int64_t sm90wsRegisters(const TileConfig &t, const OperandShape &s) {
  return 3 * t.blockN / 4 + s.headDimV / 2 + 40 +
         (s.maskOperands ? 56 : s.elementwise ? 24 : 0);
}

/// After setmaxnreg (flash_fwd_ws.cuh): the producer keeps 24 (32 with three
/// consumers) of the block's registers per thread, the consumers share the
/// rest; a single consumer needs no reallocation.
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
  // wgmma takes any N that is a multiple of 16.
  for (int64_t consumers : {2, 3})
    for (int64_t n = 64; n <= 256; n += 16)
      out.push_back({64 * consumers, n, 4 * (consumers + 1), 2});
  return out;
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

} // namespace attn
