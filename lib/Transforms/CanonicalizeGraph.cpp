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

  /// The ops nested in the pass's op, in program order, but those in
  /// score_mod bodies; the ops holding the bodies are among them.
  SmallVector<Operation *> collectGraphOps(bool countSkipped) {
    Operation *root = getOperation();
    SmallVector<Operation *> ops;
    root->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == root)
        return WalkResult::advance();
      ops.push_back(op);
      if (!holdsScoreModBody(op))
        return WalkResult::advance();
      if (countSkipped)
        for (Region &region : op->getRegions())
          numSkippedRegions += region.empty() ? 0 : 1;
      return WalkResult::skip();
    });
    return ops;
  }

  void runOnOperation() override {
    // Only the listed ops are visited, not even ones a pattern creates (a
    // pattern that clones a score_mod holder creates the ops of its body
    // too): rewrites put the listed neighbours of what they change back on
    // the worklist, and new ops wait for the next round, which lists the
    // graph anew. Folded constants go to the entry of the enclosing
    // function, outside the bodies. Rounds as the canonicalizer iterates.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    constexpr int kMaxRounds = 10;
    for (int round = 0; round < kMaxRounds; ++round) {
      SmallVector<Operation *> ops = collectGraphOps(/*countSkipped=*/round == 0);
      if (ops.empty())
        return;
      bool changed = false;
      // As the canonicalizer: a rewrite that does not converge is no error.
      (void)applyOpPatternsGreedily(ops, *patterns, config, &changed);
      if (!changed)
        return;
    }
  }

  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};

} // namespace
} // namespace mlir::attn
