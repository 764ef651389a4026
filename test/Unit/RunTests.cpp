//===- RunTests.cpp - attn-run's library (AttnRun) without a GPU ----------===//
//
// Loading modules, making inputs, host/device element conversions, the
// checker and the profile arithmetic; what needs a GPU (running kernels,
// timing) is covered by the GPU suite through attn-run.
//
//===----------------------------------------------------------------------===//

#include "attn/Run/Check.h"
#include "attn/Run/Inputs.h"
#include "attn/Run/Module.h"
#include "attn/Run/Profile.h"
#include "attn/Run/Runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <unistd.h>

using namespace attn;
using namespace attn::run;

namespace {

const char *kSdpa = R"(
func.func @sdpa(%q: tensor<2x2x8x16xbf16>, %k: tensor<2x2x8x16xbf16>, %v: tensor<2x2x8x16xbf16>,
                %len: tensor<2xi32>, %keep: tensor<2x2x8x8xi1>) -> tensor<2x2x8x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16> -> tensor<2x2x8x8xf32>
  %t = attn.scale %s {factor = 0.25 : f32} : tensor<2x2x8x8xf32>
  %m = attn.mask %t lengths(%len : tensor<2xi32>) keep(%keep : tensor<2x2x8x8xi1>) {kind = #attn.mask<key_padding, keep>} : tensor<2x2x8x8xf32>
  %p = attn.softmax %m {dim = 3} : tensor<2x2x8x8xf32> -> tensor<2x2x8x8xbf16>
  %o = attn.matmul %p, %v : tensor<2x2x8x8xbf16>, tensor<2x2x8x16xbf16> -> tensor<2x2x8x16xbf16>
  return %o : tensor<2x2x8x16xbf16>
}
)";

/// A paged cache of 20 pages of 8 keys, its 3 sequences of up to 5 pages
/// each; one cache as both k and v.
const char *kPagedCache = R"(
func.func @f(%q: tensor<3x2x1x16xbf16>, %kc: tensor<20x2x8x16xbf16>, %len: tensor<3xi32>, %t: tensor<3x5xi32>)
    -> tensor<3x2x1x16xbf16> {
  %o = attn.flash %q, %kc, %kc lengths(%len : tensor<3xi32>) block_table(%t : tensor<3x5xi32>)
      {scale = 1.0 : f32, mask = #attn.mask<key_padding>}
    : tensor<3x2x1x16xbf16>, tensor<20x2x8x16xbf16>, tensor<20x2x8x16xbf16> -> tensor<3x2x1x16xbf16>
  return %o : tensor<3x2x1x16xbf16>
})";

class RunTest : public ::testing::Test {
protected:
  std::string write(const std::string &name, const std::string &text) {
    // ctest -j runs the cases as processes side by side: a file of this
    // process's own, or one case unlinks another's input.
    std::string path = ::testing::TempDir() + "attn-run-" +
                       std::to_string(getpid()) + "-" + name;
    std::ofstream(path) << text;
    files.push_back(path);
    return path;
  }
  ~RunTest() override {
    for (const std::string &f : files)
      unlink(f.c_str());
  }
  std::vector<std::string> files;
};

TEST_F(RunTest, LoadsAModuleAndKeepsItsOriginal) {
  Result<LoadedModule> loaded = loadModule(write("sdpa.mlir", kSdpa));
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_EQ(loaded->func.getSymName(), "sdpa");
  EXPECT_NE(loaded->func, loaded->originalFunc);
  // Changing the module leaves the copy the reference reads.
  loaded->func.getBody().front().front().erase();
  EXPECT_NE(&loaded->func.getBody().front().front(),
            &loaded->originalFunc.getBody().front().front());
  EXPECT_EQ(loaded->originalFunc.getBody().front().getOperations().size(), 6u);
}

TEST_F(RunTest, LoadErrorsSayWhat) {
  Result<LoadedModule> missing = loadModule("/nonexistent/x.mlir");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().code(), StatusCode::IoError);
  EXPECT_NE(missing.status().message().find("cannot read /nonexistent/x.mlir"),
            std::string::npos);
  Result<LoadedModule> noFunc = loadModule(write("empty.mlir", "module {}\n"));
  ASSERT_FALSE(noFunc);
  EXPECT_NE(noFunc.status().message().find("has no function with a body"),
            std::string::npos);
  Result<LoadedModule> bad = loadModule(write("bad.mlir", "func.func @f( {\n"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().code(), StatusCode::ParseError);
}

