//===- ReferenceTests.cpp - The float64 CPU reference ---------------------===//

#include "attn/API/CompileModule.h"
#include "attn/Reference/Reference.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"

#include "attn/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace mlir::attn::reference;

namespace {

class ReferenceTest : public ::testing::Test {
protected:
  ReferenceTest() { attn::registerAttnDialects(context); }

  mlir::func::FuncOp parse(const std::string &text) {
    module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    return *module->getOps<mlir::func::FuncOp>().begin();
  }

  HostTensor random(std::vector<int64_t> shape, unsigned seed) {
    HostTensor t(std::move(shape));
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal;
    for (double &x : t.data)
      x = normal(rng);
    return t;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// softmax(scale q k^T + mask) v for one (b, h), written out by hand.
double naiveAttention(const HostTensor &q, const HostTensor &k,
                      const HostTensor &v, int64_t b, int64_t h, int64_t hk,
                      int64_t i, int64_t d, double scale, bool causal) {
  int64_t H = q.shape[1], Hk = k.shape[1], S = q.shape[2], T = k.shape[2],
          D = q.shape[3];
  auto at = [](const HostTensor &t, int64_t b, int64_t h, int64_t s, int64_t e,
               int64_t heads, int64_t seq, int64_t dim) {
    return t.data[((b * heads + h) * seq + s) * dim + e];
  };
  std::vector<double> p(T);
  double mx = -INFINITY;
  for (int64_t j = 0; j < T; ++j) {
    double s = 0;
    for (int64_t e = 0; e < D; ++e)
      s += at(q, b, h, i, e, H, S, D) * at(k, b, hk, j, e, Hk, T, D);
    p[j] = causal && j > i ? -INFINITY : s * scale;
    mx = std::max(mx, p[j]);
  }
  double sum = 0, out = 0;
  for (int64_t j = 0; j < T; ++j)
    sum += (p[j] = std::exp(p[j] - mx));
  for (int64_t j = 0; j < T; ++j)
    out += p[j] / sum * at(v, b, hk, j, d, Hk, T, v.shape[3]);
  return out;
}

TEST_F(ReferenceTest, GraphMatchesAHandWrittenAttention) {
  auto func = parse(R"(
func.func @f(%q: tensor<2x4x5x8xbf16>, %k: tensor<2x2x5x8xbf16>, %v: tensor<2x2x5x8xbf16>) -> tensor<2x4x5x8xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x5x8xbf16>, tensor<2x2x5x8xbf16> -> tensor<2x4x5x5xf32>
  %t = attn.scale %s {factor = 0.5 : f32} : tensor<2x4x5x5xf32>
  %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x4x5x5xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x5x5xf32> -> tensor<2x4x5x5xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x5x5xbf16>, tensor<2x2x5x8xbf16> -> tensor<2x4x5x8xbf16>
  return %o : tensor<2x4x5x8xbf16>
})");
  HostTensor q = random({2, 4, 5, 8}, 1), k = random({2, 2, 5, 8}, 2),
             v = random({2, 2, 5, 8}, 3);
  auto out = evaluate(func, {q, k, v});
  ASSERT_TRUE(mlir::succeeded(out));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t i = 0; i < 5; ++i)
        for (int64_t d = 0; d < 8; ++d)
          EXPECT_NEAR((*out)[0].data[((b * 4 + h) * 5 + i) * 8 + d],
                      naiveAttention(q, k, v, b, h, h / 2, i, d, 0.5, true),
                      1e-12);
}

TEST_F(ReferenceTest, FusedOpMatchesItsGraph) {
  // The same attention twice: as a graph and as attn.flash, with every mask
  // kind and a score_mod. The reference of both must agree to rounding.
  auto func = parse(R"(
func.func @f(%q: tensor<2x4x6x8xbf16>, %k: tensor<2x2x9x8xbf16>, %v: tensor<2x2x9x4xbf16>,
             %len: tensor<2xi32>, %keep: tensor<2x1x6x9xi1>, %bias: tensor<1x4x1x9xf32>)
    -> (tensor<2x4x6x4xbf16>, tensor<2x4x6x4xbf16>) {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x6x8xbf16>, tensor<2x2x9x8xbf16> -> tensor<2x4x6x9xf32>
  %t = attn.scale %s {factor = 0.35 : f32} : tensor<2x4x6x9xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %cap = arith.constant 2.0 : f32
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<2x4x6x9xf32>
  %m = attn.mask %c lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x1x6x9xi1>) bias(%bias : tensor<1x4x1x9xf32>)
      {kind = #attn.mask<causal, window = [4, 0], bottom_right, key_padding, keep, bias>} : tensor<2x4x6x9xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x4x6x9xf32> -> tensor<2x4x6x9xbf16>
  %o = attn.matmul %p, %v : tensor<2x4x6x9xbf16>, tensor<2x2x9x4xbf16> -> tensor<2x4x6x4xbf16>
  %f = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x1x6x9xi1>) bias(%bias : tensor<1x4x1x9xf32>)
      {scale = 0.35 : f32, mask = #attn.mask<causal, window = [4, 0], bottom_right, key_padding, keep, bias>} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %cap = arith.constant 2.0 : f32
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<2x4x6x8xbf16>, tensor<2x2x9x8xbf16>, tensor<2x2x9x4xbf16> -> tensor<2x4x6x4xbf16>
  return %o, %f : tensor<2x4x6x4xbf16>, tensor<2x4x6x4xbf16>
})");
  HostTensor len({2});
  len.data = {7, 3};
  HostTensor keep({2, 1, 6, 9});
  for (size_t i = 0; i < keep.data.size(); ++i)
    keep.data[i] = (i * 7919) % 5 != 0;
  auto out = evaluate(func, {random({2, 4, 6, 8}, 4), random({2, 2, 9, 8}, 5),
                             random({2, 2, 9, 4}, 6), len, keep,
                             random({1, 4, 1, 9}, 7)});
  ASSERT_TRUE(mlir::succeeded(out));
  EXPECT_LT(relativeError((*out)[1], (*out)[0]), 1e-12);
  // Masks do something: not every output is the same.
  EXPECT_NE((*out)[0].data[0], (*out)[0].data[4]);
}

TEST_F(ReferenceTest, ArithExportedGraphMatchesTheFusedOp) {
  // scores / 8 + bias, masked_fill through select(keep, s, -inf), as
  // exporters write them with arith ops; attn-fuse accepts this form.
  auto func = parse(R"(
func.func @f(%q: tensor<1x2x5x8xbf16>, %k: tensor<1x2x7x8xbf16>, %v: tensor<1x2x7x8xbf16>,
             %keep: tensor<1x2x5x7xi1>, %bias: tensor<1x2x5x7xf32>)
    -> (tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16>) {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x5x8xbf16>, tensor<1x2x7x8xbf16> -> tensor<1x2x5x7xf32>
  %c = arith.constant dense<8.0> : tensor<1x2x5x7xf32>
  %t = arith.divf %s, %c : tensor<1x2x5x7xf32>
  %b = arith.addf %t, %bias : tensor<1x2x5x7xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1x2x5x7xf32>
  %m = arith.select %keep, %b, %ninf : tensor<1x2x5x7xi1>, tensor<1x2x5x7xf32>
  %p = attn.softmax %m {dim = -1} : tensor<1x2x5x7xf32> -> tensor<1x2x5x7xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x5x7xbf16>, tensor<1x2x7x8xbf16> -> tensor<1x2x5x8xbf16>
  %f = attn.flash %q, %k, %v keep(%keep : tensor<1x2x5x7xi1>) bias(%bias : tensor<1x2x5x7xf32>)
      {scale = 0.125 : f32, mask = #attn.mask<keep, bias>}
    : tensor<1x2x5x8xbf16>, tensor<1x2x7x8xbf16>, tensor<1x2x7x8xbf16> -> tensor<1x2x5x8xbf16>
  return %o, %f : tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16>
})");
  HostTensor keep({1, 2, 5, 7});
  for (size_t i = 0; i < keep.data.size(); ++i)
    keep.data[i] = i % 3 != 1;
  auto out = evaluate(func, {random({1, 2, 5, 8}, 12), random({1, 2, 7, 8}, 13),
                             random({1, 2, 7, 8}, 14), keep,
                             random({1, 2, 5, 7}, 15)});
  ASSERT_TRUE(mlir::succeeded(out));
  EXPECT_LT(relativeError((*out)[1], (*out)[0]), 1e-12);
}

TEST_F(ReferenceTest, UnfusedKernelsComputeTheGraph) {
  // --attn-lower-unfused changes how the graph runs, not what it computes.
  const char *text = R"(
func.func @f(%q: tensor<2x2x6x8xbf16>, %k: tensor<2x1x6x8xbf16>, %v: tensor<2x1x6x8xbf16>, %len: tensor<2xi32>) -> tensor<2x2x6x8xbf16> {
  %cap = arith.constant 3.0 : f32
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x6x8xbf16>, tensor<2x1x6x8xbf16> -> tensor<2x2x6x6xf32>
  %t = attn.scale %s {factor = 0.35 : f32} : tensor<2x2x6x6xf32>
  %c = attn.score_mod %t {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    %d = arith.divf %x, %cap : f32
    %th = math.tanh %d : f32
    %y = arith.mulf %th, %cap : f32
    attn.yield %y : f32
  } : tensor<2x2x6x6xf32>
  %m = attn.mask %c lengths(%len : tensor<2xi32>) {kind = #attn.mask<causal, key_padding>} : tensor<2x2x6x6xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x2x6x6xf32> -> tensor<2x2x6x6xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x6x6xbf16>, tensor<2x1x6x8xbf16> -> tensor<2x2x6x8xbf16>
  return %o : tensor<2x2x6x8xbf16>
})";
  HostTensor len({2});
  len.data = {4, 6};
  std::vector<HostTensor> inputs = {random({2, 2, 6, 8}, 16), random({2, 1, 6, 8}, 17),
                                    random({2, 1, 6, 8}, 18), len};
  auto graph = evaluate(parse(text), inputs);
  ASSERT_TRUE(mlir::succeeded(graph));

  mlir::PassManager pm(&context);
  pm.addPass(mlir::attn::createAttnLowerUnfusedPass());
  mlir::func::FuncOp func = parse(text);
  ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
  int kernels = 0;
  func.walk([&](mlir::attn::KernelOp) { ++kernels; });
  EXPECT_EQ(kernels, 6);
  auto unfused = evaluate(func, inputs);
  ASSERT_TRUE(mlir::succeeded(unfused));
  EXPECT_EQ(relativeError((*unfused)[0], (*graph)[0]), 0.0);
}

TEST_F(ReferenceTest, ScoreModCapturesAreReadAtTheirIndices) {
  // A bias per head and a relative-position table [2S-1] indexed by
  // q - k + S - 1, read by the score_mod as captures, equal the same values
  // added as an explicit bias tensor; after --attn-fuse, attn.flash reads
  // the captures the same way.
  const char *text = R"(
func.func @f(%q: tensor<1x2x5x8xbf16>, %k: tensor<1x2x5x8xbf16>, %v: tensor<1x2x5x8xbf16>,
             %slopes: tensor<2xf32>, %rel: tensor<9xbf16>, %bias: tensor<1x2x5x5xf32>)
    -> (tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16>) {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16> -> tensor<1x2x5x5xf32>
  %t = attn.scale %s {factor = 0.35 : f32} : tensor<1x2x5x5xf32>
  %c = attn.score_mod %t captures(%slopes, %rel : tensor<2xf32>, tensor<9xbf16>) {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %st: tensor<2xf32>, %rt: tensor<9xbf16>):
    %slope = tensor.extract %st[%h] : tensor<2xf32>
    %four = arith.constant 4 : index
    %d = arith.subi %i, %j : index
    %r = arith.addi %d, %four : index
    %rel16 = tensor.extract %rt[%r] : tensor<9xbf16>
    %relf = arith.extf %rel16 : bf16 to f32
    %y0 = arith.addf %x, %slope : f32
    %y = arith.addf %y0, %relf : f32
    attn.yield %y : f32
  } : tensor<1x2x5x5xf32>
  %p = attn.softmax %c {dim = 3} : tensor<1x2x5x5xf32> -> tensor<1x2x5x5xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x5x5xbf16>, tensor<1x2x5x8xbf16> -> tensor<1x2x5x8xbf16>
  %s2 = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16> -> tensor<1x2x5x5xf32>
  %t2 = attn.scale %s2 {factor = 0.35 : f32} : tensor<1x2x5x5xf32>
  %m2 = attn.mask %t2 bias(%bias : tensor<1x2x5x5xf32>) {kind = #attn.mask<bias>} : tensor<1x2x5x5xf32>
  %p2 = attn.softmax %m2 {dim = 3} : tensor<1x2x5x5xf32> -> tensor<1x2x5x5xbf16>
  %o2 = attn.matmul %p2, %v : tensor<1x2x5x5xbf16>, tensor<1x2x5x8xbf16> -> tensor<1x2x5x8xbf16>
  return %o, %o2 : tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16>
})";
  HostTensor slopes({2}), rel({9}), bias({1, 2, 5, 5});
  slopes.data = {0.5, -1.25};
  for (int i = 0; i < 9; ++i)
    rel.data[i] = 0.25 * (i - 4) * (i % 3 == 0 ? -1 : 1);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j)
        bias.data[(h * 5 + i) * 5 + j] = slopes.data[h] + rel.data[i - j + 4];
  std::vector<HostTensor> inputs = {random({1, 2, 5, 8}, 21), random({1, 2, 5, 8}, 22),
                                    random({1, 2, 5, 8}, 23), slopes, rel, bias};
  auto graph = evaluate(parse(text), inputs);
  ASSERT_TRUE(mlir::succeeded(graph));
  EXPECT_LT(relativeError((*graph)[0], (*graph)[1]), 1e-12);

