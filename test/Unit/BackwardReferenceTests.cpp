//===- BackwardReferenceTests.cpp - The reference's backward --------------===//
//
// The float64 reference evaluates attn.flash_bwd, as --attn-derive-backward
// builds it from an attn.flash, and the gradients it returns must match
// central finite differences of the forward reference: for a loss
// L = sum(o * dO), dL/dx ~ (L(x + h) - L(x - h)) / 2h for every element x of
// q, k, v (and the bias). Shapes are small and odd (GQA, more or fewer
// keys than queries); masks, score_mods, captures and every derivative
// rule are covered, and the derivative table against the score_mod op
// table.
//
//===----------------------------------------------------------------------===//

#include "attn/API/CompileModule.h"
#include "attn/Dialect/Attn/IR/ScoreModOps.h"
#include "attn/Reference/Reference.h"
#include "attn/Transforms/Passes.h"
#include "attn/Transforms/ScoreModDerivatives.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/ScopeExit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

using namespace mlir::attn::reference;

namespace {

/// The forward attention a case differentiates.
struct Attention {
  int64_t batch = 2, headsQ = 4, headsKV = 2, seqQ = 5, seqKV = 7;
  int64_t headDimQK = 3, headDimV = 4;
  double scale = 0.5;
  bool causal = false, bottomRight = false, transposeK = false;
  int64_t windowLeft = -1, windowRight = -1;
  std::vector<int64_t> lengths;   ///< key_padding when not empty
  /// NaN in k and v past each batch entry's length (an uninitialized cache).
  bool nanPastLengths = false;
  bool keep = false;
  std::vector<int64_t> biasShape; ///< bias when not empty
  /// An f32 tensor the score_mod reads (%cap) when not empty.
  std::vector<int64_t> captureShape;
  /// Attention sinks ([Hq] or [1, Hq, 1, 1]) when not empty.
  std::vector<int64_t> sinksShape;
  /// A score_mod body over %score, %b, %h, %q_idx, %kv_idx (and %cap)
  /// ending in attn.yield; empty for none.
  std::string scoreMod;
  /// A ragged batch when not empty: batch + 1 offsets of the queries and
  /// the keys; q, k, v are then packed [seqQ or seqKV tokens, H, D].
  std::vector<int64_t> cuSeqlensQ, cuSeqlensK;
  bool ragged() const { return !cuSeqlensQ.empty(); }
};

std::string tensorType(const std::vector<int64_t> &shape, const char *element) {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  return text + element + ">";
}

class BackwardReferenceTest : public ::testing::Test {
protected:
  BackwardReferenceTest() { attn::registerAttnDialects(context); }

  std::vector<int64_t> qShape() const {
    if (a.ragged())
      return {a.seqQ, a.headsQ, a.headDimQK};
    return {a.batch, a.headsQ, a.seqQ, a.headDimQK};
  }
  std::vector<int64_t> kShape() const {
    if (a.ragged())
      return {a.seqKV, a.headsKV, a.headDimQK};
    return a.transposeK ? std::vector<int64_t>{a.batch, a.headsKV, a.headDimQK, a.seqKV}
                        : std::vector<int64_t>{a.batch, a.headsKV, a.seqKV, a.headDimQK};
  }
  std::vector<int64_t> vShape() const {
    if (a.ragged())
      return {a.seqKV, a.headsKV, a.headDimV};
    return {a.batch, a.headsKV, a.seqKV, a.headDimV};
  }
  std::vector<int64_t> oShape() const {
    if (a.ragged())
      return {a.seqQ, a.headsQ, a.headDimV};
    return {a.batch, a.headsQ, a.seqQ, a.headDimV};
  }

