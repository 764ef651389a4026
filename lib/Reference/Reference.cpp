//===- Reference.cpp - float64 CPU reference of attn graphs ---------------===//

#include "attn/Reference/Reference.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Dialect/Attn/IR/ScoreModOps.h"
#include "attn/Support/ParallelFor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <thread>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::reference;

HostTensor::HostTensor(std::vector<int64_t> shape, double fill)
    : shape(std::move(shape)) {
  data.assign(numElements(), fill);
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

double reference::relativeError(const HostTensor &a, const HostTensor &b,
                                int64_t *compared) {
  double diff = 0, norm = 0;
  int64_t count = 0;
  for (size_t i = 0; i < b.data.size() && i < a.data.size(); ++i) {
    if (std::isnan(b.data[i]))
      continue;
    // A NaN or infinity where b differs, or a number where b is infinite.
    if ((!std::isfinite(a.data[i]) || std::isinf(b.data[i])) &&
        a.data[i] != b.data[i])
      return std::numeric_limits<double>::infinity();
    // Equal infinities (e.g. -inf logsumexp of empty rows): compared, and
    // equal, but outside the norms.
    if (std::isinf(b.data[i])) {
      ++count;
      continue;
    }
    double d = a.data[i] - b.data[i];
    diff += d * d;
    norm += b.data[i] * b.data[i];
    ++count;
  }
  if (compared)
    *compared = count;
  if (norm == 0)
    return std::sqrt(diff);
  return std::sqrt(diff / norm);
}

namespace {

/// `x` rounded to the nearest value of `semantics` (ties to even), as a
/// kernel stores it.
double roundTo(double x, const llvm::fltSemantics &semantics) {
  llvm::APFloat value(x);
  bool losesInfo = false;
  value.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  Matrix(int64_t rows, int64_t cols, double fill = 0.0)
      : rows(rows), cols(cols), v(rows * cols, fill) {}
  double &at(int64_t i, int64_t j) { return v[i * cols + j]; }
  double at(int64_t i, int64_t j) const { return v[i * cols + j]; }
  /// Element (i, j), broadcasting a dimension of size 1.
  double bcast(int64_t i, int64_t j) const {
    return at(rows == 1 ? 0 : i, cols == 1 ? 0 : j);
  }
};

/// A rank-4 tensor computed one (batch, head) slice at a time.
struct Tensor4 {
  std::array<int64_t, 4> shape;
  std::function<Matrix(int64_t, int64_t)> slice;
  /// The slice for (b, h), broadcasting dimensions of size 1.
  Matrix at(int64_t b, int64_t h) const {
    return slice(shape[0] == 1 ? 0 : b, shape[1] == 1 ? 0 : h);
  }
};

/// A score_mod region compiled for evaluation at every score: each op's row
/// of the table (ScoreModOps.h) and the slots of its operands and results,
/// in program order. Constants are evaluated once.
class ScoreModProgram {
public:
  /// Compiles the body of `op` (an attn.score_mod, attn.flash or
  /// attn.flash_bwd) whose captures hold `captures`; reports what it cannot
  /// evaluate on the op.
  static FailureOr<ScoreModProgram>
  compile(Operation *op, Region &region,
          std::vector<const HostTensor *> captures) {
    ScoreModProgram program;
    program.captures = std::move(captures);
    llvm::DenseMap<Value, unsigned> slots;
    Block &block = region.front();
    auto newSlot = [&](Value value) {
      unsigned slot = program.initial.size();
      program.initial.emplace_back();
      slots[value] = slot;
      return slot;
    };
    for (unsigned i = 0; i < 5; ++i)
      newSlot(block.getArgument(i));
    for (unsigned i = 5; i < block.getNumArguments(); ++i)
      program.captureArgs[block.getArgument(i)] = i - 5;
    // Constants hoisted out of the region are evaluated like inner ones.
    auto slotOf = [&](Value value) -> FailureOr<unsigned> {
      auto it = slots.find(value);
      if (it != slots.end())
        return it->second;
      Operation *def = value.getDefiningOp();
      if (!isa_and_nonnull<arith::ConstantOp>(def))
        return failure();
      unsigned slot = newSlot(value);
      program.initial[slot] = evaluateScoreModConstant(def);
      return slot;
    };
    for (Operation &inner : block) {
      if (isa<arith::ConstantOp>(inner)) {
        (void)slotOf(inner.getResult(0));
        continue;
      }
      Step step;
      for (Value operand : inner.getOperands()) {
        if (program.captureArgs.count(operand)) {
          step.capture = program.captureArgs.lookup(operand);
          continue;
        }
        FailureOr<unsigned> slot = slotOf(operand);
        if (failed(slot))
          return inner.emitOpError()
                 << "uses a value from outside the region that is not a "
                    "constant";
        step.operands.push_back(*slot);
      }
      if (isa<YieldOp>(inner)) {
        program.result = step.operands.front();
        program.steps.push_back(step);
        return program;
      }
      if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
        if (step.capture >= program.captures.size())
          return inner.emitOpError()
                 << "reads a tensor that is not a score_mod capture";
        step.extract = extract.getTensor().getType();
      } else {
        step.row = lookupScoreModOp(&inner);
        if (!step.row)
          return inner.emitOpError() << "is not supported by the CPU reference";
      }
      for (Value result : inner.getResults()) {
        step.results.push_back(newSlot(result));
        step.widths.push_back(scoreModBitWidth(result.getType()));
      }
      program.steps.push_back(step);
    }
    return op->emitOpError() << "has a score_mod region without attn.yield";
  }

  double run(double score, int64_t b, int64_t h, int64_t q, int64_t k) const {
    std::vector<ScoreModValue> values = initial;
    values[0] = ScoreModValue::ofFloat(score);
    int64_t indices[4] = {b, h, q, k};
    for (int i = 0; i < 4; ++i)
      values[1 + i] = ScoreModValue::ofInt(
          APInt(64, static_cast<uint64_t>(indices[i]), /*isSigned=*/true));
    SmallVector<ScoreModValue, 4> in;
    for (const Step &step : steps) {
      if (!step.row && !step.extract)
        break; // attn.yield
      in.clear();
      for (unsigned slot : step.operands)
        in.push_back(values[slot]);
      if (step.extract) {
        values[step.results[0]] = extract(step, in);
        continue;
      }
      values[step.results[0]] = step.row->evaluate(in, step.widths[0]);
      if (step.results.size() > 1)
        values[step.results[1]] = step.row->evaluate2(in, step.widths[1]);
    }
    return values[result].f;
  }

private:
  struct Step {
    const ScoreModOpInfo *row = nullptr;
    RankedTensorType extract; ///< set for a tensor.extract
    unsigned capture = ~0u;
    SmallVector<unsigned, 3> operands, results, widths;
  };

  /// A capture's element at clamped indices, as a score_mod value.
  ScoreModValue extract(const Step &step, ArrayRef<ScoreModValue> in) const {
    const HostTensor &t = *captures[step.capture];
    int64_t offset = 0;
    for (int64_t d = 0; d < step.extract.getRank(); ++d)
      offset = offset * step.extract.getDimSize(d) +
               clampScoreModIndex(in[d].i.getSExtValue(),
                                  step.extract.getDimSize(d));
    double x = t.data[offset];
    Type element = step.extract.getElementType();
    if (isa<FloatType>(element))
      return ScoreModValue::ofFloat(x);
    unsigned width = scoreModBitWidth(element);
    if (width == 1)
      return ScoreModValue::ofInt(APInt(1, x != 0 ? 1 : 0));
    return ScoreModValue::ofInt(
        APInt(width, static_cast<uint64_t>(static_cast<int64_t>(x)), true));
  }

  std::vector<ScoreModValue> initial;
  std::vector<Step> steps;
  std::vector<const HostTensor *> captures;
  llvm::DenseMap<Value, unsigned> captureArgs;
  unsigned result = 0;
};

/// Softmax along the rows (dim 3) or the columns (dim 2) of a slice; a line
/// that is all -inf becomes zeros. Writes the natural-log logsumexp of each
/// row to `lse` when given. A `sink` logit joins every line's denominator
/// (an attention sink: it takes weight and gives no value).
void softmaxInPlace(Matrix &m, bool rows, std::vector<double> *lse = nullptr,
                    double sink = kNegInf) {
  int64_t lines = rows ? m.rows : m.cols, length = rows ? m.cols : m.rows;
  for (int64_t a = 0; a < lines; ++a) {
    auto at = [&](int64_t b) -> double & { return rows ? m.at(a, b) : m.at(b, a); };
    double mx = sink;
    for (int64_t b = 0; b < length; ++b)
      mx = std::max(mx, at(b));
    if (mx == kNegInf) {
      for (int64_t b = 0; b < length; ++b)
        at(b) = 0;
      if (lse)
        lse->push_back(kNegInf);
      continue;
    }
    double sum = std::exp(sink - mx);
    for (int64_t b = 0; b < length; ++b)
      sum += (at(b) = std::exp(at(b) - mx));
    for (int64_t b = 0; b < length; ++b)
      at(b) /= sum;
    if (lse)
      lse->push_back(mx + std::log(sum));
  }
}

Matrix multiply(const Matrix &a, bool ta, const Matrix &b, bool tb) {
  int64_t m = ta ? a.cols : a.rows, kdim = ta ? a.rows : a.cols;
  int64_t n = tb ? b.rows : b.cols;
  Matrix c(m, n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < kdim; ++kk) {
      double x = ta ? a.at(kk, i) : a.at(i, kk);
      if (x == 0)
        continue;
      for (int64_t j = 0; j < n; ++j)
        c.v[i * n + j] += x * (tb ? b.at(j, kk) : b.at(kk, j));
    }
  return c;
}

/// What a mask keeps and adds, shared by attn.mask and attn.flash.
struct MaskEval {
  MaskAttr kind;
  const HostTensor *lengths = nullptr;
  const Tensor4 *keep = nullptr, *bias = nullptr;

  void apply(Matrix &s, int64_t b, int64_t h) const {
    int64_t sq = s.rows, skv = s.cols;
    std::optional<Matrix> keepSlice, biasSlice;
    if (keep)
      keepSlice = keep->at(b, h);
    if (bias)
      biasSlice = bias->at(b, h);
    int64_t length =
        lengths ? static_cast<int64_t>(lengths->data[b]) : skv;
    // Bottom-right: the batch entry's own last key, or the tensor's.
    int64_t offset = 0;
    switch (kind.getAlignment()) {
    case MaskAttr::Alignment::TopLeft:
      break;
    case MaskAttr::Alignment::BottomRightTensor:
      offset = skv - sq;
      break;
    case MaskAttr::Alignment::BottomRightLength:
      offset = std::clamp<int64_t>(length, 0, skv) - sq;
      break;
    }
    for (int64_t i = 0; i < sq; ++i)
      for (int64_t j = 0; j < skv; ++j) {
        double &x = s.at(i, j);
        if (biasSlice)
          x += biasSlice->bcast(i, j);
        int64_t diag = i + offset;
        bool ok = j < length;
        if (kind.getCausal())
          ok = ok && j <= diag;
        if (kind.getWindowLeft() >= 0)
          ok = ok && j >= diag - kind.getWindowLeft();
        if (kind.getWindowRight() >= 0)
          ok = ok && j <= diag + kind.getWindowRight();
        if (keepSlice)
          ok = ok && keepSlice->bcast(i, j) != 0;
        if (!ok)
          x = kNegInf;
      }
  }
};

/// What attn.flash_bwd computes of one (batch entry or sequence b, query
/// head h) from its raw scores q k^T: P = exp(score_mod(scale q k^T) +
/// masks - lse) (0 where the mask drops an entry or the row sees no key),
/// dZ = P (dP - D) (the gradient of the masked logits, which is the
/// bias's) and dS = dZ score_mod'.
struct BackwardLocal {
  Matrix p, dz, ds;
};
BackwardLocal backwardLocal(const Matrix &raw, int64_t b, int64_t h,
                            double scale, const ScoreModProgram *mod,
                            const ScoreModProgram *modGrad, const MaskEval &e,
                            const std::vector<double> &lse,
                            const std::vector<double> &delta,
                            const Matrix &dp) {
  Matrix z(raw.rows, raw.cols), slope(raw.rows, raw.cols, 1.0);
  for (int64_t i = 0; i < raw.rows; ++i)
    for (int64_t j = 0; j < raw.cols; ++j) {
      double x = raw.at(i, j) * scale;
      z.at(i, j) = mod ? mod->run(x, b, h, i, j) : x;
      if (modGrad)
        slope.at(i, j) = modGrad->run(x, b, h, i, j);
    }
  e.apply(z, b, h);
  BackwardLocal l{Matrix(z.rows, z.cols), Matrix(z.rows, z.cols),
                  Matrix(z.rows, z.cols)};
  for (int64_t i = 0; i < z.rows; ++i) {
    // A row with no allowed key (-inf logsumexp) has no gradient.
    bool empty = lse[i] == kNegInf;
    for (int64_t j = 0; j < z.cols; ++j) {
      double p =
          empty || z.at(i, j) == kNegInf ? 0.0 : std::exp(z.at(i, j) - lse[i]);
      l.p.at(i, j) = p;
      // A dropped entry has no gradient, whatever dP is there (NaN where v
      // holds NaN past a sequence's keys).
      l.dz.at(i, j) = p == 0.0 ? 0.0 : p * (dp.at(i, j) - delta[i]);
      l.ds.at(i, j) = p == 0.0 ? 0.0 : l.dz.at(i, j) * slope.at(i, j);
    }
  }
  return l;
}

class Evaluator {
public:
  explicit Evaluator(const Options &options) : options(options) {}

  LogicalResult run(func::FuncOp func, ArrayRef<HostTensor> inputs) {
    Block &body = func.getBody().front();
    if (inputs.size() != body.getNumArguments())
      return func.emitError() << "the reference got " << inputs.size()
                              << " inputs for " << body.getNumArguments()
                              << " arguments";
    for (auto [arg, input] : llvm::zip(body.getArguments(), inputs))
      if (failed(bindInput(arg, input)))
        return failure();
    for (Operation &op : body) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        results.assign(ret.getOperands().begin(), ret.getOperands().end());
        return success();
      }
      if (failed(evaluate(op)))
        return failure();
    }
    return func.emitError() << "the function has no return";
  }

  const Options &options;
  SmallVector<Value> results;
  llvm::DenseMap<Value, Tensor4> tensors;
  llvm::DenseMap<Value, HostTensor> plain;
  /// The function's arguments as given (kernel body arguments too).
  llvm::DenseMap<Value, const HostTensor *> arguments;

