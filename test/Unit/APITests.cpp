//===- APITests.cpp - The C++ API: builder, compile, errors ---------------===//

#include "attn/attn.h"

#include "MemoryContext.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <gtest/gtest.h>

#include <unistd.h>

using namespace attn;

namespace {

using attn::test::memoryContext;

/// Launch arguments of [batch, heads, seq, headDim] q, k, v and o at fake
/// device addresses, k read back to front: a negative stride, which TMA
/// cannot take (the rules decide before any driver is asked).
FlashArgs argsWithReversedKeys(int batch, int heads, int seq, int headDim) {
  FlashArgs args;
  args.batch = batch;
  args.seqQ = args.seqKV = seq;
  args.splits = 1;
  const int64_t shape[4] = {batch, heads, seq, headDim};
  const char *fake = reinterpret_cast<const char *>(uintptr_t(1) << 30);
  args.q = args.v = args.o = TensorArg::contiguous(fake, shape);
  args.k = TensorArg::contiguous(fake + (seq - 1) * headDim * 2, shape);
  args.k.strides[2] = -headDim;
  return args;
}

TEST(Graph, WritesTheChainFrameworksExport) {
  Graph g;
  auto q = g.input("q", DataType::BF16, {2, 8, 128, 64});
  auto k = g.input("k", DataType::BF16, {2, 2, 256, 64});
  auto v = g.input("v", DataType::BF16, {2, 2, 256, 64});
  Graph::SdpaOptions options;
  options.causal = true;
  options.bottomRight = true;
  auto out = g.sdpa(q, k, v, options);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  g.output(*out);
  auto text = g.toMLIR();
  ASSERT_TRUE(text.isOk());
  EXPECT_NE(text->find("attn.matmul %q, %k {transpose_rhs}"), std::string::npos);
  EXPECT_NE(text->find("{factor = 0.125 : f32}"), std::string::npos);
  EXPECT_NE(text->find("#attn.mask<causal, bottom_right>"), std::string::npos);
  EXPECT_NE(text->find("attn.softmax"), std::string::npos);
}

TEST(Graph, ScoreModCapturesFuseIntoTheKernel) {
  // A bias per head read by the score_mod: the graph names it as a capture,
  // attn-fuse carries it into attn.flash, the kernel expects one pointer.
  Graph g;
  auto q = g.input("q", DataType::BF16, {1, 4, 64, 64});
  auto k = g.input("k", DataType::BF16, {1, 4, 64, 64});
  auto v = g.input("v", DataType::BF16, {1, 4, 64, 64});
  auto bias = g.input("head_bias", DataType::F32, {4});
  Graph::SdpaOptions options;
  options.scoreMod = "%c = tensor.extract %capture0[%h] : tensor<4xf32>\n"
                     "    %y = arith.addf %score, %c : f32\n"
                     "    attn.yield %y : f32";
  options.scoreModCaptures = {bias};
  auto out = g.sdpa(q, k, v, options);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  g.output(*out);
  auto text = g.toMLIR();
  ASSERT_TRUE(text.isOk());
  EXPECT_NE(text->find("captures(%head_bias : tensor<4xf32>)"), std::string::npos)
      << *text;
  auto ctx = memoryContext("sm_80");
  auto compiled = compileGraph(*ctx, g);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(compiled->kernels.size(), 1u);
  EXPECT_EQ(compiled->kernels[0]->spec().scoreModCaptures, 1);
  // A launch without the capture's pointer, or with one too many, is
  // refused before it runs (validate reads no memory: fake addresses do).
  FlashArgs args;
  args.batch = 1;
  args.seqQ = args.seqKV = 64;
  const int64_t shape[4] = {1, 4, 64, 64};
  const void *fake = reinterpret_cast<const void *>(uintptr_t(1) << 20);
  args.q = args.k = args.v = args.o = TensorArg::contiguous(fake, shape);
  Status missing = compiled->kernels[0]->validate(args);
  EXPECT_NE(missing.message().find("reads 1 captured tensors but capture 0 is null"),
            std::string::npos)
      << missing.toString();
  args.scoreModCaptures[0] = fake;
  EXPECT_TRUE(compiled->kernels[0]->validate(args).isOk());
  args.scoreModCaptures[1] = fake;
  EXPECT_NE(compiled->kernels[0]->validate(args).message().find(
                "capture 1 is set but the score_mod reads 1"),
            std::string::npos);

  Graph h;
  auto a = h.input("a", DataType::BF16, {1, 1, 8, 64});
  Graph::SdpaOptions noBody;
  noBody.scoreModCaptures = {a};
  EXPECT_FALSE(h.sdpa(a, a, a, noBody).isOk());
}

TEST(Graph, ShapeErrorsNameTheOperands) {
  Graph g;
  auto q = g.input("q", DataType::BF16, {2, 6, 128, 64});
  auto k = g.input("k", DataType::BF16, {2, 4, 128, 64});
  auto v = g.input("v", DataType::BF16, {2, 4, 128, 64});
  auto out = g.sdpa(q, k, v, {});
  ASSERT_FALSE(out.isOk());
  EXPECT_EQ(out.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(out.status().message().find("must be equal and divide q heads (6)"),
            std::string::npos);

  Graph h;
  auto a = h.input("a", DataType::F16, {1, 1, 8, 64});
  auto b = h.input("b", DataType::BF16, {1, 1, 8, 64});
  auto bad = h.sdpa(a, b, b, {});
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("all f16 or all bf16"), std::string::npos);
  EXPECT_FALSE(Graph().toMLIR().isOk());
}

TEST(Compile, GraphBecomesOneConfiguredKernel) {
  auto ctx = memoryContext();
  Graph g;
  auto q = g.input("q", DataType::F16, {2, 32, 512, 128});
  auto k = g.input("k", DataType::F16, {2, 8, 512, 128});
  auto v = g.input("v", DataType::F16, {2, 8, 512, 128});
  auto len = g.input("len", DataType::I32, {2});
  Graph::SdpaOptions options;
  options.causal = true;
  options.lengths = len;
  options.scoreMod = "%c = arith.constant 30.0 : f32\n"
                     "%d = arith.divf %score, %c : f32\n"
                     "%t = math.tanh %d : f32\n"
                     "%y = arith.mulf %t, %c : f32\n"
                     "attn.yield %y : f32";
  auto out = g.sdpa(q, k, v, options);
  ASSERT_TRUE(out.isOk());
  g.output(*out);
  auto compiled = compileGraph(*ctx, g);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(compiled->kernels.size(), 1u);
  const KernelSpec &spec = compiled->kernels[0]->spec();
  EXPECT_EQ(spec.element, ElementType::F16);
  EXPECT_EQ(spec.headsQ, 32);
  EXPECT_EQ(spec.headsKV, 8);
  EXPECT_TRUE(spec.causal);
  EXPECT_TRUE(spec.keyPadding);
  EXPECT_TRUE(spec.scoreMod);
  // Head dim 128 on sm_90a: the warp-specialized wgmma variant.
  EXPECT_EQ(spec.variant, "sm90ws");
  EXPECT_NE(spec.source.find("tanhf"), std::string::npos);
  EXPECT_EQ(compiled->kernels[0]->primary().ptxas().spillStoreBytes, 0);
  EXPECT_GT(compiled->kernels[0]->primary().ptxas().registers, 0);
  EXPECT_NE(compiled->loweredIR.find("attn.flash"), std::string::npos);
  TileSchedule schedule = compiled->kernels[0]->flash()->schedule(2, 512, 1);
  const int mBlocks = (512 + spec.blockM - 1) / spec.blockM;
  EXPECT_EQ(schedule.mBlocks, mBlocks);
  EXPECT_EQ(schedule.heads, 32);
  EXPECT_EQ(schedule.batch, 2);
  EXPECT_EQ(schedule.order, TileOrder::LongestFirst); // causal
  // One block per work tile.
  auto grid = compiled->kernels[0]->flash()->grid(2, 512);
  EXPECT_EQ(grid.x, unsigned(2 * 32 * mBlocks));
  EXPECT_EQ(grid.y, 1u);
  EXPECT_EQ(grid.z, 1u);
}

TEST(Compile, VariantOverrideAndItsArch) {
  const char *text = R"(
func.func @f(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
})";
  CompileOptions mma;
  mma.variant = "sm80";
  auto forced = compileSource(*memoryContext(), text, mma);
  ASSERT_TRUE(forced.isOk()) << forced.status().toString();
  EXPECT_EQ(forced->kernels[0]->spec().variant, "sm80");