  mlir::PassManager pm(&context);
  pm.addPass(mlir::attn::createAttnFusePass());
  mlir::func::FuncOp func = parse(text);
  ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
  int captured = 0;
  func.walk([&](mlir::attn::FlashOp flash) {
    captured += flash.getCaptures().size();
  });
  EXPECT_EQ(captured, 2);
  auto fused = evaluate(func, inputs);
  ASSERT_TRUE(mlir::succeeded(fused));
  EXPECT_LT(relativeError((*fused)[0], (*graph)[1]), 1e-12);
}

TEST_F(ReferenceTest, FullyMaskedRowsAreZeroWithMinusInfLse) {
  // Bottom-right causal with more queries than keys: the first rows see no key.
  auto func = parse(R"(
func.func @f(%q: tensor<1x1x6x8xbf16>, %k: tensor<1x1x2x8xbf16>, %v: tensor<1x1x2x8xbf16>)
    -> (tensor<1x1x6x8xbf16>, tensor<1x1x6xf32>) {
  %o, %l = attn.flash %q, %k, %v {scale = 1.0 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<1x1x6x8xbf16>, tensor<1x1x2x8xbf16>, tensor<1x1x2x8xbf16> -> tensor<1x1x6x8xbf16>, tensor<1x1x6xf32>
  return %o, %l : tensor<1x1x6x8xbf16>, tensor<1x1x6xf32>
})");
  auto out = evaluate(func, {random({1, 1, 6, 8}, 8), random({1, 1, 2, 8}, 9),
                             random({1, 1, 2, 8}, 10)});
  ASSERT_TRUE(mlir::succeeded(out));
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t d = 0; d < 8; ++d)
      EXPECT_EQ((*out)[0].data[i * 8 + d], 0.0);
    EXPECT_EQ((*out)[1].data[i], -INFINITY);
  }
  // Row 5 sees both keys: a finite logsumexp and a non-zero output.
  EXPECT_TRUE(std::isfinite((*out)[1].data[5]));
  EXPECT_NE((*out)[0].data[5 * 8], 0.0);
}

