//===- AttnOps.cpp - attn operations --------------------------------------===//

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Variants/KernelVariants.h"
#include "attn/Dialect/Attn/IR/ScoreModOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::attn;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Prints a shape as `2x16x?x64`.
static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      shape, os,
      [&](int64_t dim) {
        if (ShapedType::isDynamic(dim))
          os << "?";
        else
          os << dim;
      },
      "x");
  return text;
}

/// Two extents agree if either is dynamic or they are equal.
static bool extentsAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// The first dimension at which two shapes of one rank disagree, if any.
static std::optional<int64_t> firstDisagreement(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b) {
  for (auto [dim, pair] : llvm::enumerate(llvm::zip(a, b)))
    if (!extentsAgree(std::get<0>(pair), std::get<1>(pair)))
      return dim;
  return std::nullopt;
}

/// Two shapes agree if they have one rank and their extents agree.
static bool shapesAgree(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return a.size() == b.size() && !firstDisagreement(a, b);
}

/// Checks that a scale or factor attribute is finite.
static LogicalResult verifyFinite(Operation *op, StringRef name,
                                  const APFloat &value) {
  float number = value.convertToFloat();
  if (!std::isfinite(number))
    return op->emitOpError() << name << " must be finite, got " << number;
  return success();
}

/// Checks that attention sinks, if given, hold one logit per query head:
/// flat [Hq], or the [1, Hq, 1, 1] of a column broadcast over batch and
/// queries.
static LogicalResult verifySinks(Operation *op, Value sinks, int64_t qHeads) {
  if (!sinks)
    return success();
  auto type = cast<RankedTensorType>(sinks.getType());
  bool perHead =
      (type.getRank() == 1 && extentsAgree(type.getDimSize(0), qHeads)) ||
      (type.getRank() == 4 && type.getDimSize(0) == 1 &&
       extentsAgree(type.getDimSize(1), qHeads) && type.getDimSize(2) == 1 &&
       type.getDimSize(3) == 1);
  if (!perHead)
    return op->emitOpError()
           << "'sinks' must hold one logit per query head, shape " << qHeads
           << " or 1x" << qHeads << "x1x1, got "
           << shapeString(type.getShape());
  return success();
}

/// Checks that the input of a score op (attn.mask, attn.score_mod) is the
/// rank-4 scores.
static LogicalResult verifyScoreTensor(Operation *op, RankedTensorType input) {
  if (input.getRank() != 4)
    return op->emitOpError() << "input must be a rank-4 score tensor [batch, "
                                "heads, queries, keys], got rank "
                             << input.getRank();
  return success();
}

/// The kernels index with 32-bit integers (kernels-templates/attn/params.h),
/// and a zero extent would divide by zero in the verifiers and emitters:
/// every static extent must be between 1 and this.
constexpr int64_t kMaxExtent = std::numeric_limits<int32_t>::max();

/// Checks the static extents of `type` (a ranked tensor, else nothing to
/// check), naming the value `name` and its dimensions `dimNames` where given.
static LogicalResult verifyExtents(Operation *op, StringRef name, Type type,
                                   ArrayRef<StringRef> dimNames = {}) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  for (auto [dim, extent] : llvm::enumerate(tensor.getShape())) {
    if (ShapedType::isDynamic(extent) || (extent >= 1 && extent <= kMaxExtent))
      continue;
    InFlightDiagnostic diag = op->emitOpError()
                              << "'" << name << "' dimension " << dim;
    if (dim < dimNames.size())
      diag << " (" << dimNames[dim] << ")";
    diag << " is " << extent << "; extents must be between 1 and "
         << kMaxExtent;
    return diag;
  }
  return success();
}

/// verifyExtents over (name, value) pairs; null values (absent optional
/// operands) are skipped.
static LogicalResult
verifyExtents(Operation *op,
              std::initializer_list<std::pair<StringRef, Value>> values) {
  for (auto [name, value] : values)
    if (value && failed(verifyExtents(op, name, value.getType())))
      return failure();
  return success();
}

/// Checks that the operand `name` broadcasts to `target`: same rank, each
/// dimension equal to the target's or 1.
static LogicalResult verifyBroadcastsTo(Operation *op, StringRef name,
                                        RankedTensorType operand,
                                        ArrayRef<int64_t> target) {
  if (operand.getRank() != static_cast<int64_t>(target.size()))
    return op->emitOpError()
           << "'" << name << "' operand has rank " << operand.getRank()
           << " (shape " << shapeString(operand.getShape())
           << "), expected rank " << target.size() << " to broadcast to "
           << shapeString(target);
  for (auto [dim, pair] : llvm::enumerate(llvm::zip(operand.getShape(), target))) {
    auto [have, want] = pair;
    if (have != 1 && !extentsAgree(have, want))
      return op->emitOpError()
             << "'" << name << "' operand dimension " << dim << " is " << have
             << ", expected 1 or " << want << " to broadcast to "
             << shapeString(target);
  }
  return success();
}