  // A hand-written sm90 config reaches the runtime, which refuses to build
  // it for an arch without wgmma.
  std::string given = text;
  given.replace(given.find("{scale"), 1,
                "{config = #attn.config<variant = \"sm90\", block_m = 128, "
                "block_n = 128, num_warps = 8, stages = 2>, ");
  auto refused = compileSource(*memoryContext("sm_80"), given);
  ASSERT_FALSE(refused.isOk());
  EXPECT_NE(refused.status().message().find("needs sm_90a"), std::string::npos)
      << refused.status().toString();
}

TEST(Compile, WithoutKernelsEmitsAndBuildsNothing) {
  // compileKernels off: the pipeline and the emitters run, NVRTC does not.
  // A graph fuses into one attn.flash whose spec comes back unbuilt; an
  // unfused one gives one spec per graph op.
  const char *graph = R"(
func.func @f(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xf32>
  %t = attn.scale %s {factor = 0.125 : f32} : tensor<1x2x64x64xf32>
  %p = attn.softmax %t {dim = 3} : tensor<1x2x64x64xf32> -> tensor<1x2x64x64xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
})";
  CompileOptions emitOnly;
  emitOnly.compileKernels = false;
  auto fused = compileSource(*memoryContext(), graph, emitOnly);
  ASSERT_TRUE(fused.isOk()) << fused.status().toString();
  EXPECT_TRUE(fused->kernels.empty());
  ASSERT_EQ(fused->emitted.size(), 1u);
  EXPECT_EQ(fused->emitted[0].name.rfind("attn_fwd_bf16_hd64_", 0), 0u)
      << fused->emitted[0].name;
  EXPECT_FALSE(fused->emitted[0].source.empty());
  EXPECT_NE(fused->loweredIR.find("attn.flash"), std::string::npos);

  emitOnly.unfused = true;
  auto unfused = compileSource(*memoryContext(), graph, emitOnly);
  ASSERT_TRUE(unfused.isOk()) << unfused.status().toString();
  EXPECT_TRUE(unfused->kernels.empty());
  EXPECT_EQ(unfused->emitted.size(), 4u);

  // Built as usual, the specs stay empty.
  auto built = compileSource(*memoryContext(), graph);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  EXPECT_EQ(built->kernels.size(), 1u);
  EXPECT_TRUE(built->emitted.empty());
}