private:
  LogicalResult bindInput(Value arg, const HostTensor &input) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      return emitError(arg.getLoc()) << "the reference takes tensor arguments";
    // Every argument is readable whole (score_mod captures of any rank).
    arguments[arg] = &input;
    if (type.getRank() != 4) {
      plain[arg] = input;
      return success();
    }
    const HostTensor *data = &input;
    Tensor4 t;
    std::copy(input.shape.begin(), input.shape.end(), t.shape.begin());
    t.slice = [data, shape = t.shape](int64_t b, int64_t h) {
      Matrix m(shape[2], shape[3]);
      const double *src =
          data->data.data() + ((b * shape[1] + h) * shape[2]) * shape[3];
      std::copy(src, src + m.v.size(), m.v.begin());
      return m;
    };
    tensors[arg] = t;
    return success();
  }

  FailureOr<Tensor4> tensor(Operation *op, Value value) {
    auto it = tensors.find(value);
    if (it == tensors.end())
      return op->emitOpError()
             << "has an operand the reference holds no rank-4 value for";
    return it->second;
  }

  /// Binds `result` to `in` with each (batch, head) slice changed in place
  /// by `apply(slice, b, h)`: the element-wise ops and softmax.
  LogicalResult
  mapSlices(Value result, const Tensor4 &in,
            std::function<void(Matrix &, int64_t, int64_t)> apply) {
    Tensor4 out = in, src = in;
    out.slice = [src, apply](int64_t b, int64_t h) {
      Matrix m = src.slice(b, h);
      apply(m, b, h);
      return m;
    };
    tensors[result] = out;
    return success();
  }

  /// Rank-4 shape of a value's type (dynamic dims taken from `like`).
  static std::array<int64_t, 4> shapeOf(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return {type.getDimSize(0), type.getDimSize(1), type.getDimSize(2),
            type.getDimSize(3)};
  }

  LogicalResult evaluate(Operation &op) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](MatmulOp m) -> LogicalResult {
          if (m.getLhs().getType().getRank() != 4)
            return m.emitOpError()
                   << "the reference evaluates rank-4 matmuls only";
          FailureOr<Tensor4> lhs = tensor(m, m.getLhs()),
                             rhs = tensor(m, m.getRhs());
          if (failed(lhs) || failed(rhs))
            return failure();
          bool ta = m.getTransposeLhs(), tb = m.getTransposeRhs();
          Tensor4 out;
          out.shape = {lhs->shape[0], lhs->shape[1], ta ? lhs->shape[3] : lhs->shape[2],
                       tb ? rhs->shape[2] : rhs->shape[3]};
          int64_t group = lhs->shape[1] / rhs->shape[1];
          Tensor4 l = *lhs, r = *rhs;
          out.slice = [l, r, ta, tb, group](int64_t b, int64_t h) {
            return multiply(l.at(b, h), ta, r.at(b, h / group), tb);
          };
          tensors[m.getResult()] = out;
          return success();
        })
        .Case([&](ScaleOp s) -> LogicalResult {
          FailureOr<Tensor4> in = tensor(s, s.getInput());
          if (failed(in))
            return failure();
          double factor = s.getFactor().convertToDouble();
          return mapSlices(s.getResult(), *in,
                           [factor](Matrix &m, int64_t, int64_t) {
                             for (double &x : m.v)
                               x *= factor;
                           });
        })
        .Case([&](MaskOp mask) -> LogicalResult {
          FailureOr<Tensor4> in = tensor(mask, mask.getInput());
          if (failed(in))
            return failure();
          FailureOr<MaskEval> eval =
              maskEval(mask, mask.getKind(), mask.getLengths(), mask.getKeep(),
                       mask.getBias());
          if (failed(eval))
            return failure();
          MaskEval e = *eval;
          return mapSlices(
              mask.getResult(), *in,
              [e](Matrix &m, int64_t b, int64_t h) { e.apply(m, b, h); });
        })
        .Case([&](ScoreModOp mod) -> LogicalResult {
          FailureOr<Tensor4> in = tensor(mod, mod.getInput());
          if (failed(in))
            return failure();
          FailureOr<ScoreModProgram> program =
              scoreModProgram(mod, mod.getBody(), mod.getCaptures());
          if (failed(program))
            return failure();
          auto shared = std::make_shared<const ScoreModProgram>(*program);
          return mapSlices(mod.getResult(), *in,
                           [shared](Matrix &m, int64_t b, int64_t h) {
                             for (int64_t i = 0; i < m.rows; ++i)
                               for (int64_t j = 0; j < m.cols; ++j)
                                 m.at(i, j) =
                                     shared->run(m.at(i, j), b, h, i, j);
                           });
        })
        .Case([&](SoftmaxOp s) -> LogicalResult {
          FailureOr<Tensor4> in = tensor(s, s.getInput());
          if (failed(in))
            return failure();
          if (s.getNormalizedDim() < 2)
            return s.emitOpError()
                   << "the reference computes softmax over dims 2 and 3 only";
          bool rows = s.getNormalizedDim() == 3;
          return mapSlices(
              s.getResult(), *in,
              [rows](Matrix &m, int64_t, int64_t) { softmaxInPlace(m, rows); });
        })
        .Case([&](tensor::ConcatOp concat) -> LogicalResult {
          // Along queries or keys, as a sink column joins the scores.
          int64_t dim = concat.getDim();
          if (concat.getType().getRank() != 4 || dim < 2)
            return concat.emitOpError() << "the reference concatenates rank-4 "
                                           "tensors along dims 2 and 3 only";
          SmallVector<Tensor4> in;
          for (Value input : concat.getInputs()) {
            FailureOr<Tensor4> t = tensor(concat, input);
            if (failed(t))
              return failure();
            in.push_back(*t);
          }
          Tensor4 out;
          out.shape = shapeOf(concat.getResult());
          out.slice = [in, dim, shape = out.shape](int64_t b, int64_t h) {
            Matrix m(shape[2], shape[3]);
            int64_t at = 0;
            for (const Tensor4 &t : in) {
              Matrix part = t.at(b, h);
              for (int64_t i = 0; i < part.rows; ++i)
                for (int64_t j = 0; j < part.cols; ++j)
                  m.at(dim == 2 ? at + i : i, dim == 3 ? at + j : j) =
                      part.at(i, j);
              at += dim == 2 ? part.rows : part.cols;
            }
            return m;
          };
          tensors[concat.getResult()] = out;
          return success();
        })
        .Case([&](tensor::ExtractSliceOp slice) -> LogicalResult {
          if (slice.getSourceType().getRank() != 4 ||
              slice.getType().getRank() != 4 ||
              ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
              ShapedType::isDynamicShape(slice.getStaticSizes()) ||
              !llvm::all_of(slice.getStaticStrides(),
                            [](int64_t s) { return s == 1; }))
            return slice.emitOpError()
                   << "the reference slices rank-4 tensors with static "
                      "offsets and sizes and unit strides only";
          FailureOr<Tensor4> in = tensor(slice, slice.getSource());
          if (failed(in))
            return failure();
          Tensor4 src = *in, out;
          out.shape = shapeOf(slice.getResult());
          SmallVector<int64_t> offsets(slice.getStaticOffsets());
          out.slice = [src, offsets, shape = out.shape](int64_t b, int64_t h) {
            Matrix whole = src.at(b + offsets[0], h + offsets[1]);
            Matrix m(shape[2], shape[3]);
            for (int64_t i = 0; i < m.rows; ++i)
              for (int64_t j = 0; j < m.cols; ++j)
                m.at(i, j) = whole.at(offsets[2] + i, offsets[3] + j);
            return m;
          };
          tensors[slice.getResult()] = out;
          return success();
        })
        .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *cast) -> LogicalResult {
          // The reference keeps every value in double: casts are exact.
          FailureOr<Tensor4> in = tensor(cast, cast->getOperand(0));
          if (failed(in))
            return failure();
          tensors[cast->getResult(0)] = *in;
          return success();
        })
        .Case([&](arith::ConstantOp c) -> LogicalResult {
          // Scalars serve score_mod regions, which read them from the op.
          if (!isa<TensorType>(c.getType()))
            return success();
          // Splat tensor constants, as exporters write sqrt(d) or -inf fills.
          auto splat = dyn_cast<SplatElementsAttr>(c.getValue());
          auto type = dyn_cast<RankedTensorType>(c.getType());
          if (!splat || !type || type.getRank() != 4)
            return c.emitOpError()
                   << "the reference evaluates splat rank-4 constants only";
          double value = isa<FloatType>(type.getElementType())
                             ? splat.getSplatValue<APFloat>().convertToDouble()
                             : double(splat.getSplatValue<APInt>().getSExtValue());
          Tensor4 t;
          t.shape = shapeOf(c.getResult());
          t.slice = [value, shape = t.shape](int64_t, int64_t) {
            return Matrix(shape[2], shape[3], value);
          };
          tensors[c.getResult()] = t;
          return success();
        })
        .Case<arith::AddFOp, arith::MulFOp, arith::DivFOp, arith::SelectOp>(
            [&](Operation *elementwise) -> LogicalResult {
              SmallVector<Tensor4> in;
              for (Value operand : elementwise->getOperands()) {
                FailureOr<Tensor4> t = tensor(elementwise, operand);
                if (failed(t))
                  return failure();
                in.push_back(*t);
              }
              Tensor4 out;
              out.shape = shapeOf(elementwise->getResult(0));
              bool add = isa<arith::AddFOp>(elementwise),
                   mul = isa<arith::MulFOp>(elementwise),
                   select = isa<arith::SelectOp>(elementwise);
              out.slice = [in, add, mul, select](int64_t b, int64_t h) {
                Matrix r = in[0].at(b, h), x = in[1].at(b, h);
                std::optional<Matrix> y;
                if (select)
                  y = in[2].at(b, h);
                for (size_t i = 0; i < r.v.size(); ++i)
                  r.v[i] = select ? (r.v[i] != 0 ? x.v[i] : y->v[i])
                           : add  ? r.v[i] + x.v[i]
                           : mul  ? r.v[i] * x.v[i]
                                  : r.v[i] / x.v[i];
                return r;
              };
              tensors[elementwise->getResult(0)] = out;
              return success();
            })
        .Case([&](KernelOp kernel) -> LogicalResult {
          // The body's arguments stand for the inputs; scalar constants
          // there serve the payload's regions.
          Block &body = kernel.getBody().front();
          for (auto [arg, input] :
               llvm::zip(body.getArguments(), kernel.getInputs())) {
            if (auto it = tensors.find(input); it != tensors.end())
              tensors[arg] = it->second;
            else if (auto p = plain.find(input); p != plain.end())
              plain[arg] = p->second;
            else
              return kernel.emitOpError()
                     << "has an input the reference holds no value for";
            if (const HostTensor *whole = arguments.lookup(input))
              arguments[arg] = whole;
          }
          Operation *payload = kernel.getPayload();
          if (failed(evaluate(*payload)))
            return failure();
          tensors[kernel.getResult()] = tensors[payload->getResult(0)];
          return success();
        })
        .Case([&](FlashOp flash) { return evaluateFlash(flash); })
        .Case([&](FlashBwdOp bwd) { return evaluateFlashBackward(bwd); })
        .Default([&](Operation *other) {
          return other->emitOpError() << "is not supported by the CPU reference";
        });
  }

  /// The score_mod region of `op` with its captures, which must be
  /// function arguments.
  FailureOr<ScoreModProgram> scoreModProgram(Operation *op, Region &region,
                                             ValueRange captureValues) {
    std::vector<const HostTensor *> captures;
    for (Value capture : captureValues) {
      const HostTensor *whole = arguments.lookup(capture);
      if (!whole)
        return op->emitOpError() << "has a score_mod capture that is not a "
                                    "function argument; the reference reads "
                                    "captures from the inputs";
      captures.push_back(whole);
    }
    return ScoreModProgram::compile(op, region, std::move(captures));
  }

  FailureOr<MaskEval> maskEval(Operation *op, MaskAttr kind, Value lengths,
                               Value keep, Value bias) {
    MaskEval e;
    e.kind = kind;
    if (lengths) {
      // The caller's tensor: slices computed later read it.
      e.lengths = arguments.lookup(lengths);
      if (!e.lengths)
        return op->emitOpError() << "'lengths' must be a function argument for "
                                    "the reference";
    }
    for (auto [operand, slot] : {std::pair<Value, const Tensor4 **>{keep, &e.keep},
                                 {bias, &e.bias}}) {
      if (!operand)
        continue;
      auto it = tensors.find(operand);
      if (it == tensors.end())
        return op->emitOpError() << "has a mask operand the reference holds "
                                    "no rank-4 value for";
      *slot = &it->second;
    }
    return e;
  }

  /// The sink logit of each query head, or none.
  FailureOr<std::vector<double>> sinkLogits(FlashOp flash) {
    Value sinks = flash.getSinks();
    if (!sinks)
      return std::vector<double>();
    const HostTensor *whole = arguments.lookup(sinks);
    if (!whole)
      return flash.emitOpError()
             << "'sinks' must be a function argument for the reference";
    return whole->data;
  }

  /// The plain (not rank-4) value of an operand: an argument of the
  /// function.
  FailureOr<const HostTensor *> plainOperand(Operation *op, Value value,
                                             StringRef name) {
    auto it = plain.find(value);
    if (it == plain.end())
      return op->emitOpError() << "'" << name
                               << "' must be a function argument for the "
                                  "reference";
    return &it->second;
  }

  /// Rows [first, first + count) of head `head` of a packed [T, H, C]
  /// tensor.
  static Matrix packedRows(const HostTensor &t, int64_t first, int64_t count,
                           int64_t head) {
    const int64_t heads = t.shape[1], cols = t.shape[2];
    Matrix m(count, cols);
    for (int64_t i = 0; i < count; ++i)
      for (int64_t c = 0; c < cols; ++c)
        m.at(i, c) = t.data[((first + i) * heads + head) * cols + c];
    return m;
  }

  /// Sequence b's first row and row count: its offsets clamped to
  /// [0, total], as the op defines them.
  static std::pair<int64_t, int64_t> clampedRange(const HostTensor &cu,
                                                  int64_t b, int64_t total) {
    int64_t start = std::clamp<int64_t>(int64_t(cu.data[b]), 0, total);
    int64_t end = std::clamp<int64_t>(int64_t(cu.data[b + 1]), start, total);
    return {start, end - start};
  }

  /// Decreasing offsets would make sequences overlap: their rows have no
  /// one value (the kernels only stay in bounds).
  static LogicalResult checkOffsetsInOrder(Operation *op, const HostTensor &cuQ,
                                           const HostTensor &cuK) {
    const int64_t batch = cuQ.shape[0] - 1;
    for (auto [name, cu] : {std::pair<StringRef, const HostTensor *>{
                                "cu_seqlens_q", &cuQ},
                            {"cu_seqlens_k", &cuK}})
      for (int64_t b = 0; b < batch; ++b)
        if (cu->data[b + 1] < cu->data[b])
          return op->emitOpError()
                 << "'" << name << "' decreases from "
                 << int64_t(cu->data[b]) << " to " << int64_t(cu->data[b + 1])
                 << " at sequence " << b
                 << "; the reference needs offsets in order";
    return success();
  }

  /// The (sequence, head) slices of a ragged batch to compute: those of
  /// the options (all without any), each once; with `group` > 1 as the
  /// K/V heads (head / group) of the query heads asked for.
  std::vector<std::pair<int64_t, int64_t>>
  sequenceSlices(int64_t batch, int64_t heads, int64_t group) const {
    std::vector<std::pair<int64_t, int64_t>> slices;
    for (auto [b, h] : options.slices)
      if (b < batch && h < heads)
        slices.emplace_back(b, h / group);
    if (options.slices.empty())
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t h = 0; h < heads / group; ++h)
          slices.emplace_back(b, h);
    // A slice asked for twice is computed once: each writes its own rows.
    llvm::sort(slices);
    slices.erase(std::unique(slices.begin(), slices.end()), slices.end());
    return slices;
  }

  /// A ragged batch: packed q [Tq, Hq, D], k [Tk, Hkv, D], v [Tk, Hkv, Dv];
  /// each sequence attends to its own keys, with the offsets clamped as
  /// the op defines. The (sequence, head) slices of the options are
  /// computed (all of them without any); other rows stay NaN.
  LogicalResult evaluateVarlenFlash(FlashOp flash) {
    FailureOr<const HostTensor *> q = plainOperand(flash, flash.getQ(), "q"),
                                  k = plainOperand(flash, flash.getK(), "k"),
                                  v = plainOperand(flash, flash.getV(), "v"),
                                  cuQ = plainOperand(flash, flash.getCuSeqlensQ(),
                                                     "cu_seqlens_q"),
                                  cuK = plainOperand(flash, flash.getCuSeqlensK(),
                                                     "cu_seqlens_k");
    if (failed(q) || failed(k) || failed(v) || failed(cuQ) || failed(cuK))
      return failure();
    std::shared_ptr<const ScoreModProgram> mod;
    if (flash.hasScoreMod()) {
      FailureOr<ScoreModProgram> program = scoreModProgram(
          flash, flash.getScoreMod(), flash.getCaptures());
      if (failed(program))
        return failure();
      mod = std::make_shared<const ScoreModProgram>(std::move(*program));
    }
    MaskEval e;
    e.kind = flash.getMaskOrEmpty();
    FailureOr<std::vector<double>> sinks = sinkLogits(flash);
    if (failed(sinks))
      return failure();
    const std::vector<double> sink = std::move(*sinks);
    const int64_t tq = (*q)->shape[0], hq = (*q)->shape[1];
    const int64_t tk = (*k)->shape[0], hkv = (*k)->shape[1];
    const int64_t dv = (*v)->shape[2], group = hq / hkv;
    const int64_t batch = (*cuQ)->shape[0] - 1;
    const double scale = flash.getScale().convertToDouble();
    if (failed(checkOffsetsInOrder(flash, **cuQ, **cuK)))
      return failure();
    HostTensor out({tq, hq, dv}, std::numeric_limits<double>::quiet_NaN());
    HostTensor lse({hq, tq}, std::numeric_limits<double>::quiet_NaN());
    auto rows = packedRows;
    // One (sequence, head) at a time, each writing rows of its own.
    auto slice = [&](int64_t b, int64_t h) {
      auto [qStart, sq] = clampedRange(**cuQ, b, tq);
      auto [kStart, sk] = clampedRange(**cuK, b, tk);
      Matrix s = multiply(rows(**q, qStart, sq, h), false,
                          rows(**k, kStart, sk, h / group), true);
      for (int64_t i = 0; i < s.rows; ++i)
        for (int64_t j = 0; j < s.cols; ++j) {
          double x = s.at(i, j) * scale;
          if (mod)
            x = mod->run(x, b, h, i, j);
          s.at(i, j) = x;
        }
      e.apply(s, b, h);
      std::vector<double> rowLse;
      softmaxInPlace(s, true, &rowLse, sink.empty() ? kNegInf : sink[h]);
      Matrix o = multiply(s, false, rows(**v, kStart, sk, h / group), false);
      for (int64_t i = 0; i < sq; ++i) {
        for (int64_t c = 0; c < dv; ++c)
          out.data[((qStart + i) * hq + h) * dv + c] = o.at(i, c);
        lse.data[h * tq + qStart + i] = rowLse[i];
      }
    };
    std::vector<std::pair<int64_t, int64_t>> slices =
        sequenceSlices(batch, hq, /*group=*/1);
    ::attn::parallelFor(
        slices.size(),
        [&](size_t i) { slice(slices[i].first, slices[i].second); },
        options.threads);
    plain[flash.getOutput()] = std::move(out);
    if (Value result = flash.getLse())
      plain[result] = std::move(lse);
    return success();
  }

  /// A paged cache [pages, H, page_size, D] as each sequence's keys
  /// [B, H, pages per sequence x page_size, D], through its row of the
  /// block table; page indices clamped to the cache, as the kernels clamp
  /// them.
  static Tensor4 pagedKeys(const Tensor4 &cache, const HostTensor *table) {
    const int64_t batch = table->shape[0], perSequence = table->shape[1];
    const int64_t pages = cache.shape[0], pageSize = cache.shape[2];
    Tensor4 t;
    t.shape = {batch, cache.shape[1], perSequence * pageSize, cache.shape[3]};
    t.slice = [=](int64_t b, int64_t h) {
      Matrix m(perSequence * pageSize, cache.shape[3]);
      for (int64_t i = 0; i < perSequence; ++i) {
        int64_t page = std::clamp<int64_t>(
            int64_t(table->data[b * perSequence + i]), 0, pages - 1);
        Matrix rows = cache.slice(page, h);
        std::copy(rows.v.begin(), rows.v.end(),
                  m.v.begin() + i * pageSize * m.cols);
      }
      return m;
    };
    return t;
  }

  /// The score_mod of an attn.flash_bwd and its derivative, reading the
  /// same captures (both null without a score_mod).
  LogicalResult scoreModAndGrad(FlashBwdOp op,
                                std::shared_ptr<const ScoreModProgram> &mod,
                                std::shared_ptr<const ScoreModProgram> &grad) {
    if (!op.hasScoreMod())
      return success();
    FailureOr<ScoreModProgram> program =
        scoreModProgram(op, op.getScoreMod(), op.getCaptures());
    if (failed(program))
      return failure();
    FailureOr<ScoreModProgram> gradProgram =
        scoreModProgram(op, op.getScoreModGrad(), op.getCaptures());
    if (failed(gradProgram))
      return failure();
    mod = std::make_shared<const ScoreModProgram>(std::move(*program));
    grad = std::make_shared<const ScoreModProgram>(std::move(*gradProgram));
    return success();
  }

  /// The gradients of a ragged batch's attn.flash_bwd: each sequence's are
  /// those of its own attention, as evaluateVarlenFlash computes it, from
  /// the packed operands ([T, H, D]; lse [Hq, Tq]). One (sequence, K/V head)
  /// at a time writes dq of its query heads' rows and dk, dv of its own;
  /// rows of no sequence, and of slices not asked for, stay NaN. dsinks
  /// sums over every sequence.
  LogicalResult evaluateVarlenFlashBackward(FlashBwdOp op) {
    FailureOr<const HostTensor *> q = plainOperand(op, op.getQ(), "q"),
                                  k = plainOperand(op, op.getK(), "k"),
                                  v = plainOperand(op, op.getV(), "v"),
                                  o = plainOperand(op, op.getO(), "o"),
                                  dO = plainOperand(op, op.getGradOutput(),
                                                    "grad_output"),
                                  lseOr = plainOperand(op, op.getLse(), "lse"),
                                  cuQ = plainOperand(op, op.getCuSeqlensQ(),
                                                     "cu_seqlens_q"),
                                  cuK = plainOperand(op, op.getCuSeqlensK(),
                                                     "cu_seqlens_k");
    if (failed(q) || failed(k) || failed(v) || failed(o) || failed(dO) ||
        failed(lseOr) || failed(cuQ) || failed(cuK))
      return failure();
    if (failed(checkOffsetsInOrder(op, **cuQ, **cuK)))
      return failure();
    std::shared_ptr<const ScoreModProgram> mod, modGrad;
    if (failed(scoreModAndGrad(op, mod, modGrad)))
      return failure();
    MaskEval e;
    e.kind = op.getMaskOrEmpty();
    const HostTensor &lse = **lseOr;
    const int64_t tq = (*q)->shape[0], hq = (*q)->shape[1],
                  dqk = (*q)->shape[2];
    const int64_t tk = (*k)->shape[0], hkv = (*k)->shape[1],
                  dv = (*v)->shape[2];
    const int64_t group = hq / hkv, batch = (*cuQ)->shape[0] - 1;
    const double scale = op.getScale().convertToDouble();
    const llvm::fltSemantics *oSemantics = nullptr;
    if (options.roundStoredOutput)
      if (auto oType = dyn_cast<FloatType>(getElementTypeOrSelf(op.getO())))
        oSemantics = &oType.getFloatSemantics();
    // D of each packed row of head h, of o as stored.
    auto rowDelta = [&](int64_t row, int64_t h) {
      double delta = 0;
      for (int64_t d = 0; d < dv; ++d) {
        double out = (*o)->data[(row * hq + h) * dv + d];
        delta += (*dO)->data[(row * hq + h) * dv + d] *
                 (oSemantics ? roundTo(out, *oSemantics) : out);
      }
      return delta;
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    HostTensor dq({tq, hq, dqk}, nan), dk({tk, hkv, dqk}, nan),
        dvOut({tk, hkv, dv}, nan);
    auto slice = [&](int64_t b, int64_t hk) {
      auto [qStart, sq] = clampedRange(**cuQ, b, tq);
      auto [kStart, sk] = clampedRange(**cuK, b, tk);
      Matrix keys = packedRows(**k, kStart, sk, hk),
             values = packedRows(**v, kStart, sk, hk);
      Matrix dkSum(sk, dqk), dvSum(sk, dv);
      for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
        Matrix queries = packedRows(**q, qStart, sq, h),
               dOut = packedRows(**dO, qStart, sq, h);
        Matrix dp = multiply(dOut, false, values, true);
        std::vector<double> rowLse(sq), delta(sq);
        for (int64_t i = 0; i < sq; ++i) {
          rowLse[i] = lse.data[h * tq + qStart + i];
          delta[i] = rowDelta(qStart + i, h);
        }
        BackwardLocal l = backwardLocal(multiply(queries, false, keys, true), b,
                                        h, scale, mod.get(), modGrad.get(), e,
                                        rowLse, delta, dp);
        const Matrix &p = l.p, &ds = l.ds;
        Matrix dqRows = multiply(ds, false, keys, false);
        for (int64_t i = 0; i < sq; ++i)
          for (int64_t d = 0; d < dqk; ++d)
            dq.data[((qStart + i) * hq + h) * dqk + d] = scale * dqRows.at(i, d);
        Matrix dkPart = multiply(ds, true, queries, false),
               dvPart = multiply(p, true, dOut, false);
        for (size_t i = 0; i < dkSum.v.size(); ++i)
          dkSum.v[i] += scale * dkPart.v[i];
        for (size_t i = 0; i < dvSum.v.size(); ++i)
          dvSum.v[i] += dvPart.v[i];
      }
      for (int64_t j = 0; j < sk; ++j) {
        for (int64_t d = 0; d < dqk; ++d)
          dk.data[((kStart + j) * hkv + hk) * dqk + d] = dkSum.at(j, d);
        for (int64_t d = 0; d < dv; ++d)
          dvOut.data[((kStart + j) * hkv + hk) * dv + d] = dvSum.at(j, d);
      }
    };
    std::vector<std::pair<int64_t, int64_t>> slices =
        sequenceSlices(batch, hq, group);
    ::attn::parallelFor(
        slices.size(),
        [&](size_t i) { slice(slices[i].first, slices[i].second); },
        options.threads);
    // dsinks[h] = -sum over every sequence's rows of exp(sink - lse) D,
    // before the results go into `plain`: the operands point into it, and
    // an insertion may move its entries.
    std::optional<HostTensor> ds;
    if (op.getGradSinks()) {
      const HostTensor *sinks = arguments.lookup(op.getSinks());
      if (!sinks)
        return op.emitOpError()
               << "'sinks' must be a function argument for the reference";
      ds.emplace(sinks->shape);
      for (int64_t b = 0; b < batch; ++b) {
        auto [qStart, sq] = clampedRange(**cuQ, b, tq);
        for (int64_t h = 0; h < hq; ++h) {
          const double sink = sinks->data[h];
          for (int64_t i = 0; i < sq; ++i) {
            const double rowLse = lse.data[h * tq + qStart + i];
            if (rowLse != kNegInf && sink != kNegInf)
              ds->data[h] -= std::exp(sink - rowLse) * rowDelta(qStart + i, h);
          }
        }
      }
    }
    plain[op.getGradQ()] = std::move(dq);
    plain[op.getGradK()] = std::move(dk);
    plain[op.getGradV()] = std::move(dvOut);
    if (ds)
      plain[op.getGradSinks()] = std::move(*ds);
    return success();
  }

  /// The gradients of attn.flash (attn.flash_bwd), from its operands o and
  /// lse as the op defines them. dq is computed per query head; dk and dv
  /// per K/V head, summing the query heads that share it; dbias per slice of
  /// the bias, summing the dimensions it broadcasts in.
  LogicalResult evaluateFlashBackward(FlashBwdOp op) {
    if (op.isVarlen())
      return evaluateVarlenFlashBackward(op);
    FailureOr<Tensor4> q = tensor(op, op.getQ()), k = tensor(op, op.getK()),
                       v = tensor(op, op.getV()), o = tensor(op, op.getO()),
                       dO = tensor(op, op.getGradOutput());
    if (failed(q) || failed(k) || failed(v) || failed(o) || failed(dO))
      return failure();
    // The logsumexp: an attn.flash result or a [B, H, Sq] argument.
    std::function<std::vector<double>(int64_t, int64_t)> lseRow;
    if (auto it = tensors.find(op.getLse()); it != tensors.end()) {
      Tensor4 lse = it->second;
      lseRow = [lse](int64_t b, int64_t h) { return lse.at(b, h).v; };
    } else if (auto p = plain.find(op.getLse()); p != plain.end()) {
      const HostTensor *lse = &p->second;
      lseRow = [lse](int64_t b, int64_t h) {
        int64_t heads = lse->shape[1], rows = lse->shape[2];
        const double *row = lse->data.data() + (b * heads + h) * rows;
        return std::vector<double>(row, row + rows);
      };
    } else {
      return op.emitOpError() << "has an 'lse' operand the reference holds no "
                                 "value for";
    }
    std::shared_ptr<const ScoreModProgram> mod, modGrad;
    if (failed(scoreModAndGrad(op, mod, modGrad)))
      return failure();
    FailureOr<MaskEval> eval =
        maskEval(op, op.getMaskOrEmpty(), op.getLengths(), op.getKeep(),
                 op.getBias());
    if (failed(eval))
      return failure();
    double scale = op.getScale().convertToDouble();
    bool transposeK = op.getTransposeK();
    int64_t group = q->shape[1] / k->shape[1];
    Tensor4 qq = *q, kk = *k, vv = *v, oo = *o, dd = *dO;
    MaskEval e = *eval;
    // D of o as stored (Options::roundStoredOutput).
    const llvm::fltSemantics *oSemantics = nullptr;
    if (options.roundStoredOutput)
      if (auto oType = dyn_cast<FloatType>(getElementTypeOrSelf(op.getO())))
        oSemantics = &oType.getFloatSemantics();

    // P, dZ and dS of one (batch, query head).
    auto local = [=](int64_t b, int64_t h) {
      Matrix raw = multiply(qq.at(b, h), false, kk.at(b, h / group), !transposeK);
      Matrix dOut = dd.at(b, h), out = oo.at(b, h);
      if (oSemantics)
        for (double &x : out.v)
          x = roundTo(x, *oSemantics);
      std::vector<double> delta(dOut.rows, 0.0);
      for (int64_t i = 0; i < dOut.rows; ++i)
        for (int64_t d = 0; d < dOut.cols; ++d)
          delta[i] += dOut.at(i, d) * out.at(i, d);
      Matrix dp = multiply(dOut, false, vv.at(b, h / group), true);
      return backwardLocal(raw, b, h, scale, mod.get(), modGrad.get(), e,
                           lseRow(b, h), delta, dp);
    };
    auto scaled = [scale](Matrix m) {
      for (double &x : m.v)
        x *= scale;
      return m;
    };
    auto accumulate = [](std::optional<Matrix> &sum, const Matrix &m) {
      if (!sum) {
        sum = m;
        return;
      }
      for (size_t i = 0; i < m.v.size(); ++i)
        sum->v[i] += m.v[i];
    };

    Tensor4 dq;
    dq.shape = qq.shape;
    dq.slice = [=](int64_t b, int64_t h) {
      // dq = scale dS K, K being [Skv, D] (or given as [D, Skv]).
      return scaled(multiply(local(b, h).ds, false, kk.at(b, h / group),
                             transposeK));
    };
    tensors[op.getGradQ()] = dq;
    Tensor4 dk;
    dk.shape = kk.shape;
    dk.slice = [=](int64_t b, int64_t hk) {
      std::optional<Matrix> sum;
      for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
        BackwardLocal l = local(b, h);
        accumulate(sum, transposeK ? multiply(qq.at(b, h), true, l.ds, false)
                                   : multiply(l.ds, true, qq.at(b, h), false));
      }
      return scaled(*sum);
    };
    tensors[op.getGradK()] = dk;
    Tensor4 dv;
    dv.shape = vv.shape;
    dv.slice = [=](int64_t b, int64_t hk) {
      std::optional<Matrix> sum;
      for (int64_t h = hk * group; h < (hk + 1) * group; ++h)
        accumulate(sum, multiply(local(b, h).p, true, dd.at(b, h), false));
      return *sum;
    };
    tensors[op.getGradV()] = dv;

    if (Value gradBias = op.getGradBias()) {
      Tensor4 db;
      db.shape = shapeOf(gradBias);
      std::array<int64_t, 4> full = {qq.shape[0], qq.shape[1], qq.shape[2],
                                     vv.shape[2]};
      std::array<int64_t, 4> shape = db.shape;
      db.slice = [=](int64_t bb, int64_t hb) {
        Matrix sum(shape[2], shape[3]);
        for (int64_t b = 0; b < full[0]; ++b)
          for (int64_t h = 0; h < full[1]; ++h) {
            if ((shape[0] != 1 && b != bb) || (shape[1] != 1 && h != hb))
              continue;
            Matrix dz = local(b, h).dz;
            for (int64_t i = 0; i < full[2]; ++i)
              for (int64_t j = 0; j < full[3]; ++j)
                sum.at(shape[2] == 1 ? 0 : i, shape[3] == 1 ? 0 : j) +=
                    dz.at(i, j);
          }
        return sum;
      };
      tensors[gradBias] = db;
    }

    // dsinks[h] = -sum over (b, i) of exp(sink[h] - lse) D: a sink's weight
    // is exp(sink - lse), and it adds no value, so its dP is 0.
    if (Value gradSinks = op.getGradSinks()) {
      const HostTensor *sinks = arguments.lookup(op.getSinks());
      if (!sinks)
        return op.emitOpError()
               << "'sinks' must be a function argument for the reference";
      HostTensor ds(sinks->shape);
      for (int64_t b = 0; b < qq.shape[0]; ++b)
        for (int64_t h = 0; h < qq.shape[1]; ++h) {
          std::vector<double> lse = lseRow(b, h);
          Matrix dOut = dd.at(b, h), out = oo.at(b, h);
          const double sink = sinks->data[h];
          for (int64_t i = 0; i < dOut.rows; ++i) {
            if (lse[i] == kNegInf || sink == kNegInf)
              continue;
            double delta = 0;
            for (int64_t d = 0; d < dOut.cols; ++d)
              delta += dOut.at(i, d) *
                       (oSemantics ? roundTo(out.at(i, d), *oSemantics)
                                   : out.at(i, d));
            ds.data[h] -= std::exp(sink - lse[i]) * delta;
          }
        }
      plain[gradSinks] = std::move(ds);
    }
    return success();
  }

  LogicalResult evaluateFlash(FlashOp flash) {
    if (flash.isVarlen())
      return evaluateVarlenFlash(flash);
    FailureOr<Tensor4> q = tensor(flash, flash.getQ()), k = tensor(flash, flash.getK()),
                       v = tensor(flash, flash.getV());
    if (failed(q) || failed(k) || failed(v))
      return failure();
    if (Value table = flash.getBlockTable()) {
      const HostTensor *pages = arguments.lookup(table);
      if (!pages)
        return flash.emitOpError()
               << "'block_table' must be a function argument for the reference";
      k = pagedKeys(*k, pages);
      v = pagedKeys(*v, pages);
    }
    std::shared_ptr<const ScoreModProgram> mod;
    if (flash.hasScoreMod()) {
      FailureOr<ScoreModProgram> program = scoreModProgram(
          flash, flash.getScoreMod(), flash.getCaptures());
      if (failed(program))
        return failure();
      mod = std::make_shared<const ScoreModProgram>(std::move(*program));
    }
    FailureOr<MaskEval> eval =
        maskEval(flash, flash.getMaskOrEmpty(), flash.getLengths(),
                 flash.getKeep(), flash.getBias());
    if (failed(eval))
      return failure();
    double scale = flash.getScale().convertToDouble();
    bool transposeK = flash.getTransposeK();
    int64_t group = q->shape[1] / k->shape[1];
    Tensor4 qq = *q, kk = *k, vv = *v;
    MaskEval e = *eval;
    FailureOr<std::vector<double>> sinks = sinkLogits(flash);
    if (failed(sinks))
      return failure();
    std::vector<double> sink = std::move(*sinks);
    // Probabilities and logsumexp of one slice.
    auto probabilities = [=](int64_t b, int64_t h, std::vector<double> *lse) {
      Matrix s = multiply(qq.at(b, h), false, kk.at(b, h / group), !transposeK);
      for (int64_t i = 0; i < s.rows; ++i)
        for (int64_t j = 0; j < s.cols; ++j) {
          double x = s.at(i, j) * scale;
          if (mod)
            x = mod->run(x, b, h, i, j);
          s.at(i, j) = x;
        }
      e.apply(s, b, h);
      softmaxInPlace(s, true, lse, sink.empty() ? kNegInf : sink[h]);
      return s;
    };
    Tensor4 out;
    out.shape = shapeOf(flash.getOutput());
    out.shape[0] = q->shape[0];
    out.shape[2] = q->shape[2];
    out.slice = [=](int64_t b, int64_t h) {
      return multiply(probabilities(b, h, nullptr), false, vv.at(b, h / group),
                      false);
    };
    tensors[flash.getOutput()] = out;
    if (Value lse = flash.getLse()) {
      Tensor4 l;
      l.shape = {q->shape[0], q->shape[1], q->shape[2], 1};
      l.slice = [=](int64_t b, int64_t h) {
        std::vector<double> values;
        probabilities(b, h, &values);
        Matrix m(values.size(), 1);
        m.v = values;
        return m;
      };
      tensors[lse] = l;
    }
    return success();
  }
};

} // namespace