  /// The forward function of `a`.
  std::string forwardText() const {
    std::vector<std::string> items;
    if (a.causal)
      items.push_back("causal");
    if (a.windowLeft >= 0 || a.windowRight >= 0)
      items.push_back("window = [" + std::to_string(a.windowLeft) + ", " +
                      std::to_string(a.windowRight) + "]");
    if (a.bottomRight)
      items.push_back("bottom_right");
    if (!a.lengths.empty())
      items.push_back("key_padding");
    if (a.keep)
      items.push_back("keep");
    if (!a.biasShape.empty())
      items.push_back("bias");
    std::string q = tensorType(qShape(), "bf16"), k = tensorType(kShape(), "bf16"),
                v = tensorType(vShape(), "bf16"), o = tensorType(oShape(), "bf16");
    std::string lengths = tensorType({a.batch}, "i32");
    std::string keep = tensorType({a.batch, a.headsQ, a.seqQ, a.seqKV}, "i1");
    std::string bias = tensorType(a.biasShape, "f32");
    std::string capture = tensorType(a.captureShape, "f32");
    std::string sinks = tensorType(a.sinksShape, "f32");
    std::string offsets =
        tensorType({int64_t(a.cuSeqlensQ.size())}, "i32");
    std::ostringstream os;
    os << "func.func @f(%q: " << q << ", %k: " << k << ", %v: " << v;
    if (a.ragged())
      os << ", %cq: " << offsets << ", %ck: " << offsets;
    if (!a.lengths.empty())
      os << ", %len: " << lengths;
    if (a.keep)
      os << ", %keep: " << keep;
    if (!a.biasShape.empty())
      os << ", %bias: " << bias;
    if (!a.captureShape.empty())
      os << ", %capture: " << capture;
    if (!a.sinksShape.empty())
      os << ", %sinks: " << sinks;
    os << ") -> " << o << " {\n  %o = attn.flash %q, %k, %v";
    if (!a.lengths.empty())
      os << " lengths(%len : " << lengths << ")";
    if (a.keep)
      os << " keep(%keep : " << keep << ")";
    if (!a.biasShape.empty())
      os << " bias(%bias : " << bias << ")";
    if (!a.captureShape.empty())
      os << " captures(%capture : " << capture << ")";
    if (a.ragged())
      os << " cu_seqlens_q(%cq : " << offsets << ") cu_seqlens_k(%ck : "
         << offsets << ")";
    if (!a.sinksShape.empty())
      os << " sinks(%sinks : " << sinks << ")";
    os << " {scale = " << std::scientific << a.scale << " : f32";
    if (!items.empty()) {
      os << ", mask = #attn.mask<";
      for (size_t i = 0; i < items.size(); ++i)
        os << (i ? ", " : "") << items[i];
      os << ">";
    }
    if (a.transposeK)
      os << ", transpose_k";
    os << "}";
    if (!a.scoreMod.empty())
      os << " score_mod {\n  ^bb0(%score: f32, %b: index, %h: index, %q_idx: "
            "index, %kv_idx: index"
         << (a.captureShape.empty() ? "" : ", %cap: " + capture) << "):\n"
         << a.scoreMod << "\n  }";
    os << " : " << q << ", " << k << ", " << v << " -> " << o << "\n  return %o : "
       << o << "\n}\n";
    return os.str();
  }

  HostTensor random(std::vector<int64_t> shape) {
    HostTensor t(std::move(shape));
    std::normal_distribution<double> normal;
    for (double &x : t.data)
      x = normal(rng);
    return t;
  }