TEST_F(ReferenceTest, ComputesOnlyTheAskedSlices) {
  auto func = parse(R"(
func.func @f(%q: tensor<3x2x4x8xf16>) -> tensor<3x2x4x8xf16> {
  %o = attn.flash %q, %q, %q {scale = 1.0 : f32} : tensor<3x2x4x8xf16>, tensor<3x2x4x8xf16>, tensor<3x2x4x8xf16> -> tensor<3x2x4x8xf16>
  return %o : tensor<3x2x4x8xf16>
})");
  Options options;
  options.slices = {{2, 1}};
  auto out = evaluate(func, {random({3, 2, 4, 8}, 11)}, options);
  ASSERT_TRUE(mlir::succeeded(out));
  const HostTensor &o = (*out)[0];
  EXPECT_TRUE(std::isnan(o.data[0]));
  EXPECT_FALSE(std::isnan(o.data[((2 * 2 + 1) * 4) * 8]));
}

/// A score_mod that reads every index: x + 0.1 (q_idx - kv_idx + 5 b), with
/// b given as `batchTerm` (an SSA value of the region).
std::string indexScoreMod(const std::string &batchTerm) {
  return R"(
    %five = arith.constant 5 : index
    %d = arith.subi %i, %j : index
    %b5 = arith.muli )" + batchTerm + R"(, %five : index
    %s = arith.addi %d, %b5 : index
    %si = arith.index_cast %s : index to i32
    %sf = arith.sitofp %si : i32 to f32
    %c = arith.constant 0.1 : f32
    %m = arith.mulf %sf, %c : f32
    %y = arith.addf %x, %m : f32
    attn.yield %y : f32)";
}

