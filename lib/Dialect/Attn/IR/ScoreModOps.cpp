//===- ScoreModOps.cpp - The ops a score_mod region may hold --------------===//
//
// The table: one row per op (per predicate for comparisons). The device
// helpers named attn::scoremod::* live in kernels-templates/attn/
// score_mod.cuh; the reference evaluates integers with APInt at their width
// and floats in double.
//
//===----------------------------------------------------------------------===//

#include "attn/Dialect/Attn/IR/ScoreModOps.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::attn;

namespace {

using V = ScoreModValue;
using In = ArrayRef<ScoreModValue>;
using llvm::APInt;

V F(double x) { return V::ofFloat(x); }
V I(APInt x) { return V::ofInt(std::move(x)); }
V B(bool x) { return V::ofInt(APInt(1, x ? 1 : 0)); }

// Division and remainder by zero: quotient 0, remainder the dividend.
APInt divsi(const APInt &a, const APInt &b) {
  return b.isZero() ? APInt(a.getBitWidth(), 0) : a.sdiv(b);
}
APInt divui(const APInt &a, const APInt &b) {
  return b.isZero() ? APInt(a.getBitWidth(), 0) : a.udiv(b);
}
APInt remsi(const APInt &a, const APInt &b) { return b.isZero() ? a : a.srem(b); }
APInt remui(const APInt &a, const APInt &b) { return b.isZero() ? a : a.urem(b); }
APInt roundingDiv(const APInt &a, const APInt &b, APInt::Rounding rounding,
                  bool isSigned) {
  if (b.isZero())
    return APInt(a.getBitWidth(), 0);
  return isSigned ? llvm::APIntOps::RoundingSDiv(a, b, rounding)
                  : llvm::APIntOps::RoundingUDiv(a, b, rounding);
}

/// The high half of the 2w-bit product.
APInt mulHigh(const APInt &a, const APInt &b, bool isSigned) {
  unsigned w = a.getBitWidth();
  APInt wide = isSigned ? a.sext(2 * w) * b.sext(2 * w)
                        : a.zext(2 * w) * b.zext(2 * w);
  return wide.lshr(w).trunc(w);
}

/// fptosi / fptoui: toward zero, saturated to the w-bit range, NaN to 0.
V floatToInt(double x, unsigned w, bool isSigned) {
  if (std::isnan(x))
    return I(APInt(w, 0));
  double t = std::trunc(x);
  if (isSigned) {
    double limit = std::ldexp(1.0, int(w) - 1); // 2^(w-1)
    if (t >= limit)
      return I(APInt::getSignedMaxValue(w));
    if (t <= -limit)
      return I(APInt::getSignedMinValue(w));
    return I(APInt(w, static_cast<uint64_t>(static_cast<int64_t>(t)), true));
  }
  if (t >= std::ldexp(1.0, int(w)))
    return I(APInt::getMaxValue(w));
  if (t <= 0)
    return I(APInt(w, 0));
  return I(APInt(w, static_cast<uint64_t>(t)));
}

float toFloat32(double x) { return static_cast<float>(x); }

V bitcast(In x, unsigned w) {
  if (w == 0) { // i32 -> f32
    uint32_t bits = static_cast<uint32_t>(x[0].i.getZExtValue());
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return F(f);
  }
  float f = toFloat32(x[0].f); // f32 -> i32
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return I(APInt(32, bits));
}

/// arith.maximumf / minimumf: NaN if either is; +0 above -0.
double maximumf(double a, double b, bool max) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 && b == 0)
    return (std::signbit(a) == max) ? b : a;
  return max ? std::max(a, b) : std::min(a, b);
}

/// Round half to even.
double roundEven(double x) {
  double r = std::round(x);
  if (std::fabs(x - std::trunc(x)) == 0.5)
    r = 2.0 * std::round(x / 2.0);
  return r;
}

bool isUnordered(In x) { return std::isnan(x[0].f) || std::isnan(x[1].f); }