TEST(Compile, DynamicKeyLengthsGetASecondKernelForLongKeys) {
  // One compile for every length: 128-key tiles up to alignedKeysUpTo
  // keys, and the model's longest tile for longer launches beside them.
  const char *dynamic = R"(
func.func @f(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %v: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.flash %q, %k, %v {mask = #attn.mask<causal>, scale = 0.088 : f32} : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
})";
  auto compiled = compileSource(*memoryContext(), dynamic);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(compiled->kernels.size(), 1u);
  const KernelGroup &shortKeys = *compiled->kernels[0];
  EXPECT_EQ(shortKeys.spec().variant, "sm90ws");
  EXPECT_EQ(shortKeys.spec().blockN, 128);
  ASSERT_NE(shortKeys.longKeysKernel(), nullptr);
  EXPECT_EQ(shortKeys.longKeysKernel()->spec().variant, "sm90ws");
  EXPECT_EQ(shortKeys.longKeysKernel()->spec().blockN, 176);
  EXPECT_TRUE(shortKeys.longKeysKernel()->spec().causal);
  // Compiled beside the first (buildAll in Compile.cpp), not found in the
  // cache afterwards.
  EXPECT_EQ(shortKeys.primary().cacheOutcome(), CacheOutcome::Miss);
  EXPECT_EQ(shortKeys.longKeysKernel()->cacheOutcome(), CacheOutcome::Miss);
  EXPECT_GT(shortKeys.longKeysKernel()->buildMs(), 0.0);
  // Causal: diagonal tiles make 128 keys pay up to 4096 keys (step 19).
  EXPECT_EQ(shortKeys.longKeysFrom(), 4096);
  std::string full = dynamic;
  const std::string causalMask = "mask = #attn.mask<causal>, ";
  full.replace(full.find(causalMask), causalMask.size(), "");
  auto fullCompiled = compileSource(*memoryContext(), full);
  ASSERT_TRUE(fullCompiled.isOk()) << fullCompiled.status().toString();
  ASSERT_NE(fullCompiled->kernels[0]->longKeysKernel(), nullptr);
  EXPECT_EQ(fullCompiled->kernels[0]->longKeysFrom(), 2048);

  // A static key length gets its tiles and nothing else; so does a forced
  // tile.
  std::string fixed = dynamic;
  for (size_t at; (at = fixed.find("?x16x?")) != std::string::npos;)
    fixed.replace(at, 6, "2x16x16384");
  auto fixedCompiled = compileSource(*memoryContext(), fixed);
  ASSERT_TRUE(fixedCompiled.isOk()) << fixedCompiled.status().toString();
  EXPECT_EQ(fixedCompiled->kernels[0]->spec().blockN, 176);
  EXPECT_EQ(fixedCompiled->kernels[0]->longKeysKernel(), nullptr);
  CompileOptions forced;
  forced.blockN = 64;
  auto forcedCompiled = compileSource(*memoryContext(), dynamic, forced);
  ASSERT_TRUE(forcedCompiled.isOk()) << forcedCompiled.status().toString();
  EXPECT_EQ(forcedCompiled->kernels[0]->longKeysKernel(), nullptr);
}