TEST_F(RunTest, RandomInputsAreSeededAndFitTheirTypes) {
  Result<LoadedModule> loaded = loadModule(write("sdpa.mlir", kSdpa));
  ASSERT_TRUE(loaded);
  std::mt19937_64 rng(3), again(3);
  auto inputs = makeInputs(loaded->func, {}, rng);
  auto inputs2 = makeInputs(loaded->func, {}, again);
  ASSERT_TRUE(inputs && inputs2);
  ASSERT_EQ(inputs->size(), 5u);
  for (size_t i = 0; i < inputs->size(); ++i)
    EXPECT_EQ((*inputs)[i].data, (*inputs2)[i].data);
  for (double x : (*inputs)[0].data)
    EXPECT_EQ(x, representable(DataType::BF16, x));
  // Key lengths in [1, Skv], keep masks 0 or 1.
  for (double x : (*inputs)[3].data)
    EXPECT_TRUE(x >= 1 && x <= 8 && x == std::floor(x)) << x;
  for (double x : (*inputs)[4].data)
    EXPECT_TRUE(x == 0 || x == 1);
}

TEST_F(RunTest, RaggedOffsetsAreSortedCutsOfThePackedTokens) {
  Result<LoadedModule> loaded = loadModule(write("varlen.mlir", R"(
func.func @f(%q: tensor<100x2x16xbf16>, %k: tensor<37x2x16xbf16>,
             %cq: tensor<9xi32>, %ck: tensor<9xi32>, %dq: tensor<5xi32>, %dk: tensor<5xi32>)
    -> (tensor<100x2x16xbf16>, tensor<4x2x16xbf16>) {
  %o = attn.flash %q, %k, %k cu_seqlens_q(%cq : tensor<9xi32>) cu_seqlens_k(%ck : tensor<9xi32>) {scale = 1.0 : f32}
    : tensor<100x2x16xbf16>, tensor<37x2x16xbf16>, tensor<37x2x16xbf16> -> tensor<100x2x16xbf16>
  %d = tensor.extract_slice %q[0, 0, 0] [4, 2, 16] [1, 1, 1] : tensor<100x2x16xbf16> to tensor<4x2x16xbf16>
  %e = attn.flash %d, %k, %k cu_seqlens_q(%dq : tensor<5xi32>) cu_seqlens_k(%dk : tensor<5xi32>) {scale = 1.0 : f32}
    : tensor<4x2x16xbf16>, tensor<37x2x16xbf16>, tensor<37x2x16xbf16> -> tensor<4x2x16xbf16>
  return %o, %e : tensor<100x2x16xbf16>, tensor<4x2x16xbf16>
})"));
  ASSERT_TRUE(loaded) << loaded.status().message();
  std::mt19937_64 rng(5);
  auto inputs = makeInputs(loaded->func, {}, rng);
  ASSERT_TRUE(inputs) << inputs.status().message();
  auto expectCuts = [](const HostTensor &t, double total) {
    EXPECT_EQ(t.data.front(), 0.0);
    EXPECT_EQ(t.data.back(), total);
    EXPECT_TRUE(std::is_sorted(t.data.begin(), t.data.end()));
    for (double x : t.data)
      EXPECT_EQ(x, std::floor(x));
  };
  expectCuts((*inputs)[2], 100); // queries
  expectCuts((*inputs)[3], 37);  // keys
  // Not every sequence of one length: the lengths are drawn.
  std::vector<double> lengths;
  for (size_t b = 0; b + 1 < (*inputs)[2].data.size(); ++b)
    lengths.push_back((*inputs)[2].data[b + 1] - (*inputs)[2].data[b]);
  EXPECT_NE(*std::min_element(lengths.begin(), lengths.end()),
            *std::max_element(lengths.begin(), lengths.end()));
  // As many queries as sequences: one each (decode).
  EXPECT_EQ((*inputs)[4].data, (std::vector<double>{0, 1, 2, 3, 4}));
  expectCuts((*inputs)[5], 37);
}

TEST_F(RunTest, BlockTablesDealDistinctPagesAndLengthsFitTheCache) {
  Result<LoadedModule> loaded = loadModule(write("paged.mlir", kPagedCache));
  ASSERT_TRUE(loaded) << loaded.status().message();
  std::mt19937_64 rng(9);
  auto inputs = makeInputs(loaded->func, {}, rng);
  ASSERT_TRUE(inputs) << inputs.status().message();
  // 15 entries of 20 pages: all distinct, all in the cache.
  std::vector<double> pages = (*inputs)[3].data;
  std::sort(pages.begin(), pages.end());
  EXPECT_EQ(std::adjacent_find(pages.begin(), pages.end()), pages.end());
  EXPECT_GE(pages.front(), 0);
  EXPECT_LE(pages.back(), 19);
  // cache_seqlens up to the 5 pages x 8 keys of a sequence.
  for (double x : (*inputs)[2].data)
    EXPECT_TRUE(x >= 1 && x <= 40) << x;
}

TEST_F(RunTest, SetInputGivesAnArgumentsValues) {
  Result<LoadedModule> loaded = loadModule(write("sdpa.mlir", kSdpa));
  ASSERT_TRUE(loaded);
  std::mt19937_64 rng(1);
  auto inputs = makeInputs(loaded->func, {}, rng);
  ASSERT_TRUE(inputs);
  ASSERT_TRUE(setInputValues(loaded->func, {"3:5,-2.7"}, *inputs));
  // Converted to i32 as the argument holds them (toward zero).
  EXPECT_EQ((*inputs)[3].data, (std::vector<double>{5, -2}));
  Status wrong = setInputValues(loaded->func, {"3:1"}, *inputs);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.message().find("argument 3 (2) holds 2 values, got 1"),
            std::string::npos)
      << wrong.message();
}

