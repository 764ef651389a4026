//===- ScoreModDerivatives.cpp - Derivatives of score_mod ops -------------===//
//
// The table of derivative rules, one entry per op that a score_mod may hold
// (the ops the CPU reference and the CUDA emitter run), and the forward-mode
// differentiation of a score_mod region that applies them.
//
//===----------------------------------------------------------------------===//

#include "attn/Transforms/ScoreModDerivatives.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace mlir;
using namespace mlir::attn;

//===----------------------------------------------------------------------===//
// TangentBuilder
//===----------------------------------------------------------------------===//

static bool isConstant(Value v, double value) {
  FloatAttr attr;
  return v && matchPattern(v, m_Constant(&attr)) &&
         attr.getValueAsDouble() == value;
}

Value TangentBuilder::constant(double value) {
  return arith::ConstantOp::create(builder, loc,
                                   builder.getF32FloatAttr(float(value)));
}

Value TangentBuilder::add(Value a, Value b) {
  if (!a || isConstant(a, 0.0))
    return b;
  if (!b || isConstant(b, 0.0))
    return a;
  return arith::AddFOp::create(builder, loc, a, b);
}

Value TangentBuilder::sub(Value a, Value b) {
  if (!b || isConstant(b, 0.0))
    return a;
  if (!a || isConstant(a, 0.0))
    return neg(b);
  return arith::SubFOp::create(builder, loc, a, b);
}

Value TangentBuilder::mul(Value a, Value b) {
  if (!a || !b || isConstant(a, 0.0) || isConstant(b, 0.0))
    return Value();
  if (isConstant(a, 1.0))
    return b;
  if (isConstant(b, 1.0))
    return a;
  return arith::MulFOp::create(builder, loc, a, b);
}

Value TangentBuilder::div(Value a, Value b) {
  if (!a || isConstant(a, 0.0))
    return Value();
  if (isConstant(b, 1.0))
    return a;
  return arith::DivFOp::create(builder, loc, a, b);
}

Value TangentBuilder::neg(Value a) {
  if (!a || isConstant(a, 0.0))
    return Value();
  return arith::NegFOp::create(builder, loc, a);
}

Value TangentBuilder::select(Value condition, Value a, Value b) {
  if (!a && !b)
    return Value();
  return arith::SelectOp::create(builder, loc, condition,
                                 a ? a : constant(0.0), b ? b : constant(0.0));
}

