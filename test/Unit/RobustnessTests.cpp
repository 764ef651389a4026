//===- RobustnessTests.cpp - Hostile input through the library ------------===//
//
// What a careless or hostile caller can hand attn: text that nests deeper
// than the parser's stack, hand-written configurations no GPU can run; and
// the one place each concept lives (the dialect list, the pipeline).
//
//===----------------------------------------------------------------------===//

#include "attn/API/CompileModule.h"
#include "attn/Support/Dialects.h"
#include "attn/Support/ElementTypes.h"
#include "attn/Support/Parser.h"
#include "attn/Transforms/Passes.h"
#include "attn/attn.h"

#include "MemoryContext.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <type_traits>

using namespace attn;

namespace {

using attn::test::memoryContext;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(Nesting, CountsEveryKindOfBracket) {
  using mlir::attn::findExcessiveNesting;
  EXPECT_FALSE(findExcessiveNesting("[[[1]]]", 3));
  EXPECT_EQ(findExcessiveNesting("[[[[1]]]]", 3), 3u);
  EXPECT_EQ(findExcessiveNesting("({[<", 3), 3u);
  // Closed brackets do not add up.
  EXPECT_FALSE(findExcessiveNesting("[][][][][][]", 1));
  EXPECT_FALSE(findExcessiveNesting("tensor<2x4xf32> tensor<1xi1>", 1));
}

TEST(Nesting, ArrowsStringsAndCommentsAreNotBrackets) {
  using mlir::attn::findExcessiveNesting;
  // The > of -> closes nothing: (a) -> b stays at depth 1 inside <.
  EXPECT_FALSE(findExcessiveNesting("<(i32) -> i32>", 2));
  EXPECT_FALSE(findExcessiveNesting("\"[[[[[[\" // ((((((\n", 1));
  EXPECT_FALSE(findExcessiveNesting("\"a\\\"[[[[\"", 0));
  // A closer that matches nothing open does not let more nesting through.
  EXPECT_EQ(findExcessiveNesting("[[>>[", 2), 4u);
  EXPECT_EQ(findExcessiveNesting("[[)][[", 2), 5u);
}

TEST(Nesting, DeepTextIsAParseErrorNotAStackOverflow) {
  // About 10k nested brackets overflowed the parser's stack; through the C
  // API (attn_compile calls compileSource) that killed the host process.
  auto ctx = memoryContext("sm_90a");
  std::string text = "func.func @f() {\n  %x = arith.constant " +
                     std::string(100000, '[') + "\n}\n";
  auto result = compileSource(*ctx, text, {}, "deep.mlir");
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::ParseError);
  EXPECT_TRUE(contains(result.status().message(), "deep.mlir:2:"))
      << result.status().message();
  EXPECT_TRUE(contains(result.status().message(),
                       "brackets nest deeper than 256 levels"))
      << result.status().message();
}

TEST(Nesting, RealInputsParse) {
  auto ctx = memoryContext("sm_90a");
  // 100 levels of nested brackets are well within the limit.
  std::string text = "func.func @f() -> tensor<f32> {\n  %x = arith.constant "
                     "dense<" +
                     std::string(100, '[') + "1.0" + std::string(100, ']') +
                     "> : tensor<" + [] {
                       std::string dims;
                       for (int i = 0; i < 100; ++i)
                         dims += "1x";
                       return dims;
                     }() + "f32>\n  return\n}\n";
  auto result = compileSource(*ctx, text);
  ASSERT_FALSE(result.isOk());
  // It gets past the parser: the error is the verifier's, not the scan's.
  EXPECT_FALSE(contains(result.status().message(), "nest deeper"))
      << result.status().message();
}

/// One attn.flash with a hand-written config.
std::string flashWithConfig(const std::string &config, int headDim) {
  std::string t = "tensor<1x1x128x" + std::to_string(headDim) + "xbf16>";
  return "func.func @f(%q: " + t + ", %k: " + t + ", %v: " + t + ") -> " + t +
         " {\n  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, config = " +
         config + "} : " + t + ", " + t + ", " + t + " -> " + t +
         "\n  return %o : " + t + "\n}\n";
}

