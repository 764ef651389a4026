//===- ConfigFits.cpp - A kernel configuration against the arch -----------===//
//
// A verifier cannot know the GPU, so a hand-written #attn.config is checked
// where the arch is known: the compile path, before the kernel is emitted.
//
//===----------------------------------------------------------------------===//

#include "attn/Target/Cuda/KernelLayout.h"
#include "attn/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::attn;

LogicalResult mlir::attn::verifyConfigFits(FlashOp op, const ArchInfo &arch) {
  ConfigAttr config = op.getConfigAttr();
  if (!config)
    return success();
  RankedTensorType q = op.getQ().getType(), v = op.getV().getType();
  TileShape tile{config.getVariant(),  config.getBlockM(),
                 config.getBlockN(),   config.getNumWarps(),
                 config.getStages(),   q.getDimSize(3),
                 v.getDimSize(3),      op.getTransposeK()};
  int64_t smem = sharedMemoryBytes(tile);
  if (smem > arch.maxSharedPerBlock)
    return op.emitOpError() << "config needs " << smem
                            << " bytes of shared memory; " << arch.name
                            << " allows " << arch.maxSharedPerBlock;
  MaskAttr mask = op.getMaskOrEmpty();
  bool elementwise = mask.getBias() || mask.getKeep() || op.hasScoreMod();
  int64_t regs = estimatedRegisters(tile, elementwise);
  if (regs > kMaxRegistersPerThread)
    return op.emitOpError() << "config needs about " << regs
                            << " registers per thread; the limit is "
                            << kMaxRegistersPerThread;
  return success();
}