// clang-format off
const ScoreModOpInfo kOps[] = {
  // Float arithmetic.
  {"arith.addf", "", "($0 + $1)", [](In x, unsigned) { return F(x[0].f + x[1].f); }},
  {"arith.subf", "", "($0 - $1)", [](In x, unsigned) { return F(x[0].f - x[1].f); }},
  {"arith.mulf", "", "($0 * $1)", [](In x, unsigned) { return F(x[0].f * x[1].f); }},
  {"arith.divf", "", "($0 / $1)", [](In x, unsigned) { return F(x[0].f / x[1].f); }},
  {"arith.remf", "", "fmodf($0, $1)", [](In x, unsigned) { return F(std::fmod(x[0].f, x[1].f)); }},
  {"arith.negf", "", "(-$0)", [](In x, unsigned) { return F(-x[0].f); }},
  {"arith.maximumf", "", "attn::scoremod::maximumf($0, $1)", [](In x, unsigned) { return F(maximumf(x[0].f, x[1].f, true)); }},
  {"arith.minimumf", "", "attn::scoremod::minimumf($0, $1)", [](In x, unsigned) { return F(maximumf(x[0].f, x[1].f, false)); }},
  {"arith.maxnumf", "", "fmaxf($0, $1)", [](In x, unsigned) { return F(std::fmax(x[0].f, x[1].f)); }},
  {"arith.minnumf", "", "fminf($0, $1)", [](In x, unsigned) { return F(std::fmin(x[0].f, x[1].f)); }},
  // f16/bf16 elements of a capture are held as float: widening is exact.
  {"arith.extf", "", "$0", [](In x, unsigned) { return F(x[0].f); }},

  // Integer arithmetic (wrapping).
  {"arith.addi", "", "attn::scoremod::addi($0, $1)", [](In x, unsigned) { return I(x[0].i + x[1].i); }},
  {"arith.subi", "", "attn::scoremod::subi($0, $1)", [](In x, unsigned) { return I(x[0].i - x[1].i); }},
  {"arith.muli", "", "attn::scoremod::muli($0, $1)", [](In x, unsigned) { return I(x[0].i * x[1].i); }},
  {"arith.divsi", "", "attn::scoremod::divsi($0, $1)", [](In x, unsigned) { return I(divsi(x[0].i, x[1].i)); }},
  {"arith.divui", "", "attn::scoremod::divui($0, $1)", [](In x, unsigned) { return I(divui(x[0].i, x[1].i)); }},
  {"arith.ceildivsi", "", "attn::scoremod::ceildivsi($0, $1)", [](In x, unsigned) { return I(roundingDiv(x[0].i, x[1].i, APInt::Rounding::UP, true)); }},
  {"arith.ceildivui", "", "attn::scoremod::ceildivui($0, $1)", [](In x, unsigned) { return I(roundingDiv(x[0].i, x[1].i, APInt::Rounding::UP, false)); }},
  {"arith.floordivsi", "", "attn::scoremod::floordivsi($0, $1)", [](In x, unsigned) { return I(roundingDiv(x[0].i, x[1].i, APInt::Rounding::DOWN, true)); }},
  {"arith.remsi", "", "attn::scoremod::remsi($0, $1)", [](In x, unsigned) { return I(remsi(x[0].i, x[1].i)); }},
  {"arith.remui", "", "attn::scoremod::remui($0, $1)", [](In x, unsigned) { return I(remui(x[0].i, x[1].i)); }},
  {"arith.andi", "", "attn::scoremod::andi($0, $1)", [](In x, unsigned) { return I(x[0].i & x[1].i); }},
  {"arith.ori", "", "attn::scoremod::ori($0, $1)", [](In x, unsigned) { return I(x[0].i | x[1].i); }},
  {"arith.xori", "", "attn::scoremod::xori($0, $1)", [](In x, unsigned) { return I(x[0].i ^ x[1].i); }},
  // APInt's shifts by an APInt saturate the (unsigned) amount at the width.
  {"arith.shli", "", "attn::scoremod::shli($0, $1)", [](In x, unsigned) { return I(x[0].i.shl(x[1].i)); }},
  {"arith.shrui", "", "attn::scoremod::shrui($0, $1)", [](In x, unsigned) { return I(x[0].i.lshr(x[1].i)); }},
  {"arith.shrsi", "", "attn::scoremod::shrsi($0, $1)", [](In x, unsigned) { return I(x[0].i.ashr(x[1].i)); }},
  {"arith.maxsi", "", "attn::scoremod::maxsi($0, $1)", [](In x, unsigned) { return I(llvm::APIntOps::smax(x[0].i, x[1].i)); }},
  {"arith.minsi", "", "attn::scoremod::minsi($0, $1)", [](In x, unsigned) { return I(llvm::APIntOps::smin(x[0].i, x[1].i)); }},
  {"arith.maxui", "", "attn::scoremod::maxui($0, $1)", [](In x, unsigned) { return I(llvm::APIntOps::umax(x[0].i, x[1].i)); }},
  {"arith.minui", "", "attn::scoremod::minui($0, $1)", [](In x, unsigned) { return I(llvm::APIntOps::umin(x[0].i, x[1].i)); }},
  {"arith.addui_extended", "", "attn::scoremod::addi($0, $1)", [](In x, unsigned) { return I(x[0].i + x[1].i); },
   "attn::scoremod::addui_carry($0, $1)", [](In x, unsigned) { return B((x[0].i + x[1].i).ult(x[0].i)); }},
  {"arith.mulsi_extended", "", "attn::scoremod::muli($0, $1)", [](In x, unsigned) { return I(x[0].i * x[1].i); },
   "attn::scoremod::mulsi_high($0, $1)", [](In x, unsigned) { return I(mulHigh(x[0].i, x[1].i, true)); }},
  {"arith.mului_extended", "", "attn::scoremod::muli($0, $1)", [](In x, unsigned) { return I(x[0].i * x[1].i); },
   "attn::scoremod::mului_high($0, $1)", [](In x, unsigned) { return I(mulHigh(x[0].i, x[1].i, false)); }},

  // Integer comparisons.
  {"arith.cmpi", "eq", "($0 == $1)", [](In x, unsigned) { return B(x[0].i.eq(x[1].i)); }},
  {"arith.cmpi", "ne", "($0 != $1)", [](In x, unsigned) { return B(x[0].i.ne(x[1].i)); }},
  {"arith.cmpi", "slt", "attn::scoremod::slt($0, $1)", [](In x, unsigned) { return B(x[0].i.slt(x[1].i)); }},
  {"arith.cmpi", "sle", "!attn::scoremod::slt($1, $0)", [](In x, unsigned) { return B(x[0].i.sle(x[1].i)); }},
  {"arith.cmpi", "sgt", "attn::scoremod::slt($1, $0)", [](In x, unsigned) { return B(x[0].i.sgt(x[1].i)); }},
  {"arith.cmpi", "sge", "!attn::scoremod::slt($0, $1)", [](In x, unsigned) { return B(x[0].i.sge(x[1].i)); }},
  {"arith.cmpi", "ult", "attn::scoremod::ult($0, $1)", [](In x, unsigned) { return B(x[0].i.ult(x[1].i)); }},
  {"arith.cmpi", "ule", "!attn::scoremod::ult($1, $0)", [](In x, unsigned) { return B(x[0].i.ule(x[1].i)); }},
  {"arith.cmpi", "ugt", "attn::scoremod::ult($1, $0)", [](In x, unsigned) { return B(x[0].i.ugt(x[1].i)); }},
  {"arith.cmpi", "uge", "!attn::scoremod::ult($0, $1)", [](In x, unsigned) { return B(x[0].i.uge(x[1].i)); }},

  // Float comparisons: ordered ones are false on NaN, unordered ones true.
  {"arith.cmpf", "false", "false", [](In, unsigned) { return B(false); }},
  {"arith.cmpf", "oeq", "($0 == $1)", [](In x, unsigned) { return B(x[0].f == x[1].f); }},
  {"arith.cmpf", "ogt", "($0 > $1)", [](In x, unsigned) { return B(x[0].f > x[1].f); }},
  {"arith.cmpf", "oge", "($0 >= $1)", [](In x, unsigned) { return B(x[0].f >= x[1].f); }},
  {"arith.cmpf", "olt", "($0 < $1)", [](In x, unsigned) { return B(x[0].f < x[1].f); }},
  {"arith.cmpf", "ole", "($0 <= $1)", [](In x, unsigned) { return B(x[0].f <= x[1].f); }},
  {"arith.cmpf", "one", "($0 < $1 || $0 > $1)", [](In x, unsigned) { return B(x[0].f < x[1].f || x[0].f > x[1].f); }},
  {"arith.cmpf", "ord", "($0 == $0 && $1 == $1)", [](In x, unsigned) { return B(!isUnordered(x)); }},
  {"arith.cmpf", "ueq", "!($0 < $1 || $0 > $1)", [](In x, unsigned) { return B(isUnordered(x) || x[0].f == x[1].f); }},
  {"arith.cmpf", "ugt", "!($0 <= $1)", [](In x, unsigned) { return B(isUnordered(x) || x[0].f > x[1].f); }},
  {"arith.cmpf", "uge", "!($0 < $1)", [](In x, unsigned) { return B(isUnordered(x) || x[0].f >= x[1].f); }},
  {"arith.cmpf", "ult", "!($0 >= $1)", [](In x, unsigned) { return B(isUnordered(x) || x[0].f < x[1].f); }},
  {"arith.cmpf", "ule", "!($0 > $1)", [](In x, unsigned) { return B(isUnordered(x) || x[0].f <= x[1].f); }},
  {"arith.cmpf", "une", "($0 != $1)", [](In x, unsigned) { return B(isUnordered(x) || x[0].f != x[1].f); }},
  {"arith.cmpf", "uno", "($0 != $0 || $1 != $1)", [](In x, unsigned) { return B(isUnordered(x)); }},
  {"arith.cmpf", "true", "true", [](In, unsigned) { return B(true); }},

  {"arith.select", "", "($0 ? $1 : $2)", [](In x, unsigned) { return x[0].i.getBoolValue() ? x[1] : x[2]; }},

  // Casts. Sign-extending and truncating are one helper (a truncation of
  // the sign extension is the truncation), zero-extending likewise.
  {"arith.extsi", "", "attn::scoremod::castsi<$T>($0)", [](In x, unsigned w) { return I(x[0].i.sext(w)); }},
  {"arith.extui", "", "attn::scoremod::castui<$T>($0)", [](In x, unsigned w) { return I(x[0].i.zext(w)); }},
  {"arith.trunci", "", "attn::scoremod::castui<$T>($0)", [](In x, unsigned w) { return I(x[0].i.trunc(w)); }},
  {"arith.index_cast", "", "attn::scoremod::castsi<$T>($0)", [](In x, unsigned w) { return I(x[0].i.sextOrTrunc(w)); }},
  {"arith.index_castui", "", "attn::scoremod::castui<$T>($0)", [](In x, unsigned w) { return I(x[0].i.zextOrTrunc(w)); }},
  {"arith.sitofp", "", "attn::scoremod::sitofp($0)", [](In x, unsigned) { return F(x[0].i.signedRoundToDouble()); }},
  {"arith.uitofp", "", "attn::scoremod::uitofp($0)", [](In x, unsigned) { return F(x[0].i.roundToDouble()); }},
  {"arith.fptosi", "", "attn::scoremod::fptosi<$T>($0)", [](In x, unsigned w) { return floatToInt(x[0].f, w, true); }},
  {"arith.fptoui", "", "attn::scoremod::fptoui<$T>($0)", [](In x, unsigned w) { return floatToInt(x[0].f, w, false); }},
  {"arith.bitcast", "", "attn::scoremod::bitcast<$T>($0)", [](In x, unsigned w) { return bitcast(x, w); }},

  // math on f32: CUDA's functions of the same name.
  {"math.absf", "", "fabsf($0)", [](In x, unsigned) { return F(std::fabs(x[0].f)); }},
  {"math.acos", "", "acosf($0)", [](In x, unsigned) { return F(std::acos(x[0].f)); }},
  {"math.acosh", "", "acoshf($0)", [](In x, unsigned) { return F(std::acosh(x[0].f)); }},
  {"math.asin", "", "asinf($0)", [](In x, unsigned) { return F(std::asin(x[0].f)); }},
  {"math.asinh", "", "asinhf($0)", [](In x, unsigned) { return F(std::asinh(x[0].f)); }},
  {"math.atan", "", "atanf($0)", [](In x, unsigned) { return F(std::atan(x[0].f)); }},
  {"math.atanh", "", "atanhf($0)", [](In x, unsigned) { return F(std::atanh(x[0].f)); }},
  {"math.atan2", "", "atan2f($0, $1)", [](In x, unsigned) { return F(std::atan2(x[0].f, x[1].f)); }},
  {"math.cbrt", "", "cbrtf($0)", [](In x, unsigned) { return F(std::cbrt(x[0].f)); }},
  {"math.ceil", "", "ceilf($0)", [](In x, unsigned) { return F(std::ceil(x[0].f)); }},
  {"math.copysign", "", "copysignf($0, $1)", [](In x, unsigned) { return F(std::copysign(x[0].f, x[1].f)); }},
  {"math.cos", "", "cosf($0)", [](In x, unsigned) { return F(std::cos(x[0].f)); }},
  {"math.cosh", "", "coshf($0)", [](In x, unsigned) { return F(std::cosh(x[0].f)); }},
  {"math.erf", "", "erff($0)", [](In x, unsigned) { return F(std::erf(x[0].f)); }},
  {"math.erfc", "", "erfcf($0)", [](In x, unsigned) { return F(std::erfc(x[0].f)); }},
  {"math.exp", "", "expf($0)", [](In x, unsigned) { return F(std::exp(x[0].f)); }},
  {"math.exp2", "", "exp2f($0)", [](In x, unsigned) { return F(std::exp2(x[0].f)); }},
  {"math.expm1", "", "expm1f($0)", [](In x, unsigned) { return F(std::expm1(x[0].f)); }},
  {"math.floor", "", "floorf($0)", [](In x, unsigned) { return F(std::floor(x[0].f)); }},
  {"math.fma", "", "fmaf($0, $1, $2)", [](In x, unsigned) { return F(std::fma(x[0].f, x[1].f, x[2].f)); }},
  {"math.log", "", "logf($0)", [](In x, unsigned) { return F(std::log(x[0].f)); }},
  {"math.log10", "", "log10f($0)", [](In x, unsigned) { return F(std::log10(x[0].f)); }},
  {"math.log1p", "", "log1pf($0)", [](In x, unsigned) { return F(std::log1p(x[0].f)); }},
  {"math.log2", "", "log2f($0)", [](In x, unsigned) { return F(std::log2(x[0].f)); }},
  {"math.powf", "", "powf($0, $1)", [](In x, unsigned) { return F(std::pow(x[0].f, x[1].f)); }},
  {"math.round", "", "roundf($0)", [](In x, unsigned) { return F(std::round(x[0].f)); }},
  {"math.roundeven", "", "rintf($0)", [](In x, unsigned) { return F(roundEven(x[0].f)); }},
  {"math.rsqrt", "", "rsqrtf($0)", [](In x, unsigned) { return F(1.0 / std::sqrt(x[0].f)); }},
  {"math.sin", "", "sinf($0)", [](In x, unsigned) { return F(std::sin(x[0].f)); }},
  {"math.sinh", "", "sinhf($0)", [](In x, unsigned) { return F(std::sinh(x[0].f)); }},
  {"math.sqrt", "", "sqrtf($0)", [](In x, unsigned) { return F(std::sqrt(x[0].f)); }},
  {"math.tan", "", "tanf($0)", [](In x, unsigned) { return F(std::tan(x[0].f)); }},
  {"math.tanh", "", "tanhf($0)", [](In x, unsigned) { return F(std::tanh(x[0].f)); }},
  {"math.trunc", "", "truncf($0)", [](In x, unsigned) { return F(std::trunc(x[0].f)); }},
  // Classification, of the value as an f32.
  {"math.isnan", "", "attn::scoremod::isNaN($0)", [](In x, unsigned) { return B(std::isnan(x[0].f)); }},
  {"math.isinf", "", "attn::scoremod::isInf($0)", [](In x, unsigned) { return B(std::isinf(toFloat32(x[0].f))); }},
  {"math.isfinite", "", "attn::scoremod::isFinite($0)", [](In x, unsigned) { return B(std::isfinite(toFloat32(x[0].f))); }},
  {"math.isnormal", "", "attn::scoremod::isNormal($0)", [](In x, unsigned) { return B(std::isnormal(toFloat32(x[0].f))); }},
  // math on integers.
  {"math.absi", "", "attn::scoremod::absi($0)", [](In x, unsigned) { return I(x[0].i.abs()); }},
  {"math.ctlz", "", "attn::scoremod::ctlz($0)", [](In x, unsigned w) { return I(APInt(w, x[0].i.countl_zero())); }},
  {"math.cttz", "", "attn::scoremod::cttz($0)", [](In x, unsigned w) { return I(APInt(w, x[0].i.countr_zero())); }},
  {"math.ctpop", "", "attn::scoremod::ctpop($0)", [](In x, unsigned w) { return I(APInt(w, x[0].i.popcount())); }},
};
// clang-format on

