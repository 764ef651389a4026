//===- EmitScoreMod.cpp - score_mod regions as device code ----------------===//
//
// Prints a score_mod region as the static member scoreMod() of an emitted
// Config: one const local per op result, each the device expression of the
// op's row in the table of ScoreModOps.h (the helpers of
// kernels-templates/attn/score_mod.cuh), so that the kernel and the float64
// reference compute the same function.
//
//===----------------------------------------------------------------------===//

#include "EmitHelpers.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/IR/ScoreModOps.h"
#include "attn/params.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detail;

static_assert(mlir::attn::kMaxScoreModCaptures ==
                  static_cast<unsigned>(::attn::kMaxScoreModCaptures),
              "the dialect and FlashParams disagree on the number of captures");

namespace {

/// C++ type of a score_mod value on the device. f16/bf16 elements of a
/// capture are held as float (the widening is exact).
FailureOr<StringRef> cudaType(Type type) {
  if (type.isF32() || type.isF16() || type.isBF16())
    return StringRef("float");
  if (type.isIndex() || type.isInteger(64))
    return StringRef("long long");
  if (type.isInteger(32))
    return StringRef("int");
  if (type.isInteger(1))
    return StringRef("bool");
  return failure();
}

/// The element type a capture's elements are loaded as (Capture<E>).
FailureOr<StringRef> captureElement(Type type) {
  if (type.isF32())
    return StringRef("float");
  if (type.isF16())
    return StringRef("attn::F16");
  if (type.isBF16())
    return StringRef("attn::BF16");
  if (type.isInteger(64))
    return StringRef("long long");
  if (type.isInteger(32))
    return StringRef("int");
  if (type.isInteger(1))
    return StringRef("bool");
  return failure();
}

/// An integer literal of `width` bits (index: 64) that is valid C++ for
/// every value, the most negative included.
std::string integerLiteral(const APInt &value, unsigned width) {
  if (width == 1)
    return value.isZero() ? "false" : "true";
  int64_t v = value.getSExtValue();
  if (width == 32) {
    if (v == std::numeric_limits<int32_t>::min())
      return "(-2147483647 - 1)";
    return std::to_string(v);
  }
  if (v == std::numeric_limits<int64_t>::min())
    return "(-9223372036854775807LL - 1)";
  return std::to_string(v) + "LL";
}

class ScoreModPrinter {
public:
  explicit ScoreModPrinter(raw_ostream &os) : os(os) {}

  LogicalResult print(Region &region) {
    Block &block = region.front();
    static const char *argNames[] = {"score", "b", "h", "q_idx", "kv_idx"};
    for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
      if (i < 5)
        names[arg] = argNames[i];
      else
        captures[arg] = i - 5;
    }
    for (Operation &op : block)
      if (failed(printOp(op)))
        return failure();
    return success();
  }

private:
  FailureOr<std::string> nameOf(Value value, Operation *user) {
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    // A constant hoisted out of the region is inlined.
    if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
      if (failed(printOp(*constant)))
        return failure();
      return names.lookup(value);
    }
    return user->emitOpError()
           << "uses a value defined outside the score_mod region that is not "
              "an arith.constant; it cannot be emitted as device code";
  }

  LogicalResult define(Operation &op, Value result, const std::string &expr) {
    FailureOr<StringRef> type = cudaType(result.getType());
    if (failed(type))
      return op.emitOpError() << "has result type " << result.getType()
                              << ", which a score_mod cannot use on the GPU "
                                 "(f32, index, i1, i32 and i64 can)";
    std::string name = "v" + std::to_string(counter++);
    os << "    const " << *type << " " << name << " = " << expr << ";\n";
    names[result] = name;
    return success();
  }

  LogicalResult printConstant(arith::ConstantOp op) {
    Type type = op.getType();
    if (auto f = dyn_cast<FloatAttr>(op.getValue()); f && type.isF32())
      return define(*op, op.getResult(), floatLiteral(f.getValue()));
    if (auto i = dyn_cast<IntegerAttr>(op.getValue());
        i && isScoreModScalarType(type))
      return define(*op, op.getResult(),
                    integerLiteral(i.getValue(), scoreModBitWidth(type)));
    return op.emitOpError() << "is not a scalar of i1, i32, i64, index or f32";
  }

  /// Element [i, j, ...] of a capture: each index clamped to its extent,
  /// then the row-major offset of a contiguous tensor of static shape.
  LogicalResult printExtract(tensor::ExtractOp op,
                             ArrayRef<std::string> indices) {
    auto it = captures.find(op.getTensor());
    if (it == captures.end())
      return op.emitOpError() << "reads a tensor that is not a score_mod "
                                 "capture; it cannot be emitted";
    RankedTensorType type = op.getTensor().getType();
    FailureOr<StringRef> element = captureElement(type.getElementType());
    if (failed(element))
      return op.emitOpError() << "reads elements of " << type.getElementType()
                              << ", which no capture may hold";
    std::string offset;
    int64_t stride = 1;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      int64_t extent = type.getDimSize(d);
      if (extent != 1) {
        std::string term = "attn::scoremod::clampIndex(" + indices[d] + ", " +
                           std::to_string(extent) + "LL)";
        if (stride != 1)
          term += " * " + std::to_string(stride) + "LL";
        offset = offset.empty() ? term : term + " + " + offset;
      }
      stride *= extent;
    }
    if (offset.empty())
      offset = "0";
    return define(*op, op.getResult(),
                  "attn::scoremod::Capture<" + element->str() +
                      ">::load(captures[" + std::to_string(it->second) +
                      "], " + offset + ")");
  }

  LogicalResult printOp(Operation &op) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      return printConstant(constant);
    SmallVector<std::string> in;
    for (Value operand : op.getOperands()) {
      if (captures.count(operand))
        continue; // a tensor.extract's source, printed as a pointer
      FailureOr<std::string> name = nameOf(operand, &op);
      if (failed(name))
        return failure();
      in.push_back(*name);
    }
    if (auto extract = dyn_cast<tensor::ExtractOp>(op))
      return printExtract(extract, in);
    if (isa<YieldOp>(op)) {
      os << "    return " << in[0] << ";\n";
      return success();
    }
    const ScoreModOpInfo *row = lookupScoreModOp(&op);
    if (!row)
      return op.emitOpError() << "is not supported in a score_mod; it cannot "
                                 "be emitted as device code";
    StringRef patterns[2] = {row->device, row->device2};
    for (auto [i, result] : llvm::enumerate(op.getResults())) {
      if (i >= 2 || patterns[i].empty())
        return op.emitOpError() << "has a result the table has no "
                                   "expression for";
      FailureOr<StringRef> type = cudaType(result.getType());
      if (failed(type))
        return define(op, result, ""); // reports the type
      if (failed(define(op, result,
                        expandScoreModDevice(patterns[i], in, *type))))
        return failure();
    }
    return success();
  }

  raw_ostream &os;
  llvm::DenseMap<Value, std::string> names;
  llvm::DenseMap<Value, unsigned> captures; // block argument -> slot
  unsigned counter = 0;
};

} // namespace

LogicalResult mlir::attn::detail::printScoreModFunction(Region *region,
                                                        raw_ostream &os,
                                                        StringRef name,
                                                        StringRef identity) {
  os << "  static __device__ __forceinline__ float " << name
     << "(float score, long long b, long long h, long long q_idx, long long "
        "kv_idx, const void *const *captures) {\n";
  if (!region) {
    os << "    return " << identity << ";\n  }\n";
    return success();
  }
  if (failed(ScoreModPrinter(os).print(*region)))
    return failure();
  os << "  }\n";
  return success();
}