/// Checks the operands that a mask's items call for: `lengths` with
/// key_padding, `keep` with keep, `bias` with bias, each against the score
/// shape `[B, H, Sq, Skv]`.
static LogicalResult verifyMaskOperands(Operation *op, MaskAttr mask,
                                        ArrayRef<int64_t> scoreShape,
                                        Value lengths, Value keep, Value bias) {
  auto checkPresence = [&](bool wanted, Value operand, StringRef item,
                           StringRef operandName) -> LogicalResult {
    if (wanted && !operand)
      return op->emitOpError() << "mask item '" << item << "' needs a '"
                               << operandName << "' operand";
    if (!wanted && operand)
      return op->emitOpError() << "has a '" << operandName
                               << "' operand but the mask has no '" << item
                               << "' item";
    return success();
  };
  if (failed(checkPresence(mask.getKeyPadding(), lengths, "key_padding",
                           "lengths")) ||
      failed(checkPresence(mask.getKeep(), keep, "keep", "keep")) ||
      failed(checkPresence(mask.getBias(), bias, "bias", "bias")))
    return failure();

  if (lengths) {
    auto type = cast<RankedTensorType>(lengths.getType());
    if (type.getRank() != 1 || !extentsAgree(type.getDimSize(0), scoreShape[0]))
      return op->emitOpError()
             << "'lengths' operand must be tensor<" << scoreShape[0]
             << "xi32> (one length per batch), got "
             << shapeString(type.getShape());
  }
  if (keep && failed(verifyBroadcastsTo(
                  op, "keep", cast<RankedTensorType>(keep.getType()),
                  scoreShape)))
    return failure();
  if (bias && failed(verifyBroadcastsTo(
                  op, "bias", cast<RankedTensorType>(bias.getType()),
                  scoreShape)))
    return failure();
  return success();
}

/// Checks the tensors a score_mod reads: how many, their shapes and
/// element types.
static LogicalResult verifyCaptures(Operation *op, ValueRange captures) {
  if (captures.size() > kMaxScoreModCaptures)
    return op->emitOpError() << "has " << captures.size()
                             << " score_mod captures; at most "
                             << kMaxScoreModCaptures;
  for (auto [i, capture] : llvm::enumerate(captures)) {
    auto type = cast<RankedTensorType>(capture.getType());
    if (!type.hasStaticShape() || type.getRank() > kMaxScoreModCaptureRank)
      return op->emitOpError()
             << "score_mod capture " << i
             << " must have a static shape of rank 0 to "
             << kMaxScoreModCaptureRank << ", got " << type;
    if (!isScoreModCaptureElementType(type.getElementType()))
      return op->emitOpError() << "score_mod capture " << i
                               << " has element type " << type.getElementType()
                               << "; captures hold f32, f16, bf16, i1, i32 "
                                  "or i64";
    // Clamped reads need an element; flat offsets must fit in 64 bits.
    int64_t elements = 1;
    for (int64_t extent : type.getShape()) {
      if (extent == 0)
        return op->emitOpError() << "score_mod capture " << i
                                 << " is empty (shape "
                                 << shapeString(type.getShape()) << ")";
      if (elements > (int64_t(1) << 40) / extent)
        return op->emitOpError() << "score_mod capture " << i
                                 << " has more than 2^40 elements";
      elements *= extent;
    }
  }
  return success();
}

/// Checks a score_mod body: arguments (score, b, h, q_idx, kv_idx, then one
/// per capture, of its type) and an attn.yield of one score. The ops inside
/// are checked by verifyScoreModOps once they have been verified.
static LogicalResult verifyScoreModBody(Operation *op, Region &body,
                                        Type scoreType, ValueRange captures) {
  Block &block = body.front();
  // An empty block has no terminator to ask for.
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return op->emitOpError() << "score_mod region must end in attn.yield";
  unsigned expected = 5 + captures.size();
  if (block.getNumArguments() != expected) {
    auto diag = op->emitOpError()
                << "score_mod region needs " << expected
                << " arguments (score, b, h, q_idx, kv_idx";
    if (!captures.empty())
      diag << ", then one per capture";
    return diag << "), got " << block.getNumArguments();
  }
  if (block.getArgument(0).getType() != scoreType)
    return op->emitOpError() << "score_mod argument 0 (the score) must be "
                             << scoreType << ", got "
                             << block.getArgument(0).getType();
  for (unsigned i = 1; i < 5; ++i)
    if (!block.getArgument(i).getType().isIndex())
      return op->emitOpError() << "score_mod argument " << i
                               << " must be index, got "
                               << block.getArgument(i).getType();
  for (auto [i, capture] : llvm::enumerate(captures))
    if (block.getArgument(5 + i).getType() != capture.getType())
      return op->emitOpError()
             << "score_mod argument " << 5 + i << " must be "
             << capture.getType() << " (the type of capture " << i
             << "), got " << block.getArgument(5 + i).getType();
  if (yield.getValues().size() != 1 ||
      yield.getValues().front().getType() != scoreType)
    return op->emitOpError()
           << "score_mod region must yield one " << scoreType << " value";
  return success();
}

/// Checks a score_mod region (empty where the op has none) with its
/// captures: no captures without a region.
static LogicalResult verifyScoreMod(Operation *op, Region &body, Type scoreType,
                                    ValueRange captures) {
  if (body.empty()) {
    if (!captures.empty())
      return op->emitOpError()
             << "has score_mod captures but no score_mod region";
    return success();
  }
  if (failed(verifyCaptures(op, captures)))
    return failure();
  return verifyScoreModBody(op, body, scoreType, captures);
}

//===----------------------------------------------------------------------===//
// Shared checks of attention operands (attn.flash, attn.flash_bwd)
//===----------------------------------------------------------------------===//

/// The mask attribute, or the empty mask where there is none.
static MaskAttr maskOrEmpty(MaskAttr mask, MLIRContext *context) {
  return mask ? mask : MaskAttr::get(context);
}

/// Checks the ranks of q, k, v and the output: 4 [batch, heads, seq,
/// head_dim], or with cu_seqlens (`varlen`) 3 [tokens, heads, head_dim].
static LogicalResult verifyAttentionRanks(
    Operation *op, bool varlen,
    std::initializer_list<std::pair<StringRef, RankedTensorType>> types) {
  const int64_t rank = varlen ? 3 : 4;
  for (auto [name, type] : types)
    if (type.getRank() != rank)
      return op->emitOpError()
             << "'" << name << "' must be "
             << (varlen ? "rank 3 [tokens, heads, head_dim] with cu_seqlens"
                        : "rank 4 [batch, heads, seq, head_dim]")
             << ", got shape " << shapeString(type.getShape());
  return success();
}

