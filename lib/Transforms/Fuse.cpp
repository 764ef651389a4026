//===- Fuse.cpp - Fuse attention graphs into attn.flash -------------------===//
//
// Walks from each attn.softmax over the key axis outwards: back through the
// score chain to the q @ k^T matmul, forward to the p @ v matmul. The chain
// becomes one attn.flash; where that would change the result, the chain stays
// and a remark says why.
//
//===----------------------------------------------------------------------===//

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Transforms/Passes.h"
#include "GraphMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

#define DEBUG_TYPE "attn-fuse"

namespace mlir::attn {
#define GEN_PASS_DEF_ATTNFUSEPASS
#include "attn/Transforms/Passes.h.inc"

namespace {

/// The pieces of one attention chain, gathered before anything is rewritten.
struct AttentionChain {
  Value q, k, v;
  bool transposeK = false;
  double scale = 1.0;
  MaskAttr mask;
  Value lengths, keep, bias;
  /// Attention sinks: the per-head logits of a column concatenated to the
  /// scores before the softmax (and sliced off after it).
  Value sinks;
  ScoreModOp scoreMod;
  MatmulOp scoreMatmul, outputMatmul;
  /// Ops of the chain, to erase once they are dead.
  SmallVector<Operation *> chainOps;
};

/// Intersects two sliding-window bounds where -1 is unbounded.
int64_t intersectBound(int64_t a, int64_t b) {
  if (a < 0)
    return b;
  if (b < 0)
    return a;
  return std::min(a, b);
}

/// Combines two masks; fails (with `reason`) where one fused mask cannot say
/// both. A bottom-right mask without key padding aligns to the tensor's keys;
/// merged with a separate key-padding mask it stays there (bottom_right =
/// tensor), where a bottom-right mask with key padding aligns to lengths.
FailureOr<MaskAttr> mergeMasks(MaskAttr a, MaskAttr b, std::string &reason) {
  if (a.hasPositionalBound() && b.hasPositionalBound() &&
      a.getAlignment() != b.getAlignment()) {
    reason = a.getBottomRight() != b.getBottomRight()
                 ? "masks align to different corners (top-left and "
                   "bottom-right)"
                 : "bottom-right masks align to different key counts (the "
                   "tensor's and the lengths of key padding)";
    return failure();
  }
  if ((a.getKeyPadding() && b.getKeyPadding()) || (a.getKeep() && b.getKeep()) ||
      (a.getBias() && b.getBias())) {
    reason = "two masks each need a tensor operand of the same kind";
    return failure();
  }
  MaskAttr positional = a.hasPositionalBound() ? a : b;
  bool keyPadding = a.getKeyPadding() || b.getKeyPadding();
  bool alignsToTensor =
      keyPadding &&
      positional.getAlignment() == MaskAttr::Alignment::BottomRightTensor;
  return MaskAttr::get(a.getContext(), a.getCausal() || b.getCausal(),
                       a.getBottomRight() || b.getBottomRight(),
                       intersectBound(a.getWindowLeft(), b.getWindowLeft()),
                       intersectBound(a.getWindowRight(), b.getWindowRight()),
                       keyPadding, a.getKeep() || b.getKeep(),
                       a.getBias() || b.getBias(), alignsToTensor);
}

/// True for an elementwise float cast on tensors, which fusion drops: the
/// fused kernel keeps scores in f32 throughout.
bool isScoreCast(Operation *op) {
  return isa<arith::ExtFOp, arith::TruncFOp>(op) &&
         isa<RankedTensorType>(op->getResult(0).getType());
}

/// Strips scalings off a matmul operand, folding their factors.
Value stripScales(Value value, double &scale,
                  SmallVectorImpl<Operation *> &chainOps) {
  while (Operation *def = value.getDefiningOp()) {
    Value input;
    std::optional<double> factor = matchScaling(def, input);
    if (!factor)
      break;
    scale *= *factor;
    chainOps.push_back(def);
    value = input;
  }
  return value;
}

/// The logits of a sink column: attn.mask adding a per-head bias
/// [1, H, 1, 1] (f32) to a splat 0 constant of the column's shape, as a
/// graph broadcasts gpt-oss's sinks to [B, H, Sq, 1]. Adds the ops to
/// `chainOps`.
FailureOr<Value> matchSinkColumn(Value column, std::string &reason,
                                 SmallVectorImpl<Operation *> &chainOps) {
  auto mask = column.getDefiningOp<MaskOp>();
  MaskAttr bias = MaskAttr::get(column.getContext(), false, false, -1, -1,
                                false, false, /*bias=*/true);
  std::optional<double> zero =
      mask ? splatConstant(mask.getInput()) : std::nullopt;
  if (!mask || mask.getKind() != bias || !zero || *zero != 0.0) {
    reason = "the column concatenated to the scores is not a sink column "
             "(attn.mask adding a per-head bias to a splat 0)";
    return failure();
  }
  auto logits = cast<RankedTensorType>(mask.getBias().getType());
  auto shape = logits.getShape();
  if (shape[0] != 1 || shape[2] != 1 || shape[3] != 1 ||
      !logits.getElementType().isF32()) {
    reason = "the sink column's bias is not f32 logits per head "
             "([1, heads, 1, 1])";
    return failure();
  }
  if (!column.hasOneUse()) {
    reason = "the sink column has another user";
    return failure();
  }
  chainOps.push_back(mask.getInput().getDefiningOp());
  chainOps.push_back(mask);
  return mask.getBias();
}

FailureOr<AttentionChain> matchChain(SoftmaxOp softmax, std::string &reason) {
  AttentionChain chain;
  chain.mask = MaskAttr::get(softmax.getContext());
  RankedTensorType scoreType = softmax.getInput().getType();
  if (scoreType.getRank() != 4) {
    reason = "softmax input is not a rank-4 score tensor";
    return failure();
  }
  if (softmax.getNormalizedDim() != 3) {
    reason = "softmax is over dimension " +
             std::to_string(softmax.getNormalizedDim()) +
             ", not the key axis 3";
    return failure();
  }

  // Attention sinks: a per-head column concatenated to the scores along the
  // keys, sliced off the probabilities.
  Value score = softmax.getInput();
  SmallVector<Operation *> backwardOps;
  tensor::ExtractSliceOp sinkSlice;
  if (auto concat = score.getDefiningOp<tensor::ConcatOp>()) {
    if (concat.getDim() != 3 || concat.getInputs().size() != 2 ||
        cast<RankedTensorType>(concat.getInputs()[1].getType()).getDimSize(3) !=
            1) {
      reason = "the softmax input is a tensor.concat that is not the scores "
               "and one sink column along the keys";
      return failure();
    }
    FailureOr<Value> sinks =
        matchSinkColumn(concat.getInputs()[1], reason, chain.chainOps);
    if (failed(sinks))
      return failure();
    chain.sinks = *sinks;
    backwardOps.push_back(concat);
    score = concat.getInputs()[0];
  }

  // Forward: softmax (-> cast) (-> the slice that drops a sink column) ->
  // matmul with v.
  Operation *probs = softmax;
  SmallVector<Operation *> forwardOps;
  while (true) {
    if (!probs->getResult(0).hasOneUse()) {
      reason = "the attention probabilities have more than one user";
      return failure();
    }
    Operation *user = *probs->getResult(0).getUsers().begin();
    if (isScoreCast(user)) {
      forwardOps.push_back(user);
      probs = user;
      continue;
    }
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
        slice && chain.sinks && !sinkSlice) {
      // Exactly the scores' columns: every row, the keys before the sink.
      auto keys = cast<RankedTensorType>(score.getType()).getShape();
      auto sizes = slice.getStaticSizes();
      bool dropsSink = slice.getSourceType().getRank() == 4 &&
                       slice.getType().getRank() == 4 &&
                       llvm::all_of(slice.getStaticOffsets(),
                                    [](int64_t o) { return o == 0; }) &&
                       llvm::all_of(slice.getStaticStrides(),
                                    [](int64_t s) { return s == 1; }) &&
                       ArrayRef<int64_t>(sizes) == keys;
      if (!dropsSink) {
        reason = "the tensor.extract_slice of the probabilities is not the "
                 "scores' columns without the sink column";
        return failure();
      }
      sinkSlice = slice;
      forwardOps.push_back(user);
      probs = user;
      continue;
    }
    auto matmul = dyn_cast<MatmulOp>(user);
    if (!matmul || matmul.getLhs() != probs->getResult(0)) {
      reason = "the probabilities feed '" + user->getName().getStringRef().str() +
               "', not the lhs of an attn.matmul with v";
      return failure();
    }
    if (matmul.getTransposeLhs() || matmul.getTransposeRhs()) {
      reason = "the matmul with v transposes an operand";
      return failure();
    }
    chain.outputMatmul = matmul;
    break;
  }
  if (chain.sinks && !sinkSlice) {
    reason = "the sink column is not sliced off the probabilities before the "
             "matmul with v";
    return failure();
  }