TEST_F(ReferenceTest, RaggedBatchIsEachSequenceAlone) {
  // Three sequences of 2, 0 and 5 queries against 4, 3 and 6 keys, GQA 4/2,
  // causal with a window aligned to each sequence's bottom-right, and a
  // score_mod of the sequence and the positions within it: each sequence's
  // rows must be those of a dense attention over it alone.
  const int64_t qLen[] = {2, 0, 5}, kLen[] = {4, 3, 6};
  const std::string mask =
      "mask = #attn.mask<causal, window = [3, 0], bottom_right>";
  auto func = parse(R"(
func.func @f(%q: tensor<7x4x8xbf16>, %k: tensor<13x2x8xbf16>, %v: tensor<13x2x4xbf16>,
             %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> (tensor<7x4x4xbf16>, tensor<4x7xf32>) {
  %o, %l = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<4xi32>) cu_seqlens_k(%ck : tensor<4xi32>)
      {scale = 0.35 : f32, )" + mask + R"(} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):)" +
                    indexScoreMod("%b") + R"(
  } : tensor<7x4x8xbf16>, tensor<13x2x8xbf16>, tensor<13x2x4xbf16> -> tensor<7x4x4xbf16>, tensor<4x7xf32>
  return %o, %l : tensor<7x4x4xbf16>, tensor<4x7xf32>
})");
  HostTensor q = random({7, 4, 8}, 12), k = random({13, 2, 8}, 13),
             v = random({13, 2, 4}, 14);
  HostTensor cq({4}), ck({4});
  cq.data = {0, 2, 2, 7};
  ck.data = {0, 4, 7, 13};
  auto ragged = evaluate(func, {q, k, v, cq, ck});
  ASSERT_TRUE(mlir::succeeded(ragged));
  const HostTensor &out = (*ragged)[0], &lse = (*ragged)[1];
  EXPECT_EQ(out.shape, (std::vector<int64_t>{7, 4, 4}));
  EXPECT_EQ(lse.shape, (std::vector<int64_t>{4, 7}));
  for (int64_t b = 0; b < 3; ++b) {
    if (!qLen[b])
      continue;
    // The sequence alone, BHSD, its b as a constant of the score_mod.
    auto dense = [](int64_t s, int64_t h, int64_t d) {
      return "tensor<1x" + std::to_string(h) + "x" + std::to_string(s) +
             "x" + std::to_string(d) + "xbf16>";
    };
    std::string tq = dense(qLen[b], 4, 8), tk = dense(kLen[b], 2, 8),
                tv = dense(kLen[b], 2, 4), to = dense(qLen[b], 4, 4);
    std::string tl = "tensor<1x4x" + std::to_string(qLen[b]) + "xf32>";
    mlir::OwningOpRef<mlir::ModuleOp> alone =
        mlir::parseSourceString<mlir::ModuleOp>(
            "func.func @g(%q: " + tq + ", %k: " + tk + ", %v: " + tv +
                ") -> (" + to + ", " + tl + ") {\n"
                "  %o, %l = attn.flash %q, %k, %v {scale = 0.35 : f32, " +
                mask + "} score_mod {\n"
                "  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):\n"
                "    %seq = arith.constant " + std::to_string(b) + " : index" +
                indexScoreMod("%seq") + "\n  } : " + tq + ", " + tk + ", " +
                tv + " -> " + to + ", " + tl + "\n  return %o, %l : " + to +
                ", " + tl + "\n}",
            &context);
    ASSERT_TRUE(alone);
    auto g = *alone->getOps<mlir::func::FuncOp>().begin();
    // Its rows of the packed tensors, as BHSD.
    auto gather = [](const HostTensor &t, int64_t first, int64_t count) {
      int64_t heads = t.shape[1], dim = t.shape[2];
      HostTensor d({1, heads, count, dim});
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < count; ++i)
          for (int64_t c = 0; c < dim; ++c)
            d.data[(h * count + i) * dim + c] =
                t.data[((first + i) * heads + h) * dim + c];
      return d;
    };
    int64_t q0 = int64_t(cq.data[b]), k0 = int64_t(ck.data[b]);
    auto expected = evaluate(g, {gather(q, q0, qLen[b]), gather(k, k0, kLen[b]),
                                 gather(v, k0, kLen[b])});
    ASSERT_TRUE(mlir::succeeded(expected));
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t i = 0; i < qLen[b]; ++i) {
        for (int64_t c = 0; c < 4; ++c)
          EXPECT_NEAR(out.data[((q0 + i) * 4 + h) * 4 + c],
                      (*expected)[0].data[(h * qLen[b] + i) * 4 + c], 1e-12);
        double want = (*expected)[1].data[h * qLen[b] + i];
        if (std::isinf(want))
          EXPECT_EQ(lse.data[h * 7 + q0 + i], want);
        else
          EXPECT_NEAR(lse.data[h * 7 + q0 + i], want, 1e-12);
      }
  }
  // Sequence 2's first queries see no key (5 queries, 6 keys, window 3 at
  // the bottom-right: query 0 sees keys 0..1), but sequence 0's first row
  // with 4 keys for 2 queries sees keys 0..2.
  EXPECT_TRUE(std::isfinite(lse.data[0]));
}

