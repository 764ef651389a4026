//===- LowerUnfused.cpp - Every graph op as its own kernel ----------------===//

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Transforms/Passes.h"
#include "GraphMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "attn-lower-unfused"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNLOWERUNFUSEDPASS
#include "attn/Transforms/Passes.h.inc"

namespace {

bool isGraphOp(Operation *op) {
  if (isa<MatmulOp, ScaleOp, MaskOp, ScoreModOp, SoftmaxOp>(op))
    return true;
  return isa<arith::ExtFOp, arith::TruncFOp>(op) &&
         isa<RankedTensorType>(op->getResult(0).getType());
}

/// Wraps `op` in an attn.kernel; fails (with an error on the op) if its
/// regions use a value from outside that is not a constant.
LogicalResult wrapInKernel(Operation *op, IRRewriter &rewriter) {
  llvm::SetVector<Operation *> constants;
  WalkResult walk = op->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      if (inner == op || op->isAncestor(operand.getParentRegion()->getParentOp()))
        continue;
      Operation *def = operand.getDefiningOp();
      if (!def || !isa<arith::ConstantOp>(def)) {
        inner->emitOpError()
            << "uses a value from outside its op that is not a constant; it "
               "cannot become a separate kernel";
        return WalkResult::interrupt();
      }
      constants.insert(def);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  rewriter.setInsertionPoint(op);
  bool inPlace = isa<ScaleOp, MaskOp, ScoreModOp>(op);
  auto kernel = KernelOp::create(
      rewriter, op->getLoc(), op->getResult(0).getType(),
      rewriter.getStringAttr(op->getName().stripDialect()), inPlace,
      op->getOperands());
  Block *body = rewriter.createBlock(&kernel.getBody());
  IRMapping mapping;
  for (Value operand : op->getOperands())
    mapping.map(operand, body->addArgument(operand.getType(), op->getLoc()));
  rewriter.setInsertionPointToStart(body);
  for (Operation *constant : constants)
    rewriter.clone(*constant, mapping);
  Operation *payload = rewriter.clone(*op, mapping);
  YieldOp::create(rewriter, op->getLoc(), payload->getResult(0));
  rewriter.replaceOp(op, kernel.getResult());
  return success();
}

/// A tensor arith.mulf / divf by a splat constant becomes the attn.scale it
/// means (`scores / sqrt(d)` as exporters write it), so that it runs as a
/// kernel like any other graph op. The factor is the f32 the fused kernel
/// uses for the same scaling.
void scalingsToScaleOps(Operation *root, IRRewriter &rewriter) {
  SmallVector<Operation *> scalings;
  root->walk([&](Operation *op) {
    Value input;
    if (isa<arith::MulFOp, arith::DivFOp>(op) && matchScaling(op, input) &&
        !op->getParentOfType<KernelOp>() && !op->getParentOfType<FlashOp>() &&
        !op->getParentOfType<ScoreModOp>())
      scalings.push_back(op);
  });
  for (Operation *op : scalings) {
    Value input;
    double factor = *matchScaling(op, input);
    rewriter.setInsertionPoint(op);
    auto scale = ScaleOp::create(rewriter, op->getLoc(),
                                 op->getResult(0).getType(), input,
                                 rewriter.getF32FloatAttr(float(factor)));
    rewriter.replaceOp(op, scale.getResult());
  }
}

struct AttnLowerUnfusedPass
    : impl::AttnLowerUnfusedPassBase<AttnLowerUnfusedPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    scalingsToScaleOps(getOperation(), rewriter);
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isGraphOp(op) && !op->getParentOfType<KernelOp>() &&
          !op->getParentOfType<FlashOp>())
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (failed(wrapInKernel(op, rewriter)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace mlir::attn