TEST(Compile, TmaKernelsBuildTheirCpAsyncKernelOnFirstNeed) {
  // The cost model's cp.async kernel for the same attention (sm90 where
  // its wgmma tiles take the head dim, else sm80) is emitted beside the
  // persistent one and compiled only when a launch's operands need it:
  // here k read back to front, a negative stride TMA cannot take. No GPU
  // needed: the documented rules decide before the driver is asked.
  for (auto [headDim, cpAsyncVariant] :
       {std::pair<int, const char *>{128, "sm90"}, {80, "sm80"}}) {
    const std::string d = std::to_string(headDim);
    const std::string type = "tensor<1x4x256x" + d + "xbf16>";
    const std::string text =
        "func.func @f(%q: " + type + ", %k: " + type + ", %v: " + type +
        ") -> " + type + " {\n  %o = attn.flash %q, %k, %v {mask = "
        "#attn.mask<causal>, scale = 0.1 : f32} : " + type + ", " + type +
        ", " + type + " -> " + type + "\n  return %o : " + type + "\n}";
    CompileOptions options;
    options.variant = "sm90ws";
    auto compiled = compileSource(*memoryContext(), text, options);
    ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
    KernelGroup &tma = *compiled->kernels[0];
    EXPECT_EQ(tma.spec().variant, "sm90ws");
    EXPECT_EQ(tma.cpAsyncFallback(), nullptr); // not compiled with it

    FlashArgs args = argsWithReversedKeys(1, 4, 256, headDim);
    auto splits = tma.splitsFor(args);
    ASSERT_TRUE(splits.isOk()) << splits.status().toString();
    EXPECT_EQ(*splits, 1);
    const Kernel *cpAsync = tma.cpAsyncFallback();
    ASSERT_NE(cpAsync, nullptr) << d;
    EXPECT_EQ(cpAsync->spec().variant, cpAsyncVariant) << d;
    EXPECT_NE(cpAsync->spec().name.find(std::string("_") + cpAsyncVariant +
                                        "_"),
              std::string::npos)
        << cpAsync->spec().name;
    EXPECT_EQ(cpAsync->spec().headDimQK, headDim);
    EXPECT_TRUE(cpAsync->spec().causal);
    EXPECT_EQ(cpAsync->spec().scale, tma.spec().scale);
    // Asked again: the same kernel, not built again.
    ASSERT_TRUE(tma.splitsFor(args).isOk());
    EXPECT_EQ(tma.cpAsyncFallback(), cpAsync);
  }
}

TEST(Compile, TmaKernelsCpAsyncKernelAvoidsSpillsToo) {
  // test/GPU/score-mod/captures.mlir's score_mod (three captured tensors):
  // the sm90 cp.async kernel at the model's 64x128 tiles spills (about 500
  // bytes), so the fallback built at the first launch TMA cannot serve
  // takes fewer keys per tile, as the op's own kernel would at compile time.
  CompileOptions options;
  options.variant = "sm90ws";
  auto compiled = compileFile(*memoryContext(),
                              ATTN_SOURCE_DIR "/test/GPU/score-mod/captures.mlir",
                              options);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  KernelGroup &tma = *compiled->kernels[0];
  ASSERT_EQ(tma.spec().variant, "sm90ws");

  FlashArgs args = argsWithReversedKeys(2, 4, 200, 64);
  for (int i = 0; i < 3; ++i)
    args.scoreModCaptures[i] = args.q.data;
  auto splits = tma.splitsFor(args);
  ASSERT_TRUE(splits.isOk()) << splits.status().toString();
  const Kernel *cpAsync = tma.cpAsyncFallback();
  ASSERT_NE(cpAsync, nullptr);
  EXPECT_EQ(cpAsync->spec().variant, "sm90");
  const PtxasReport &report = cpAsync->ptxas();
  ASSERT_TRUE(report.parsed);
  EXPECT_EQ(report.spillStoreBytes + report.spillLoadBytes, 0)
      << cpAsync->spec().name;
  EXPECT_LT(cpAsync->spec().blockN, 128) << cpAsync->spec().name;
  EXPECT_EQ(cpAsync->spec().scoreModCaptures, 3);
}

TEST(Compile, SecondBuildHitsTheMemoryCache) {
  auto ctx = memoryContext();
  const char *text = R"(
func.func @f(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32} : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
})";
  auto first = compileSource(*ctx, text);
  ASSERT_TRUE(first.isOk()) << first.status().toString();
  EXPECT_EQ(first->kernels[0]->primary().cacheOutcome(), CacheOutcome::Miss);
  auto second = compileSource(*ctx, text);
  ASSERT_TRUE(second.isOk());
  EXPECT_EQ(second->kernels[0]->primary().cacheOutcome(), CacheOutcome::MemoryHit);
  EXPECT_EQ(first->kernels[0]->primary().cacheKey(), second->kernels[0]->primary().cacheKey());
}

