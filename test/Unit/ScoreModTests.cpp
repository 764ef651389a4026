//===- ScoreModTests.cpp - The score_mod op table -------------------------===//
//
// Every row of the table (ScoreModOps.h) evaluated through the float64
// reference against a value written out by hand, the semantics MLIR leaves
// undefined among them; the device helpers (kernels-templates/attn/
// score_mod.cuh, compiled here for the host) against the reference on edge
// values; and score_mod captures in the reference.
//
//===----------------------------------------------------------------------===//

#include "attn/API/CompileModule.h"
#include "attn/Dialect/Attn/IR/ScoreModOps.h"
#include "attn/Reference/Reference.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#define ATTN_SCOREMOD_HOST
#include "attn/score_mod.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

using namespace mlir::attn;
using namespace mlir::attn::reference;

namespace {

/// One evaluation: `body` defines %r of `type` from the constants below;
/// the test's function yields %r as f32 (i1 as 1 or 0, integers exactly).
struct Case {
  const char *key; ///< the row: "arith.divsi", or "arith.cmpi:ult"
  const char *type;
  const char *body;
  double expected; ///< NaN: the result must be NaN
};

// Constants every case may use: %i32_7 is 7 : i32, %i32_m7 is -7, %f_m2_75
// is -2.75 : f32, ... and two captures: %cap_bf16 = [1.5, -2, 0.25] and
// %cap_i32 = [[1, 2, 3], [4, 5, 6]].
const char *kPrelude = R"(
    %i1_0 = arith.constant false
    %i1_1 = arith.constant true
    %i32_0 = arith.constant 0 : i32
    %i32_1 = arith.constant 1 : i32
    %i32_2 = arith.constant 2 : i32
    %i32_3 = arith.constant 3 : i32
    %i32_7 = arith.constant 7 : i32
    %i32_8 = arith.constant 8 : i32
    %i32_10 = arith.constant 10 : i32
    %i32_28 = arith.constant 28 : i32
    %i32_33 = arith.constant 33 : i32
    %i32_40 = arith.constant 40 : i32
    %i32_255 = arith.constant 255 : i32
    %i32_m1 = arith.constant -1 : i32
    %i32_m2 = arith.constant -2 : i32
    %i32_m7 = arith.constant -7 : i32
    %i32_m8 = arith.constant -8 : i32
    %i32_min = arith.constant -2147483648 : i32
    %i32_max = arith.constant 2147483647 : i32
    %i64_1 = arith.constant 1 : i64
    %i64_40 = arith.constant 40 : i64
    %i64_m7 = arith.constant -7 : i64
    %i64_big = arith.constant 1099511627783 : i64
    %i64_min = arith.constant -9223372036854775808 : i64
    %idx_1 = arith.constant 1 : index
    %idx_7 = arith.constant 7 : index
    %idx_9 = arith.constant 9 : index
    %idx_m1 = arith.constant -1 : index
    %idx_m7 = arith.constant -7 : index
    %f_0 = arith.constant 0.0 : f32
    %f_m0 = arith.constant -0.0 : f32
    %f_0_25 = arith.constant 0.25 : f32
    %f_0_5 = arith.constant 0.5 : f32
    %f_1 = arith.constant 1.0 : f32
    %f_m1 = arith.constant -1.0 : f32
    %f_2 = arith.constant 2.0 : f32
    %f_2_5 = arith.constant 2.5 : f32
    %f_m2_75 = arith.constant -2.75 : f32
    %f_3_5 = arith.constant 3.5 : f32
    %f_8 = arith.constant 8.0 : f32
    %f_1e10 = arith.constant 1.0e10 : f32
    %f_m1e10 = arith.constant -1.0e10 : f32
    %f_nan = arith.constant 0x7FC00000 : f32
    %f_inf = arith.constant 0x7F800000 : f32
    %f_1065353216 = arith.constant 1065353216 : i32
)";

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// clang-format off
const Case kCases[] = {
  // Float arithmetic.
  {"arith.addf", "f32", "%r = arith.addf %f_0_5, %f_2 : f32", 2.5},
  {"arith.subf", "f32", "%r = arith.subf %f_0_5, %f_2 : f32", -1.5},
  {"arith.mulf", "f32", "%r = arith.mulf %f_0_5, %f_2 : f32", 1.0},
  {"arith.divf", "f32", "%r = arith.divf %f_0_5, %f_2 : f32", 0.25},
  {"arith.divf", "f32", "%r = arith.divf %f_1, %f_0 : f32", kInf},
  {"arith.remf", "f32", "%r = arith.remf %f_m2_75, %f_2 : f32", -0.75},
  {"arith.negf", "f32", "%r = arith.negf %f_0_5 : f32", -0.5},
  {"arith.maximumf", "f32", "%r = arith.maximumf %f_0_5, %f_2 : f32", 2.0},
  {"arith.maximumf", "f32", "%r = arith.maximumf %f_nan, %f_1 : f32", kNaN},
  {"arith.maximumf", "f32", "%m = arith.maximumf %f_m0, %f_0 : f32\n %r = math.copysign %f_1, %m : f32", 1.0},
  {"arith.minimumf", "f32", "%r = arith.minimumf %f_1, %f_nan : f32", kNaN},
  {"arith.minimumf", "f32", "%m = arith.minimumf %f_0, %f_m0 : f32\n %r = math.copysign %f_1, %m : f32", -1.0},
  {"arith.maxnumf", "f32", "%r = arith.maxnumf %f_nan, %f_1 : f32", 1.0},
  {"arith.minnumf", "f32", "%r = arith.minnumf %f_2, %f_nan : f32", 2.0},
  {"arith.extf", "f32", "%e = tensor.extract %cap_bf16[%idx_1] : tensor<3xbf16>\n %r = arith.extf %e : bf16 to f32", -2.0},

  // Integer arithmetic wraps; i1 is mod 2.
  {"arith.addi", "i32", "%r = arith.addi %i32_max, %i32_1 : i32", -2147483648.0},
  {"arith.addi", "i1", "%r = arith.addi %i1_1, %i1_1 : i1", 0},
  {"arith.subi", "i32", "%r = arith.subi %i32_min, %i32_1 : i32", 2147483647.0},
  {"arith.subi", "i1", "%r = arith.subi %i1_0, %i1_1 : i1", 1},
  {"arith.muli", "i32", "%r = arith.muli %i32_max, %i32_2 : i32", -2},
  {"arith.muli", "i1", "%r = arith.muli %i1_1, %i1_1 : i1", 1},
  // Division: x / 0 is 0, MIN / -1 wraps; i1 true is -1.
  {"arith.divsi", "i32", "%r = arith.divsi %i32_m7, %i32_2 : i32", -3},
  {"arith.divsi", "i32", "%r = arith.divsi %i32_7, %i32_0 : i32", 0},
  {"arith.divsi", "i32", "%r = arith.divsi %i32_min, %i32_m1 : i32", -2147483648.0},
  {"arith.divsi", "i1", "%r = arith.divsi %i1_1, %i1_1 : i1", 1},
  {"arith.divui", "i32", "%r = arith.divui %i32_m1, %i32_2 : i32", 2147483647.0},
  {"arith.divui", "i32", "%r = arith.divui %i32_7, %i32_0 : i32", 0},
  {"arith.ceildivsi", "i32", "%r = arith.ceildivsi %i32_m7, %i32_2 : i32", -3},
  {"arith.ceildivsi", "i32", "%r = arith.ceildivsi %i32_7, %i32_2 : i32", 4},
  {"arith.ceildivsi", "i32", "%r = arith.ceildivsi %i32_7, %i32_0 : i32", 0},
  {"arith.ceildivsi", "i32", "%r = arith.ceildivsi %i32_min, %i32_m1 : i32", -2147483648.0},
  {"arith.ceildivui", "i32", "%r = arith.ceildivui %i32_7, %i32_2 : i32", 4},
  {"arith.ceildivui", "i32", "%r = arith.ceildivui %i32_m1, %i32_2 : i32", -2147483648.0},
  {"arith.ceildivui", "i32", "%r = arith.ceildivui %i32_7, %i32_0 : i32", 0},
  {"arith.floordivsi", "i32", "%r = arith.floordivsi %i32_m7, %i32_2 : i32", -4},
  {"arith.floordivsi", "i32", "%r = arith.floordivsi %i32_7, %i32_2 : i32", 3},
  {"arith.floordivsi", "i32", "%r = arith.floordivsi %i32_7, %i32_0 : i32", 0},
  // Remainder: x % 0 is x.
  {"arith.remsi", "i32", "%r = arith.remsi %i32_m7, %i32_2 : i32", -1},
  {"arith.remsi", "i32", "%r = arith.remsi %i32_7, %i32_0 : i32", 7},
  {"arith.remsi", "i32", "%r = arith.remsi %i32_min, %i32_m1 : i32", 0},
  {"arith.remui", "i32", "%r = arith.remui %i32_m1, %i32_10 : i32", 5},
  {"arith.remui", "i32", "%r = arith.remui %i32_7, %i32_0 : i32", 7},
  {"arith.remui", "index", "%r = arith.remui %idx_7, %idx_m1 : index", 7},
  {"arith.andi", "i32", "%r = arith.andi %i32_255, %i32_m8 : i32", 248},
  {"arith.ori", "i32", "%r = arith.ori %i32_8, %i32_7 : i32", 15},
  {"arith.xori", "i32", "%r = arith.xori %i32_m1, %i32_255 : i32", -256},
  // Shifts by the width or more saturate (the amount is unsigned).
  {"arith.shli", "i32", "%r = arith.shli %i32_1, %i32_3 : i32", 8},
  {"arith.shli", "i32", "%r = arith.shli %i32_1, %i32_33 : i32", 0},
  {"arith.shli", "i32", "%r = arith.shli %i32_1, %i32_m1 : i32", 0},
  {"arith.shli", "i64", "%r = arith.shli %i64_1, %i64_40 : i64", 1099511627776.0},
  {"arith.shrsi", "i32", "%r = arith.shrsi %i32_m8, %i32_1 : i32", -4},
  {"arith.shrsi", "i32", "%r = arith.shrsi %i32_m8, %i32_40 : i32", -1},
  {"arith.shrsi", "i32", "%r = arith.shrsi %i32_8, %i32_40 : i32", 0},
  {"arith.shrui", "i32", "%r = arith.shrui %i32_m8, %i32_28 : i32", 15},
  {"arith.shrui", "i32", "%r = arith.shrui %i32_m8, %i32_33 : i32", 0},
  {"arith.maxsi", "i32", "%r = arith.maxsi %i32_m1, %i32_1 : i32", 1},
  {"arith.maxsi", "i1", "%r = arith.maxsi %i1_1, %i1_0 : i1", 0},
  {"arith.minsi", "i32", "%r = arith.minsi %i32_m1, %i32_1 : i32", -1},
  {"arith.maxui", "i32", "%r = arith.maxui %i32_m1, %i32_1 : i32", -1},
  {"arith.maxui", "i1", "%r = arith.maxui %i1_1, %i1_0 : i1", 1},
  {"arith.minui", "i32", "%r = arith.minui %i32_m1, %i32_1 : i32", 1},
  {"arith.addui_extended", "i32", "%r, %c = arith.addui_extended %i32_m1, %i32_2 : i32, i1", 1},
  {"arith.addui_extended", "i1", "%sum, %r = arith.addui_extended %i32_m1, %i32_1 : i32, i1", 1},
  {"arith.addui_extended", "i1", "%sum, %r = arith.addui_extended %i32_1, %i32_2 : i32, i1", 0},
  {"arith.mulsi_extended", "i32", "%r, %high = arith.mulsi_extended %i32_m2, %i32_3 : i32", -6},
  {"arith.mulsi_extended", "i32", "%l, %r = arith.mulsi_extended %i32_m2, %i32_3 : i32", -1},
  {"arith.mulsi_extended", "i32", "%l, %r = arith.mulsi_extended %i32_max, %i32_max : i32", 1073741823},
  {"arith.mului_extended", "i32", "%l, %r = arith.mului_extended %i32_m1, %i32_2 : i32", 1},
  {"arith.mului_extended", "i32", "%r, %high = arith.mului_extended %i32_m1, %i32_2 : i32", -2},

  // Comparisons of -1 and 1: signed and unsigned disagree.
  {"arith.cmpi:eq", "i1", "%r = arith.cmpi eq, %i32_7, %i32_7 : i32", 1},
  {"arith.cmpi:ne", "i1", "%r = arith.cmpi ne, %i32_m1, %i32_1 : i32", 1},
  {"arith.cmpi:slt", "i1", "%r = arith.cmpi slt, %i32_m1, %i32_1 : i32", 1},
  {"arith.cmpi:slt", "i1", "%r = arith.cmpi slt, %i1_1, %i1_0 : i1", 1},
  {"arith.cmpi:sle", "i1", "%r = arith.cmpi sle, %i32_m1, %i32_1 : i32", 1},
  {"arith.cmpi:sgt", "i1", "%r = arith.cmpi sgt, %i32_m1, %i32_1 : i32", 0},
  {"arith.cmpi:sge", "i1", "%r = arith.cmpi sge, %i32_m1, %i32_1 : i32", 0},
  {"arith.cmpi:ult", "i1", "%r = arith.cmpi ult, %i32_m1, %i32_1 : i32", 0},
  {"arith.cmpi:ule", "i1", "%r = arith.cmpi ule, %i32_m1, %i32_1 : i32", 0},
  {"arith.cmpi:ugt", "i1", "%r = arith.cmpi ugt, %i32_m1, %i32_1 : i32", 1},
  {"arith.cmpi:uge", "i1", "%r = arith.cmpi uge, %i32_m1, %i32_1 : i32", 1},
  {"arith.cmpi:uge", "i1", "%r = arith.cmpi uge, %idx_m1, %idx_7 : index", 1},
  {"arith.cmpf:false", "i1", "%r = arith.cmpf false, %f_1, %f_1 : f32", 0},
  {"arith.cmpf:oeq", "i1", "%r = arith.cmpf oeq, %f_0_5, %f_0_5 : f32", 1},
  {"arith.cmpf:ogt", "i1", "%r = arith.cmpf ogt, %f_2, %f_0_5 : f32", 1},
  {"arith.cmpf:oge", "i1", "%r = arith.cmpf oge, %f_nan, %f_1 : f32", 0},
  {"arith.cmpf:olt", "i1", "%r = arith.cmpf olt, %f_0_5, %f_2 : f32", 1},
  {"arith.cmpf:ole", "i1", "%r = arith.cmpf ole, %f_nan, %f_1 : f32", 0},
  {"arith.cmpf:one", "i1", "%r = arith.cmpf one, %f_nan, %f_1 : f32", 0},
  {"arith.cmpf:one", "i1", "%r = arith.cmpf one, %f_0_5, %f_1 : f32", 1},
  {"arith.cmpf:ord", "i1", "%r = arith.cmpf ord, %f_nan, %f_1 : f32", 0},
  {"arith.cmpf:ueq", "i1", "%r = arith.cmpf ueq, %f_nan, %f_1 : f32", 1},
  {"arith.cmpf:ugt", "i1", "%r = arith.cmpf ugt, %f_nan, %f_1 : f32", 1},
  {"arith.cmpf:uge", "i1", "%r = arith.cmpf uge, %f_0_5, %f_2 : f32", 0},
  {"arith.cmpf:ult", "i1", "%r = arith.cmpf ult, %f_nan, %f_1 : f32", 1},
  {"arith.cmpf:ule", "i1", "%r = arith.cmpf ule, %f_2, %f_0_5 : f32", 0},
  {"arith.cmpf:une", "i1", "%r = arith.cmpf une, %f_0_5, %f_0_5 : f32", 0},
  {"arith.cmpf:uno", "i1", "%r = arith.cmpf uno, %f_nan, %f_1 : f32", 1},
  {"arith.cmpf:true", "i1", "%r = arith.cmpf true, %f_nan, %f_1 : f32", 1},
  {"arith.select", "f32", "%r = arith.select %i1_1, %f_0_5, %f_2 : f32", 0.5},
  {"arith.select", "i32", "%r = arith.select %i1_0, %i32_7, %i32_m7 : i32", -7},

  // Casts: a true i1 is -1 when signed.
  {"arith.extsi", "i32", "%r = arith.extsi %i1_1 : i1 to i32", -1},
  {"arith.extsi", "i64", "%r = arith.extsi %i32_m7 : i32 to i64", -7},
  {"arith.extui", "i32", "%r = arith.extui %i1_1 : i1 to i32", 1},
  {"arith.extui", "i64", "%r = arith.extui %i32_m1 : i32 to i64", 4294967295.0},
  {"arith.trunci", "i32", "%r = arith.trunci %i64_big : i64 to i32", 7},
  {"arith.trunci", "i1", "%r = arith.trunci %i32_255 : i32 to i1", 1},
  {"arith.trunci", "i1", "%r = arith.trunci %i32_m8 : i32 to i1", 0},
  {"arith.index_cast", "i32", "%r = arith.index_cast %idx_m7 : index to i32", -7},
  {"arith.index_cast", "index", "%r = arith.index_cast %i32_m1 : i32 to index", -1},
  {"arith.index_cast", "index", "%r = arith.index_cast %i1_1 : i1 to index", -1},
  {"arith.index_castui", "index", "%r = arith.index_castui %i32_m1 : i32 to index", 4294967295.0},
  {"arith.index_castui", "index", "%r = arith.index_castui %i1_1 : i1 to index", 1},
  {"arith.sitofp", "f32", "%r = arith.sitofp %i1_1 : i1 to f32", -1.0},
  {"arith.sitofp", "f32", "%r = arith.sitofp %i32_m7 : i32 to f32", -7.0},
  {"arith.sitofp", "f32", "%r = arith.sitofp %i64_min : i64 to f32", -9223372036854775808.0},
  {"arith.uitofp", "f32", "%r = arith.uitofp %i1_1 : i1 to f32", 1.0},
  {"arith.uitofp", "f32", "%r = arith.uitofp %i32_m1 : i32 to f32", 4294967295.0},
  // Float to integer saturates; NaN is 0.
  {"arith.fptosi", "i32", "%r = arith.fptosi %f_m2_75 : f32 to i32", -2},
  {"arith.fptosi", "i32", "%r = arith.fptosi %f_1e10 : f32 to i32", 2147483647.0},
  {"arith.fptosi", "i32", "%r = arith.fptosi %f_m1e10 : f32 to i32", -2147483648.0},
  {"arith.fptosi", "i32", "%r = arith.fptosi %f_nan : f32 to i32", 0},
  {"arith.fptosi", "i64", "%r = arith.fptosi %f_1e10 : f32 to i64", 1.0e10},
  {"arith.fptosi", "i1", "%r = arith.fptosi %f_m1 : f32 to i1", 1},
  {"arith.fptosi", "i1", "%r = arith.fptosi %f_1 : f32 to i1", 0},
  {"arith.fptoui", "i32", "%r = arith.fptoui %f_3_5 : f32 to i32", 3},
  {"arith.fptoui", "i32", "%r = arith.fptoui %f_m2_75 : f32 to i32", 0},
  {"arith.fptoui", "i64", "%u = arith.fptoui %f_1e10 : f32 to i32\n %r = arith.extui %u : i32 to i64", 4294967295.0},
  {"arith.fptoui", "i32", "%r = arith.fptoui %f_nan : f32 to i32", 0},
  {"arith.bitcast", "i32", "%r = arith.bitcast %f_1 : f32 to i32", 1065353216},
  {"arith.bitcast", "f32", "%r = arith.bitcast %f_1065353216 : i32 to f32", 1.0},

  // math on f32.
  {"math.absf", "f32", "%r = math.absf %f_m2_75 : f32", 2.75},
  {"math.acos", "f32", "%r = math.acos %f_0_5 : f32", 1.0471975511965979},
  {"math.acosh", "f32", "%r = math.acosh %f_2 : f32", 1.3169578969248166},
  {"math.asin", "f32", "%r = math.asin %f_0_5 : f32", 0.5235987755982989},
  {"math.asinh", "f32", "%r = math.asinh %f_0_5 : f32", 0.48121182505960347},
  {"math.atan", "f32", "%r = math.atan %f_0_5 : f32", 0.4636476090008061},
  {"math.atanh", "f32", "%r = math.atanh %f_0_5 : f32", 0.5493061443340548},
  {"math.atan2", "f32", "%r = math.atan2 %f_0_5, %f_2 : f32", 0.24497866312686414},
  {"math.cbrt", "f32", "%r = math.cbrt %f_8 : f32", 2.0},
  {"math.ceil", "f32", "%r = math.ceil %f_m2_75 : f32", -2.0},
  {"math.copysign", "f32", "%r = math.copysign %f_2_5, %f_m0 : f32", -2.5},
  {"math.cos", "f32", "%r = math.cos %f_0_5 : f32", 0.8775825618903728},
  {"math.cosh", "f32", "%r = math.cosh %f_0_5 : f32", 1.1276259652063807},
  {"math.erf", "f32", "%r = math.erf %f_0_5 : f32", 0.5204998778130465},
  {"math.erfc", "f32", "%r = math.erfc %f_0_5 : f32", 0.4795001221869535},
  {"math.exp", "f32", "%r = math.exp %f_0_5 : f32", 1.6487212707001282},
  {"math.exp2", "f32", "%r = math.exp2 %f_0_5 : f32", 1.4142135623730951},
  {"math.expm1", "f32", "%r = math.expm1 %f_0_5 : f32", 0.6487212707001282},
  {"math.floor", "f32", "%r = math.floor %f_m2_75 : f32", -3.0},
  {"math.fma", "f32", "%r = math.fma %f_0_5, %f_2, %f_0_25 : f32", 1.25},
  {"math.log", "f32", "%r = math.log %f_0_5 : f32", -0.6931471805599453},
  {"math.log10", "f32", "%r = math.log10 %f_0_5 : f32", -0.3010299956639812},
  {"math.log1p", "f32", "%r = math.log1p %f_0_5 : f32", 0.4054651081081644},
  {"math.log2", "f32", "%r = math.log2 %f_0_5 : f32", -1.0},
  {"math.powf", "f32", "%r = math.powf %f_2, %f_0_5 : f32", 1.4142135623730951},
  {"math.round", "f32", "%r = math.round %f_2_5 : f32", 3.0},
  {"math.roundeven", "f32", "%r = math.roundeven %f_2_5 : f32", 2.0},
  {"math.roundeven", "f32", "%r = math.roundeven %f_3_5 : f32", 4.0},
  {"math.rsqrt", "f32", "%r = math.rsqrt %f_0_25 : f32", 2.0},
  {"math.sin", "f32", "%r = math.sin %f_0_5 : f32", 0.479425538604203},
  {"math.sinh", "f32", "%r = math.sinh %f_0_5 : f32", 0.5210953054937474},
  {"math.sqrt", "f32", "%r = math.sqrt %f_0_25 : f32", 0.5},
  {"math.tan", "f32", "%r = math.tan %f_0_5 : f32", 0.5463024898437905},
  {"math.tanh", "f32", "%r = math.tanh %f_0_5 : f32", 0.46211715726000974},
  {"math.trunc", "f32", "%r = math.trunc %f_m2_75 : f32", -2.0},
  {"math.isnan", "i1", "%r = math.isnan %f_nan : f32", 1},
  {"math.isinf", "i1", "%r = math.isinf %f_inf : f32", 1},
  {"math.isfinite", "i1", "%r = math.isfinite %f_inf : f32", 0},
  {"math.isnormal", "i1", "%r = math.isnormal %f_0_5 : f32", 1},
  {"math.isnormal", "i1", "%r = math.isnormal %f_0 : f32", 0},
  // math on integers.
  {"math.absi", "i32", "%r = math.absi %i32_m7 : i32", 7},
  {"math.absi", "i32", "%r = math.absi %i32_min : i32", -2147483648.0},
  {"math.ctlz", "i32", "%r = math.ctlz %i32_1 : i32", 31},
  {"math.ctlz", "i32", "%r = math.ctlz %i32_0 : i32", 32},
  {"math.ctlz", "i64", "%r = math.ctlz %i64_1 : i64", 63},
  {"math.cttz", "i32", "%r = math.cttz %i32_8 : i32", 3},
  {"math.cttz", "i32", "%r = math.cttz %i32_0 : i32", 32},
  {"math.ctpop", "i32", "%r = math.ctpop %i32_255 : i32", 8},
  {"math.ctpop", "i32", "%r = math.ctpop %i32_m1 : i32", 32},

  // Captures: indices outside a capture are clamped.
  {"tensor.extract", "f32", "%e = tensor.extract %cap_bf16[%idx_m1] : tensor<3xbf16>\n %r = arith.extf %e : bf16 to f32", 1.5},
  {"tensor.extract", "f32", "%e = tensor.extract %cap_bf16[%idx_7] : tensor<3xbf16>\n %r = arith.extf %e : bf16 to f32", 0.25},
  {"tensor.extract", "i32", "%r = tensor.extract %cap_i32[%idx_1, %idx_9] : tensor<2x3xi32>", 6},
  {"tensor.extract", "i32", "%r = tensor.extract %cap_i32[%idx_m7, %idx_1] : tensor<2x3xi32>", 2},
};
// clang-format on