/// verifyExtents of q, k, v and the output, naming their dimensions: k's
/// are [batch, heads, head_dim, seq] with transpose_k.
static LogicalResult verifyAttentionExtents(
    Operation *op, bool varlen, bool transposeK,
    std::initializer_list<std::pair<StringRef, Value>> values) {
  static const StringRef bhsd[] = {"batch", "heads", "seq", "head_dim"};
  static const StringRef bhds[] = {"batch", "heads", "head_dim", "seq"};
  static const StringRef thd[] = {"tokens", "heads", "head_dim"};
  for (auto [name, value] : values)
    if (failed(verifyExtents(op, name, value.getType(),
                             varlen ? ArrayRef<StringRef>(thd)
                             : name == "k" && transposeK
                                 ? ArrayRef<StringRef>(bhds)
                                 : ArrayRef<StringRef>(bhsd))))
      return failure();
  return success();
}

/// "<what> mismatch: '<a>' has <av> but '<b>' has <bv>".
static InFlightDiagnostic emitMismatch(Operation *op, StringRef what,
                                       StringRef a, int64_t av, StringRef b,
                                       int64_t bv) {
  return op->emitOpError() << what << " mismatch: '" << a << "' has " << av
                           << " but '" << b << "' has " << bv;
}

/// Checks that dimension `aDim` of `a` agrees with dimension `bDim` of `b`.
static LogicalResult verifyDimsAgree(Operation *op, StringRef what, StringRef a,
                                     RankedTensorType aType, int64_t aDim,
                                     StringRef b, RankedTensorType bType,
                                     int64_t bDim) {
  if (!extentsAgree(aType.getDimSize(aDim), bType.getDimSize(bDim)))
    return op->emitOpError()
           << what << " mismatch: '" << a << "' dimension " << aDim << " has "
           << aType.getDimSize(aDim) << " but '" << b << "' dimension " << bDim
           << " has " << bType.getDimSize(bDim);
  return success();
}

/// Checks the heads (dimension 1) of q and k, static and k's dividing q's
/// (GQA/MQA), and that the head dims of q and v are static.
static LogicalResult verifyHeads(Operation *op, RankedTensorType q,
                                 RankedTensorType k, RankedTensorType v,
                                 int64_t headDimDim) {
  int64_t qHeads = q.getDimSize(1), kvHeads = k.getDimSize(1);
  if (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads))
    return op->emitOpError() << "heads (dimension 1) of q and k must be static";
  if (qHeads % kvHeads != 0)
    return op->emitOpError()
           << "kv heads " << kvHeads << " must divide q heads " << qHeads
           << " (GQA/MQA)";
  for (auto [name, type] :
       {std::pair<StringRef, RankedTensorType>{"q", q}, {"v", v}})
    if (ShapedType::isDynamic(type.getDimSize(headDimDim)))
      return op->emitOpError() << "head dim (dimension " << headDimDim
                               << ") of '" << name << "' must be static";
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  if (failed(verifyExtents(*this, {{"lhs", getLhs()},
                                   {"rhs", getRhs()},
                                   {"result", getResult()}})))
    return failure();
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType();
  RankedTensorType result = getResult().getType();
  int64_t rank = lhs.getRank();
  if (rank < 2)
    return emitOpError() << "lhs must have rank >= 2, got rank " << rank;
  if (rhs.getRank() != rank)
    return emitOpError() << "lhs has rank " << rank << " but rhs has rank "
                         << rhs.getRank();
  if (result.getRank() != rank)
    return emitOpError() << "result has rank " << result.getRank()
                         << ", expected " << rank;
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError() << "lhs element type " << lhs.getElementType()
                         << " differs from rhs element type "
                         << rhs.getElementType();
  Type resultElement = result.getElementType();
  if (!resultElement.isF32() && resultElement != lhs.getElementType())
    return emitOpError() << "result element type must be f32 or "
                         << lhs.getElementType() << ", got " << resultElement;

  int64_t lhsRows = getTransposeLhs() ? rank - 1 : rank - 2;
  int64_t lhsCols = getTransposeLhs() ? rank - 2 : rank - 1;
  int64_t rhsRows = getTransposeRhs() ? rank - 1 : rank - 2;
  int64_t rhsCols = getTransposeRhs() ? rank - 2 : rank - 1;
  if (!extentsAgree(lhs.getDimSize(lhsCols), rhs.getDimSize(rhsRows)))
    return emitOpError() << "contraction mismatch: lhs dimension " << lhsCols
                         << " is " << lhs.getDimSize(lhsCols)
                         << " but rhs dimension " << rhsRows << " is "
                         << rhs.getDimSize(rhsRows);

  for (int64_t dim = 0; dim < rank - 2; ++dim) {
    int64_t l = lhs.getDimSize(dim), r = rhs.getDimSize(dim);
    if (extentsAgree(l, r))
      continue;
    bool headsDim = dim == rank - 3;
    if (headsDim && !ShapedType::isDynamic(l) && !ShapedType::isDynamic(r) &&
        l % r == 0)
      continue;
    if (headsDim)
      return emitOpError() << "rhs heads (dimension " << dim << ") is " << r
                           << ", which must divide lhs heads " << l;
    return emitOpError() << "batch dimension " << dim << " differs: lhs has "
                         << l << ", rhs has " << r;
  }

  SmallVector<int64_t> expected(lhs.getShape().take_front(rank - 2));
  expected.push_back(lhs.getDimSize(lhsRows));
  expected.push_back(rhs.getDimSize(rhsCols));
  if (std::optional<int64_t> dim =
          firstDisagreement(result.getShape(), expected))
    return emitOpError() << "result shape " << shapeString(result.getShape())
                         << " does not match the expected "
                         << shapeString(expected) << " at dimension " << *dim;
  return success();
}