TEST_F(RunTest, KeyLengthsOfFusedAttentionSpanItsKeys) {
  // After fusion the lengths go to attn.flash, whose operand 0 is q: the
  // keys are v's rows (300), not q's head dim (16).
  Result<LoadedModule> loaded = loadModule(write("flash.mlir", R"(
func.func @f(%q: tensor<32x1x8x16xbf16>, %k: tensor<32x1x300x16xbf16>, %v: tensor<32x1x300x16xbf16>,
             %len: tensor<32xi32>) -> tensor<32x1x8x16xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<32xi32>) {scale = 0.25 : f32, mask = #attn.mask<key_padding>}
    : tensor<32x1x8x16xbf16>, tensor<32x1x300x16xbf16>, tensor<32x1x300x16xbf16> -> tensor<32x1x8x16xbf16>
  return %o : tensor<32x1x8x16xbf16>
}
)"));
  ASSERT_TRUE(loaded) << loaded.status().message();
  std::mt19937_64 rng(5);
  HostTensor lengths =
      randomInput(loaded->func.getArgument(3), rng, loaded->func);
  double longest = 0;
  for (double x : lengths.data) {
    EXPECT_TRUE(x >= 1 && x <= 300 && x == std::floor(x)) << x;
    longest = std::max(longest, x);
  }
  EXPECT_GT(longest, 16);
}