  /// Parses the forward, derives the training step, and checks every
  /// gradient element against central differences of the forward.
  void checkGradients() {
    std::string text = forwardText();
    SCOPED_TRACE(text);
    forward = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    ASSERT_TRUE(forward);
    step = forward->clone();
    mlir::PassManager pm(&context);
    mlir::attn::AttnDeriveBackwardPassOptions options;
    options.biasGrad = !a.biasShape.empty();
    pm.addPass(mlir::attn::createAttnDeriveBackwardPass(options));
    ASSERT_TRUE(mlir::succeeded(pm.run(*step)));

    // Inputs: q, k, v, then the mask operands; dO last for the step.
    std::vector<HostTensor> inputs = {random(qShape()), random(kShape()),
                                      random(vShape())};
    std::vector<size_t> differentiated = {0, 1, 2};
    for (const std::vector<int64_t> *cu : {&a.cuSeqlensQ, &a.cuSeqlensK}) {
      if (cu->empty())
        continue;
      HostTensor offsets({int64_t(cu->size())});
      for (size_t i = 0; i < cu->size(); ++i)
        offsets.data[i] = double((*cu)[i]);
      inputs.push_back(offsets);
    }
    if (!a.lengths.empty()) {
      HostTensor lengths({a.batch});
      for (int64_t b = 0; b < a.batch; ++b)
        lengths.data[b] = double(a.lengths[b]);
      inputs.push_back(lengths);
    }
    if (a.nanPastLengths) {
      // k and v [B, Hkv, Skv, D] (k not transposed).
      for (int t = 1; t <= 2; ++t) {
        HostTensor &x = inputs[t];
        const int64_t dim = x.shape[3];
        for (int64_t b = 0; b < a.batch; ++b)
          for (int64_t h = 0; h < a.headsKV; ++h)
            for (int64_t j = a.lengths[b]; j < a.seqKV; ++j)
              for (int64_t d = 0; d < dim; ++d)
                x.data[((b * a.headsKV + h) * a.seqKV + j) * dim + d] =
                    std::numeric_limits<double>::quiet_NaN();
      }
    }
    if (a.keep) {
      HostTensor keep({a.batch, a.headsQ, a.seqQ, a.seqKV});
      std::bernoulli_distribution kept(0.7);
      for (double &x : keep.data)
        x = kept(rng) ? 1.0 : 0.0;
      inputs.push_back(keep);
    }
    if (!a.biasShape.empty()) {
      differentiated.push_back(inputs.size());
      inputs.push_back(random(a.biasShape));
    }
    // Read, not differentiated.
    if (!a.captureShape.empty())
      inputs.push_back(random(a.captureShape));
    // Differentiated, always (their gradient comes last).
    if (!a.sinksShape.empty()) {
      differentiated.push_back(inputs.size());
      inputs.push_back(random(a.sinksShape));
    }
    HostTensor gradOutput = random(oShape());

    Options serial;
    serial.threads = 1;
    auto forwardFunc = *forward->getOps<mlir::func::FuncOp>().begin();
    auto stepFunc = *step->getOps<mlir::func::FuncOp>().begin();
    std::vector<HostTensor> stepInputs = inputs;
    stepInputs.push_back(gradOutput);
    auto results = evaluate(stepFunc, stepInputs, serial);
    ASSERT_TRUE(mlir::succeeded(results));
    ASSERT_EQ(results->size(), 1 + differentiated.size());

    auto loss = [&](const std::vector<HostTensor> &x) {
      auto out = evaluate(forwardFunc, x, serial);
      EXPECT_TRUE(mlir::succeeded(out));
      double sum = 0;
      for (size_t i = 0; i < gradOutput.data.size(); ++i)
        // Rows of no sequence of a ragged batch are NaN: not outputs.
        if (!a.ragged() || !std::isnan((*out)[0].data[i]))
          sum += (*out)[0].data[i] * gradOutput.data[i];
      return sum;
    };
    const double h = 1e-5;
    for (size_t g = 0; g < differentiated.size(); ++g) {
      const HostTensor &analytic = (*results)[1 + g];
      size_t input = differentiated[g];
      ASSERT_EQ(analytic.shape, inputs[input].shape) << "gradient " << g;
      double diff = 0, norm = 0;
      for (size_t e = 0; e < analytic.data.size(); ++e) {
        std::vector<HostTensor> x = inputs;
        x[input].data[e] += h;
        double plus = loss(x);
        x[input].data[e] -= 2 * h;
        double numeric = (plus - loss(x)) / (2 * h);
        // A ragged batch's rows of no sequence are not computed (NaN):
        // nothing depends on them.
        if (a.ragged() && std::isnan(analytic.data[e])) {
          EXPECT_EQ(numeric, 0.0) << "gradient " << g << " element " << e;
          continue;
        }
        ASSERT_TRUE(std::isfinite(analytic.data[e]))
            << "gradient " << g << " element " << e;
        diff += (numeric - analytic.data[e]) * (numeric - analytic.data[e]);
        norm += numeric * numeric;
      }
      EXPECT_GT(norm, 0.0) << "gradient " << g << " is all zero";
      EXPECT_LT(std::sqrt(diff / norm), 1e-6) << "gradient " << g;
    }
    gradients.assign(results->begin() + 1, results->end());
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> forward, step;
  std::mt19937 rng{7};
  Attention a;
  /// dq, dk, dv (, dbias, dsinks) of the last check.
  std::vector<HostTensor> gradients;
};

TEST_F(BackwardReferenceTest, PlainGqa) { checkGradients(); }

TEST_F(BackwardReferenceTest, CausalMqaOddLengths) {
  a.headsKV = 1;
  a.seqQ = 7;
  a.seqKV = 5;
  a.causal = true;
  checkGradients();
}

TEST_F(BackwardReferenceTest, BottomRightCausalWithEmptyRows) {
  // More queries than keys, aligned bottom-right: the first 4 rows see no
  // key, so their dq is zero (not NaN).
  a.seqQ = 7;
  a.seqKV = 3;
  a.causal = a.bottomRight = true;
  checkGradients();
  const HostTensor &dq = gradients[0];
  for (int64_t i = 0; i < 4 * a.headDimQK; ++i)
    EXPECT_EQ(dq.data[i], 0.0);
}

TEST_F(BackwardReferenceTest, WindowAndKeyPadding) {
  a.windowLeft = 2;
  a.windowRight = 1;
  a.lengths = {7, 4};
  checkGradients();
}

TEST_F(BackwardReferenceTest, WindowBottomRightCausal) {
  a.seqQ = 6;
  a.seqKV = 9;
  a.causal = a.bottomRight = true;
  a.windowLeft = 3;
  checkGradients();
}

TEST_F(BackwardReferenceTest, ZeroLengthBatchHasZeroGradients) {
  a.lengths = {0, 5};
  checkGradients();
  // Batch 0 sees no key at all: every gradient of it is exactly zero.
  for (const HostTensor &g : gradients)
    for (int64_t i = 0; i < g.numElements() / a.batch; ++i)
      EXPECT_EQ(g.data[i], 0.0);
}

TEST_F(BackwardReferenceTest, NaNPastTheLengthsLeavesEveryGradientANumber) {
  // What an uninitialized cache holds past the keys: the gradients, the
  // bias's too, stay numbers (a masked entry's zero weight times NaN is not
  // taken), and the padded keys' dk and dv are zero.
  a.lengths = {4, 7};
  a.nanPastLengths = true;
  a.biasShape = {a.batch, a.headsQ, a.seqQ, a.seqKV};
  checkGradients();
  const HostTensor &dk = gradients[1], &dv = gradients[2];
  for (int64_t h = 0; h < a.headsKV; ++h)
    for (int64_t j = 4; j < a.seqKV; ++j) {
      EXPECT_EQ(dk.data[(h * a.seqKV + j) * a.headDimQK], 0.0) << h << " " << j;
      EXPECT_EQ(dv.data[(h * a.seqKV + j) * a.headDimV], 0.0) << h << " " << j;
    }
}

TEST_F(BackwardReferenceTest, RoundStoredOutputTakesDOfTheStoredOutput) {
  // Two rows over three keys, one head: with Options::roundStoredOutput, dq
  // is scale * sum_j P_ij (dP_ij - D_i) k_j with D_i = sum_d dO_id
  // bf16(o_id), as a kernel reading the stored output computes it (here by
  // hand); without it, D of the exact o, the gradient checkGradients
  // compares with finite differences. dv does not read D.
  a.batch = a.headsQ = a.headsKV = 1;
  a.seqQ = 2;
  a.seqKV = 3;
  forward = mlir::parseSourceString<mlir::ModuleOp>(forwardText(), &context);
  ASSERT_TRUE(forward);
  step = forward->clone();
  mlir::PassManager pm(&context);
  pm.addPass(mlir::attn::createAttnDeriveBackwardPass());
  ASSERT_TRUE(mlir::succeeded(pm.run(*step)));
  const HostTensor q = random(qShape()), k = random(kShape()),
                   v = random(vShape()), dO = random(oShape());
  auto stepFunc = *step->getOps<mlir::func::FuncOp>().begin();
  Options exact, stored;
  exact.threads = stored.threads = 1;
  stored.roundStoredOutput = true;
  auto exactResults = evaluate(stepFunc, {q, k, v, dO}, exact);
  auto storedResults = evaluate(stepFunc, {q, k, v, dO}, stored);
  ASSERT_TRUE(mlir::succeeded(exactResults));
  ASSERT_TRUE(mlir::succeeded(storedResults));
  ASSERT_EQ(storedResults->size(), 4u); // o, dq, dk, dv

  auto bf16 = [](double x) {
    llvm::APFloat value(x);
    bool losesInfo;
    value.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
                  &losesInfo);
    return double(value.convertToFloat());
  };
  const int64_t dk = a.headDimQK, dv = a.headDimV;
  double largestChange = 0;
  for (int64_t i = 0; i < a.seqQ; ++i) {
    std::vector<double> p(a.seqKV);
    double sum = 0;
    for (int64_t j = 0; j < a.seqKV; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < dk; ++d)
        dot += q.data[i * dk + d] * k.data[j * dk + d];
      p[j] = std::exp(a.scale * dot);
      sum += p[j];
    }
    double delta = 0;
    for (int64_t d = 0; d < dv; ++d) {
      double o = 0;
      for (int64_t j = 0; j < a.seqKV; ++j)
        o += p[j] / sum * v.data[j * dv + d];
      delta += dO.data[i * dv + d] * bf16(o);
    }
    for (int64_t d = 0; d < dk; ++d) {
      double dq = 0;
      for (int64_t j = 0; j < a.seqKV; ++j) {
        double dp = 0;
        for (int64_t e = 0; e < dv; ++e)
          dp += dO.data[i * dv + e] * v.data[j * dv + e];
        dq += a.scale * p[j] / sum * (dp - delta) * k.data[j * dk + d];
      }
      const int64_t at = i * dk + d;
      EXPECT_NEAR((*storedResults)[1].data[at], dq, 1e-12) << "dq " << at;
      largestChange = std::max(
          largestChange,
          std::abs((*storedResults)[1].data[at] - (*exactResults)[1].data[at]));
    }
  }
  EXPECT_GT(largestChange, 1e-6) << "rounding o changed no dq";
  EXPECT_EQ((*storedResults)[3].data, (*exactResults)[3].data);
}