TEST(Compile, ParseErrorsHaveLocations) {
  auto ctx = memoryContext();
  auto result = compileSource(*ctx, "func.func @f() {\n  %x = attn.bogus\n}\n",
                              {}, "bad.mlir");
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::ParseError);
  EXPECT_NE(result.status().message().find("bad.mlir:2:"), std::string::npos)
      << result.status().message();
}

TEST(Compile, UnfusableGraphSaysWhy) {
  auto ctx = memoryContext();
  const char *text = R"(
func.func @f(%q: tensor<1x2x16x16xbf16>, %k: tensor<1x2x16x16xbf16>, %v: tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xf32>
  %p = attn.softmax %s {dim = 2} : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x16x16xbf16>, tensor<1x2x16x16xbf16> -> tensor<1x2x16x16xbf16>
  return %o : tensor<1x2x16x16xbf16>
})";
  auto result = compileSource(*ctx, text);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::Unsupported);
  EXPECT_NE(result.status().message().find("not the key axis 3"), std::string::npos)
      << result.status().message();
}

TEST(Compile, UnsupportedHeadDimIsAnError) {
  auto ctx = memoryContext();
  Graph g;
  auto q = g.input("q", DataType::BF16, {1, 1, 64, 320});
  auto out = g.sdpa(q, q, q, {});
  ASSERT_TRUE(out.isOk());
  g.output(*out);
  auto result = compileGraph(*ctx, g);
  ASSERT_FALSE(result.isOk());
  EXPECT_NE(result.status().message().find("exceeds the largest supported, 256"),
            std::string::npos)
      << result.status().message();
}

/// A compiled kernel and arguments that would be valid on a GPU.
struct LaunchFixture {
  std::shared_ptr<KernelGroup> kernel;
  FlashArgs args;
  std::vector<char> storage = std::vector<char>(1 << 16);

  explicit LaunchFixture(Context &ctx) {
    Graph g;
    auto q = g.input("q", DataType::BF16, {2, 4, 64, 64});
    auto out = g.sdpa(q, q, q, {});
    g.output(*out);
    auto compiled = compileGraph(ctx, g);
    EXPECT_TRUE(compiled.isOk()) << compiled.status().toString();
    kernel = compiled->kernels[0];
    int64_t shape[4] = {2, 4, 64, 64};
    // 16-byte aligned host memory stands in for device pointers: validate()
    // checks what it can without touching them.
    char *base = storage.data() + (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16;
    args.batch = 2;
    args.seqQ = 64;
    args.seqKV = 64;
    args.q = args.k = args.v = args.o = TensorArg::contiguous(base, shape);
  }
};

TEST(Kernel, ValidateNamesTheBadArgument) {
  auto ctx = memoryContext();
  LaunchFixture f(*ctx);
  EXPECT_TRUE(f.kernel->validate(f.args).isOk());

  FlashArgs a = f.args;
  a.v.data = nullptr;
  EXPECT_NE(f.kernel->validate(a).message().find("'v' is a null pointer"),
            std::string::npos);
  a = f.args;
  a.q.data = static_cast<const char *>(a.q.data) + 2;
  EXPECT_NE(f.kernel->validate(a).message().find("'q' must be 16-byte aligned"),
            std::string::npos);
  a = f.args;
  a.k.strides[3] = 2;
  EXPECT_NE(f.kernel->validate(a).message().find("'k' must be contiguous in dimension 3"),
            std::string::npos);
  a = f.args;
  a.o.strides[2] = 72; // padded rows are fine
  EXPECT_TRUE(f.kernel->validate(a).isOk());
  a.o.strides[2] = 66;
  EXPECT_NE(f.kernel->validate(a).message().find("multiple of 8"), std::string::npos);
  a = f.args;
  a.batch = 3;
  EXPECT_NE(f.kernel->validate(a).message().find("specialized for batch 2"),
            std::string::npos);
  a = f.args;
  a.seqQ = 0;
  EXPECT_EQ(f.kernel->validate(a).code(), StatusCode::InvalidArgument);
}

TEST(Kernel, LaunchWithoutAGpuIsAClearError) {
  if (Context::device().isOk())
    GTEST_SKIP() << "a GPU is present";
  auto ctx = memoryContext();
  LaunchFixture f(*ctx);
  Status s = f.kernel->launch(f.args);
  EXPECT_EQ(s.code(), StatusCode::NoDevice);
  EXPECT_NE(s.message().find("libcuda"), std::string::npos) << s.message();
}

const char *kUnfusedChain = R"(
func.func @chain(%q: tensor<1x2x64x32xbf16>, %k: tensor<1x2x64x32xbf16>, %v: tensor<1x2x64x32xbf16>) -> tensor<1x2x64x32xbf16> {
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x2x64x64xf32>
  %m = attn.mask %s {kind = #attn.mask<causal>} : tensor<1x2x64x64xf32>
  %p = attn.softmax %m {dim = 3} : tensor<1x2x64x64xf32> -> tensor<1x2x64x64xbf16>
  %o = attn.matmul %p, %v : tensor<1x2x64x64xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x2x64x32xbf16>
  return %o : tensor<1x2x64x32xbf16>
})";

TEST(Compile, UnfusedIsOneGraphKernelPerOp) {
  auto ctx = memoryContext();
  CompileOptions options;
  options.unfused = true;
  auto compiled = compileSource(*ctx, kUnfusedChain, options);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  std::vector<std::string> ops;
  for (const auto &kernel : compiled->kernels) {
    EXPECT_EQ(kernel->spec().kind, KernelKind::GraphOp);
    EXPECT_EQ(kernel->spec().variant, "graph");
    // Compiled together, each once, and handed back in op order.
    EXPECT_EQ(kernel->primary().cacheOutcome(), CacheOutcome::Miss);
    ops.push_back(kernel->spec().graphOp);
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"matmul", "mask", "softmax", "matmul"}));
  // The mask reads and writes the scores: one input, of the result's shape.
  const KernelSpec &mask = compiled->kernels[1]->spec();
  ASSERT_EQ(mask.inputShapes.size(), 1u);
  EXPECT_EQ(mask.inputShapes[0], mask.outputShape);
  EXPECT_EQ(mask.grid[0], 1u * 2 * 64 * 64 / 1024);
  // Q K^T: 128x128 output tiles, one z block per (batch, head).
  const KernelSpec &scores = compiled->kernels[0]->spec();
  EXPECT_EQ(scores.grid, (std::array<unsigned, 3>{1, 1, 2}));
  EXPECT_NE(compiled->loweredIR.find("attn.kernel \"softmax\""), std::string::npos);
}