TEST(HandWrittenConfig, IsCheckedAgainstSharedMemoryOfTheArch) {
  std::string text = flashWithConfig(
      "#attn.config<variant = \"sm80\", block_m = 128, block_n = 128, "
      "num_warps = 4, stages = 4>",
      256);
  auto ctx = memoryContext("sm_80");
  auto result = compileSource(*ctx, text, {}, "config.mlir");
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::Unsupported);
  EXPECT_TRUE(contains(result.status().message(),
                       "config.mlir:2:8: error: 'attn.flash' op config needs "
                       "608256 bytes of shared memory; sm_80 allows 166912"))
      << result.status().message();
}

TEST(HandWrittenConfig, IsCheckedAgainstTheRegisterModel) {
  // One warp holding 8 m-tiles of 128 keys needs far more than 255.
  std::string text = flashWithConfig(
      "#attn.config<variant = \"sm80\", block_m = 128, block_n = 128, "
      "num_warps = 1, stages = 1>",
      64);
  auto ctx = memoryContext("sm_90a");
  auto result = compileSource(*ctx, text);
  ASSERT_FALSE(result.isOk());
  EXPECT_TRUE(contains(result.status().message(),
                       "config needs about 832 registers per thread; the "
                       "limit is 255"))
      << result.status().message();
}

TEST(HandWrittenConfig, ThatFitsCompiles) {
  std::string text = flashWithConfig(
      "#attn.config<variant = \"sm80\", block_m = 64, block_n = 64, "
      "num_warps = 4, stages = 2>",
      64);
  auto ctx = memoryContext("sm_80");
  auto result = compileSource(*ctx, text);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(result->kernels.size(), 1u);
}

TEST(OnePlace, RegisterAttnDialectsListsTheInputDialects) {
  mlir::DialectRegistry registry;
  mlir::attn::registerAttnDialects(registry);
  std::vector<std::string> names;
  for (llvm::StringRef name : registry.getDialectNames())
    names.push_back(name.str());
  EXPECT_EQ(names, (std::vector<std::string>{"arith", "attn", "builtin", "func", "math",
                                             "tensor"}));
}