TEST_F(BackwardReferenceTest, KeepMask) {
  a.keep = true;
  checkGradients();
}

TEST_F(BackwardReferenceTest, FullBiasAndItsGradient) {
  a.biasShape = {a.batch, a.headsQ, a.seqQ, a.seqKV};
  a.causal = true;
  checkGradients();
}

TEST_F(BackwardReferenceTest, BroadcastBiasSumsItsGradient) {
  // A per-head bias shared by the batch, and a per-key bias.
  a.biasShape = {1, a.headsQ, a.seqQ, a.seqKV};
  checkGradients();
  a.biasShape = {a.batch, 1, 1, a.seqKV};
  checkGradients();
}

TEST_F(BackwardReferenceTest, SinksAndTheirGradient) {
  a.causal = true;
  a.sinksShape = {a.headsQ};
  checkGradients();
}

TEST_F(BackwardReferenceTest, SinksWithEmptyRowsAndABias) {
  // Rows that see no key weigh only their sink (lse = sink, o = 0): they
  // add nothing to dsinks. The sinks come as a graph's [1, Hq, 1, 1] column.
  a.seqQ = 7;
  a.seqKV = 4;
  a.causal = true;
  a.bottomRight = true;
  a.biasShape = {1, a.headsQ, a.seqQ, a.seqKV};
  a.sinksShape = {1, a.headsQ, 1, 1};
  checkGradients();
  ASSERT_EQ(gradients.size(), 5u);
  EXPECT_EQ(gradients[4].shape, a.sinksShape);
}