//===----------------------------------------------------------------------===//
// ScaleOp
//===----------------------------------------------------------------------===//

LogicalResult ScaleOp::verify() {
  if (failed(verifyExtents(*this, {{"input", getInput()}})))
    return failure();
  return verifyFinite(*this, "factor", getFactor());
}

//===----------------------------------------------------------------------===//
// MaskOp
//===----------------------------------------------------------------------===//

LogicalResult MaskOp::verify() {
  if (failed(verifyExtents(*this, {{"input", getInput()},
                                   {"lengths", getLengths()},
                                   {"keep", getKeep()},
                                   {"bias", getBias()}})))
    return failure();
  RankedTensorType input = getInput().getType();
  if (failed(verifyScoreTensor(*this, input)))
    return failure();
  if (getKind().isEmpty())
    return emitOpError() << "kind #attn.mask<> names no mask";
  return verifyMaskOperands(*this, getKind(), input.getShape(), getLengths(),
                            getKeep(), getBias());
}

//===----------------------------------------------------------------------===//
// ScoreModOp
//===----------------------------------------------------------------------===//

LogicalResult ScoreModOp::verify() {
  if (failed(verifyExtents(*this, {{"input", getInput()}})))
    return failure();
  RankedTensorType input = getInput().getType();
  if (failed(verifyScoreTensor(*this, input)))
    return failure();
  return verifyScoreMod(*this, getBody(), input.getElementType(),
                        getCaptures());
}

