//===- BackwardConfig.cpp - Tiles of attn.flash_bwd -----------------------===//

#include "BackwardConfig.h"
#include "attn/Target/Cuda/BackwardLayout.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "attn-select-config"

using namespace mlir;
using namespace mlir::attn;

namespace {

/// Registers per thread that the backward kernels keep below, leaving
/// ptxas room for temporaries: at the 255 limit they spill.
constexpr int64_t kBackwardRegisterBudget = 200;
/// The deterministic dQ kernel holds only dQ across its loop: ptxas keeps
/// it below the estimate (bench: 165 registers at head dim 256).
constexpr int64_t kDqRegisterBudget = 224;

/// Preferred first: large K/V tiles (each loads Q and dO once per query
/// tile), a double-buffered Q/dO pipeline, fewer warps per key tile (P stays
/// in registers at one). Later entries trade these for registers (large
/// head dims) and shared memory (sm_86/sm_89).
constexpr BackwardTile kCandidates[] = {
    {64, 64, 4, 2, 0, 0}, {64, 64, 8, 2, 0, 0}, {64, 64, 4, 1, 0, 0},
    {64, 64, 8, 1, 0, 0}, {64, 32, 8, 2, 0, 0}, {64, 32, 8, 1, 0, 0},
    {64, 16, 4, 2, 0, 0}, {64, 16, 4, 1, 0, 0},
};

} // namespace

LogicalResult mlir::attn::configureBackward(FlashBwdOp op,
                                            const ArchInfo &arch) {
  if (op.getConfig())
    return success();
  int64_t headDimQK = op.getQ().getType().getDimSize(3);
  int64_t headDimV = op.getV().getType().getDimSize(3);
  for (auto [name, dim] : {std::pair<StringRef, int64_t>{"q/k", headDimQK},
                           {"v", headDimV}})
    if (dim % 8 != 0 || dim > kMaxHeadDim)
      return op.emitOpError() << "head dim " << dim << " of " << name
                              << " is not supported by the backward kernels "
                                 "(multiples of 8 up to "
                              << kMaxHeadDim << ")";
  MaskAttr mask = op.getMaskOrEmpty();
  bool elementwise = mask.getBias() || mask.getKeep() || op.hasScoreMod();
  for (BackwardTile tile : kCandidates) {
    tile.headDimQK = headDimQK;
    tile.headDimV = headDimV;
    int64_t smem = std::max(backwardSharedBytes(tile),
                            backwardDqSharedBytes(tile));
    int64_t regs = backwardRegisters(tile, elementwise);
    int64_t dqRegs = backwardDqRegisters(tile, elementwise);
    LLVM_DEBUG(llvm::dbgs() << "  backward m=" << tile.blockM
                            << " n=" << tile.blockN << " warps="
                            << tile.numWarps << " stages=" << tile.stages
                            << " smem=" << smem << " regs=" << regs << "/"
                            << dqRegs << "\n");
    if (!backwardSplitsHeadDims(tile) || smem > arch.maxSharedPerBlock ||
        regs > kBackwardRegisterBudget || dqRegs > kDqRegisterBudget)
      continue;
    op.setConfigAttr(BackwardConfigAttr::get(op.getContext(), "sm80",
                                             tile.blockM, tile.blockN,
                                             tile.numWarps, tile.stages));
    return success();
  }
  return op.emitOpError() << "no backward tile configuration fits "
                          << arch.name << " for head dims " << headDimQK << "/"
                          << headDimV;
}
