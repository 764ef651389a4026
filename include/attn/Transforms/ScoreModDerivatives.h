//===- ScoreModDerivatives.h - Derivatives of score_mod ops -----*- C++ -*-===//
//
// --attn-derive-backward differentiates a score_mod region with respect to
// its score argument in forward mode: every f32 value gets a tangent (its
// derivative with respect to the score), computed op by op from the tangents
// of the operands by one rule per op (the table in ScoreModDerivatives.cpp).
// Values that do not depend on the score have a zero tangent, represented
// as a null Value. Only f32 values carry tangents: an integer or i1 computed
// from the score (a comparison, a rounding conversion) is piecewise
// constant, its derivative zero. The table names every op of the score_mod
// op table (ScoreModOps.h): a rule, zero, an integer op, or not
// differentiable (a bitcast of the score); a unit test fails when the op
// table gains an op the derivative table does not name.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_TRANSFORMS_SCOREMODDERIVATIVES_H
#define ATTN_TRANSFORMS_SCOREMODDERIVATIVES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <optional>

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
  /// `term` (a product or quotient of `tangent`), and 0 wherever `tangent`
  /// is 0: where the op's own derivative is infinite (sqrt at 0, acos at 1)
  /// and the score does not move its operand there (an f32 tanh rounded to
  /// 1, a maximum with 0), the chain rule's 0 * inf or 0 / 0 would be NaN
  /// for what is no change at all.
  Value zeroWhereStill(Value tangent, Value term);
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
/// tangents of its operands (null for zero).
using DerivativeRule = Value (*)(TangentBuilder &);

/// How an op of the score_mod op table is differentiated.
enum class DerivativeKind {
  /// Its f32 result's tangent comes from `rule`.
  Rule,
  /// Zero wherever it exists: an i1 or integer result of floats
  /// (comparisons, classifications, rounding conversions).
  Zero,
  /// Integers or i1 in and out: never on the score's path as a float.
  Integer,
  /// A result that depends on the score in a way that has no derivative
  /// here (the bits of a float): an error when the score reaches it.
  NotDifferentiable,
};

struct Derivative {
  DerivativeKind kind;
  DerivativeRule rule = nullptr; ///< for DerivativeKind::Rule
};

/// How the op named `opName` (e.g. "math.tanh") is differentiated, or
/// nullopt if the table does not name it.
std::optional<Derivative> lookupDerivative(StringRef opName);

/// Fills the empty region `into` with one block that takes the arguments of
/// `scoreMod` (score, b, h, q_idx, kv_idx, then its captures) and yields the
/// derivative of its result with respect to the score. Values `scoreMod`
/// uses from outside itself are used as they are (they must dominate
/// `into`). An op that the score reaches and that has no derivative is
/// reported on that op.
LogicalResult deriveScoreModGrad(Region &scoreMod, Region &into);

} // namespace mlir::attn

#endif // ATTN_TRANSFORMS_SCOREMODDERIVATIVES_H