LogicalResult ScoreModOp::verifyRegions() {
  return verifyScoreModOps(getBody());
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  if (failed(verifyExtents(*this, {{"input", getInput()},
                                   {"result", getResult()}})))
    return failure();
  RankedTensorType input = getInput().getType();
  int64_t dim = getDim(), rank = input.getRank();
  if (dim < -rank || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << rank << " (expected " << -rank << " to "
                         << rank - 1 << ")";
  if (getResult().getType().getShape() != input.getShape())
    return emitOpError() << "result shape "
                         << shapeString(getResult().getType().getShape())
                         << " differs from input shape "
                         << shapeString(input.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// FlashOp
//===----------------------------------------------------------------------===//

MaskAttr FlashOp::getMaskOrEmpty() {
  return maskOrEmpty(getMaskAttr(), getContext());
}

::attn::OperandShape FlashOp::getOperandShape() {
  MaskAttr mask = getMaskOrEmpty();
  bool maskOperands = mask.getBias() || mask.getKeep();
  ::attn::OperandShape shape;
  shape.headDimQK = getHeadDimQK();
  shape.headDimV = getHeadDimV();
  shape.transposeK = getTransposeK();
  shape.elementwise = maskOperands || hasScoreMod();
  shape.maskOperands = maskOperands;
  shape.varlen = isVarlen();
  shape.paged = isPaged();
  if (shape.paged && !getK().getType().isDynamicDim(2))
    shape.pageSize = getK().getType().getDimSize(2);
  return shape;
}

::attn::OperandShape FlashBwdOp::getOperandShape() {
  MaskAttr mask = getMaskOrEmpty();
  bool maskOperands = mask.getBias() || mask.getKeep();
  const int64_t headDimDim = isVarlen() ? 2 : 3;
  ::attn::OperandShape shape;
  shape.headDimQK = getQ().getType().getDimSize(headDimDim);
  shape.headDimV = getV().getType().getDimSize(headDimDim);
  shape.transposeK = getTransposeK();
  shape.elementwise = maskOperands || hasScoreMod();
  shape.maskOperands = maskOperands;
  shape.varlen = isVarlen();
  return shape;
}

int64_t FlashOp::getKeysPerSequence() {
  RankedTensorType k = getK().getType();
  if (!isPaged())
    return k.getDimSize(getTransposeK() ? 3 : getSeqDim());
  int64_t pages = getBlockTable().getType().getDimSize(1),
          pageSize = k.getDimSize(2);
  if (ShapedType::isDynamic(pages) || ShapedType::isDynamic(pageSize))
    return ShapedType::kDynamic;
  return pages * pageSize;
}

/// Checks the offsets of a ragged batch: both given, rank 1, batch + 1
/// entries each (the batch may be dynamic), the same batch.
static LogicalResult verifyCuSeqlens(Operation *op, Value cuSeqlensQ,
                                     Value cuSeqlensK) {
  if (static_cast<bool>(cuSeqlensQ) != static_cast<bool>(cuSeqlensK))
    return op->emitOpError()
           << "'cu_seqlens_q' and 'cu_seqlens_k' go together: a ragged batch "
              "needs the offsets of its queries and of its keys";
  if (!cuSeqlensQ)
    return success();
  int64_t entries[2];
  const std::pair<StringRef, Value> offsets[] = {{"cu_seqlens_q", cuSeqlensQ},
                                                 {"cu_seqlens_k", cuSeqlensK}};
  for (auto [i, pair] : llvm::enumerate(offsets)) {
    auto [name, value] = pair;
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() != 1)
      return op->emitOpError()
             << "'" << name
             << "' must be a rank-1 tensor of batch + 1 offsets, got shape "
             << shapeString(type.getShape());
    if (!type.isDynamicDim(0) && type.getDimSize(0) < 2)
      return op->emitOpError()
             << "'" << name << "' has " << type.getDimSize(0)
             << " entry; a batch of at least one sequence needs 2 (batch + "
                "1 offsets)";
    entries[i] = type.getDimSize(0);
  }
  if (!extentsAgree(entries[0], entries[1]))
    return op->emitOpError()
           << "'cu_seqlens_q' has " << entries[0] << " entries but "
           << "'cu_seqlens_k' has " << entries[1]
           << "; both hold batch + 1 offsets of one batch";
  return success();
}

/// Mask operands are laid out per (batch, query, key) of a dense batch: a
/// ragged batch takes none.
static LogicalResult verifyRaggedMask(Operation *op, MaskAttr mask) {
  for (auto [item, present] :
       {std::pair<StringRef, bool>{"key_padding", mask.getKeyPadding()},
        {"keep", mask.getKeep()},
        {"bias", mask.getBias()}})
    if (present)
      return op->emitOpError()
             << "mask item '" << item
             << "' is not supported with cu_seqlens (its operand is laid "
                "out for a dense batch; a score_mod with captures can "
                "index by sequence and position)";
  return success();
}

/// The scores' shape [B, Hq, Sq, Skv] that mask operands broadcast to; a
/// ragged batch's sequences have their own lengths.
static SmallVector<int64_t> scoreShapeOf(bool varlen, RankedTensorType q,
                                         int64_t keys) {
  if (varlen)
    return {ShapedType::kDynamic, q.getDimSize(1), ShapedType::kDynamic,
            ShapedType::kDynamic};
  return {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), keys};
}

/// A launch plan narrows configs the op has: the config itself and the
/// plan's long-keys and cp.async configs, each to fewer keys per tile that
/// its variant accepts.
static LogicalResult verifyLaunchPlan(FlashOp op) {
  LaunchPlanAttr plan = op.getPlanAttr();
  if (!plan)
    return success();
  if (!op.getConfig())
    return op.emitOpError() << "has a launch plan but no config";
  for (auto [name, config, blockNs] :
       {std::tuple<StringRef, ConfigAttr, DenseI64ArrayAttr>{
            "spill_block_n", op.getConfigAttr(), plan.getSpillBlockN()},
        {"long_keys_spill_block_n", plan.getLongKeys(),
         plan.getLongKeysSpillBlockN()},
        {"cp_async_spill_block_n", plan.getCpAsync(),
         plan.getCpAsyncSpillBlockN()}}) {
    if (!blockNs)
      continue;
    for (int64_t blockN : blockNs.asArrayRef()) {
      if (blockN >= config.getBlockN())
        return op.emitOpError()
               << "launch plan's " << name << " lists " << blockN
               << " keys per tile, not fewer than its config's "
               << config.getBlockN();
      // A copy: C++17 lambdas cannot capture structured bindings (clang).
      StringRef listName = name;
      auto narrowed = ConfigAttr::getChecked(
          [&] {
            return op.emitOpError() << "launch plan's " << listName
                                    << " entry " << blockN << ": ";
          },
          op.getContext(), config.getVariant(), config.getBlockM(), blockN,
          config.getNumWarps(), config.getStages());
      if (!narrowed)
        return failure();
    }
  }
  return success();
}

LogicalResult FlashOp::verify() {
  if (failed(verifyCuSeqlens(*this, getCuSeqlensQ(), getCuSeqlensK())))
    return failure();
  const bool varlen = isVarlen(), paged = isPaged();
  if (paged && varlen)
    return emitOpError() << "'block_table' is not supported with cu_seqlens "
                            "(a ragged batch's keys are packed, not paged)";
  if (paged && getTransposeK())
    return emitOpError() << "transpose_k is not supported with "
                            "'block_table' (pages hold rows of keys)";
  RankedTensorType q = getQ().getType(), k = getK().getType(),
                   v = getV().getType();
  RankedTensorType out = getOutput().getType();
  if (failed(verifyAttentionRanks(
          *this, varlen, {{"q", q}, {"k", k}, {"v", v}, {"output", out}})))
    return failure();
  if (varlen && getTransposeK())
    return emitOpError() << "transpose_k is not supported with cu_seqlens "
                            "(packed k is [tokens, heads, head_dim])";
  if (failed(verifyAttentionExtents(*this, varlen, getTransposeK(),
                                    {{"q", getQ()},
                                     {"k", getK()},
                                     {"v", getV()},
                                     {"output", getOutput()}})))
    return failure();
  if (failed(verifyExtents(*this, {{"lengths", getLengths()},
                                   {"keep", getKeep()},
                                   {"bias", getBias()},
                                   {"sinks", getSinks()},
                                   {"block_table", getBlockTable()},
                                   {"lse", getLse()}})))
    return failure();
  if (k.getElementType() != q.getElementType() ||
      v.getElementType() != q.getElementType())
    return emitOpError() << "q, k and v must share an element type, got "
                         << q.getElementType() << ", " << k.getElementType()
                         << ", " << v.getElementType();
  if (out.getElementType() != q.getElementType())
    return emitOpError() << "output element type " << out.getElementType()
                         << " differs from q's " << q.getElementType();

  // Sequences of a ragged batch are found by offset: the packed token
  // counts of q and k are independent; a paged cache's first dimension
  // counts pages.
  if (!varlen && !paged && !extentsAgree(q.getDimSize(0), k.getDimSize(0)))
    return emitMismatch(*this, "batch (dimension 0)", "q", q.getDimSize(0), "k",
                        k.getDimSize(0));
  if (!varlen && !extentsAgree(k.getDimSize(0), v.getDimSize(0)))
    return emitMismatch(*this, "batch (dimension 0)", "k", k.getDimSize(0), "v",
                        v.getDimSize(0));
  if (!extentsAgree(k.getDimSize(1), v.getDimSize(1)))
    return emitMismatch(*this, "heads (dimension 1)", "k", k.getDimSize(1), "v",
                        v.getDimSize(1));
  // With transpose_k, k is [B, Hkv, Dqk, Skv].
  const int64_t seqDim = getSeqDim(), headDimDim = getHeadDimDim();
  int64_t kSeqDim = getTransposeK() ? 3 : seqDim,
          kHeadDim = getTransposeK() ? 2 : headDimDim;
  if (failed(verifyDimsAgree(*this, paged ? "page size" : "key sequence", "k",
                             k, kSeqDim, "v", v, seqDim)))
    return failure();
  if (paged) {
    auto table = getBlockTable().getType();
    if (table.getRank() != 2)
      return emitOpError() << "'block_table' must be [batch, pages per "
                              "sequence], got shape "
                           << shapeString(table.getShape());
    if (!extentsAgree(table.getDimSize(0), q.getDimSize(0)))
      return emitMismatch(*this, "batch", "block_table", table.getDimSize(0),
                          "q", q.getDimSize(0));
    if (!getMaskOrEmpty().getKeyPadding())
      return emitOpError()
             << "'block_table' needs the mask item key_padding with "
                "'lengths' (each sequence's keys in the cache, flash_attn's "
                "cache_seqlens)";
  }
  int64_t kvSeq = getKeysPerSequence();
  if (failed(verifyDimsAgree(*this, "head dim", "q", q, headDimDim, "k", k,
                             kHeadDim)) ||
      failed(verifyHeads(*this, q, k, v, headDimDim)))
    return failure();
  int64_t qHeads = q.getDimSize(1);

  SmallVector<int64_t> expected =
      varlen ? SmallVector<int64_t>{q.getDimSize(0), qHeads,
                                    v.getDimSize(headDimDim)}
             : SmallVector<int64_t>{q.getDimSize(0), qHeads, q.getDimSize(2),
                                    v.getDimSize(3)};
  if (std::optional<int64_t> dim = firstDisagreement(out.getShape(), expected))
    return emitOpError() << "output shape " << shapeString(out.getShape())
                         << " does not match the expected "
                         << shapeString(expected) << " at dimension " << *dim;

  if (Value lse = getLse()) {
    auto type = cast<RankedTensorType>(lse.getType());
    // Ragged: [Hq, Tq], flash_attn's layout of the packed rows.
    SmallVector<int64_t> lseShape =
        varlen ? SmallVector<int64_t>{qHeads, q.getDimSize(0)}
               : SmallVector<int64_t>{q.getDimSize(0), qHeads,
                                      q.getDimSize(2)};
    if (!shapesAgree(type.getShape(), lseShape))
      return emitOpError() << "'lse' result must have shape "
                           << shapeString(lseShape) << ", got "
                           << shapeString(type.getShape());
  }

  if (ConfigAttr config = getConfigAttr()) {
    // The config verifier ensures the variant exists.
    const ::attn::KernelVariant *variant =
        ::attn::findKernelVariant(config.getVariant());
    std::string why = variant->checkOperands(getOperandShape());
    if (!why.empty())
      return emitOpError() << "variant " << config.getVariant() << " needs "
                           << why;
  }

  if (failed(verifyFinite(*this, "scale", getScale())))
    return failure();

  if (failed(verifySinks(*this, getSinks(), qHeads)))
    return failure();

  MaskAttr mask = getMaskOrEmpty();
  if (varlen && failed(verifyRaggedMask(*this, mask)))
    return failure();
  SmallVector<int64_t> scoreShape = scoreShapeOf(varlen, q, kvSeq);
  if (failed(verifyMaskOperands(*this, mask, scoreShape, getLengths(),
                                getKeep(), getBias())) ||
      failed(verifyLaunchPlan(*this)))
    return failure();

  return verifyScoreMod(*this, getScoreMod(), Float32Type::get(getContext()),
                        getCaptures());
}

LogicalResult FlashOp::verifyRegions() {
  return verifyScoreModOps(getScoreMod());
}

namespace {
/// One query aligned to the bottom-right has the last key as its diagonal:
/// a causal mask keeps every key, and dropping it lets one-token decode
/// pack the query heads of a K/V head into one block's rows.
struct DropCausalOfOneQuery : OpRewritePattern<FlashOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FlashOp op,
                                PatternRewriter &rewriter) const override {
    MaskAttr mask = op.getMaskAttr();
    if (op.isVarlen() || !mask || !mask.getCausal() || !mask.getBottomRight() ||
        op.getQ().getType().getDimSize(op.getSeqDim()) != 1)
      return failure();
    // bottom_right stays where a window still aligns to it.
    MaskAttr rest = MaskAttr::get(
        op.getContext(), /*causal=*/false, mask.hasWindow(),
        mask.getWindowLeft(), mask.getWindowRight(), mask.getKeyPadding(),
        mask.getKeep(), mask.getBias(),
        mask.hasWindow() && mask.getAlignsToTensor());
    rewriter.modifyOpInPlace(
        op, [&] { op.setMaskAttr(rest.isEmpty() ? MaskAttr() : rest); });
    return success();
  }
};
} // namespace

void FlashOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<DropCausalOfOneQuery>(context);
}

//===----------------------------------------------------------------------===//
// FlashBwdOp
//===----------------------------------------------------------------------===//

MaskAttr FlashBwdOp::getMaskOrEmpty() {
  return maskOrEmpty(getMaskAttr(), getContext());
}

LogicalResult FlashBwdOp::verify() {
  if (failed(verifyCuSeqlens(*this, getCuSeqlensQ(), getCuSeqlensK())))
    return failure();
  const bool varlen = isVarlen();
  RankedTensorType q = getQ().getType(), k = getK().getType(),
                   v = getV().getType(), o = getO().getType();
  if (varlen && getTransposeK())
    return emitOpError() << "transpose_k is not supported with cu_seqlens "
                            "(packed k is [tokens, heads, head_dim])";
  if (failed(verifyAttentionRanks(*this, varlen,
                                  {{"q", q}, {"k", k}, {"v", v}, {"o", o}})) ||
      failed(verifyAttentionExtents(*this, varlen, getTransposeK(),
                                    {{"q", getQ()},
                                     {"k", getK()},
                                     {"v", getV()},
                                     {"o", getO()},
                                     {"grad_output", getGradOutput()}})))
    return failure();
  if (failed(verifyExtents(*this, {{"lse", getLse()},
                                   {"lengths", getLengths()},
                                   {"keep", getKeep()},
                                   {"bias", getBias()}})))
    return failure();
  if (k.getElementType() != q.getElementType() ||
      v.getElementType() != q.getElementType() ||
      o.getElementType() != q.getElementType())
    return emitOpError() << "q, k, v and o must share an element type, got "
                         << q.getElementType() << ", " << k.getElementType()
                         << ", " << v.getElementType() << ", "
                         << o.getElementType();
  if (getGradOutput().getType() != o)
    return emitOpError() << "'grad_output' has type "
                         << getGradOutput().getType()
                         << ", expected the type of 'o', " << o;

  // With transpose_k, k is [B, Hkv, Dqk, Skv]; packed, [T, H, D].
  const int64_t seqDim = varlen ? 0 : 2, headDimDim = varlen ? 2 : 3;
  int64_t kSeqDim = getTransposeK() ? 3 : seqDim,
          kHeadDim = getTransposeK() ? 2 : headDimDim;
  int64_t kvSeq = k.getDimSize(kSeqDim);
  // A ragged batch's sequences are found by offset: q's and k's token
  // counts are independent.
  if (!varlen && !extentsAgree(q.getDimSize(0), k.getDimSize(0)))
    return emitMismatch(*this, "batch (dimension 0)", "q", q.getDimSize(0),
                        "k", k.getDimSize(0));
  if (!varlen && !extentsAgree(k.getDimSize(0), v.getDimSize(0)))
    return emitMismatch(*this, "batch (dimension 0)", "k", k.getDimSize(0),
                        "v", v.getDimSize(0));
  if (!extentsAgree(k.getDimSize(1), v.getDimSize(1)))
    return emitMismatch(*this, "heads (dimension 1)", "k", k.getDimSize(1),
                        "v", v.getDimSize(1));
  if (failed(verifyDimsAgree(*this, "key sequence", "k", k, kSeqDim, "v", v,
                             seqDim)) ||
      failed(verifyDimsAgree(*this, "head dim", "q", q, headDimDim, "k", k,
                             kHeadDim)) ||
      failed(verifyHeads(*this, q, k, v, headDimDim)))
    return failure();
  int64_t qHeads = q.getDimSize(1);

  SmallVector<int64_t> oShape =
      varlen ? SmallVector<int64_t>{q.getDimSize(0), qHeads, v.getDimSize(2)}
             : SmallVector<int64_t>{q.getDimSize(0), qHeads, q.getDimSize(2),
                                    v.getDimSize(3)};
  if (std::optional<int64_t> dim = firstDisagreement(o.getShape(), oShape))
    return emitOpError() << "'o' shape " << shapeString(o.getShape())
                         << " does not match the forward's output shape "
                         << shapeString(oShape) << " at dimension " << *dim;
  RankedTensorType lse = getLse().getType();
  // Ragged: [Hq, Tq], as the forward writes it.
  SmallVector<int64_t> lseShape =
      varlen ? SmallVector<int64_t>{qHeads, q.getDimSize(0)}
             : SmallVector<int64_t>{q.getDimSize(0), qHeads, q.getDimSize(2)};
  if (!shapesAgree(lse.getShape(), lseShape))
    return emitOpError() << "'lse' must have shape " << shapeString(lseShape)
                         << ", got " << shapeString(lse.getShape());

  // Each gradient has the type of what it differentiates.
  for (auto [name, grad, input] :
       {std::tuple<StringRef, Type, Type>{"grad_q", getGradQ().getType(), q},
        {"grad_k", getGradK().getType(), k},
        {"grad_v", getGradV().getType(), v}})
    if (grad != input)
      return emitOpError() << "'" << name << "' has type " << grad
                           << ", expected " << input;
  if (Value gradBias = getGradBias()) {
    if (!getBias())
      return emitOpError() << "has a 'grad_bias' result but no 'bias' operand";
    if (gradBias.getType() != getBias().getType())
      return emitOpError() << "'grad_bias' has type " << gradBias.getType()
                           << ", expected the type of 'bias', "
                           << getBias().getType();
  }
  if (failed(verifySinks(*this, getSinks(), qHeads)))
    return failure();
  if (static_cast<bool>(getSinks()) != static_cast<bool>(getGradSinks()))
    return emitOpError() << (getSinks() ? "has a 'sinks' operand but no "
                                          "'grad_sinks' result"
                                        : "has a 'grad_sinks' result but no "
                                          "'sinks' operand");
  if (getGradSinks() && getGradSinks().getType() != getSinks().getType())
    return emitOpError() << "'grad_sinks' has type "
                         << getGradSinks().getType()
                         << ", expected the type of 'sinks', "
                         << getSinks().getType();

  // The config, and the one the plan runs where its kernels spill.
  auto verifyConfig = [&](BackwardConfigAttr config,
                          StringRef role) -> LogicalResult {
    // The config verifier ensures the variant exists.
    const ::attn::BackwardKernelVariant *variant =
        ::attn::findBackwardKernelVariant(config.getVariant());
    ::attn::OperandShape shape = getOperandShape();
    std::string why = variant->checkOperands(shape);
    if (!why.empty())
      return emitOpError() << role << "backward variant " << config.getVariant()
                           << " needs " << why;
    why = variant->checkTilesFor({config.getBlockM(), config.getBlockN(),
                                  config.getNumWarps(), config.getStages()},
                                 shape);
    if (!why.empty())
      return emitOpError() << role << why;
    return success();
  };
  if (BackwardConfigAttr config = getConfigAttr())
    if (failed(verifyConfig(config, "")))
      return failure();
  if (BackwardPlanAttr plan = getPlanAttr()) {
    if (!getConfig())
      return emitOpError() << "has a backward plan but no config";
    if (plan.getSpill() &&
        failed(verifyConfig(plan.getSpill(), "backward plan's spill config: ")))
      return failure();
  }

  if (failed(verifyFinite(*this, "scale", getScale())))
    return failure();
  if (varlen && failed(verifyRaggedMask(*this, getMaskOrEmpty())))
    return failure();
  SmallVector<int64_t> scoreShape = scoreShapeOf(varlen, q, kvSeq);
  if (failed(verifyMaskOperands(*this, getMaskOrEmpty(), scoreShape,
                                getLengths(), getKeep(), getBias())))
    return failure();

  if (hasScoreMod() != !getScoreModGrad().empty())
    return emitOpError() << "needs both a score_mod and a score_mod_grad "
                            "region, or neither";
  Type f32 = Float32Type::get(getContext());
  if (failed(verifyScoreMod(*this, getScoreMod(), f32, getCaptures())))
    return failure();
  if (!hasScoreMod())
    return success();
  Block &grad = getScoreModGrad().front();
  if (grad.getArgumentTypes() != getScoreMod().front().getArgumentTypes())
    return emitOpError() << "score_mod_grad region must take the arguments of "
                            "the score_mod region (score, b, h, q_idx, "
                            "kv_idx, then one per capture)";
  auto yield = grad.empty() ? YieldOp() : dyn_cast<YieldOp>(grad.back());
  if (!yield || yield.getValues().size() != 1 ||
      yield.getValues().front().getType() != f32)
    return emitOpError() << "score_mod_grad region must end in attn.yield of "
                            "one f32 (the derivative)";
  return success();
}