Value TangentBuilder::compare(arith::CmpFPredicate predicate, Value a,
                              Value b) {
  return arith::CmpFOp::create(builder, loc, predicate, a, b);
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {

constexpr double kLn2 = 0.6931471805599453;
constexpr double kTwoOverSqrtPi = 1.1283791670955126;

struct DerivativeEntry {
  StringLiteral opName;
  DerivativeRule rule;
};

using P = arith::CmpFPredicate;

// d(result)/d(score) from the operands x_i, their tangents t_i and the
// result r. Piecewise-constant ops (floor, ceil) have derivative 0 where it
// exists; max/min and abs take the derivative of the branch they pick.
const DerivativeEntry kDerivatives[] = {
    // r = x0 + x1
    {"arith.addf", [](TangentBuilder &d) { return d.add(d.tangent(0), d.tangent(1)); }},
    // r = x0 - x1
    {"arith.subf", [](TangentBuilder &d) { return d.sub(d.tangent(0), d.tangent(1)); }},
    // r = x0 * x1
    {"arith.mulf", [](TangentBuilder &d) {
       return d.add(d.mul(d.tangent(0), d.operand(1)), d.mul(d.operand(0), d.tangent(1)));
     }},
    // r = x0 / x1: (t0 - r t1) / x1
    {"arith.divf", [](TangentBuilder &d) {
       return d.div(d.sub(d.tangent(0), d.mul(d.result(), d.tangent(1))), d.operand(1));
     }},
    // r = x0 - trunc(x0 / x1) x1, where trunc(x0 / x1) = (x0 - r) / x1
    {"arith.remf", [](TangentBuilder &d) {
       Value quotient = d.tangent(1) ? d.div(d.sub(d.operand(0), d.result()), d.operand(1))
                                     : Value();
       return d.sub(d.tangent(0), d.mul(quotient, d.tangent(1)));
     }},
    {"arith.negf", [](TangentBuilder &d) { return d.neg(d.tangent(0)); }},
    {"arith.maximumf", [](TangentBuilder &d) {
       return d.select(d.compare(P::OGE, d.operand(0), d.operand(1)), d.tangent(0), d.tangent(1));
     }},
    {"arith.maxnumf", [](TangentBuilder &d) {
       return d.select(d.compare(P::OGE, d.operand(0), d.operand(1)), d.tangent(0), d.tangent(1));
     }},
    {"arith.minimumf", [](TangentBuilder &d) {
       return d.select(d.compare(P::OLE, d.operand(0), d.operand(1)), d.tangent(0), d.tangent(1));
     }},
    {"arith.minnumf", [](TangentBuilder &d) {
       return d.select(d.compare(P::OLE, d.operand(0), d.operand(1)), d.tangent(0), d.tangent(1));
     }},
    // r = x0 ? x1 : x2 (x0 is i1: no tangent)
    {"arith.select", [](TangentBuilder &d) {
       return d.select(d.operand(0), d.tangent(1), d.tangent(2));
     }},
    // r = tanh(x): (1 - r^2) t
    {"math.tanh", [](TangentBuilder &d) {
       return d.mul(d.sub(d.constant(1.0), d.mul(d.result(), d.result())), d.tangent(0));
     }},
    {"math.exp", [](TangentBuilder &d) { return d.mul(d.result(), d.tangent(0)); }},
    {"math.exp2", [](TangentBuilder &d) {
       return d.mul(d.mul(d.result(), d.constant(kLn2)), d.tangent(0));
     }},
    {"math.log", [](TangentBuilder &d) { return d.div(d.tangent(0), d.operand(0)); }},
    {"math.log2", [](TangentBuilder &d) {
       return d.div(d.tangent(0), d.mul(d.operand(0), d.constant(kLn2)));
     }},
    // r = sqrt(x): t / (2 r)
    {"math.sqrt", [](TangentBuilder &d) {
       return d.div(d.tangent(0), d.mul(d.constant(2.0), d.result()));
     }},
    // r = x^(-1/2): -r / (2 x) t
    {"math.rsqrt", [](TangentBuilder &d) {
       return d.mul(d.div(d.mul(d.constant(-0.5), d.result()), d.operand(0)), d.tangent(0));
     }},
    {"math.absf", [](TangentBuilder &d) {
       return d.select(d.compare(P::OLT, d.operand(0), d.constant(0.0)), d.neg(d.tangent(0)),
                       d.tangent(0));
     }},
    // erf'(x) = 2 / sqrt(pi) exp(-x^2)
    {"math.erf", [](TangentBuilder &d) {
       Value square = d.mul(d.operand(0), d.operand(0));
       return d.mul(d.mul(d.constant(kTwoOverSqrtPi), d.call<math::ExpOp>(d.neg(square))),
                    d.tangent(0));
     }},
    {"math.sin", [](TangentBuilder &d) {
       return d.mul(d.call<math::CosOp>(d.operand(0)), d.tangent(0));
     }},
    {"math.cos", [](TangentBuilder &d) {
       return d.neg(d.mul(d.call<math::SinOp>(d.operand(0)), d.tangent(0)));
     }},
    // r = x0^x1: x1 x0^(x1 - 1) t0 + log(x0) r t1
    {"math.powf", [](TangentBuilder &d) {
       Value base = d.tangent(0) ? d.mul(d.operand(1),
                                         d.call<math::PowFOp>(d.operand(0),
                                                              d.sub(d.operand(1), d.constant(1.0))))
                                 : Value();
       Value exponent = d.tangent(1) ? d.mul(d.call<math::LogOp>(d.operand(0)), d.result())
                                     : Value();
       return d.add(d.mul(base, d.tangent(0)), d.mul(exponent, d.tangent(1)));
     }},
    // r = x0 x1 + x2
    {"math.fma", [](TangentBuilder &d) {
       return d.add(d.add(d.mul(d.tangent(0), d.operand(1)), d.mul(d.operand(0), d.tangent(1))),
                    d.tangent(2));
     }},
    {"math.floor", [](TangentBuilder &) { return Value(); }},
    {"math.ceil", [](TangentBuilder &) { return Value(); }},
};

} // namespace

DerivativeRule mlir::attn::lookupDerivativeRule(StringRef opName) {
  static const llvm::StringMap<DerivativeRule> table = [] {
    llvm::StringMap<DerivativeRule> map;
    for (const DerivativeEntry &entry : kDerivatives)
      map[entry.opName] = entry.rule;
    return map;
  }();
  return table.lookup(opName);
}

//===----------------------------------------------------------------------===//
// Forward-mode differentiation of a region
//===----------------------------------------------------------------------===//

LogicalResult mlir::attn::deriveScoreModGrad(Region &scoreMod, Region &into) {
  Block &source = scoreMod.front();
  OpBuilder builder(scoreMod.getContext());
  Block *block = builder.createBlock(
      &into, into.end(), source.getArgumentTypes(),
      SmallVector<Location>(source.getNumArguments(), scoreMod.getLoc()));
  IRMapping primal;
  for (auto [from, to] : llvm::zip(source.getArguments(), block->getArguments()))
    primal.map(from, to);

  // Tangents of the source region's values; absent means zero.
  llvm::DenseMap<Value, Value> tangents;
  Location loc = scoreMod.getLoc();
  tangents[source.getArgument(0)] =
      arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(1.0f));

  for (Operation &op : source.without_terminator()) {
    Operation *clone = builder.clone(op, primal);
    SmallVector<Value> operandTangents;
    bool dependsOnScore = false;
    for (Value operand : op.getOperands()) {
      operandTangents.push_back(tangents.lookup(operand));
      dependsOnScore |= static_cast<bool>(operandTangents.back());
    }
    // Integer, index and i1 results carry no derivative; float results of
    // score-independent operands have a zero one.
    bool floatResult = llvm::any_of(op.getResultTypes(), llvm::IsaPred<FloatType>);
    if (!dependsOnScore || !floatResult)
      continue;
    if (op.getNumResults() != 1 || !op.getResult(0).getType().isF32())
      return op.emitOpError() << "must have one f32 result to be "
                                 "differentiated in a score_mod";
    DerivativeRule rule = lookupDerivativeRule(op.getName().getStringRef());
    if (!rule)
      return op.emitOpError()
             << "has no derivative rule (ScoreModDerivatives.cpp); "
                "--attn-derive-backward cannot differentiate the score_mod "
                "through it";
    SmallVector<Value> operands(llvm::map_range(
        op.getOperands(), [&](Value v) { return primal.lookupOrDefault(v); }));
    TangentBuilder tangent(builder, op.getLoc(), operands, operandTangents,
                           clone->getResult(0));
    if (Value t = rule(tangent))
      tangents[op.getResult(0)] = t;
  }

  auto yield = cast<YieldOp>(source.getTerminator());
  Value derivative = tangents.lookup(yield.getValues().front());
  if (!derivative)
    derivative = arith::ConstantOp::create(builder, yield.getLoc(),
                                           builder.getF32FloatAttr(0.0f));
  YieldOp::create(builder, yield.getLoc(), derivative);

  // Primal values only the score_mod's result needed.
  SmallVector<Operation *> ops(llvm::make_pointer_range(block->without_terminator()));
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
  return success();
}