TEST(Kernel, GraphArgsAreCheckedAndKindsNotMixed) {
  auto ctx = memoryContext();
  CompileOptions options;
  options.unfused = true;
  auto compiled = compileSource(*ctx, kUnfusedChain, options);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  KernelGroup &mask = *compiled->kernels[1];
  float scores[4];
  GraphArgs args;
  args.inputs = {TensorArg{scores, {0, 0, 0, 1}}};
  args.output = args.inputs[0];
  EXPECT_TRUE(mask.validate(args).isOk());

  GraphArgs twoInputs = args;
  twoInputs.inputs.push_back(args.inputs[0]);
  EXPECT_NE(mask.validate(twoInputs).message().find("takes 1 inputs, the launch has 2"),
            std::string::npos);
  GraphArgs noOutput = args;
  noOutput.output.data = nullptr;
  EXPECT_NE(mask.validate(noOutput).message().find("output of"), std::string::npos);
  // A graph-op kernel is not attention, and the other way round.
  EXPECT_NE(mask.validate(FlashArgs()).message().find("launch it with GraphArgs"),
            std::string::npos);
  LaunchFixture f(*ctx);
  EXPECT_NE(f.kernel->validate(args).message().find("launch it with FlashArgs"),
            std::string::npos);
}

/// Decode with GQA 8/2 for any query length (a kernel compiled for a few
/// static tokens packs rows of its own: ServingTests.cpp).
std::string decodeModule(const std::string &mask) {
  return R"(
func.func @decode(%q: tensor<2x8x?x64xbf16>, %k: tensor<2x2x512x64xbf16>, %v: tensor<2x2x512x64xbf16>) -> tensor<2x8x?x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32)" +
         mask + R"(} : tensor<2x8x?x64xbf16>, tensor<2x2x512x64xbf16>, tensor<2x2x512x64xbf16> -> tensor<2x8x?x64xbf16>
  return %o : tensor<2x8x?x64xbf16>
})";
}