  // Backward: walk the score chain from the softmax to q @ k^T. Ops met
  // earlier in this walk run later in the program.
  bool laterScale = false, laterNonPositiveScale = false;
  // Merges one mask (or bias) met on the way back into the chain's mask,
  // where the fused order (scale, score_mod, bias, masks) gives the same
  // result.
  auto absorbMask = [&](MaskAttr item, Value lengths, Value keep,
                        Value bias) -> LogicalResult {
    if (chain.scoreMod) {
      reason = "an attn.score_mod follows a mask or bias; the fused op "
               "applies score_mod first, and it could change masked scores";
      return failure();
    }
    bool masks = item.hasPositionalBound() || item.getKeyPadding() ||
                 item.getKeep();
    if (masks && laterNonPositiveScale) {
      reason = "a scale by a factor <= 0 follows a mask";
      return failure();
    }
    if (item.getBias() && laterScale) {
      reason = "a scale follows an additive bias (the fused op scales "
               "before adding bias)";
      return failure();
    }
    FailureOr<MaskAttr> merged = mergeMasks(chain.mask, item, reason);
    if (failed(merged))
      return failure();
    chain.mask = *merged;
    if (lengths)
      chain.lengths = lengths;
    if (keep)
      chain.keep = keep;
    if (bias)
      chain.bias = bias;
    return success();
  };
  while (true) {
    Operation *def = score.getDefiningOp();
    if (!def) {
      reason = "the scores come from a block argument, not an attn.matmul";
      return failure();
    }
    if (isScoreCast(def)) {
      backwardOps.push_back(def);
      score = def->getOperand(0);
      continue;
    }
    Value scaled;
    if (std::optional<double> factor = matchScaling(def, scaled)) {
      chain.scale *= *factor;
      laterScale = true;
      laterNonPositiveScale |= *factor <= 0.0;
      backwardOps.push_back(def);
      score = scaled;
      continue;
    }
    // `scores + bias` written as a tensor add (no broadcast: a full bias).
    if (auto add = dyn_cast<arith::AddFOp>(def);
        add && isa<RankedTensorType>(add.getType())) {
      // The scores are the operand that leads back to the q @ k^T matmul
      // through ops this walk takes, each by the operand the walk follows
      // (a select's true value, not its keep condition; either side of
      // another bias add); the other one is the bias. Where both do, the
      // lhs is taken.
      Value scores = add.getLhs(), bias = add.getRhs();
      auto reachesMatmul = [](Value start) {
        SmallVector<Value> worklist{start};
        llvm::SmallPtrSet<Operation *, 8> visited;
        while (!worklist.empty()) {
          Operation *d = worklist.pop_back_val().getDefiningOp();
          if (!d || !visited.insert(d).second)
            continue;
          if (isa<MatmulOp>(d))
            return true;
          Value scaled;
          if (isScoreCast(d))
            worklist.push_back(d->getOperand(0));
          else if (matchScaling(d, scaled))
            worklist.push_back(scaled);
          else if (auto a = dyn_cast<arith::AddFOp>(d);
                   a && isa<RankedTensorType>(a.getType()))
            worklist.append({a.getRhs(), a.getLhs()});
          else if (auto s = dyn_cast<arith::SelectOp>(d);
                   s && isa<RankedTensorType>(s.getType()))
            worklist.push_back(s.getTrueValue());
          else if (auto m = dyn_cast<MaskOp>(d))
            worklist.push_back(m.getInput());
          else if (auto sm = dyn_cast<ScoreModOp>(d))
            worklist.push_back(sm.getInput());
        }
        return false;
      };
      if (!reachesMatmul(scores))
        std::swap(scores, bias);
      MaskAttr item = MaskAttr::get(add.getContext(), false, false, -1, -1,
                                    false, false, /*bias=*/true);
      if (failed(absorbMask(item, Value(), Value(), bias)))
        return failure();
      backwardOps.push_back(def);
      score = scores;
      continue;
    }
    // masked_fill as exporters write it: select(keep, scores, -inf).
    if (auto select = dyn_cast<arith::SelectOp>(def);
        select && isa<RankedTensorType>(select.getType())) {
      std::optional<double> fill = splatConstant(select.getFalseValue());
      if (!fill || !std::isinf(*fill) || *fill > 0) {
        reason = "an arith.select on the scores fills with something other "
                 "than -inf";
        return failure();
      }
      // A scalar condition keeps all scores or none; the keep operand is a
      // tensor.
      if (!isa<RankedTensorType>(select.getCondition().getType())) {
        reason = "the arith.select on the scores has a scalar condition, not "
                 "a keep mask";
        return failure();
      }
      MaskAttr item = MaskAttr::get(select.getContext(), false, false, -1, -1,
                                    false, /*keep=*/true, false);
      if (failed(absorbMask(item, Value(), select.getCondition(), Value())))
        return failure();
      backwardOps.push_back(def);
      score = select.getTrueValue();
      continue;
    }
    if (auto mask = dyn_cast<MaskOp>(def)) {
      if (failed(absorbMask(mask.getKind(), mask.getLengths(), mask.getKeep(),
                            mask.getBias())))
        return failure();
      backwardOps.push_back(def);
      score = mask.getInput();
      continue;
    }
    if (auto scoreMod = dyn_cast<ScoreModOp>(def)) {
      if (chain.scoreMod) {
        reason = "the chain has more than one attn.score_mod";
        return failure();
      }
      if (laterScale) {
        reason = "an attn.scale follows the attn.score_mod (the fused op "
                 "scales first)";
        return failure();
      }
      if (!scoreMod.getInput().getType().getElementType().isF32()) {
        reason = "the attn.score_mod works on " +
                 std::to_string(scoreMod.getInput()
                                    .getType()
                                    .getElementType()
                                    .getIntOrFloatBitWidth()) +
                 "-bit scores; the fused op applies it to f32 scores";
        return failure();
      }
      chain.scoreMod = scoreMod;
      backwardOps.push_back(def);
      score = scoreMod.getInput();
      continue;
    }
    if (auto matmul = dyn_cast<MatmulOp>(def)) {
      if (matmul.getTransposeLhs()) {
        reason = "the q @ k^T matmul transposes q";
        return failure();
      }
      chain.scoreMatmul = matmul;
      break;
    }
    reason = "the score chain passes through '" +
             def->getName().getStringRef().str() + "', which cannot be fused";
    return failure();
  }