std::string pipelineText(const mlir::attn::AttnPipelineOptions &options) {
  mlir::MLIRContext context;
  mlir::PassManager pm(&context);
  mlir::attn::buildAttnPipeline(pm, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

TEST(OnePlace, ThePipelineBuilderFusesOrLowers) {
  mlir::attn::AttnPipelineOptions options;
  options.arch = "sm_80";
  options.blockM = 64;
  std::string fused = pipelineText(options);
  // Not MLIR's canonicalizer (printed "canonicalize{...}"): it folds inside
  // score_mod bodies against attn's semantics.
  EXPECT_TRUE(contains(fused, "attn-canonicalize-graph")) << fused;
  EXPECT_FALSE(contains(fused, "canonicalize{")) << fused;
  EXPECT_TRUE(contains(fused, "attn-fuse"));
  EXPECT_TRUE(contains(fused, "attn-select-config{arch=sm_80 backward-tiles= backward-variant= block-m=64"))
      << fused;
  options.unfused = true;
  std::string unfused = pipelineText(options);
  EXPECT_TRUE(contains(unfused, "attn-lower-unfused")) << unfused;
  EXPECT_TRUE(contains(unfused, "attn-canonicalize-graph")) << unfused;
  EXPECT_FALSE(contains(unfused, "canonicalize{")) << unfused;
  EXPECT_FALSE(contains(unfused, "attn-fuse")) << unfused;
}

TEST(OnePlace, OneElementTypeFromTheDialectToTheApi) {
  // attn::DataType (the API) is the runtime's enumeration, not a copy.
  static_assert(std::is_same_v<DataType, ElementType>);
  mlir::MLIRContext context;
  for (ElementType element : {ElementType::F16, ElementType::BF16,
                              ElementType::F32, ElementType::I32,
                              ElementType::Bool}) {
    mlir::Type type = mlir::attn::toMLIRType(element, &context);
    EXPECT_EQ(mlir::attn::toElementType(type), element)
        << elementTypeName(element);
    std::string printed;
    llvm::raw_string_ostream os(printed);
    os << type;
    EXPECT_EQ(printed, elementTypeName(element));
  }
  EXPECT_EQ(elementTypeBytes(ElementType::Bool), 1);
  EXPECT_EQ(elementTypeBytes(ElementType::I32), 4);
  EXPECT_FALSE(mlir::attn::toElementType(mlir::IndexType::get(&context)));
}

/// A kernel with dynamic batch and lengths, `heads` heads of 64 and 16-row
/// tiles, and arguments of `batch` x `seqQ` that validate() cannot tell
/// from device pointers.
struct GridFixture {
  std::shared_ptr<KernelGroup> kernel;
  FlashArgs args;
  std::vector<char> storage = std::vector<char>(256);

  GridFixture(Context &ctx, int heads) {
    std::string t = "tensor<?x" + std::to_string(heads) + "x?x64xbf16>";
    std::string text =
        "func.func @f(%q: " + t + ", %k: " + t + ", %v: " + t + ") -> " + t +
        " {\n  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, config = "
        "#attn.config<variant = \"sm80\", block_m = 16, block_n = 64, "
        "num_warps = 1, stages = 1>} : " +
        t + ", " + t + ", " + t + " -> " + t + "\n  return %o : " + t + "\n}\n";
    auto compiled = compileSource(ctx, text);
    EXPECT_TRUE(compiled.isOk()) << compiled.status().toString();
    kernel = compiled->kernels[0];
    char *base = storage.data() +
                 (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16;
    TensorArg t4;
    t4.data = base;
    int64_t strides[4] = {0, 0, 64, 1};
    std::copy(strides, strides + 4, t4.strides);
    args.q = args.k = args.v = args.o = t4;
    args.batch = 1;
    args.seqQ = 16;
    args.seqKV = 16;
  }
};

TEST(LaunchGrid, BatchPastTheGridLimitIsAnError) {
  auto ctx = memoryContext("sm_80");
  GridFixture f(*ctx, 2);
  ASSERT_TRUE(f.kernel->validate(f.args).isOk());
  f.args.batch = 65535;
  EXPECT_TRUE(f.kernel->validate(f.args).isOk());
  // The grid's z (batch) was a cast of the batch: past 65535 the launch
  // failed, and a static batch of 2^62 gave a grid of 0.
  f.args.batch = 65536;
  Status s = f.kernel->validate(f.args);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(s.message(), "x 2 (heads) x 65536 (batch) blocks; CUDA "
                                    "allows 2147483647 x 65535 x 65535"))
      << s.message();
}

TEST(LaunchGrid, QueryBlocksTimesSplitsPastTheLimitIsAnError) {
  auto ctx = memoryContext("sm_80");
  GridFixture f(*ctx, 2);
  f.args.seqQ = 2147483647;
  f.args.splits = 1;
  EXPECT_TRUE(f.kernel->validate(f.args).isOk());
  f.args.splits = 32;
  Status s = f.kernel->validate(f.args);
  EXPECT_TRUE(contains(s.message(), "a grid of 4294967296 x 2 (heads)"))
      << s.message();
}

TEST(LaunchGrid, HeadsPastTheGridLimitAreAnError) {
  auto ctx = memoryContext("sm_80");
  GridFixture f(*ctx, 70000);
  Status s = f.kernel->validate(f.args);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(s.message(), "x 70000 (heads) x 1 (batch)"))
      << s.message();
}

TEST(LaunchGrid, AHandMadeSpecIsCheckedBeforeItIsDividedBy) {
  auto ctx = memoryContext("sm_80");
  GridFixture f(*ctx, 2);
  KernelSpec spec = f.kernel->spec();
  spec.headsKV = 0; // grid() and the kernel divide by it
  auto kernel = ctx->build(spec);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  Status s = kernelAs<FlashKernel>(*kernel)->validate(f.args);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(s.message(), "has an invalid spec: heads 2/0"))
      << s.message();
}

TEST(GraphBuilder, ZeroHeadsAreAnErrorNotADivisionByZero) {
  // q heads % k heads divided by zero (SIGFPE in the caller's process).
  Graph g;
  auto q = g.input("q", DataType::BF16, {1, 4, 64, 64});
  auto k = g.input("k", DataType::BF16, {1, 0, 64, 64});
  auto out = g.sdpa(q, k, k, {});
  ASSERT_FALSE(out.isOk());
  EXPECT_EQ(out.status().code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(out.status().message(),
                       "'k' has shape 1x0x64x64; extents must be between 1 "
                       "and 2147483647"))
      << out.status().message();
  Graph h;
  auto big = h.input("q", DataType::BF16, {1, 4294967297, 64, 64});
  EXPECT_FALSE(h.sdpa(big, big, big, {}).isOk());
}

} // namespace