LogicalResult FlashBwdOp::verifyRegions() {
  if (failed(verifyScoreModOps(getScoreMod())))
    return failure();
  return verifyScoreModOps(getScoreModGrad());
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

LogicalResult KernelOp::verify() {
  Block &block = getBody().front();
  // getPayload() starts from the terminator, which an empty block lacks.
  if (block.empty() || !isa<YieldOp>(block.back()))
    return emitOpError() << "body must end in attn.yield";
  for (auto [i, input] : llvm::enumerate(getInputs()))
    if (failed(verifyExtents(*this, "input " + std::to_string(i),
                             input.getType())))
      return failure();
  if (failed(verifyExtents(*this, "result", getResult().getType())))
    return failure();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << block.getNumArguments()
                         << " arguments for " << getInputs().size()
                         << " inputs";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(block.getArgumentTypes(), getInputs())))
    if (std::get<0>(pair) != std::get<1>(pair).getType())
      return emitOpError() << "body argument " << i << " has type "
                           << std::get<0>(pair) << " but input " << i
                           << " is " << std::get<1>(pair).getType();
  Operation *payload = getPayload();
  if (!payload)
    return emitOpError() << "body must hold one graph op before attn.yield";
  for (Operation *op = &block.front(); op != payload; op = op->getNextNode())
    if (!isa<arith::ConstantOp>(op))
      return emitOpError() << "body may hold constants and one graph op, "
                              "but also has '"
                           << op->getName() << "'";
  if (!isa<MatmulOp, ScaleOp, MaskOp, ScoreModOp, SoftmaxOp, arith::ExtFOp,
           arith::TruncFOp>(payload))
    return emitOpError() << "runs '" << payload->getName()
                         << "', which is not a graph op";
  // The kernel binds its inputs to the op's operands by position: operand i
  // must be input i (or an argument standing for the same value, as when
  // an op reads one tensor twice).
  if (payload->getNumOperands() != getInputs().size())
    return emitOpError() << "'" << payload->getName() << "' has "
                         << payload->getNumOperands() << " operands for "
                         << getInputs().size() << " inputs";
  for (auto [i, operand] : llvm::enumerate(payload->getOperands())) {
    // A value from above is the isolation check's to report.
    if (!getBody().isAncestor(operand.getParentRegion()))
      continue;
    auto arg = dyn_cast<BlockArgument>(operand);
    if (!arg || arg.getOwner() != &block ||
        getInputs()[arg.getArgNumber()] != getInputs()[i])
      return emitOpError() << "operand " << i << " of '"
                           << payload->getName()
                           << "' must be body argument " << i
                           << " (the kernel passes its inputs in order)";
  }
  auto yield = cast<YieldOp>(block.back());
  if (yield.getValues().size() != 1 ||
      yield.getValues().front() != payload->getResult(0) ||
      payload->getResult(0).getType() != getResult().getType())
    return emitOpError() << "must yield the result of its op, of type "
                         << getResult().getType();
  if (getInPlace() &&
      (getInputs().empty() || getInputs().front().getType() != getType()))
    return emitOpError() << "in_place needs a first input of the result "
                            "type "
                         << getType();
  return success();
}

// attn.flash_bwd's grad_sinks has the type of its sinks operand: the
// format prints it once, with the operand.
static ParseResult parseTypeOfSinks(OpAsmParser &, Type sinks,
                                    Type &gradSinks) {
  gradSinks = sinks;
  return success();
}
static void printTypeOfSinks(OpAsmPrinter &, Operation *, Type, Type) {}

#define GET_OP_CLASSES
#include "attn/Dialect/Attn/IR/AttnOps.cpp.inc"