  // Every op between the two matmuls feeds only the next one; otherwise the
  // intermediate scores are needed and fusion would not remove them.
  for (Operation *op : backwardOps)
    if (!op->getResult(0).hasOneUse()) {
      reason = "the intermediate '" + op->getName().getStringRef().str() +
               "' result has another user";
      return failure();
    }
  if (!chain.scoreMatmul.getResult().hasOneUse()) {
    reason = "the q @ k^T scores have another user";
    return failure();
  }

  chain.q = stripScales(chain.scoreMatmul.getLhs(), chain.scale, chain.chainOps);
  chain.k = stripScales(chain.scoreMatmul.getRhs(), chain.scale, chain.chainOps);
  chain.transposeK = !chain.scoreMatmul.getTransposeRhs();
  chain.v = chain.outputMatmul.getRhs();

  auto qType = cast<RankedTensorType>(chain.q.getType());
  auto kType = cast<RankedTensorType>(chain.k.getType());
  auto vType = cast<RankedTensorType>(chain.v.getType());
  Type element = qType.getElementType();
  if (!element.isF16() && !element.isBF16()) {
    reason = "q, k and v are not f16 or bf16";
    return failure();
  }
  if (vType.getElementType() != element) {
    reason = "v's element type differs from q's";
    return failure();
  }
  if (vType.getDimSize(1) != kType.getDimSize(1)) {
    reason = "k and v have different head counts";
    return failure();
  }