TEST_F(ReferenceTest, SinksJoinEachRowsDenominator) {
  // A sink per query head: weights exp(s_j) / (exp(sink_h) + sum exp(s_k)),
  // written out by hand; rows with every key masked give zeros and the
  // sink as their logsumexp. Both shapes of the operand agree.
  auto func = parse(R"(
func.func @f(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x1x3x8xbf16>, %v: tensor<1x1x3x8xbf16>,
             %s: tensor<2xf32>, %s4: tensor<1x2x1x1xf32>)
    -> (tensor<1x2x4x8xbf16>, tensor<1x2x4xf32>, tensor<1x2x4x8xbf16>) {
  %o, %l = attn.flash %q, %k, %v sinks(%s : tensor<2xf32>) {scale = 0.5 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<1x2x4x8xbf16>, tensor<1x1x3x8xbf16>, tensor<1x1x3x8xbf16> -> tensor<1x2x4x8xbf16>, tensor<1x2x4xf32>
  %o4 = attn.flash %q, %k, %v sinks(%s4 : tensor<1x2x1x1xf32>) {scale = 0.5 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<1x2x4x8xbf16>, tensor<1x1x3x8xbf16>, tensor<1x1x3x8xbf16> -> tensor<1x2x4x8xbf16>
  return %o, %l, %o4 : tensor<1x2x4x8xbf16>, tensor<1x2x4xf32>, tensor<1x2x4x8xbf16>
})");
  HostTensor q = random({1, 2, 4, 8}, 16), k = random({1, 1, 3, 8}, 17),
             v = random({1, 1, 3, 8}, 18);
  HostTensor sinks({2}), sinks4({1, 2, 1, 1});
  sinks.data = sinks4.data = {0.7, -1.5};
  auto out = evaluate(func, {q, k, v, sinks, sinks4});
  ASSERT_TRUE(mlir::succeeded(out));
  const HostTensor &o = (*out)[0], &lse = (*out)[1];
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t i = 0; i < 4; ++i) {
      // Bottom-right causal, 4 queries on 3 keys: query i sees keys < i.
      std::vector<double> e(3, 0.0);
      double sum = std::exp(sinks.data[h]);
      for (int64_t j = 0; j < i && j < 3; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < 8; ++c)
          dot += q.data[((h * 4) + i) * 8 + c] * k.data[j * 8 + c];
        sum += (e[j] = std::exp(0.5 * dot));
      }
      EXPECT_NEAR(lse.data[h * 4 + i], std::log(sum), 1e-12);
      for (int64_t c = 0; c < 8; ++c) {
        double want = 0;
        for (int64_t j = 0; j < 3; ++j)
          want += e[j] / sum * v.data[j * 8 + c];
        EXPECT_NEAR(o.data[((h * 4) + i) * 8 + c], want, 1e-12);
      }
    }
  // Query 0 sees no key: zeros, and the sink's logit.
  EXPECT_EQ(o.data[0], 0.0);
  EXPECT_DOUBLE_EQ(lse.data[0], 0.7);
  EXPECT_EQ(relativeError((*out)[2], o), 0.0);
}

