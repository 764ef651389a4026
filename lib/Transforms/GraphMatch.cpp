//===- GraphMatch.cpp - Matchers of attention graph ops -------------------===//

#include "GraphMatch.h"

#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

namespace mlir::attn {

std::optional<double> splatConstant(Value value) {
  DenseFPElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

std::optional<double> matchScaling(Operation *op, Value &input) {
  if (auto scale = dyn_cast<ScaleOp>(op)) {
    input = scale.getInput();
    return scale.getFactor().convertToDouble();
  }
  if (!isa<RankedTensorType>(op->getResult(0).getType()))
    return std::nullopt;
  if (auto mul = dyn_cast<arith::MulFOp>(op)) {
    for (auto [c, other] : {std::pair(mul.getRhs(), mul.getLhs()),
                            std::pair(mul.getLhs(), mul.getRhs())})
      if (std::optional<double> factor = splatConstant(c)) {
        input = other;
        return factor;
      }
  }
  if (auto div = dyn_cast<arith::DivFOp>(op))
    if (std::optional<double> divisor = splatConstant(div.getRhs());
        divisor && *divisor != 0.0) {
      input = div.getLhs();
      return 1.0 / *divisor;
    }
  return std::nullopt;
}

} // namespace mlir::attn