  // The factors are folded in double; the fused op holds one finite f32.
  if (!std::isfinite(static_cast<float>(chain.scale))) {
    llvm::raw_string_ostream os(reason);
    os << "the folded scale factor " << llvm::format("%g", chain.scale)
       << " is not a finite f32";
    return failure();
  }

  chain.chainOps.push_back(chain.scoreMatmul);
  chain.chainOps.append(backwardOps.rbegin(), backwardOps.rend());
  chain.chainOps.push_back(softmax);
  chain.chainOps.append(forwardOps.begin(), forwardOps.end());
  return chain;
}

/// Builds the attn.flash for `chain` and replaces the p @ v matmul with it.
/// The matcher checks what it knows to check; anything it missed would make
/// the fused op fail to verify. Then the op is erased, nothing else has
/// changed, and `reason` says what the verifier found.
LogicalResult rewriteChain(AttentionChain &chain, IRRewriter &rewriter,
                           std::string &reason) {
  MatmulOp root = chain.outputMatmul;
  rewriter.setInsertionPoint(root);
  Location loc = rewriter.getFusedLoc(
      {chain.scoreMatmul.getLoc(), root.getLoc()});
  RankedTensorType rootType = root.getResult().getType();
  Type element = cast<RankedTensorType>(chain.q.getType()).getElementType();
  auto outputType = RankedTensorType::get(rootType.getShape(), element);

  auto flash = FlashOp::create(
      rewriter, loc, outputType, /*lse=*/Type(), chain.q, chain.k, chain.v,
      chain.lengths, chain.keep, chain.bias,
      chain.scoreMod ? chain.scoreMod.getCaptures() : ValueRange(),
      /*cu_seqlens_q=*/Value(), /*cu_seqlens_k=*/Value(), chain.sinks,
      /*block_table=*/Value(),
      llvm::APFloat(static_cast<float>(chain.scale)), chain.transposeK,
      chain.mask.isEmpty() ? MaskAttr() : chain.mask, ConfigAttr(),
      LaunchPlanAttr());
  if (chain.scoreMod) {
    IRMapping mapping;
    chain.scoreMod.getBody().cloneInto(&flash.getScoreMod(), mapping);
  }
  {
    std::string diagnostics;
    ScopedDiagnosticHandler capture(flash.getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        diagnostics += (diagnostics.empty() ? "" : "; ") + diag.str();
      return success();
    });
    if (failed(verify(flash))) {
      rewriter.eraseOp(flash);
      reason = "the fused op would not verify: " + diagnostics;
      return failure();
    }
  }