TEST_F(ReferenceTest, BottomRightAlignsToEachSequencesLength) {
  // A padded cache: 3 new queries of two sequences with 5 and 8 keys of 8.
  // With key padding, bottom-right aligns to each sequence's own length
  // (query i of sequence b sees keys up to lengths[b] - 3 + i), as
  // flash_attn's cache_seqlens does; the graph op and the fused op agree.
  auto func = parse(R"(
func.func @f(%q: tensor<2x1x3x8xbf16>, %k: tensor<2x1x8x8xbf16>, %v: tensor<2x1x8x8xbf16>, %len: tensor<2xi32>)
    -> (tensor<2x1x3x8xbf16>, tensor<2x1x3x8xbf16>) {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) {scale = 1.0 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<2x1x3x8xbf16>, tensor<2x1x8x8xbf16>, tensor<2x1x8x8xbf16> -> tensor<2x1x3x8xbf16>
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x1x3x8xbf16>, tensor<2x1x8x8xbf16> -> tensor<2x1x3x8xf32>
  %m = attn.mask %s lengths(%len : tensor<2xi32>) {kind = #attn.mask<causal, bottom_right, key_padding>} : tensor<2x1x3x8xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x1x3x8xf32> -> tensor<2x1x3x8xbf16>
  %g = attn.matmul %p, %v : tensor<2x1x3x8xbf16>, tensor<2x1x8x8xbf16> -> tensor<2x1x3x8xbf16>
  return %o, %g : tensor<2x1x3x8xbf16>, tensor<2x1x3x8xbf16>
})");
  HostTensor q = random({2, 1, 3, 8}, 19), k = random({2, 1, 8, 8}, 20),
             v = random({2, 1, 8, 8}, 21);
  HostTensor len({2});
  len.data = {5, 8};
  auto out = evaluate(func, {q, k, v, len});
  ASSERT_TRUE(mlir::succeeded(out));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 3; ++i) {
      int64_t last = int64_t(len.data[b]) - 3 + i; // the diagonal key
      std::vector<double> e(8, 0.0);
      double sum = 0;
      for (int64_t j = 0; j <= last; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < 8; ++c)
          dot += q.data[(b * 3 + i) * 8 + c] * k.data[(b * 8 + j) * 8 + c];
        sum += (e[j] = std::exp(dot));
      }
      for (int64_t c = 0; c < 8; ++c) {
        double want = 0;
        for (int64_t j = 0; j < 8; ++j)
          want += e[j] / sum * v.data[(b * 8 + j) * 8 + c];
        EXPECT_NEAR((*out)[0].data[(b * 3 + i) * 8 + c], want, 1e-12);
      }
    }
  EXPECT_LT(relativeError((*out)[1], (*out)[0]), 1e-12);
}