FailureOr<std::vector<HostTensor>>
reference::evaluate(func::FuncOp func, ArrayRef<HostTensor> inputs,
                    const Options &options) {
  Evaluator evaluator(options);
  if (failed(evaluator.run(func, inputs)))
    return failure();
  std::vector<HostTensor> outputs;
  for (Value result : evaluator.results) {
    auto it = evaluator.tensors.find(result);
    if (it == evaluator.tensors.end()) {
      auto plain = evaluator.plain.find(result);
      if (plain == evaluator.plain.end())
        return func.emitError() << "the reference cannot return a result that "
                                   "is not a rank-4 tensor or an argument";
      outputs.push_back(plain->second);
      continue;
    }
    const Tensor4 &t = it->second;
    auto type = cast<RankedTensorType>(result.getType());
    std::vector<int64_t> shape(t.shape.begin(), t.shape.end());
    if (type.getRank() == 3)
      shape.pop_back(); // logsumexp [B, H, Sq]
    HostTensor out(shape, std::numeric_limits<double>::quiet_NaN());
    std::vector<std::pair<int64_t, int64_t>> slices;
    // A result with fewer batches or heads than the slices name (K/V
    // gradients with GQA, a broadcast bias's) computes the slices they
    // fold to.
    for (auto [b, h] : options.slices) {
      std::pair<int64_t, int64_t> slice = {b % t.shape[0], h % t.shape[1]};
      if (!llvm::is_contained(slices, slice))
        slices.push_back(slice);
    }
    if (slices.empty())
      for (int64_t b = 0; b < t.shape[0]; ++b)
        for (int64_t h = 0; h < t.shape[1]; ++h)
          slices.emplace_back(b, h);
    ::attn::parallelFor(
        slices.size(),
        [&](size_t i) {
          auto [b, h] = slices[i];
          Matrix m = t.slice(b, h);
          double *dst = out.data.data() +
                        ((b * t.shape[1] + h) * t.shape[2]) * t.shape[3];
          std::copy(m.v.begin(), m.v.end(), dst);
        },
        options.threads);
    outputs.push_back(std::move(out));
  }
  return outputs;
}
