//===- CanonicalizeGraph.cpp - Canonicalize outside score_mod bodies ------===//
//
// The canonicalizer's patterns and folds, applied to every op of the graph
// but the ops of score_mod bodies: those have attn's semantics
// (ScoreModOps.h), which MLIR's folders do not share everywhere.
//
//===----------------------------------------------------------------------===//

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <memory>

#define DEBUG_TYPE "attn-canonicalize-graph"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNCANONICALIZEGRAPHPASS
#include "attn/Transforms/Passes.h.inc"

namespace {

/// True for the ops whose regions are score_mod bodies (and, for
/// attn.flash_bwd, the derivative of one): the reference and the CUDA
/// emitter define what their ops compute.
bool holdsScoreModBody(Operation *op) {
  return isa<ScoreModOp, FlashOp, FlashBwdOp>(op);
}

struct AttnCanonicalizeGraphPass
    : impl::AttnCanonicalizeGraphPassBase<AttnCanonicalizeGraphPass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet owning(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(owning);
    for (RegisteredOperationName name : context->getRegisteredOperations())
      name.getCanonicalizationPatterns(owning, context);
    patterns = std::make_shared<FrozenRewritePatternSet>(std::move(owning));
    return success();
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    // In program order; a score_mod holder is in the list, its regions not.
    SmallVector<Operation *> ops;
    root->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == root)
        return WalkResult::advance();
      ops.push_back(op);
      if (!holdsScoreModBody(op))
        return WalkResult::advance();
      for (Region &region : op->getRegions())
        numSkippedRegions += region.empty() ? 0 : 1;
      return WalkResult::skip();
    });
    if (ops.empty())
      return;
    // Only these ops and the ones patterns create are visited: an op that
    // changes puts its neighbours on the worklist, and the ones in a
    // score_mod body stay off it. Folded constants go to the entry of the
    // enclosing function, outside the bodies.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    // As the canonicalizer: a rewrite that does not converge is no error.
    (void)applyOpPatternsGreedily(ops, *patterns, config);
  }

  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};

} // namespace
} // namespace mlir::attn