TEST_F(ReferenceTest, PagedCacheIsTheKeysItsTableGathers) {
  // Pages of 3 keys, 4 pages per sequence; sequence 1's table has an entry
  // past the cache (clamped to its last page, as the kernels clamp it) and
  // one before it (clamped to page 0). The paged op equals the dense op on
  // the keys gathered by hand.
  auto func = parse(R"(
func.func @f(%q: tensor<2x2x3x8xbf16>, %kc: tensor<5x1x3x8xbf16>, %vc: tensor<5x1x3x8xbf16>,
             %len: tensor<2xi32>, %table: tensor<2x4xi32>, %k: tensor<2x1x12x8xbf16>, %v: tensor<2x1x12x8xbf16>)
    -> (tensor<2x2x3x8xbf16>, tensor<2x2x3x8xbf16>) {
  %p = attn.flash %q, %kc, %vc lengths(%len : tensor<2xi32>) block_table(%table : tensor<2x4xi32>)
      {scale = 0.5 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<2x2x3x8xbf16>, tensor<5x1x3x8xbf16>, tensor<5x1x3x8xbf16> -> tensor<2x2x3x8xbf16>
  %d = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>)
      {scale = 0.5 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<2x2x3x8xbf16>, tensor<2x1x12x8xbf16>, tensor<2x1x12x8xbf16> -> tensor<2x2x3x8xbf16>
  return %p, %d : tensor<2x2x3x8xbf16>, tensor<2x2x3x8xbf16>
})");
  HostTensor q = random({2, 2, 3, 8}, 22), kc = random({5, 1, 3, 8}, 23),
             vc = random({5, 1, 3, 8}, 24);
  HostTensor len({2}), table({2, 4});
  len.data = {7, 12};
  table.data = {3, 0, 4, 2, 9, 1, -2, 2};
  const int64_t pages[2][4] = {{3, 0, 4, 2}, {4, 1, 0, 2}};
  HostTensor k({2, 1, 12, 8}), v({2, 1, 12, 8});
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t c = 0; c < 8; ++c) {
          int64_t from = (pages[b][i] * 3 + r) * 8 + c;
          k.data[(b * 12 + i * 3 + r) * 8 + c] = kc.data[from];
          v.data[(b * 12 + i * 3 + r) * 8 + c] = vc.data[from];
        }
  auto out = evaluate(func, {q, kc, vc, len, table, k, v});
  ASSERT_TRUE(mlir::succeeded(out));
  EXPECT_EQ(relativeError((*out)[0], (*out)[1]), 0.0);
  EXPECT_NE((*out)[0].data[0], (*out)[0].data[8]);
}

