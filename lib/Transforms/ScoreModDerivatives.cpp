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

Value TangentBuilder::zeroWhereStill(Value tangent, Value term) {
  if (!tangent || !term || isConstant(tangent, 0.0))
    return Value();
  // A constant tangent other than 0 is never still.
  if (matchPattern(tangent, m_Constant()))
    return term;
  return select(compare(arith::CmpFPredicate::OEQ, tangent, constant(0.0)),
                constant(0.0), term);
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {

constexpr double kLn2 = 0.6931471805599453;
constexpr double kLn10 = 2.302585092994046;
constexpr double kTwoOverSqrtPi = 1.1283791670955126;

struct DerivativeEntry {
  StringLiteral opName;
  Derivative derivative;
};

using P = arith::CmpFPredicate;
using K = DerivativeKind;

/// A rule entry.
constexpr Derivative rule(DerivativeRule r) { return {K::Rule, r}; }
constexpr Derivative kZero{K::Zero};
constexpr Derivative kInteger{K::Integer};

/// sqrt(1 - x^2), sqrt(x^2 - 1) or sqrt(x^2 + 1), as the inverse
/// trigonometric and hyperbolic functions' derivatives need.
Value sqrtOfSquarePlus(TangentBuilder &d, Value x, double constant,
                       double sign) {
  Value square = d.mul(x, x);
  Value sum = sign > 0 ? d.add(square, d.constant(constant))
                       : d.sub(d.constant(constant), square);
  return d.call<math::SqrtOp>(sum);
}

// d(result)/d(score) from the operands x_i, their tangents t_i and the
// result r, for every op of the score_mod op table (ScoreModOps.cpp).
// Piecewise-constant ops (floor, ceil, round, trunc) have derivative 0
// where it exists; max/min, abs and copysign take the derivative of the
// branch they pick.
const DerivativeEntry kDerivatives[] = {
    // r = x0 + x1
    {"arith.addf", rule([](TangentBuilder &d) { return d.add(d.tangent(0), d.tangent(1)); })},
    // r = x0 - x1
    {"arith.subf", rule([](TangentBuilder &d) { return d.sub(d.tangent(0), d.tangent(1)); })},
    // r = x0 * x1
    {"arith.mulf", rule([](TangentBuilder &d) {
       return d.add(d.mul(d.tangent(0), d.operand(1)), d.mul(d.operand(0), d.tangent(1)));
     })},
    // r = x0 / x1: (t0 - r t1) / x1
    {"arith.divf", rule([](TangentBuilder &d) {
       return d.div(d.sub(d.tangent(0), d.mul(d.result(), d.tangent(1))), d.operand(1));
     })},
    // r = x0 - trunc(x0 / x1) x1, where trunc(x0 / x1) = (x0 - r) / x1
    {"arith.remf", rule([](TangentBuilder &d) {
       Value quotient = d.tangent(1) ? d.div(d.sub(d.operand(0), d.result()), d.operand(1))
                                     : Value();
       return d.sub(d.tangent(0), d.mul(quotient, d.tangent(1)));
     })},
    {"arith.negf", rule([](TangentBuilder &d) { return d.neg(d.tangent(0)); })},
    {"arith.maximumf", rule([](TangentBuilder &d) {
       return d.select(d.compare(P::OGE, d.operand(0), d.operand(1)), d.tangent(0), d.tangent(1));
     })},
    {"arith.maxnumf", rule([](TangentBuilder &d) {
       return d.select(d.compare(P::OGE, d.operand(0), d.operand(1)), d.tangent(0), d.tangent(1));
     })},
    {"arith.minimumf", rule([](TangentBuilder &d) {
       return d.select(d.compare(P::OLE, d.operand(0), d.operand(1)), d.tangent(0), d.tangent(1));
     })},
    {"arith.minnumf", rule([](TangentBuilder &d) {
       return d.select(d.compare(P::OLE, d.operand(0), d.operand(1)), d.tangent(0), d.tangent(1));
     })},
    // A widened capture element: the score never reaches it, but the
    // widening is the identity.
    {"arith.extf", rule([](TangentBuilder &d) { return d.tangent(0); })},
    // r = x0 ? x1 : x2 (x0 is i1: no tangent)
    {"arith.select", rule([](TangentBuilder &d) {
       return d.select(d.operand(0), d.tangent(1), d.tangent(2));
     })},

    // Floats to integers and i1: piecewise constant.
    {"arith.cmpf", kZero},
    {"arith.fptosi", kZero},
    {"arith.fptoui", kZero},
    {"math.isnan", kZero},
    {"math.isinf", kZero},
    {"math.isfinite", kZero},
    {"math.isnormal", kZero},
    // The bits of the score are no function with a derivative.
    {"arith.bitcast", {K::NotDifferentiable}},

    // Integer ops: integer operands, which never carry a tangent.
    {"arith.addi", kInteger}, {"arith.subi", kInteger}, {"arith.muli", kInteger},
    {"arith.divsi", kInteger}, {"arith.divui", kInteger},
    {"arith.ceildivsi", kInteger}, {"arith.ceildivui", kInteger},
    {"arith.floordivsi", kInteger}, {"arith.remsi", kInteger},
    {"arith.remui", kInteger}, {"arith.andi", kInteger}, {"arith.ori", kInteger},
    {"arith.xori", kInteger}, {"arith.shli", kInteger}, {"arith.shrui", kInteger},
    {"arith.shrsi", kInteger}, {"arith.maxsi", kInteger}, {"arith.minsi", kInteger},
    {"arith.maxui", kInteger}, {"arith.minui", kInteger},
    {"arith.addui_extended", kInteger}, {"arith.mulsi_extended", kInteger},
    {"arith.mului_extended", kInteger}, {"arith.cmpi", kInteger},
    {"arith.extsi", kInteger}, {"arith.extui", kInteger}, {"arith.trunci", kInteger},
    {"arith.index_cast", kInteger}, {"arith.index_castui", kInteger},
    {"arith.sitofp", kInteger}, {"arith.uitofp", kInteger},
    {"math.absi", kInteger}, {"math.ctlz", kInteger}, {"math.cttz", kInteger},
    {"math.ctpop", kInteger},

    {"math.absf", rule([](TangentBuilder &d) {
       return d.select(d.compare(P::OLT, d.operand(0), d.constant(0.0)), d.neg(d.tangent(0)),
                       d.tangent(0));
     })},
    // acos'(x) = -1 / sqrt(1 - x^2), infinite at +-1 (zeroWhereStill)
    {"math.acos", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(d.tangent(0),
                               d.neg(d.div(d.tangent(0),
                                           sqrtOfSquarePlus(d, d.operand(0), 1.0, -1.0))));
     })},
    // acosh'(x) = 1 / sqrt(x^2 - 1), infinite at 1
    {"math.acosh", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(
           d.tangent(0), d.div(d.tangent(0), sqrtOfSquarePlus(d, d.operand(0), -1.0, 1.0)));
     })},
    // asin'(x) = 1 / sqrt(1 - x^2), infinite at +-1
    {"math.asin", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(
           d.tangent(0), d.div(d.tangent(0), sqrtOfSquarePlus(d, d.operand(0), 1.0, -1.0)));
     })},
    // asinh'(x) = 1 / sqrt(x^2 + 1)
    {"math.asinh", rule([](TangentBuilder &d) {
       return d.div(d.tangent(0), sqrtOfSquarePlus(d, d.operand(0), 1.0, 1.0));
     })},
    // atan'(x) = 1 / (1 + x^2)
    {"math.atan", rule([](TangentBuilder &d) {
       return d.div(d.tangent(0),
                    d.add(d.constant(1.0), d.mul(d.operand(0), d.operand(0))));
     })},
    // atanh'(x) = 1 / (1 - x^2), infinite at +-1
    {"math.atanh", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(
           d.tangent(0),
           d.div(d.tangent(0), d.sub(d.constant(1.0), d.mul(d.operand(0), d.operand(0)))));
     })},
    // r = atan2(y, x): (x ty - y tx) / (x^2 + y^2)
    {"math.atan2", rule([](TangentBuilder &d) {
       Value y = d.operand(0), x = d.operand(1);
       return d.div(d.sub(d.mul(x, d.tangent(0)), d.mul(y, d.tangent(1))),
                    d.add(d.mul(x, x), d.mul(y, y)));
     })},
    // r = cbrt(x): t / (3 r^2), infinite at 0
    {"math.cbrt", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(
           d.tangent(0),
           d.div(d.tangent(0), d.mul(d.constant(3.0), d.mul(d.result(), d.result()))));
     })},
    {"math.ceil", kZero},
    // r = |x0| sign(x1): sign(x0) sign(x1) t0 (x1's sign is piecewise
    // constant)
    {"math.copysign", rule([](TangentBuilder &d) {
       if (!d.tangent(0))
         return Value();
       Value one = d.constant(1.0);
       return d.mul(d.mul(d.call<math::CopySignOp>(one, d.operand(0)),
                          d.call<math::CopySignOp>(one, d.operand(1))),
                    d.tangent(0));
     })},
    {"math.cos", rule([](TangentBuilder &d) {
       return d.neg(d.mul(d.call<math::SinOp>(d.operand(0)), d.tangent(0)));
     })},
    {"math.cosh", rule([](TangentBuilder &d) {
       return d.mul(d.call<math::SinhOp>(d.operand(0)), d.tangent(0));
     })},
    // erf'(x) = 2 / sqrt(pi) exp(-x^2)
    {"math.erf", rule([](TangentBuilder &d) {
       Value square = d.mul(d.operand(0), d.operand(0));
       return d.mul(d.mul(d.constant(kTwoOverSqrtPi), d.call<math::ExpOp>(d.neg(square))),
                    d.tangent(0));
     })},
    // erfc = 1 - erf
    {"math.erfc", rule([](TangentBuilder &d) {
       Value square = d.mul(d.operand(0), d.operand(0));
       return d.mul(d.mul(d.constant(-kTwoOverSqrtPi), d.call<math::ExpOp>(d.neg(square))),
                    d.tangent(0));
     })},
    {"math.exp", rule([](TangentBuilder &d) { return d.mul(d.result(), d.tangent(0)); })},
    {"math.exp2", rule([](TangentBuilder &d) {
       return d.mul(d.mul(d.result(), d.constant(kLn2)), d.tangent(0));
     })},
    // r = exp(x) - 1: (r + 1) t
    {"math.expm1", rule([](TangentBuilder &d) {
       return d.mul(d.add(d.result(), d.constant(1.0)), d.tangent(0));
     })},
    {"math.floor", kZero},
    // r = x0 x1 + x2
    {"math.fma", rule([](TangentBuilder &d) {
       return d.add(d.add(d.mul(d.tangent(0), d.operand(1)), d.mul(d.operand(0), d.tangent(1))),
                    d.tangent(2));
     })},
    // The logarithms' derivatives are infinite at 0 (log1p's at -1).
    {"math.log", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(d.tangent(0), d.div(d.tangent(0), d.operand(0)));
     })},
    {"math.log10", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(d.tangent(0),
                               d.div(d.tangent(0), d.mul(d.operand(0), d.constant(kLn10))));
     })},
    {"math.log1p", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(d.tangent(0),
                               d.div(d.tangent(0), d.add(d.operand(0), d.constant(1.0))));
     })},
    {"math.log2", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(d.tangent(0),
                               d.div(d.tangent(0), d.mul(d.operand(0), d.constant(kLn2))));
     })},
    // r = x0^x1: x1 x0^(x1 - 1) t0 + log(x0) r t1
    {"math.powf", rule([](TangentBuilder &d) {
       Value base = d.tangent(0) ? d.mul(d.operand(1),
                                         d.call<math::PowFOp>(d.operand(0),
                                                              d.sub(d.operand(1), d.constant(1.0))))
                                 : Value();
       Value exponent = d.tangent(1) ? d.mul(d.call<math::LogOp>(d.operand(0)), d.result())
                                     : Value();
       // x0^(x1 - 1) is infinite at x0 = 0 for x1 < 1, log(x0) too.
       return d.add(d.zeroWhereStill(d.tangent(0), d.mul(base, d.tangent(0))),
                    d.zeroWhereStill(d.tangent(1), d.mul(exponent, d.tangent(1))));
     })},
    {"math.round", kZero},
    {"math.roundeven", kZero},
    // r = x^(-1/2): -r / (2 x) t, infinite at 0
    {"math.rsqrt", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(
           d.tangent(0),
           d.mul(d.div(d.mul(d.constant(-0.5), d.result()), d.operand(0)), d.tangent(0)));
     })},
    {"math.sin", rule([](TangentBuilder &d) {
       return d.mul(d.call<math::CosOp>(d.operand(0)), d.tangent(0));
     })},
    {"math.sinh", rule([](TangentBuilder &d) {
       return d.mul(d.call<math::CoshOp>(d.operand(0)), d.tangent(0));
     })},
    // r = sqrt(x): t / (2 r), infinite at 0
    {"math.sqrt", rule([](TangentBuilder &d) {
       return d.zeroWhereStill(d.tangent(0),
                               d.div(d.tangent(0), d.mul(d.constant(2.0), d.result())));
     })},
    // r = tan(x): (1 + r^2) t
    {"math.tan", rule([](TangentBuilder &d) {
       return d.mul(d.add(d.constant(1.0), d.mul(d.result(), d.result())), d.tangent(0));
     })},
    // r = tanh(x): (1 - r^2) t
    {"math.tanh", rule([](TangentBuilder &d) {
       return d.mul(d.sub(d.constant(1.0), d.mul(d.result(), d.result())), d.tangent(0));
     })},
    {"math.trunc", kZero},
};

} // namespace