  Value result = flash.getOutput();
  if (rootType.getElementType() != element)
    result = arith::ExtFOp::create(rewriter, loc, rootType, result);
  rewriter.replaceOp(root, result);
  // Erase what fusion left dead; a scale on q may feed another user.
  bool erased = true;
  while (erased) {
    erased = false;
    for (Operation *&op : chain.chainOps)
      if (op && op->use_empty()) {
        rewriter.eraseOp(op);
        op = nullptr;
        erased = true;
      }
  }
  return success();
}

struct AttnFusePass : impl::AttnFusePassBase<AttnFusePass> {
  void runOnOperation() override {
    SmallVector<SoftmaxOp> softmaxes;
    getOperation()->walk([&](SoftmaxOp op) { softmaxes.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (SoftmaxOp softmax : softmaxes) {
      std::string reason;
      FailureOr<AttentionChain> chain = matchChain(softmax, reason);
      if (failed(chain) || failed(rewriteChain(*chain, rewriter, reason))) {
        softmax.emitRemark() << "attention chain not fused: " << reason;
        ++numUnfused;
        continue;
      }
      LLVM_DEBUG(llvm::dbgs() << "fused chain at " << softmax.getLoc() << "\n");
      ++numFused;
    }
  }
};

} // namespace
} // namespace mlir::attn