/// "arith.cmpi" + "ult" -> row, built once.
const llvm::StringMap<const ScoreModOpInfo *> &rowsByKey() {
  static const llvm::StringMap<const ScoreModOpInfo *> rows = [] {
    llvm::StringMap<const ScoreModOpInfo *> map;
    for (const ScoreModOpInfo &row : kOps)
      map[(row.name + ":" + row.predicate).str()] = &row;
    return map;
  }();
  return rows;
}

bool isHalfType(Type type) { return type.isF16() || type.isBF16(); }

} // namespace

ArrayRef<ScoreModOpInfo> mlir::attn::scoreModOps() { return kOps; }

const ScoreModOpInfo *mlir::attn::lookupScoreModOp(Operation *op) {
  StringRef predicate;
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    predicate = arith::stringifyCmpIPredicate(cmp.getPredicate());
  else if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    predicate = arith::stringifyCmpFPredicate(cmp.getPredicate());
  return lookupScoreModOp(op->getName().getStringRef(), predicate);
}

const ScoreModOpInfo *mlir::attn::lookupScoreModOp(StringRef name,
                                                   StringRef predicate) {
  return rowsByKey().lookup((name + ":" + predicate).str());
}

bool mlir::attn::isScoreModScalarType(Type type) {
  return type.isF32() || type.isIndex() || type.isSignlessInteger(1) ||
         type.isSignlessInteger(32) || type.isSignlessInteger(64);
}