class ScoreModTest : public ::testing::Test {
protected:
  ScoreModTest() { attn::registerAttnDialects(context); }

  /// Evaluates one case through the reference: a 1x1x1x1 score of 0.5.
  double evaluate(const Case &c) {
    std::string yield;
    std::string type = c.type;
    if (type == "f32")
      yield = "%y = arith.addf %r, %f_0 : f32";
    else if (type == "i1")
      yield = "%y = arith.select %r, %f_1, %f_0 : f32";
    else if (type == "index")
      yield = "%r64 = arith.index_cast %r : index to i64\n"
              "    %y = arith.sitofp %r64 : i64 to f32";
    else
      yield = "%y = arith.sitofp %r : " + type + " to f32";
    std::string text =
        std::string("func.func @f(%s: tensor<1x1x1x1xf32>, %bf: tensor<3xbf16>, "
                    "%i: tensor<2x3xi32>) -> tensor<1x1x1x1xf32> {\n"
                    "  %m = attn.score_mod %s captures(%bf, %i : tensor<3xbf16>, "
                    "tensor<2x3xi32>) {\n"
                    "  ^bb0(%x: f32, %b: index, %h: index, %q: index, %k: index, "
                    "%cap_bf16: tensor<3xbf16>, %cap_i32: tensor<2x3xi32>):\n") +
        kPrelude + "    " + c.body + "\n    " + yield +
        "\n    attn.yield %y : f32\n"
        "  } : tensor<1x1x1x1xf32>\n"
        "  return %m : tensor<1x1x1x1xf32>\n}\n";
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    if (!module) {
      ADD_FAILURE() << "does not parse:\n" << text;
      return kNaN;
    }
    auto func = *module->getOps<mlir::func::FuncOp>().begin();
    HostTensor score({1, 1, 1, 1}, 0.5), bf({3}), i({2, 3});
    bf.data = {1.5, -2.0, 0.25};
    i.data = {1, 2, 3, 4, 5, 6};
    auto out = reference::evaluate(func, {score, bf, i});
    if (mlir::failed(out)) {
      ADD_FAILURE() << "the reference fails on:\n" << text;
      return kNaN;
    }
    return out->front().data[0];
  }