TEST_F(BackwardReferenceTest, RaggedBatchCausalGqaWithSinks) {
  // Sequences of 3, 0, 5 and 1 queries against 4, 2, 6 and 0 keys: an
  // empty sequence, keys no query sees, a query with no key (its sinks
  // still take a gradient), and a row past the last sequence (row 9 of
  // q, keys 12-13): gradient 0.
  a.batch = 4;
  a.seqQ = 10;
  a.seqKV = 14;
  a.cuSeqlensQ = {0, 3, 3, 8, 9};
  a.cuSeqlensK = {0, 4, 6, 12, 12};
  a.causal = a.bottomRight = true;
  a.sinksShape = {4};
  checkGradients();
}

TEST_F(BackwardReferenceTest, RaggedBatchWindowAndScoreModOfPositions) {
  // The score_mod sees the sequence and the positions within it.
  a.batch = 3;
  a.seqQ = 9;
  a.seqKV = 11;
  a.headsKV = 1;
  a.cuSeqlensQ = {0, 4, 6, 9};
  a.cuSeqlensK = {0, 5, 6, 11};
  a.windowLeft = 2;
  a.windowRight = 1;
  a.bottomRight = true;
  a.scoreMod = R"(    %bi = arith.index_cast %b : index to i32
    %qi = arith.index_cast %q_idx : index to i32
    %ki = arith.index_cast %kv_idx : index to i32
    %d = arith.subi %qi, %ki : i32
    %s = arith.addi %d, %bi : i32
    %f = arith.sitofp %s : i32 to f32
    %c = arith.constant 0.25 : f32
    %m = arith.mulf %f, %c : f32
    %y = arith.addf %score, %m : f32
    attn.yield %y : f32)";
  checkGradients();
}

TEST_F(BackwardReferenceTest, TransposedK) {
  a.transposeK = true;
  a.causal = true;
  checkGradients();
}

TEST_F(BackwardReferenceTest, Softcap) {
  // Small cap and large scores, so that tanh bends.
  a.scale = 2.0;
  a.scoreMod = R"(
    %c = arith.constant 1.5 : f32
    %d = arith.divf %score, %c : f32
    %t = math.tanh %d : f32
    %y = arith.mulf %t, %c : f32
    attn.yield %y : f32)";
  a.causal = true;
  checkGradients();
}

