//===- ConfigFits.cpp - A kernel configuration against the arch -----------===//
//
// A verifier cannot know the GPU, so a hand-written #attn.config (which
// --attn-select-config keeps as it is) is checked where the arch is known:
// the compile path, before the kernel is emitted, with the variant table's
// shared-memory and register model.
//
//===----------------------------------------------------------------------===//

#include "BackwardConfig.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::attn;

LogicalResult mlir::attn::verifyConfigFits(FlashOp op, const ArchInfo &arch) {
  ConfigAttr config = op.getConfigAttr();
  if (!config)
    return success();
  const ::attn::KernelVariant *variant =
      ::attn::findKernelVariant(config.getVariant());
  if (!variant) // the attribute's verifier reports it
    return success();
  ::attn::OperandShape shape = op.getOperandShape();
  ::attn::TileConfig tiles{config.getBlockM(), config.getBlockN(),
                           config.getNumWarps(), config.getStages()};
  int64_t smem = variant->sharedBytes(tiles, shape);
  if (smem > arch.maxSharedPerBlock)
    return op.emitOpError() << "config needs " << smem
                            << " bytes of shared memory; " << arch.name
                            << " allows " << arch.maxSharedPerBlock;
  int64_t regs = variant->registers(tiles, shape);
  if (regs > variant->registerLimit(tiles))
    return op.emitOpError() << "config needs about " << regs
                            << " registers per thread; the limit is "
                            << variant->registerLimit(tiles);
  return success();
}

LogicalResult mlir::attn::verifyConfigFits(FlashBwdOp op,
                                           const ArchInfo &arch) {
  BackwardConfigAttr config = op.getConfigAttr();
  if (!config)
    return success();
  const ::attn::BackwardKernelVariant *variant =
      ::attn::findBackwardKernelVariant(config.getVariant());
  if (!variant) // the attribute's verifier reports it
    return success();
  std::string why = variant->checkFits(
      {config.getBlockM(), config.getBlockN(), config.getNumWarps(),
       config.getStages()},
      backwardOperandShape(op), arch.maxSharedPerBlock);
  if (!why.empty())
    return op.emitOpError() << why << " (" << arch.name << ")";
  return success();
}