  mlir::MLIRContext context;
};

TEST_F(ScoreModTest, ReferenceEvaluatesEveryOpAsWrittenByHand) {
  for (const Case &c : kCases) {
    double got = evaluate(c);
    if (std::isnan(c.expected))
      EXPECT_TRUE(std::isnan(got)) << c.body << " gave " << got;
    else if (std::isinf(c.expected))
      EXPECT_EQ(got, c.expected) << c.body;
    else
      EXPECT_NEAR(got, c.expected, 1e-12 * std::max(1.0, std::fabs(c.expected)))
          << c.body;
  }
}

TEST_F(ScoreModTest, EveryRowOfTheTableHasACase) {
  std::set<std::string> covered;
  for (const Case &c : kCases)
    covered.insert(c.key);
  for (const ScoreModOpInfo &row : scoreModOps()) {
    std::string key = row.name.str();
    if (!row.predicate.empty())
      key += ":" + row.predicate.str();
    EXPECT_TRUE(covered.count(key)) << "no case evaluates " << key;
  }
}

//===----------------------------------------------------------------------===//
// The device helpers against the reference
//===----------------------------------------------------------------------===//

template <class T> unsigned widthOf() { return attn::scoremod::Int<T>::kWidth; }

template <class T> llvm::APInt toAPInt(T x) {
  return llvm::APInt(widthOf<T>(),
                     static_cast<uint64_t>(attn::scoremod::bits(x)));
}