TEST_F(BackwardReferenceTest, SingularDerivativeWhereTheScoreIsStill) {
  // sqrt at 0 and acos at 1 have infinite derivatives; where the score
  // does not move their operand (a maximum with 0, a tanh rounded to 1:
  // past 19 in float64, past 9 in f32), its tangent is 0 and so is the
  // gradient, not the chain rule's 0 / 0: every gradient element must be
  // finite, and match finite differences (acos(tanh(u)) = -sech(u) is
  // smooth).
  a.scale = 2.0;
  a.scoreMod = R"(
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %score, %zero : f32
    %root = math.sqrt %relu : f32
    %c = arith.constant 10.0 : f32
    %u = arith.mulf %score, %c : f32
    %t = math.tanh %u : f32
    %angle = math.acos %t : f32
    %y = arith.addf %root, %angle : f32
    attn.yield %y : f32)";
  checkGradients();
}

TEST_F(BackwardReferenceTest, Alibi) {
  // attn.alibi(4) of python/attn: the bias depends on indices only.
  a.scoreMod = R"(
    %one = arith.constant 1 : index
    %h1 = arith.addi %h, %one : index
    %hi = arith.index_cast %h1 : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %r = arith.constant -2.0 : f32
    %e = arith.mulf %hf, %r : f32
    %slope = math.exp2 %e : f32
    %d = arith.subi %kv_idx, %q_idx : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    %b2 = arith.mulf %slope, %df : f32
    %y = arith.addf %score, %b2 : f32
    attn.yield %y : f32)";
  a.causal = true;
  a.bottomRight = true;
  checkGradients();
}

TEST_F(BackwardReferenceTest, CapturedScalePerHeadAndRelativeBias) {
  // A learned scale per head multiplies the score (the derivative reads
  // it) and a relative-position table adds to it (the derivative does
  // not); indices past the table are clamped.
  a.captureShape = {a.headsQ + 2 * a.seqKV};
  a.scoreMod = R"(
    %s = tensor.extract %cap[%h] : tensor<12xf32>
    %off = arith.constant 4 : index
    %d = arith.subi %kv_idx, %q_idx : index
    %i = arith.addi %d, %off : index
    %r = tensor.extract %cap[%i] : tensor<12xf32>
    %x = arith.mulf %score, %s : f32
    %y = arith.addf %x, %r : f32
    attn.yield %y : f32)";
  a.causal = true;
  a.seqQ = a.seqKV = 4;
  a.captureShape = {12};
  checkGradients();
}

/// One score_mod per derivative rule, each making the score pass through
/// its op (and staying in the op's domain).
class DerivativeRuleTest : public BackwardReferenceTest,
                           public ::testing::WithParamInterface<const char *> {};

TEST_P(DerivativeRuleTest, MatchesFiniteDifferences) {
  a.scoreMod = GetParam();
  checkGradients();
}