bool mlir::attn::isScoreModCaptureElementType(Type type) {
  return type.isF32() || isHalfType(type) || type.isSignlessInteger(1) ||
         type.isSignlessInteger(32) || type.isSignlessInteger(64);
}

unsigned mlir::attn::scoreModBitWidth(Type type) {
  if (type.isIndex())
    return 64;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth();
  return 0;
}

LogicalResult mlir::attn::verifyScoreModOps(Region &body) {
  if (body.empty())
    return success();
  Block &block = body.front();
  auto isCapture = [&](Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getOwner() == &block && arg.getArgNumber() >= 5;
  };
  for (Operation &op : block) {
    auto extract = dyn_cast<tensor::ExtractOp>(op);
    if (extract && !isCapture(extract.getTensor()))
      return op.emitOpError() << "in a score_mod must read one of its "
                                 "captures (block arguments 5 and on)";
    for (Value operand : op.getOperands()) {
      if (isCapture(operand)) {
        if (!extract)
          return op.emitOpError() << "uses a captured tensor of the "
                                     "score_mod; only tensor.extract may "
                                     "read one";
        continue;
      }
      if (operand.getParentRegion() == &body)
        continue;
      Operation *def = operand.getDefiningOp();
      if (!isa_and_nonnull<arith::ConstantOp>(def) ||
          !isScoreModScalarType(operand.getType()))
        return op.emitOpError()
               << "uses a value defined outside the score_mod region that is "
                  "not a scalar arith.constant";
    }
    if (op.hasTrait<OpTrait::IsTerminator>() || extract)
      continue; // the body verifier checks the attn.yield
    if (isa<arith::ConstantOp>(op)) {
      if (!isScoreModScalarType(op.getResult(0).getType()))
        return op.emitOpError() << "in a score_mod must be a scalar of i1, "
                                   "i32, i64, index or f32, got "
                                << op.getResult(0).getType();
      continue;
    }
    if (!lookupScoreModOp(&op))
      return op.emitOpError()
             << "is not supported in a score_mod (it holds the arith ops on "
                "i1, i32, i64, index and f32 and the math ops that CUDA has; "
                "see ScoreModOps.h)";
    // Elements of f16 and bf16 captures are widened before use.
    for (Value operand : op.getOperands())
      if (!isScoreModScalarType(operand.getType()) &&
          !(isa<arith::ExtFOp>(op) && isHalfType(operand.getType())))
        return op.emitOpError() << "computes on " << operand.getType()
                                << "; a score_mod computes on i1, i32, i64, "
                                   "index and f32";
    for (Type type : op.getResultTypes())
      if (!isScoreModScalarType(type))
        return op.emitOpError() << "computes on " << type
                                << "; a score_mod computes on i1, i32, i64, "
                                   "index and f32";
  }
  return success();
}

ScoreModValue mlir::attn::evaluateScoreModConstant(Operation *constant) {
  Attribute value = cast<arith::ConstantOp>(constant).getValue();
  if (auto f = dyn_cast<FloatAttr>(value))
    return F(f.getValueAsDouble());
  APInt bits = cast<IntegerAttr>(value).getValue();
  // Index attributes carry 64 bits already; keep the type's width.
  unsigned width = scoreModBitWidth(constant->getResult(0).getType());
  return I(bits.sextOrTrunc(width));
}

std::string mlir::attn::expandScoreModDevice(StringRef pattern,
                                             ArrayRef<std::string> operands,
                                             StringRef resultType) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '$' && i + 1 < pattern.size()) {
      char next = pattern[i + 1];
      if (next == 'T') {
        out += resultType.str();
        ++i;
        continue;
      }
      if (next >= '0' && next <= '9' &&
          static_cast<size_t>(next - '0') < operands.size()) {
        out += operands[next - '0'];
        ++i;
        continue;
      }
    }
    out += c;
  }
  return out;
}