template <class T> std::vector<T> edgeValues() {
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true};
  } else {
    using L = std::numeric_limits<T>;
    return {0, 1, 2, 3, 7, -1, -2, -7, -8, 31, 32, 33, 63, 64, 65,
            L::min(), L::min() + 1, L::max(), L::max() - 1, T(L::max() / 3)};
  }
}

/// `device` (a helper of score_mod.cuh) against `evaluate` (a row of the
/// table) on every pair of edge values.
template <class T, class Device>
void checkBinary(const char *name, Device device, ScoreModEvaluate evaluate,
                 bool boolResult = false) {
  for (T a : edgeValues<T>())
    for (T b : edgeValues<T>()) {
      std::vector<ScoreModValue> in = {ScoreModValue::ofInt(toAPInt(a)),
                             ScoreModValue::ofInt(toAPInt(b))};
      llvm::APInt want = evaluate(in, boolResult ? 1 : widthOf<T>()).i;
      auto got = device(a, b);
      llvm::APInt gotBits = boolResult ? llvm::APInt(1, got ? 1 : 0)
                                       : toAPInt(static_cast<T>(got));
      EXPECT_EQ(gotBits, want)
          << name << " on i" << widthOf<T>() << ": "
          << static_cast<long long>(a) << ", " << static_cast<long long>(b)
          << " gave " << static_cast<long long>(got) << ", want "
          << want.getSExtValue();
    }
}

