//===- ConfigFits.cpp - A kernel configuration against the arch -----------===//
//
// A verifier cannot know the GPU, so a hand-written #attn.config (which
// --attn-select-config keeps as it is) and its launch plan are checked where
// the arch is known: --attn-select-config, and the compile path of IR that
// skips the pipeline, with the variant table's shared-memory and register
// model.
//
//===----------------------------------------------------------------------===//

#include "BackwardConfig.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::attn;

namespace {

/// `config` of `op` (its `role`: "config", "launch plan's long_keys", ...)
/// against its variant's model on `arch`.
LogicalResult verifyFits(FlashOp op, ConfigAttr config, StringRef role,
                         const ArchInfo &arch) {
  const ::attn::KernelVariant *variant =
      ::attn::findKernelVariant(config.getVariant());
  if (!variant) // the attribute's verifier reports it
    return success();
  ::attn::OperandShape shape = op.getOperandShape();
  ::attn::TileConfig tiles{config.getBlockM(), config.getBlockN(),
                           config.getNumWarps(), config.getStages()};
  int64_t smem = variant->sharedBytes(tiles, shape);
  if (smem > arch.maxSharedPerBlock)
    return op.emitOpError() << role << " needs " << smem
                            << " bytes of shared memory; " << arch.name
                            << " allows " << arch.maxSharedPerBlock;
  int64_t regs = variant->registers(tiles, shape);
  if (regs > variant->registerLimit(tiles))
    return op.emitOpError() << role << " needs about " << regs
                            << " registers per thread; the limit is "
                            << variant->registerLimit(tiles);
  return success();
}

LogicalResult verifyFits(FlashBwdOp op, BackwardConfigAttr config,
                         StringRef role, const ArchInfo &arch) {
  const ::attn::BackwardKernelVariant *variant =
      ::attn::findBackwardKernelVariant(config.getVariant());
  if (!variant) // the attribute's verifier reports it
    return success();
  std::string why = variant->checkFits(
      {config.getBlockM(), config.getBlockN(), config.getNumWarps(),
       config.getStages()},
      op.getOperandShape(), arch.maxSharedPerBlock);
  if (!why.empty())
    return op.emitOpError() << role << why << " (" << arch.name << ")";
  return success();
}

} // namespace

LogicalResult mlir::attn::verifyConfigFits(FlashOp op, const ArchInfo &arch) {
  ConfigAttr config = op.getConfigAttr();
  if (!config)
    return success();
  if (failed(verifyFits(op, config, "config", arch)))
    return failure();
  LaunchPlanAttr plan = op.getPlanAttr();
  if (plan && plan.getLongKeys() &&
      failed(verifyFits(op, plan.getLongKeys(), "launch plan's long_keys",
                        arch)))
    return failure();
  if (plan && plan.getCpAsync() &&
      failed(verifyFits(op, plan.getCpAsync(), "launch plan's cp_async", arch)))
    return failure();
  return success();
}

LogicalResult mlir::attn::verifyConfigFits(FlashBwdOp op,
                                           const ArchInfo &arch) {
  BackwardConfigAttr config = op.getConfigAttr();
  if (!config)
    return success();
  if (failed(verifyFits(op, config, "", arch)))
    return failure();
  BackwardPlanAttr plan = op.getPlanAttr();
  if (plan && plan.getSpill() &&
      failed(verifyFits(op, plan.getSpill(), "backward plan's spill config: ",
                        arch)))
    return failure();
  return success();
}