TEST(Kernel, OneTokenDecodePacksTheQueryHeadsOfAKvHead) {
  auto ctx = memoryContext();
  auto plain = compileSource(*ctx, decodeModule(""));
  ASSERT_TRUE(plain.isOk()) << plain.status().toString();
  const FlashKernel &kernel = *plain->kernels[0]->flash();
  EXPECT_TRUE(kernel.packsQueryHeads(1));
  TileSchedule packed = kernel.schedule(2, 1, 1);
  EXPECT_EQ(packed.mBlocks, 1); // 4 query heads in one block of rows
  EXPECT_EQ(packed.heads, 2);   // one block per K/V head
  EXPECT_EQ(packed.batch, 2);
  EXPECT_EQ(kernel.rowPacking(1).group, 4);
  EXPECT_EQ(kernel.grid(2, 1).x, 4u);
  // More than one query per head: rows are queries again.
  EXPECT_FALSE(kernel.packsQueryHeads(5));
  EXPECT_EQ(kernel.schedule(2, 5, 1).heads, 8);
  EXPECT_FALSE(kernel.rowPacking(5).packed());
  // A mask of the query's position would see heads as positions.
  auto causal = compileSource(*ctx, decodeModule(", mask = #attn.mask<causal>"));
  ASSERT_TRUE(causal.isOk()) << causal.status().toString();
  EXPECT_FALSE(causal->kernels[0]->flash()->packsQueryHeads(1));
  EXPECT_EQ(causal->kernels[0]->flash()->schedule(2, 1, 1).heads, 8);
}

// The schedule's decode is a bijection onto the work tiles, in the order it
// promises: Forward keeps a head's m-blocks together; LongestFirst starts
// every section's last m-block first, with its pairs fastest.
TEST(TileSchedule, DecodesEveryTileOnceInItsOrder) {
  for (bool longestFirst : {false, true})
    for (int sectionPairs : {1, 3, 64}) {
      TileSchedule s = makeTileSchedule(/*batch=*/3, /*heads=*/5, /*rows=*/70,
                                        /*blockM=*/16, /*splits=*/2,
                                        longestFirst, sectionPairs);
      ASSERT_EQ(s.mBlocks, 5);
      ASSERT_EQ(s.numTiles(), 3 * 5 * 5 * 2);
      std::set<std::tuple<int, int, int, int>> seen;
      for (int i = 0; i < s.numTiles(); ++i) {
        WorkTile t = s.tile(i);
        ASSERT_TRUE(t.b >= 0 && t.b < 3 && t.h >= 0 && t.h < 5 &&
                    t.mBlock >= 0 && t.mBlock < 5 && t.split >= 0 &&
                    t.split < 2);
        EXPECT_EQ(t.split, i % 2); // the splits of a tile are neighbours
        seen.insert({t.b, t.h, t.mBlock, t.split});
      }
      EXPECT_EQ(seen.size(), size_t(s.numTiles()));
      WorkTile first = s.tile(0), second = s.tile(2);
      if (!longestFirst) {
        EXPECT_EQ(first.mBlock, 0);
        EXPECT_EQ(second.mBlock, 1); // same head, next m-block
        EXPECT_EQ(second.h, first.h);
      } else {
        EXPECT_EQ(first.mBlock, 4); // longest first
        if (sectionPairs > 1) {
          EXPECT_EQ(second.mBlock, 4); // the section's next pair
          EXPECT_EQ(second.h, 1);
        } else {
          EXPECT_EQ(second.mBlock, 3);
        }
      }
    }
}

// The backward's grid of (tiles, heads, batch) blocks: every block once,
// sections of at least kBackwardSectionBlocks blocks (or every pair), and
// in each section the last tile of every pair (the longest query tile; the
// K/V-stationary kernel mirrors it to the first key tile) before any other.
TEST(TileSchedule, BackwardBlocksLongestFirstInSections) {
  for (auto [tiles, heads, batch] :
       {std::tuple{32, 16, 4}, {8, 3, 5}, {300, 2, 1}, {1, 1, 1}, {7, 40, 3}}) {
    TileSchedule s = backwardSchedule(tiles, heads, batch);
    const int pairs = heads * batch;
    EXPECT_EQ(s.sectionPairs,
              std::min(pairs, (kBackwardSectionBlocks + tiles - 1) / tiles));
    EXPECT_GE(static_cast<long long>(s.sectionPairs) * tiles,
              std::min<long long>(kBackwardSectionBlocks,
                                  static_cast<long long>(pairs) * tiles));
    ASSERT_EQ(s.numTiles(), static_cast<long long>(tiles) * pairs);
    std::set<std::tuple<int, int, int>> seen;
    for (int i = 0; i < s.numTiles(); ++i) {
      WorkTile t = s.tile(i);
      ASSERT_TRUE(t.mBlock >= 0 && t.mBlock < tiles && t.h >= 0 &&
                  t.h < heads && t.b >= 0 && t.b < batch);
      seen.insert({t.mBlock, t.h, t.b});
      // Within a section, tiles never grow: the section's pairs take the
      // last tile, then the one before, ...
      const int inSection = i % (s.sectionPairs * tiles);
      if (i >= s.sectionPairs * tiles * (pairs / s.sectionPairs))
        continue; // the last, partial section
      EXPECT_EQ(t.mBlock, tiles - 1 - inSection / s.sectionPairs) << i;
    }
    EXPECT_EQ(seen.size(), size_t(s.numTiles()));
  }
}