template <class T> void checkIntegerHelpers() {
  namespace sm = attn::scoremod;
  auto row = [](const char *name, const char *predicate = "") {
    const ScoreModOpInfo *info = lookupScoreModOp(name, predicate);
    EXPECT_TRUE(info) << name;
    return info;
  };
  checkBinary<T>("addi", sm::addi<T>, row("arith.addi")->evaluate);
  checkBinary<T>("subi", sm::subi<T>, row("arith.subi")->evaluate);
  checkBinary<T>("muli", sm::muli<T>, row("arith.muli")->evaluate);
  checkBinary<T>("divsi", sm::divsi<T>, row("arith.divsi")->evaluate);
  checkBinary<T>("divui", sm::divui<T>, row("arith.divui")->evaluate);
  checkBinary<T>("ceildivsi", sm::ceildivsi<T>, row("arith.ceildivsi")->evaluate);
  checkBinary<T>("ceildivui", sm::ceildivui<T>, row("arith.ceildivui")->evaluate);
  checkBinary<T>("floordivsi", sm::floordivsi<T>, row("arith.floordivsi")->evaluate);
  checkBinary<T>("remsi", sm::remsi<T>, row("arith.remsi")->evaluate);
  checkBinary<T>("remui", sm::remui<T>, row("arith.remui")->evaluate);
  checkBinary<T>("andi", sm::andi<T>, row("arith.andi")->evaluate);
  checkBinary<T>("ori", sm::ori<T>, row("arith.ori")->evaluate);
  checkBinary<T>("xori", sm::xori<T>, row("arith.xori")->evaluate);
  checkBinary<T>("shli", sm::shli<T>, row("arith.shli")->evaluate);
  checkBinary<T>("shrsi", sm::shrsi<T>, row("arith.shrsi")->evaluate);
  checkBinary<T>("shrui", sm::shrui<T>, row("arith.shrui")->evaluate);
  checkBinary<T>("maxsi", sm::maxsi<T>, row("arith.maxsi")->evaluate);
  checkBinary<T>("minsi", sm::minsi<T>, row("arith.minsi")->evaluate);
  checkBinary<T>("maxui", sm::maxui<T>, row("arith.maxui")->evaluate);
  checkBinary<T>("minui", sm::minui<T>, row("arith.minui")->evaluate);
  checkBinary<T>("addui_carry", sm::addui_carry<T>,
                 row("arith.addui_extended")->evaluate2, true);
  checkBinary<T>("mulsi_high", sm::mulsi_high<T>,
                 row("arith.mulsi_extended")->evaluate2);
  checkBinary<T>("mului_high", sm::mului_high<T>,
                 row("arith.mului_extended")->evaluate2);
  checkBinary<T>("slt", sm::slt<T>, row("arith.cmpi", "slt")->evaluate, true);
  checkBinary<T>("ult", sm::ult<T>, row("arith.cmpi", "ult")->evaluate, true);
  for (T a : edgeValues<T>()) {
    std::vector<ScoreModValue> in = {ScoreModValue::ofInt(toAPInt(a))};
    for (auto [name, device] :
         {std::pair<const char *, T (*)(T)>{"math.absi", sm::absi<T>},
          {"math.ctlz", sm::ctlz<T>},
          {"math.cttz", sm::cttz<T>},
          {"math.ctpop", sm::ctpop<T>}})
      EXPECT_EQ(toAPInt(device(a)), row(name)->evaluate(in, widthOf<T>()).i)
          << name << " of " << static_cast<long long>(a);
    // sitofp/uitofp: the device rounds to f32, the reference to double.
    EXPECT_EQ(sm::sitofp(a),
              static_cast<float>(row("arith.sitofp")->evaluate(in, 0).f));
    EXPECT_EQ(sm::uitofp(a),
              static_cast<float>(row("arith.uitofp")->evaluate(in, 0).f));
    // Casts to every width: sign- and zero-extension or truncation.
    auto casts = [&](auto target) {
      using R = decltype(target);
      unsigned w = widthOf<R>();
      EXPECT_EQ(toAPInt(sm::castsi<R>(a)), toAPInt(a).sextOrTrunc(w));
      EXPECT_EQ(toAPInt(sm::castui<R>(a)), toAPInt(a).zextOrTrunc(w));
    };
    casts(false);
    casts(0);
    casts(0ll);
  }
}