TEST_F(ReferenceTest, RaggedOffsetsOutOfOrderAreAnError) {
  auto func = parse(R"(
func.func @f(%q: tensor<4x1x8xbf16>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<4x1x8xbf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%ck : tensor<3xi32>) {scale = 1.0 : f32}
    : tensor<4x1x8xbf16>, tensor<4x1x8xbf16>, tensor<4x1x8xbf16> -> tensor<4x1x8xbf16>
  return %o : tensor<4x1x8xbf16>
})");
  HostTensor cq({3}), ck({3});
  cq.data = {0, 3, 1};
  ck.data = {0, 2, 4};
  std::string message;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    message = d.str();
    return mlir::success();
  });
  EXPECT_TRUE(mlir::failed(evaluate(func, {random({4, 1, 8}, 15), cq, ck})));
  EXPECT_NE(message.find("'cu_seqlens_q' decreases from 3 to 1 at sequence 1"),
            std::string::npos)
      << message;
  // Offsets past the tokens are clamped, as the kernel clamps them: the
  // second sequence is rows 2..3.
  cq.data = {0, 2, 9};
  ck.data = {-5, 2, 4};
  auto out = evaluate(func, {random({4, 1, 8}, 15), cq, ck});
  ASSERT_TRUE(mlir::succeeded(out));
  for (double x : (*out)[0].data)
    EXPECT_FALSE(std::isnan(x));
}

TEST(RelativeError, IgnoresUncomputedAndRejectsNaN) {
  HostTensor ref({4}), got({4});
  ref.data = {1, 2, NAN, 4};
  got.data = {1, 2, 123, 4};
  int64_t compared = 0;
  EXPECT_EQ(relativeError(got, ref, &compared), 0.0);
  EXPECT_EQ(compared, 3);
  got.data[1] = NAN;
  EXPECT_TRUE(std::isinf(relativeError(got, ref)));
  // Equal infinities (the -inf logsumexp of rows without keys) are
  // compared, outside the norms; an unequal one is an infinite error.
  const double inf = std::numeric_limits<double>::infinity();
  ref.data = {-inf, -inf, NAN, 4};
  got.data = {-inf, -inf, 0, 4};
  EXPECT_EQ(relativeError(got, ref, &compared), 0.0);
  EXPECT_EQ(compared, 3);
  got.data[0] = 0;
  EXPECT_TRUE(std::isinf(relativeError(got, ref)));
}

} // namespace