// A persistent launch's LongestFirst sections hold kSectionTilesPerBlock
// tiles per block (whole pairs; every pair at most), but no more pairs
// than a wave runs kSectionTilesPerPair tiles of; Forward has none.
TEST(TileSchedule, PersistentSectionsHoldTilesPerBlock) {
  const bool causal = true;
  // hd256 S=4096 causal: 32 pairs of 32 m-blocks on 132 blocks: one section.
  EXPECT_EQ(persistentSectionPairs(makeTileSchedule(4, 8, 4096, 128, 1, causal), 132), 32);
  // hd64 S=16k: 86 m-blocks of 192 rows; 1056 tiles need 13 pairs, 7 with
  // two splits per tile.
  EXPECT_EQ(persistentSectionPairs(makeTileSchedule(1, 32, 16384, 192, 1, causal), 132), 13);
  EXPECT_EQ(persistentSectionPairs(makeTileSchedule(1, 32, 16384, 192, 2, causal), 132), 7);
  // hd256 S=1024 causal: 128 pairs of 8 m-blocks would make one section;
  // 33 pairs keep four tiles of each in a wave.
  EXPECT_EQ(persistentSectionPairs(makeTileSchedule(16, 8, 1024, 128, 1, causal), 132), 33);
  // Few blocks: sections of one pair when a pair already holds enough.
  EXPECT_EQ(persistentSectionPairs(makeTileSchedule(2, 2, 8192, 128, 1, causal), 4), 1);
  EXPECT_EQ(persistentSectionPairs(makeTileSchedule(4, 8, 4096, 128, 1, !causal), 132), 1);
  for (int blocks : {1, 7, 132, 264}) {
    TileSchedule s = makeTileSchedule(3, 5, 700, 64, 2, causal);
    s.sectionPairs = persistentSectionPairs(s, blocks);
    const long long pairs = 15, perPair = 11 * 2;
    EXPECT_GE(s.sectionPairs, 1);
    EXPECT_LE(s.sectionPairs, pairs);
    EXPECT_TRUE(s.sectionPairs == pairs ||
                s.sectionPairs * kSectionTilesPerPair > blocks - kSectionTilesPerPair ||
                s.sectionPairs * perPair >= kSectionTilesPerBlock * blocks);
    EXPECT_TRUE(s.sectionPairs == 1 ||
                s.sectionPairs * kSectionTilesPerPair <= blocks);
    EXPECT_TRUE(s.sectionPairs == 1 ||
                (s.sectionPairs - 1) * perPair < kSectionTilesPerBlock * blocks);
  }
}

TEST(Kernel, SplitsOnlyWhatDoesNotFillTheGpu) {
  // 132 SMs x 2 resident blocks = 264 slots.
  EXPECT_EQ(FlashKernel::chooseSplits(512, 64, 132, 2), 1);  // two waves already
  EXPECT_EQ(FlashKernel::chooseSplits(264, 64, 132, 2), 1);
  // Decode, b=16 x 8 K/V heads: 256 of 264 slots in one wave; 3 splits
  // would take 2 waves, the second less than half full.
  EXPECT_EQ(FlashKernel::chooseSplits(128, 64, 132, 2), 2);
  // 500 blocks fill 2 waves of 264 to 95%; 2 splits would fill one to 76%.
  EXPECT_EQ(FlashKernel::chooseSplits(100, 64, 132, 2), 5);
  EXPECT_EQ(FlashKernel::chooseSplits(8, 256, 132, 2), FlashKernel::kMaxSplits);
  EXPECT_EQ(FlashKernel::chooseSplits(4, 16, 132, 2), 8);    // at least 2 tiles a split
  EXPECT_EQ(FlashKernel::chooseSplits(4, 3, 132, 2), 1);
  EXPECT_EQ(FlashKernel::chooseSplits(100, 64, 132, 0), 5);  // occupancy unknown: 1
}

TEST(Kernel, NegativeSplitsAreRejected) {
  auto ctx = memoryContext();
  LaunchFixture f(*ctx);
  FlashArgs a = f.args;
  a.splits = -1;
  EXPECT_NE(f.kernel->validate(a).message().find("splits must be 0"), std::string::npos);
}

} // namespace