TEST_F(RunTest, PoisonedPaddingIsNaNAndTheReferenceNeverReadsIt) {
  // Batch 0 reads 3 of its 8 keys, batch 1 all of them. (attn-run
  // poisons the compiled function, where the graph form is fused.)
  Result<LoadedModule> loaded = loadModule(write("padded.mlir", R"(
func.func @f(%q: tensor<2x2x8x16xbf16>, %k: tensor<2x2x8x16xbf16>, %v: tensor<2x2x8x16xbf16>,
             %len: tensor<2xi32>) -> tensor<2x2x8x16xbf16> {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<2xi32>) {scale = 0.25 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
    : tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16> -> tensor<2x2x8x16xbf16>
  return %o : tensor<2x2x8x16xbf16>
})"));
  ASSERT_TRUE(loaded) << loaded.status().message();
  std::mt19937_64 rng(3);
  auto inputs = makeInputs(loaded->func, {}, rng);
  ASSERT_TRUE(inputs);
  ASSERT_TRUE(setInputValues(loaded->func, {"3:3,8"}, *inputs));
  std::vector<HostTensor> clean = *inputs;
  Result<int64_t> poisoned = poisonUnreadKeys(loaded->func, *inputs);
  ASSERT_TRUE(poisoned) << poisoned.status().message();
  // 5 keys x 2 heads x 16 of k and of v.
  EXPECT_EQ(*poisoned, 2 * 5 * 2 * 16);
  const HostTensor &k = (*inputs)[1], &v = (*inputs)[2];
  auto at = [](const HostTensor &t, int b, int h, int s, int d) {
    return t.data[((b * 2 + h) * 8 + s) * 16 + d];
  };
  EXPECT_FALSE(std::isnan(at(k, 0, 1, 2, 15)));
  EXPECT_TRUE(std::isnan(at(k, 0, 1, 3, 0)));
  EXPECT_TRUE(std::isnan(at(v, 0, 0, 7, 15)));
  for (int s = 0; s < 8; ++s)
    EXPECT_FALSE(std::isnan(at(v, 1, 1, s, 3))) << s;
  // The reference gives the same output either way (NaN keys masked, their
  // zero weights never multiplied).
  auto expected = mlir::attn::reference::evaluate(loaded->originalFunc, clean);
  auto got = mlir::attn::reference::evaluate(loaded->originalFunc, *inputs);
  ASSERT_TRUE(mlir::succeeded(expected) && mlir::succeeded(got));
  EXPECT_EQ((*got)[0].data, (*expected)[0].data);
}

TEST_F(RunTest, PoisonedPaddingOfPagedAndRaggedCaches) {
  // One cache as k and v: sequence 0 reads page 0 and 2 rows of page 1,
  // sequence 1 nothing, sequence 2 five whole pages, the last entry (99)
  // clamped to page 19.
  Result<LoadedModule> paged = loadModule(write("paged.mlir", kPagedCache));
  ASSERT_TRUE(paged) << paged.status().message();
  std::mt19937_64 rng(4);
  auto inputs = makeInputs(paged->func, {}, rng);
  ASSERT_TRUE(inputs);
  ASSERT_TRUE(setInputValues(
      paged->func,
      {"2:10,0,40", "3:0,1,2,3,4,5,6,7,8,9,10,11,12,13,99"}, *inputs));
  std::vector<HostTensor> clean = *inputs;
  Result<int64_t> poisoned = poisonUnreadKeys(paged->func, *inputs);
  ASSERT_TRUE(poisoned) << poisoned.status().message();
  // 160 slots, 50 read (8 + 2 + 40): 110 slots x 2 heads x 16.
  EXPECT_EQ(*poisoned, 110 * 2 * 16);
  auto slot = [&](int page, int row) {
    return (*inputs)[1].data[((page * 2 + 1) * 8 + row) * 16];
  };
  EXPECT_FALSE(std::isnan(slot(1, 1)));
  EXPECT_TRUE(std::isnan(slot(1, 2)));
  EXPECT_TRUE(std::isnan(slot(14, 0)));
  EXPECT_FALSE(std::isnan(slot(19, 7)));
  auto expected = mlir::attn::reference::evaluate(paged->originalFunc, clean);
  auto got = mlir::attn::reference::evaluate(paged->originalFunc, *inputs);
  ASSERT_TRUE(mlir::succeeded(expected) && mlir::succeeded(got));
  EXPECT_EQ((*got)[0].data, (*expected)[0].data);

  // A ragged batch's keys 7..9 belong to no sequence.
  Result<LoadedModule> ragged = loadModule(write("ragged.mlir", R"(
func.func @f(%q: tensor<6x2x16xbf16>, %k: tensor<10x1x16xbf16>, %v: tensor<10x1x16xbf16>,
             %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<6x2x16xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%ck : tensor<3xi32>)
      {scale = 0.25 : f32}
    : tensor<6x2x16xbf16>, tensor<10x1x16xbf16>, tensor<10x1x16xbf16> -> tensor<6x2x16xbf16>
  return %o : tensor<6x2x16xbf16>
})"));
  ASSERT_TRUE(ragged) << ragged.status().message();
  auto rows = makeInputs(ragged->func, {}, rng);
  ASSERT_TRUE(rows);
  ASSERT_TRUE(setInputValues(ragged->func, {"3:0,2,6", "4:0,3,7"}, *rows));
  Result<int64_t> outside = poisonUnreadKeys(ragged->func, *rows);
  ASSERT_TRUE(outside) << outside.status().message();
  EXPECT_EQ(*outside, 2 * 3 * 16);
  EXPECT_FALSE(std::isnan((*rows)[2].data[6 * 16 + 15]));
  EXPECT_TRUE(std::isnan((*rows)[2].data[7 * 16]));
}

TEST_F(RunTest, RaggedSamplesDrawSequencesThatHoldQueries) {
  // Of 8 sequences only sequence 5 holds queries: a sample of 2 of the 16
  // (sequence, head) slices must land on it, or it compares nothing.
  Result<LoadedModule> ragged = loadModule(write("sparse.mlir", R"(
func.func @f(%q: tensor<4x2x16xbf16>, %k: tensor<8x2x16xbf16>, %v: tensor<8x2x16xbf16>,
             %cq: tensor<9xi32>, %ck: tensor<9xi32>) -> tensor<4x2x16xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<9xi32>) cu_seqlens_k(%ck : tensor<9xi32>)
      {scale = 0.25 : f32}
    : tensor<4x2x16xbf16>, tensor<8x2x16xbf16>, tensor<8x2x16xbf16> -> tensor<4x2x16xbf16>
  return %o : tensor<4x2x16xbf16>
})"));
  ASSERT_TRUE(ragged) << ragged.status().message();
  std::mt19937_64 rng(3);
  auto inputs = makeInputs(ragged->func, {}, rng);
  ASSERT_TRUE(inputs);
  ASSERT_TRUE(setInputValues(ragged->func,
                             {"3:0,0,0,0,0,0,4,4,4", "4:0,1,2,3,4,5,8,8,8"},
                             *inputs));
  auto reference =
      mlir::attn::reference::evaluate(ragged->originalFunc, *inputs);
  ASSERT_TRUE(mlir::succeeded(reference));
  for (int seed = 0; seed < 4; ++seed) {
    std::mt19937_64 sampling(seed);
    auto check = checkAgainstReference(ragged->originalFunc, *inputs,
                                       *reference, 2, sampling, 1e-2);
    ASSERT_TRUE(check) << check.status().message();
    EXPECT_EQ(check->sampledSlices, 2u);
    ASSERT_EQ(check->outputs.size(), 1u);
    EXPECT_TRUE(check->outputs[0].pass);
    EXPECT_GT(check->outputs[0].compared, 0);
  }
  // Off by one value in sequence 5 fails the sample.
  (*reference)[0].data[2 * 16 + 3] += 1.0;
  std::mt19937_64 sampling(0);
  auto off = checkAgainstReference(ragged->originalFunc, *inputs, *reference,
                                   2, sampling, 1e-2);
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->outputs[0].pass);
}