std::optional<Derivative> mlir::attn::lookupDerivative(StringRef opName) {
  static const llvm::StringMap<Derivative> table = [] {
    llvm::StringMap<Derivative> map;
    for (const DerivativeEntry &entry : kDerivatives)
      map[entry.opName] = entry.derivative;
    return map;
  }();
  auto it = table.find(opName);
  if (it == table.end())
    return std::nullopt;
  return it->second;
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
    // Values that do not depend on the score have a zero derivative.
    if (!dependsOnScore)
      continue;
    std::optional<Derivative> derivative =
        lookupDerivative(op.getName().getStringRef());
    if (!derivative)
      return op.emitOpError()
             << "has no derivative rule (ScoreModDerivatives.cpp); "
                "--attn-derive-backward cannot differentiate the score_mod "
                "through it";
    if (derivative->kind == DerivativeKind::NotDifferentiable)
      return op.emitOpError()
             << "is not differentiable with respect to the score; "
                "--attn-derive-backward cannot differentiate the score_mod "
                "through it";
    if (derivative->kind != DerivativeKind::Rule)
      continue; // piecewise constant, or integers: zero
    if (op.getNumResults() != 1 || !op.getResult(0).getType().isF32())
      return op.emitOpError() << "must have one f32 result to be "
                                 "differentiated in a score_mod";
    DerivativeRule rule = derivative->rule;
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
