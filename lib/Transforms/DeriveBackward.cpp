//===- DeriveBackward.cpp - attn.flash to a training step -----------------===//
//
// Each function that returns the output of an attn.flash becomes a training
// step: one grad_output argument per such op, an attn.flash_bwd that
// computes the gradients of its q, k, v (and bias, and sinks), and those
// gradients as results. The score_mod and its captures are the forward's; its derivative
// comes from ScoreModDerivatives.cpp.
//
//===----------------------------------------------------------------------===//

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Transforms/Passes.h"
#include "attn/Transforms/ScoreModDerivatives.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "attn-derive-backward"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNDERIVEBACKWARDPASS
#include "attn/Transforms/Passes.h.inc"

namespace {

/// The op with a logsumexp result added (the backward reads it); `op` is
/// replaced.
FlashOp withLse(FlashOp op, OpBuilder &builder) {
  if (op.getLse())
    return op;
  builder.setInsertionPoint(op);
  OperationState state(op.getLoc(), op->getName());
  state.addOperands(op->getOperands());
  RankedTensorType q = op.getQ().getType();
  // [B, Hq, Sq]; a ragged batch's [Hq, Tq].
  SmallVector<int64_t> lseShape =
      op.isVarlen()
          ? SmallVector<int64_t>{q.getDimSize(1), q.getDimSize(0)}
          : SmallVector<int64_t>{q.getDimSize(0), q.getDimSize(1),
                                 q.getDimSize(2)};
  state.addTypes({op.getOutput().getType(),
                  RankedTensorType::get(lseShape, builder.getF32Type())});
  state.propertiesAttr = op->getPropertiesAsAttribute();
  state.addAttributes(llvm::to_vector(op->getDiscardableAttrs()));
  state.addRegion()->takeBody(op.getScoreMod());
  auto replacement = cast<FlashOp>(builder.create(state));
  op.getOutput().replaceAllUsesWith(replacement.getOutput());
  op.erase();
  return replacement;
}

struct AttnDeriveBackwardPass
    : impl::AttnDeriveBackwardPassBase<AttnDeriveBackwardPass> {
  using Base::Base;

  /// Adds the backward of `op` to `func`: a grad_output argument, the
  /// attn.flash_bwd before `ret`, and the gradients appended to `results`.
  LogicalResult differentiate(func::FuncOp func, FlashOp op,
                              func::ReturnOp ret,
                              SmallVectorImpl<Value> &results) {
    OpBuilder builder(op);
    Type outputType = op.getOutput().getType();
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, outputType, /*argAttrs=*/{},
                                   op.getLoc())))
      return failure();
    Value gradOutput = func.getArgument(index);

    Type gradBias = biasGrad && op.getBias() ? op.getBias().getType() : Type();
    Value sinks = op.getSinks();
    builder.setInsertionPoint(ret);
    auto bwd = FlashBwdOp::create(
        builder, op.getLoc(), op.getQ().getType(), op.getK().getType(),
        op.getV().getType(), gradBias, sinks ? sinks.getType() : Type(),
        op.getQ(), op.getK(), op.getV(), op.getOutput(), gradOutput,
        op.getLse(), op.getLengths(), op.getKeep(), op.getBias(),
        op.getCaptures(), op.getCuSeqlensQ(), op.getCuSeqlensK(), sinks,
        op.getScaleAttr(), op.getTransposeKAttr(),
        op.getMaskAttr(), /*config=*/BackwardConfigAttr(),
        /*plan=*/BackwardPlanAttr());
    if (op.hasScoreMod()) {
      IRMapping mapping;
      op.getScoreMod().cloneInto(&bwd.getScoreMod(), mapping);
      if (failed(deriveScoreModGrad(op.getScoreMod(), bwd.getScoreModGrad())))
        return failure();
    }
    results.append(bwd->result_begin(), bwd->result_end());
    return success();
  }

  LogicalResult runOnFunction(func::FuncOp func) {
    SmallVector<FlashOp> flashes(func.getBody().getOps<FlashOp>());
    if (flashes.empty())
      return success();
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (FlashOp op : flashes) {
      // A paged cache is the serving path's: its pages are shared.
      if (op.isPaged())
        return op.emitOpError()
               << "is a paged cache (block_table); --attn-derive-backward "
                  "differentiates dense and ragged batches";
    }
    for (FlashOp op : flashes)
      for (Operation *user : op.getOutput().getUsers())
        if (user != ret)
          return op.emitOpError()
                 << "output is used by '" << user->getName()
                 << "'; --attn-derive-backward differentiates attn.flash "
                    "ops whose output only the function returns";
    OpBuilder builder(&getContext());
    for (FlashOp &op : flashes)
      op = withLse(op, builder);
    SmallVector<Value> results(ret.getOperands());
    for (FlashOp op : flashes)
      if (failed(differentiate(func, op, ret, results)))
        return failure();
    ret->setOperands(results);
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      any |= !func.getBody().getOps<FlashOp>().empty();
      if (failed(runOnFunction(func)))
        return signalPassFailure();
    }
    if (!any) {
      module.emitError() << "found no attn.flash to differentiate; run "
                            "--attn-fuse first";
      return signalPassFailure();
    }
  }
};

} // namespace
} // namespace mlir::attn