TEST(ScoreModDeviceHelpers, IntegerHelpersMatchTheReference) {
  checkIntegerHelpers<bool>();
  checkIntegerHelpers<int>();
  checkIntegerHelpers<long long>();
}

template <class R> void checkFloatToInt() {
  namespace sm = attn::scoremod;
  const float values[] = {0.0f, -0.0f, 0.5f, -0.5f, 0.99f, -0.99f, 1.0f,
                          -1.0f, 1.5f, -1.5f, 2.0f, 3.9f, -3.9f, 255.5f,
                          2147483520.0f, 2147483648.0f, -2147483648.0f,
                          4294967040.0f, 4294967296.0f, 9.2233715e18f,
                          9.223372e18f, -9.223372e18f, 1.8446743e19f,
                          1.8446744e19f, 1e30f, -1e30f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  const ScoreModOpInfo *si = lookupScoreModOp("arith.fptosi");
  const ScoreModOpInfo *ui = lookupScoreModOp("arith.fptoui");
  unsigned w = widthOf<R>();
  for (float x : values) {
    std::vector<ScoreModValue> in = {ScoreModValue::ofFloat(x)};
    EXPECT_EQ(toAPInt(sm::fptosi<R>(x)), si->evaluate(in, w).i)
        << "fptosi to i" << w << " of " << x;
    EXPECT_EQ(toAPInt(sm::fptoui<R>(x)), ui->evaluate(in, w).i)
        << "fptoui to i" << w << " of " << x;
  }
}

TEST(ScoreModDeviceHelpers, FloatToIntegerSaturatesAsTheReference) {
  checkFloatToInt<bool>();
  checkFloatToInt<int>();
  checkFloatToInt<long long>();
}

TEST(ScoreModDeviceHelpers, FloatHelpersMatchTheReference) {
  namespace sm = attn::scoremod;
  const float values[] = {0.0f, -0.0f, 1.0f, -2.5f, 1e-40f, 3e38f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  auto same = [](float a, double b) {
    return (std::isnan(a) && std::isnan(b)) ||
           (a == b && std::signbit(a) == std::signbit(b));
  };
  for (float a : values) {
    std::vector<ScoreModValue> one = {ScoreModValue::ofFloat(a)};
    for (auto [name, device] :
         {std::pair<const char *, bool (*)(float)>{"math.isnan", sm::isNaN},
          {"math.isinf", sm::isInf},
          {"math.isfinite", sm::isFinite},
          {"math.isnormal", sm::isNormal}})
      EXPECT_EQ(device(a),
                lookupScoreModOp(name)->evaluate(one, 1).i.getBoolValue())
          << name << " of " << a;
    for (float b : values) {
      std::vector<ScoreModValue> in = {ScoreModValue::ofFloat(a),
                             ScoreModValue::ofFloat(b)};
      EXPECT_TRUE(same(sm::maximumf(a, b),
                       lookupScoreModOp("arith.maximumf")->evaluate(in, 0).f))
          << "maximumf " << a << ", " << b;
      EXPECT_TRUE(same(sm::minimumf(a, b),
                       lookupScoreModOp("arith.minimumf")->evaluate(in, 0).f))
          << "minimumf " << a << ", " << b;
    }
    std::vector<ScoreModValue> bits = {ScoreModValue::ofFloat(a)};
    if (!std::isnan(a)) {
      EXPECT_EQ(sm::bitcast<int>(a),
                static_cast<int>(lookupScoreModOp("arith.bitcast")
                                     ->evaluate(bits, 32)
                                     .i.getSExtValue()));
    }
  }
}

} // namespace