TEST_F(RunTest, PoisonedPaddingNeedsEveryReaderKnown) {
  // The function also returns k: what reads it is not attention's rule.
  Result<LoadedModule> loaded = loadModule(write("returned.mlir", R"(
func.func @f(%q: tensor<1x1x4x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>,
             %len: tensor<1xi32>) -> (tensor<1x1x4x16xbf16>, tensor<1x1x8x16xbf16>) {
  %o = attn.flash %q, %k, %v lengths(%len : tensor<1xi32>) {scale = 0.25 : f32, mask = #attn.mask<key_padding>}
    : tensor<1x1x4x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16> -> tensor<1x1x4x16xbf16>
  return %o, %k : tensor<1x1x4x16xbf16>, tensor<1x1x8x16xbf16>
})"));
  ASSERT_TRUE(loaded) << loaded.status().message();
  std::mt19937_64 rng(2);
  auto inputs = makeInputs(loaded->func, {}, rng);
  ASSERT_TRUE(inputs);
  Result<int64_t> poisoned = poisonUnreadKeys(loaded->func, *inputs);
  ASSERT_FALSE(poisoned);
  // Nor can it tell for the graph form (attn-run --unfused).
  Result<LoadedModule> graph = loadModule(write("sdpa.mlir", kSdpa));
  ASSERT_TRUE(graph);
  auto graphInputs = makeInputs(graph->func, {}, rng);
  ASSERT_TRUE(graphInputs);
  Result<int64_t> unfused = poisonUnreadKeys(graph->func, *graphInputs);
  ASSERT_FALSE(unfused);
  EXPECT_NE(unfused.status().message().find("has no attn.flash"),
            std::string::npos)
      << unfused.status().message();
  EXPECT_NE(poisoned.status().message().find(
                "--poison-padding: argument 1 is read by func.return too"),
            std::string::npos)
      << poisoned.status().message();
}

TEST_F(RunTest, InputFilesMustMatchTheArguments) {
  Result<LoadedModule> loaded = loadModule(write("sdpa.mlir", kSdpa));
  ASSERT_TRUE(loaded);
  std::mt19937_64 rng(1);
  auto count = makeInputs(loaded->func, {"a.npy"}, rng);
  ASSERT_FALSE(count);
  EXPECT_NE(count.status().message().find("1 .npy files for 5 arguments"),
            std::string::npos);
  // A .npy of the wrong shape for the first argument.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) +
                    char(0) + header + std::string(8, '\0');
  std::string path = write("q.npy", npy);
  auto shape = makeInputs(loaded->func, {path, path, path, path, path}, rng);
  ASSERT_FALSE(shape);
  EXPECT_NE(shape.status().message().find("q.npy has shape 2, argument 0 is 2x2x8x16"),
            std::string::npos)
      << shape.status().message();

  Result<LoadedModule> f64 = loadModule(write("f64.mlir", R"(
func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
  return %x : tensor<2xf64>
})"));
  ASSERT_TRUE(f64);
  auto type = makeInputs(f64->func, {}, rng);
  ASSERT_FALSE(type);
  EXPECT_NE(type.status().message().find(
                "argument 0 must be a static tensor of f16, bf16, f32, i32, i64 or i1"),
            std::string::npos);
}

TEST(RunTensors, ElementsRoundTripThroughTheirEncoding) {
  struct Case {
    DataType type;
    double in, held;
  } cases[] = {{DataType::F16, 1.0009765625, 1.0009765625},
               {DataType::F16, 1.00048828125, 1.0},
               {DataType::BF16, 1.00390625, 1.0},
               {DataType::F32, 0.1, double(0.1f)},
               {DataType::I32, -7.0, -7.0},
               {DataType::I64, 1099511627776.0, 1099511627776.0},
               {DataType::Bool, 3.0, 1.0}};
  for (const Case &c : cases) {
    unsigned char bytes[8] = {};
    encode(c.type, c.in, bytes);
    EXPECT_EQ(decode(c.type, bytes), c.held) << int(c.type);
    EXPECT_EQ(representable(c.type, c.in), c.held) << int(c.type);
  }
  EXPECT_EQ(bytesOf(DataType::I64), 8);
  EXPECT_EQ(contiguousStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(bshdStrides({2, 3, 4, 5}), (std::vector<int64_t>{60, 5, 15, 1}));
  EXPECT_EQ(shapeString({2, 16, 1}), "2x16x1");
  EXPECT_EQ(numElements({}), 1);
}

TEST(RunCheck, SamplesSlicesAndCountsUnwrittenValues) {
  std::mt19937_64 rng(5);
  EXPECT_TRUE(sampleSlices(2, 4, 16, rng).empty());
  EXPECT_TRUE(sampleSlices(8, 8, 0, rng).empty());
  auto slices = sampleSlices(8, 8, 10, rng);
  ASSERT_EQ(slices.size(), 10u);
  EXPECT_EQ(slices[0], (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(slices[1], (std::pair<int64_t, int64_t>{7, 7}));
  for (auto [b, h] : slices)
    EXPECT_TRUE(b >= 0 && b < 8 && h >= 0 && h < 8);

  HostTensor expected({4}), got({4});
  expected.data = {1, 2, NAN, 4};
  got.data = {1, 2, 9, 4};
  OutputCheck same = checkOutput(got, expected, 1e-2);
  EXPECT_TRUE(same.pass);
  EXPECT_EQ(same.compared, 3);
  got.data[1] = NAN; // never written
  OutputCheck unwritten = checkOutput(got, expected, 1e-2);
  EXPECT_FALSE(unwritten.pass);
  EXPECT_EQ(unwritten.unwritten, 1);
  got.data = {1, 2.5, 0, 4};
  EXPECT_FALSE(checkOutput(got, expected, 1e-2).pass);
  EXPECT_TRUE(checkOutput(got, expected, 0.2).pass);
  // A reference that computed nothing checks nothing: not a pass.
  expected.data = {NAN, NAN, NAN, NAN};
  OutputCheck none = checkOutput(got, expected, 1e-2);
  EXPECT_EQ(none.compared, 0);
  EXPECT_FALSE(none.pass);
  HostTensor empty({0});
  EXPECT_TRUE(checkOutput(empty, empty, 1e-2).pass);
}

TEST_F(RunTest, ChecksOutputsAgainstTheReference) {
  Result<LoadedModule> loaded = loadModule(write("sdpa.mlir", kSdpa));
  ASSERT_TRUE(loaded);
  std::mt19937_64 rng(9);
  auto inputs = makeInputs(loaded->func, {}, rng);
  ASSERT_TRUE(inputs);
  auto reference = mlir::attn::reference::evaluate(loaded->originalFunc, *inputs);
  ASSERT_TRUE(mlir::succeeded(reference));
  auto same = checkAgainstReference(loaded->originalFunc, *inputs, *reference,
                                    16, rng, 1e-2);
  ASSERT_TRUE(same);
  ASSERT_EQ(same->outputs.size(), 1u);
  EXPECT_TRUE(same->outputs[0].pass);
  EXPECT_EQ(same->outputs[0].error, 0.0);
  EXPECT_EQ(same->sampledSlices, 0u);
  (*reference)[0].data[5] += 10.0;
  auto off = checkAgainstReference(loaded->originalFunc, *inputs, *reference, 2,
                                   rng, 1e-2);
  ASSERT_TRUE(off);
  EXPECT_EQ(off->sampledSlices, 2u);
  EXPECT_FALSE(off->outputs[0].pass); // slice (0, 0) holds the change
}

TEST(RunProfile, MaskDensityAndPeaks) {
  KernelSpec spec;
  EXPECT_EQ(maskDensity(spec, 4, 4), 1.0);
  spec.causal = true;
  EXPECT_DOUBLE_EQ(maskDensity(spec, 4, 4), 10.0 / 16.0);
  spec.bottomRight = true;
  EXPECT_DOUBLE_EQ(maskDensity(spec, 2, 4), 7.0 / 8.0);
  spec = KernelSpec();
  spec.window = true;
  spec.windowLeft = 1;
  spec.windowRight = 0;
  EXPECT_DOUBLE_EQ(maskDensity(spec, 4, 4), 7.0 / 16.0);
  DeviceInfo h100;
  h100.major = 9;
  h100.multiprocessors = 132;
  h100.clockKHz = 1980000;
  EXPECT_NEAR(peakTflops(h100), 4096.0 * 132 * 1.98e9 / 1e12, 1e-9);
  EXPECT_FALSE(nvrtcVersion().empty());
}

TEST_F(RunTest, SaysWhyAFunctionCannotRun) {
  Result<LoadedModule> loaded = loadModule(write("sdpa.mlir", kSdpa));
  ASSERT_TRUE(loaded);
  std::optional<std::string> why = whyNotRunnable(loaded->func);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("still has 'attn.matmul'"), std::string::npos);
  Result<LoadedModule> flash = loadModule(write("flash.mlir", R"(
func.func @f(%q: tensor<1x1x8x64xbf16>) -> tensor<1x1x8x64xbf16> {
  %o = attn.flash %q, %q, %q {scale = 1.0 : f32} : tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16>, tensor<1x1x8x64xbf16> -> tensor<1x1x8x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
})"));
  ASSERT_TRUE(flash);
  EXPECT_FALSE(whyNotRunnable(flash->func));
}

TEST_F(RunTest, RunningWithoutAGpuIsAnError) {
  if (Context::device())
    GTEST_SKIP() << "a GPU is present";
  Result<LoadedModule> loaded = loadModule(write("sdpa.mlir", kSdpa));
  ASSERT_TRUE(loaded);
  std::mt19937_64 rng(1);
  auto inputs = makeInputs(loaded->func, {}, rng);
  ASSERT_TRUE(inputs);
  auto run = runFunction(loaded->func, {}, *inputs, RunOptions());
  ASSERT_FALSE(run);
  // The graph is not fused here: it cannot run.
  EXPECT_EQ(run.status().code(), StatusCode::Unsupported);
  EXPECT_FALSE(synchronize());
}

} // namespace