INSTANTIATE_TEST_SUITE_P(
    EveryRule, DerivativeRuleTest,
    ::testing::Values(
        "%y = arith.addf %score, %score : f32\n attn.yield %y : f32",
        "%c = arith.constant 1.5 : f32\n %y = arith.subf %c, %score : f32\n attn.yield %y : f32",
        "%y = arith.mulf %score, %score : f32\n attn.yield %y : f32",
        // The divisor depends on the score too.
        "%c = arith.constant 2.0 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %d = arith.addf %s2, %c : f32\n %y = arith.divf %score, %d : f32\n attn.yield %y : f32",
        "%c = arith.constant 0.75 : f32\n %y = arith.remf %score, %c : f32\n attn.yield %y : f32",
        "%c = arith.constant 3.0 : f32\n %one = arith.constant 1.0 : f32\n"
        " %s2 = arith.mulf %score, %score : f32\n %d = arith.addf %s2, %one : f32\n"
        " %y = arith.remf %c, %d : f32\n attn.yield %y : f32",
        "%y = arith.negf %score : f32\n attn.yield %y : f32",
        "%c = arith.constant 0.1 : f32\n %y = arith.maximumf %score, %c : f32\n attn.yield %y : f32",
        "%c = arith.constant 0.1 : f32\n %y = arith.maxnumf %c, %score : f32\n attn.yield %y : f32",
        "%c = arith.constant 0.1 : f32\n %y = arith.minimumf %score, %c : f32\n attn.yield %y : f32",
        "%c = arith.constant 0.1 : f32\n %y = arith.minnumf %c, %score : f32\n attn.yield %y : f32",
        "%z = arith.constant 0.0 : f32\n %p = arith.cmpf ogt, %score, %z : f32\n"
        " %s2 = arith.mulf %score, %score : f32\n %n = arith.negf %score : f32\n"
        " %y = arith.select %p, %s2, %n : f32\n attn.yield %y : f32",
        "%y = math.tanh %score : f32\n attn.yield %y : f32",
        "%y = math.exp %score : f32\n attn.yield %y : f32",
        "%y = math.exp2 %score : f32\n attn.yield %y : f32",
        "%one = arith.constant 1.0 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %d = arith.addf %s2, %one : f32\n %y = math.log %d : f32\n attn.yield %y : f32",
        "%one = arith.constant 1.0 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %d = arith.addf %s2, %one : f32\n %y = math.log2 %d : f32\n attn.yield %y : f32",
        "%one = arith.constant 1.0 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %d = arith.addf %s2, %one : f32\n %y = math.sqrt %d : f32\n attn.yield %y : f32",
        "%one = arith.constant 1.0 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %d = arith.addf %s2, %one : f32\n %y = math.rsqrt %d : f32\n attn.yield %y : f32",
        "%y = math.absf %score : f32\n attn.yield %y : f32",
        "%y = math.erf %score : f32\n attn.yield %y : f32",
        "%y = math.sin %score : f32\n attn.yield %y : f32",
        "%y = math.cos %score : f32\n attn.yield %y : f32",
        // Both the base and the exponent depend on the score.
        "%one = arith.constant 1.0 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %d = arith.addf %s2, %one : f32\n %e = arith.constant 0.7 : f32\n"
        " %x = arith.mulf %score, %e : f32\n %y = math.powf %d, %x : f32\n attn.yield %y : f32",
        "%y = math.fma %score, %score, %score : f32\n attn.yield %y : f32",
        "%f = math.floor %score : f32\n %y = arith.mulf %f, %score : f32\n attn.yield %y : f32",
        "%f = math.ceil %score : f32\n %y = arith.addf %f, %score : f32\n attn.yield %y : f32",
        // Integer arithmetic on the indices has no derivative.
        "%d = arith.subi %q_idx, %kv_idx : index\n %i = arith.index_cast %d : index to i32\n"
        " %f = arith.sitofp %i : i32 to f32\n %y = arith.mulf %score, %f : f32\n"
        " %t = arith.fptosi %y : f32 to i32\n %u = arith.sitofp %t : i32 to f32\n"
        " %z = arith.addf %y, %u : f32\n attn.yield %z : f32",
        // The inverse trigonometric functions, inside their domains.
        "%c = arith.constant 0.3 : f32\n %t = math.tanh %score : f32\n"
        " %x = arith.mulf %t, %c : f32\n %y = math.acos %x : f32\n attn.yield %y : f32",
        "%c = arith.constant 0.3 : f32\n %t = math.tanh %score : f32\n"
        " %x = arith.mulf %t, %c : f32\n %y = math.asin %x : f32\n attn.yield %y : f32",
        "%c = arith.constant 0.5 : f32\n %t = math.tanh %score : f32\n"
        " %x = arith.mulf %t, %c : f32\n %y = math.atanh %x : f32\n attn.yield %y : f32",
        "%c = arith.constant 1.5 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %x = arith.addf %s2, %c : f32\n %y = math.acosh %x : f32\n attn.yield %y : f32",
        "%y = math.asinh %score : f32\n attn.yield %y : f32",
        "%y = math.atan %score : f32\n attn.yield %y : f32",
        // Both arguments of atan2 depend on the score.
        "%one = arith.constant 1.0 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %d = arith.addf %s2, %one : f32\n %y = math.atan2 %score, %d : f32\n attn.yield %y : f32",
        "%one = arith.constant 1.0 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %d = arith.addf %s2, %one : f32\n %y = math.cbrt %d : f32\n attn.yield %y : f32",
        // The magnitude of the score, the sign of a constant, and the
        // reverse (whose derivative is 0).
        "%c = arith.constant -1.5 : f32\n %a = math.copysign %score, %c : f32\n"
        " %m = math.copysign %c, %score : f32\n %y = arith.addf %a, %m : f32\n attn.yield %y : f32",
        "%y = math.cosh %score : f32\n attn.yield %y : f32",
        "%y = math.sinh %score : f32\n attn.yield %y : f32",
        "%c = arith.constant 0.3 : f32\n %x = arith.mulf %score, %c : f32\n"
        " %y = math.tan %x : f32\n attn.yield %y : f32",
        "%y = math.erfc %score : f32\n attn.yield %y : f32",
        "%y = math.expm1 %score : f32\n attn.yield %y : f32",
        "%one = arith.constant 1.0 : f32\n %s2 = arith.mulf %score, %score : f32\n"
        " %d = arith.addf %s2, %one : f32\n %y = math.log10 %d : f32\n attn.yield %y : f32",
        "%s2 = arith.mulf %score, %score : f32\n %y = math.log1p %s2 : f32\n attn.yield %y : f32",
        // Rounding is piecewise constant.
        "%r = math.round %score : f32\n %e = math.roundeven %score : f32\n"
        " %t = math.trunc %score : f32\n %s = arith.addf %r, %e : f32\n"
        " %u = arith.addf %s, %t : f32\n %y = arith.mulf %u, %score : f32\n attn.yield %y : f32",
        // A classification of the score only picks a branch.
        "%c = arith.constant 0.0 : f32\n %f = math.isfinite %score : f32\n"
        " %n = math.isnan %score : f32\n %i = math.isinf %score : f32\n"
        " %m = math.isnormal %score : f32\n %y0 = arith.select %f, %score, %c : f32\n"
        " %y1 = arith.select %n, %c, %y0 : f32\n %y2 = arith.select %i, %c, %y1 : f32\n"
        " %y3 = arith.mulf %y2, %score : f32\n %y = arith.select %m, %y3, %y2 : f32\n attn.yield %y : f32",
        "%t = arith.fptoui %score : f32 to i32\n %u = arith.uitofp %t : i32 to f32\n"
        " %y = arith.addf %score, %u : f32\n attn.yield %y : f32"));

