//===- ScoreModOps.h - The ops a score_mod region may hold ------*- C++ -*-===//
//
// One table of the scalar ops of a score_mod region: for each op, the C++
// expression the CUDA emitter prints (over the helpers of
// kernels-templates/attn/score_mod.cuh) and the float64 reference's
// evaluation. The score_mod verifiers accept exactly these ops, so adding an
// op is adding one row.
//
// Semantics are MLIR's where MLIR defines them; where MLIR says poison or
// undefined, both sides agree on a defined value:
//   - integers are i1, i32, i64 and index (64 bits), two's complement,
//     wrapping (i1 arithmetic is mod 2; a true i1 is -1 when signed, so
//     sitofp/extsi of true give -1);
//   - x / 0 is 0 and x % 0 is x (every division and remainder); the one
//     signed overflow, MIN / -1, wraps to MIN;
//   - a shift by the width or more (the amount read unsigned) gives 0, or
//     the sign in every bit for shrsi;
//   - fptosi/fptoui saturate to the result's range, NaN gives 0;
//   - a tensor.extract index outside its capture is clamped to the nearest
//     element.
// The reference computes f32 values in double precision.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_DIALECT_ATTN_IR_SCOREMODOPS_H
#define ATTN_DIALECT_ATTN_IR_SCOREMODOPS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::attn {

/// Tensors a score_mod may read (FlashParams::score_mod_tensors holds this
/// many pointers).
constexpr unsigned kMaxScoreModCaptures = 4;
/// Ranks of those tensors: 0 to this.
constexpr int64_t kMaxScoreModCaptureRank = 4;

/// A scalar of a score_mod region as the reference holds it: a float (f32,
/// or an f16/bf16 element of a capture) in double precision, or an integer
/// as an APInt of its width (index: 64 bits).
struct ScoreModValue {
  double f = 0;
  llvm::APInt i;

  static ScoreModValue ofFloat(double value) {
    ScoreModValue v;
    v.f = value;
    return v;
  }
  static ScoreModValue ofInt(llvm::APInt value) {
    ScoreModValue v;
    v.i = std::move(value);
    return v;
  }
};

/// The reference's evaluation of one result: the operands and the bit width
/// of an integer result (0 for a float).
using ScoreModEvaluate = ScoreModValue (*)(ArrayRef<ScoreModValue> operands,
                                           unsigned resultWidth);

/// One op a score_mod region may hold.
struct ScoreModOpInfo {
  /// The op's name, "arith.remui".
  llvm::StringLiteral name;
  /// For arith.cmpi and arith.cmpf, the predicate's keyword ("ult"); else "".
  llvm::StringLiteral predicate;
  /// The C++ expression of the (first) result: $0, $1, $2 stand for the
  /// operands, $T for the C++ type of the result.
  llvm::StringLiteral device;
  ScoreModEvaluate evaluate;
  /// For ops with a second result (the *_extended ops): its expression and
  /// evaluation.
  llvm::StringLiteral device2 = "";
  ScoreModEvaluate evaluate2 = nullptr;
};

/// Every row of the table.
ArrayRef<ScoreModOpInfo> scoreModOps();

/// The row for `op` (by name, and predicate for comparisons), or null.
const ScoreModOpInfo *lookupScoreModOp(Operation *op);
/// The row of op `name` ("arith.cmpi") and `predicate` ("ult" or ""), or null.
const ScoreModOpInfo *lookupScoreModOp(StringRef name,
                                       StringRef predicate = "");

/// True for the types score_mod values have: i1, i32, i64, index, f32.
bool isScoreModScalarType(Type type);
/// True for the element types of a score_mod capture: f32, f16, bf16, i1,
/// i32, i64.
bool isScoreModCaptureElementType(Type type);

/// Bit width of an integer score_mod type (index: 64), 0 for a float.
unsigned scoreModBitWidth(Type type);

/// Checks the ops of a score_mod body whose block arguments after the
/// first five are `numCaptures` tensors: each op is a row of the table, a
/// scalar arith.constant, a tensor.extract from a capture, or the
/// terminator, on score_mod types; captures are used only by
/// tensor.extract; values from outside the region are scalar constants.
/// The first violation is an error at the op that commits it, naming it.
LogicalResult verifyScoreModOps(Region &body);

/// The value of a scalar arith.constant of a score_mod type.
ScoreModValue evaluateScoreModConstant(Operation *constant);

/// The element a tensor.extract reads: `index` clamped to [0, extent - 1].
inline int64_t clampScoreModIndex(int64_t index, int64_t extent) {
  return index < 0 ? 0 : index >= extent ? extent - 1 : index;
}

/// Substitutes $0.. $9 with `operands` and $T with `resultType` in a
/// device expression of the table.
std::string expandScoreModDevice(StringRef pattern,
                                 ArrayRef<std::string> operands,
                                 StringRef resultType);

} // namespace mlir::attn

#endif // ATTN_DIALECT_ATTN_IR_SCOREMODOPS_H
