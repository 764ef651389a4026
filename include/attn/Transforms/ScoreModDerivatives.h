//===- ScoreModDerivatives.h - Derivatives of score_mod ops -----*- C++ -*-===//
//
// --attn-derive-backward differentiates a score_mod region with respect to
// its score argument in forward mode: every f32 value gets a tangent (its
// derivative with respect to the score), computed op by op from the tangents
// of the operands by one rule per op (the table in ScoreModDerivatives.cpp).
// Values that do not depend on the score have a zero tangent, represented
// as a null Value, so integer and index arithmetic, constants and
// score-independent float math need no rule.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_TRANSFORMS_SCOREMODDERIVATIVES_H
#define ATTN_TRANSFORMS_SCOREMODDERIVATIVES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::attn {

/// What a derivative rule sees of one op being differentiated, and the
/// arithmetic to build its tangent with. Operands and the result are the
/// op's values in the derived region (primal values, never null); tangents
/// are null where they are zero, and the arithmetic folds those zeros (and
/// multiplications by one), so that a rule is one expression.
class TangentBuilder {
public:
  TangentBuilder(OpBuilder &builder, Location loc, ArrayRef<Value> operands,
                 ArrayRef<Value> tangents, Value result)
      : builder(builder), loc(loc), operands(operands), tangents(tangents),
        primalResult(result) {}

  Value operand(unsigned i) const { return operands[i]; }
  /// The tangent of operand i; null if zero.
  Value tangent(unsigned i) const { return tangents[i]; }
  Value result() const { return primalResult; }

  /// An f32 constant.
  Value constant(double value);
  Value add(Value a, Value b);
  Value sub(Value a, Value b);
  Value mul(Value a, Value b);
  Value div(Value a, Value b);
  Value neg(Value a);
  /// `condition ? a : b` (i1 condition).
  Value select(Value condition, Value a, Value b);
  /// `a <predicate> b` as arith.cmpf.
  Value compare(arith::CmpFPredicate predicate, Value a, Value b);
  /// A one-operand op of the math or arith dialect, e.g. call<math::ExpOp>(x).
  template <class OpTy, class... Args> Value call(Args... args) {
    return OpTy::create(builder, loc, args...).getResult();
  }

private:
  OpBuilder &builder;
  Location loc;
  ArrayRef<Value> operands, tangents;
  Value primalResult;
};

/// A derivative rule: the tangent of the op's one float result from the
/// tangents of its operands (null for zero). One entry of the table per op.
using DerivativeRule = Value (*)(TangentBuilder &);

/// The rule for the op named `opName` (e.g. "math.tanh"), or null.
DerivativeRule lookupDerivativeRule(StringRef opName);

/// Fills the empty region `into` with one block that takes the arguments of
/// `scoreMod` (score, b, h, q_idx, kv_idx) and yields the derivative of its
/// result with respect to the score. Values `scoreMod` uses from outside
/// itself are used as they are (they must dominate `into`). An op whose
/// result depends on the score and that has no rule is reported on that op.
LogicalResult deriveScoreModGrad(Region &scoreMod, Region &into);

} // namespace mlir::attn

#endif // ATTN_TRANSFORMS_SCOREMODDERIVATIVES_H