// Every op a score_mod may hold (the table of ScoreModOps.h) has a
// derivative: a rule, zero, an integer op, or an error for the score's
// bits. An op added to that table without one fails here.
TEST(ScoreModDerivativeTable, CoversTheScoreModOpTable) {
  for (const mlir::attn::ScoreModOpInfo &row : mlir::attn::scoreModOps()) {
    std::optional<mlir::attn::Derivative> derivative =
        mlir::attn::lookupDerivative(row.name);
    ASSERT_TRUE(derivative) << row.name.str() << " has no derivative rule";
    if (derivative->kind == mlir::attn::DerivativeKind::Rule) {
      EXPECT_TRUE(derivative->rule) << row.name.str();
    }
  }
}

/// deriveScoreModGrad on a block built here (no verifier): the score
/// through `opName` (one operand, result of `resultType`), yielded.
mlir::LogicalResult deriveThrough(mlir::MLIRContext &context, const char *opName,
                                  mlir::Type resultType, std::string &error) {
  mlir::OpBuilder builder(&context);
  mlir::Location loc = builder.getUnknownLoc();
  // Regions belong to an op: an unregistered one with two.
  mlir::OperationState holderState(loc, "test.holder");
  holderState.addRegion();
  holderState.addRegion();
  mlir::Operation *holder = mlir::Operation::create(holderState);
  llvm::scope_exit destroy([&] { holder->destroy(); });
  mlir::Region &source = holder->getRegion(0), &into = holder->getRegion(1);
  mlir::Type f32 = builder.getF32Type(), index = builder.getIndexType();
  mlir::Block *block = builder.createBlock(&source, source.end(),
                                           {f32, index, index, index, index},
                                           {loc, loc, loc, loc, loc});
  mlir::OperationState state(loc, opName);
  state.addOperands(block->getArgument(0));
  state.addTypes(resultType);
  mlir::Operation *op = builder.create(state);
  mlir::attn::YieldOp::create(builder, loc, op->getResult(0));
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    error = d.str();
    return mlir::success();
  });
  return mlir::attn::deriveScoreModGrad(source, into);
}

TEST(ScoreModDerivativeTable, AnOpWithoutADerivativeIsALocatedError) {
  mlir::MLIRContext context;
  attn::registerAttnDialects(context);
  context.allowUnregisteredDialects();
  std::string error;
  EXPECT_TRUE(mlir::failed(deriveThrough(context, "test.mystery",
                                         mlir::Float32Type::get(&context), error)));
  EXPECT_EQ(error, "'test.mystery' op has no derivative rule "
                   "(ScoreModDerivatives.cpp); --attn-derive-backward cannot "
                   "differentiate the score_mod through it");
  // A rule's op must give an f32 (the verifier of a score_mod ensures it).
  EXPECT_TRUE(mlir::failed(deriveThrough(context, "arith.extf",
                                         mlir::Float64Type::get(&context), error)));
  EXPECT_EQ(error, "'arith.extf' op must have one f32 result to be "
                   "differentiated in a score_mod");
}

} // namespace
