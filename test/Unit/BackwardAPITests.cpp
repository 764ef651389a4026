//===- BackwardAPITests.cpp - Compiling and validating the backward -------===//
//
// No GPU needed: the backward compiles with NVRTC, reports its workspace,
// and validates its arguments before touching the driver.
//
//===----------------------------------------------------------------------===//

#include "attn/attn.h"

#include "MemoryContext.h"

#include <gtest/gtest.h>

using namespace attn;

namespace {

/// A causal GQA forward with an optional bias of `biasShape`, and sinks.
std::string forward(const std::string &biasShape = "", bool sinks = false) {
  std::string bias = biasShape.empty() ? "" : "tensor<" + biasShape + "xf32>";
  return "func.func @f(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x2x300x64xbf16>, "
         "%v: tensor<2x2x300x64xbf16>" +
         (bias.empty() ? "" : ", %b: " + bias) +
         (sinks ? ", %s: tensor<4xf32>" : "") +
         ") -> tensor<2x4x300x64xbf16> {\n"
         "  %o = attn.flash %q, %k, %v" +
         (bias.empty() ? "" : " bias(%b : " + bias + ")") +
         (sinks ? " sinks(%s : tensor<4xf32>)" : "") +
         " {scale = 0.125 : f32, mask = #attn.mask<causal" +
         (bias.empty() ? "" : ", bias") +
         ">} : tensor<2x4x300x64xbf16>, tensor<2x2x300x64xbf16>, "
         "tensor<2x2x300x64xbf16> -> tensor<2x4x300x64xbf16>\n"
         "  return %o : tensor<2x4x300x64xbf16>\n}\n";
}

std::shared_ptr<BackwardKernel> compileBackward(const std::string &text,
                                        bool biasGrad = false,
                                        const std::string &arch = "sm_80") {
  std::unique_ptr<Context> ctx = test::memoryContext(arch);
  CompileOptions options;
  options.backward = true;
  options.backwardBiasGrad = biasGrad;
  auto compiled = compileSource(*ctx, text, options);
  EXPECT_TRUE(compiled.isOk()) << compiled.status().toString();
  if (!compiled.isOk())
    return nullptr;
  // The step's forward (writing the logsumexp), then its backward.
  EXPECT_EQ(compiled->kernels.size(), 2u);
  EXPECT_EQ(compiled->kernels[0]->spec().kind, KernelKind::Flash);
  EXPECT_TRUE(compiled->kernels[0]->spec().writesLse);
  return kernelAs<BackwardKernel>(compiled->kernels.back()->primaryShared());
}

/// Arguments that pass validation, pointing at aligned fake addresses (no
/// launch happens).
BackwardArgs validArgs(const BackwardKernel &kernel) {
  BackwardArgs a;
  a.batch = 2;
  a.seqQ = a.seqKV = 300;
  auto *fake = reinterpret_cast<const void *>(uintptr_t(1) << 20);
  int64_t qShape[4] = {2, 4, 300, 64}, kShape[4] = {2, 2, 300, 64};
  a.q = a.o = a.gradOutput = a.gradQ = TensorArg::contiguous(fake, qShape);
  a.k = a.v = a.gradK = a.gradV = TensorArg::contiguous(fake, kShape);
  a.lse = reinterpret_cast<const float *>(fake);
  a.workspace = DevicePtr(1) << 20;
  a.workspaceBytes = *kernel.workspaceBytes(a);
  return a;
}

TEST(BackwardAPI, CompilesTheStepsTwoKernels) {
  auto kernel = compileBackward(forward());
  ASSERT_TRUE(kernel);
  const KernelSpec &spec = kernel->spec();
  EXPECT_EQ(spec.kind, KernelKind::FlashBackward);
  EXPECT_EQ(spec.name.rfind("attn_bwd_bf16_hd64_gqa2_causal_sm80_", 0), 0u) << spec.name;
  EXPECT_EQ(spec.headsQ, 4);
  EXPECT_EQ(spec.headsKV, 2);
  EXPECT_GT(spec.backwardDqThreads, 0);
  EXPECT_GT(spec.backwardDqSharedBytes, 0);
  // Every entry of the module compiled.
  for (const char *entry : {"_pre(", "_dq(", "_convert("})
    EXPECT_NE(spec.source.find(spec.name + entry), std::string::npos) << entry;
}

TEST(BackwardAPI, WorkspaceHoldsDAndTheDqSum) {
  // sm_90a: the warp-specialized wgmma variant adds dQ with atomics.
  auto kernel = compileBackward(forward(), false, "sm_90a");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->spec().variant, "sm90ws");
  BackwardArgs a = validArgs(*kernel);
  const size_t rows = 2 * 4 * 300;
  // D (f32 per row) and the f32 dQ sum, each 256-byte aligned; the sum in
  // whole query tiles per head, which the kernel adds one at a time.
  const size_t tile = kernel->spec().blockM;
  const size_t paddedRows = 2 * 4 * ((300 + tile - 1) / tile) * tile;
  EXPECT_GT(paddedRows, rows);
  a.deterministic = false;
  EXPECT_EQ(*kernel->workspaceBytes(a),
            (rows * 4 + 255) / 256 * 256 + paddedRows * 64 * 4);
  a.deterministic = true;
  EXPECT_EQ(*kernel->workspaceBytes(a), (rows * 4 + 255) / 256 * 256);
}

TEST(BackwardAPI, Sm80ComputesDqWithoutAtomics) {
  // Its dQ kernel was faster than its atomics: D alone, in either mode.
  auto kernel = compileBackward(forward());
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->spec().variant, "sm80");
  BackwardArgs a = validArgs(*kernel);
  const size_t rows = 2 * 4 * 300;
  a.deterministic = false;
  EXPECT_EQ(*kernel->workspaceBytes(a), (rows * 4 + 255) / 256 * 256);
  a.deterministic = true;
  EXPECT_EQ(*kernel->workspaceBytes(a), (rows * 4 + 255) / 256 * 256);
}

TEST(BackwardAPI, ValidationNamesTheProblem) {
  auto kernel = compileBackward(forward());
  ASSERT_TRUE(kernel);
  EXPECT_TRUE(kernel->validate(validArgs(*kernel)).isOk());
  auto expectError = [&](BackwardArgs a, const std::string &text) {
    Status s = kernel->validate(a);
    ASSERT_FALSE(s.isOk()) << text;
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  };
  BackwardArgs a = validArgs(*kernel);
  a.lse = nullptr;
  expectError(a, "'lse' is a null pointer");
  a = validArgs(*kernel);
  a.workspaceBytes -= 1;
  expectError(a, "the backward needs a workspace of");
  a = validArgs(*kernel);
  a.gradK.data = nullptr;
  expectError(a, "'gradK' is a null pointer");
  a = validArgs(*kernel);
  a.gradQ.strides[2] = 63;
  expectError(a, "'gradQ' stride of dimension 2 is 63; it must be even");
  a = validArgs(*kernel);
  a.seqKV = 0;
  expectError(a, "batch, seqQ and seqKV must be positive");
  a = validArgs(*kernel);
  a.scoreModCaptures[0] = a.q.data;
  expectError(a, "capture 0 is set but the score_mod reads 0");
  a = validArgs(*kernel);
  a.workspace += 128;
  expectError(a, "the workspace must be 256-byte aligned");
  // The forward's arguments do not launch a backward, nor the reverse.
  FlashArgs forwardArgs;
  Status wrong = KernelGroup(kernel).validate(forwardArgs);
  EXPECT_NE(wrong.message().find("launch it with BackwardArgs"), std::string::npos)
      << wrong.message();
}

TEST(BackwardAPI, SinksGetTheirGradientFromAFifthEntry) {
  auto kernel = compileBackward(forward("", /*sinks=*/true), false, "sm_90a");
  ASSERT_TRUE(kernel);
  const KernelSpec &spec = kernel->spec();
  EXPECT_TRUE(spec.sinks);
  EXPECT_NE(spec.name.find("_dsinks_"), std::string::npos) << spec.name;
  EXPECT_NE(spec.source.find(spec.name + "_sinks("), std::string::npos);
  auto expectError = [&](BackwardArgs a, const std::string &text) {
    Status s = kernel->validate(a);
    ASSERT_FALSE(s.isOk()) << text;
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  };
  BackwardArgs a = validArgs(*kernel);
  auto *fake = reinterpret_cast<float *>(uintptr_t(1) << 20);
  expectError(a, "computes the sinks' gradient but 'sinks' is null");
  a.sinks = fake;
  expectError(a, "computes the sinks' gradient but 'gradSinks' is null");
  a.gradSinks = fake;
  EXPECT_TRUE(kernel->validate(a).isOk());

  // Without sinks, no such entry, and a gradient to write is a mistake.
  auto plain = compileBackward(forward(), false, "sm_90a");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->spec().sinks);
  EXPECT_EQ(plain->spec().source.find("_sinks("), std::string::npos);
  BackwardArgs b = validArgs(*plain);
  b.gradSinks = fake;
  Status s = plain->validate(b);
  EXPECT_NE(s.message().find("'gradSinks' is given but the kernel computes no"),
            std::string::npos)
      << s.message();
}

TEST(BackwardAPI, RaggedBatchRunsSm80sKernelsOverEverySequence) {
  // A ragged training step: the backward is sm80's on sm_90a too (the
  // wgmma kernels' dQ sums and tiles are per batch entry), specialized for
  // the packed layout, and needs the offsets; a dense backward refuses
  // them.
  const std::string text =
      "func.func @f(%q: tensor<900x8x64xbf16>, %k: tensor<1300x2x64xbf16>, "
      "%v: tensor<1300x2x64xbf16>, %cq: tensor<8xi32>, %ck: tensor<8xi32>) "
      "-> tensor<900x8x64xbf16> {\n"
      "  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<8xi32>) "
      "cu_seqlens_k(%ck : tensor<8xi32>) {scale = 0.125 : f32, mask = "
      "#attn.mask<causal, bottom_right>} : tensor<900x8x64xbf16>, "
      "tensor<1300x2x64xbf16>, tensor<1300x2x64xbf16> -> "
      "tensor<900x8x64xbf16>\n"
      "  return %o : tensor<900x8x64xbf16>\n}\n";
  auto kernel = compileBackward(text, false, "sm_90a");
  ASSERT_TRUE(kernel);
  const KernelSpec &spec = kernel->spec();
  EXPECT_TRUE(spec.varlen);
  EXPECT_EQ(spec.variant, "sm80");
  EXPECT_EQ(spec.batch, 7);
  EXPECT_NE(spec.name.find("_varlen_sm80_"), std::string::npos) << spec.name;
  EXPECT_NE(spec.source.find("kVarlen = true"), std::string::npos);

  BackwardArgs a;
  a.batch = 7;
  a.seqQ = 900;
  a.seqKV = 1300;
  auto *fake = reinterpret_cast<const void *>(uintptr_t(1) << 20);
  // Packed [T, H, D] as BHSD without a batch stride.
  auto packed = [&](int64_t heads) {
    TensorArg t;
    t.data = fake;
    t.strides[0] = 0;
    t.strides[1] = 64;
    t.strides[2] = heads * 64;
    t.strides[3] = 1;
    return t;
  };
  a.q = a.o = a.gradOutput = a.gradQ = packed(8);
  a.k = a.v = a.gradK = a.gradV = packed(2);
  a.lse = reinterpret_cast<const float *>(fake);
  a.workspace = DevicePtr(1) << 20;
  // D of every packed row of every head, one batch entry.
  ASSERT_TRUE(kernel->workspaceBytes(a).isOk());
  EXPECT_EQ(*kernel->workspaceBytes(a), (8 * 900 * 4 + 255) / 256 * 256);
  a.workspaceBytes = *kernel->workspaceBytes(a);
  Status missing = kernel->validate(a);
  EXPECT_NE(missing.message().find("needs 'cuSeqlensQ' and 'cuSeqlensK'"),
            std::string::npos)
      << missing.message();
  a.cuSeqlensQ = a.cuSeqlensK = reinterpret_cast<const int *>(fake);
  EXPECT_TRUE(kernel->validate(a).isOk()) << kernel->validate(a).toString();

  auto dense = compileBackward(forward());
  ASSERT_TRUE(dense);
  BackwardArgs b = validArgs(*dense);
  b.cuSeqlensQ = b.cuSeqlensK = reinterpret_cast<const int *>(fake);
  Status s = dense->validate(b);
  EXPECT_NE(s.message().find("is the backward of a dense batch"),
            std::string::npos)
      << s.message();
}

TEST(BackwardAPI, DeterministicModeCannotSumABroadcastBiasGradient) {
  auto kernel = compileBackward(forward("1x4x300x300"), /*biasGrad=*/true);
  ASSERT_TRUE(kernel);
  EXPECT_TRUE(kernel->spec().biasGrad);
  BackwardArgs a = validArgs(*kernel);
  auto *fake = reinterpret_cast<const void *>(uintptr_t(1) << 20);
  int64_t biasShape[4] = {1, 4, 300, 300};
  a.bias = a.gradBias = TensorArg::contiguous(fake, biasShape);
  a.bias.strides[0] = 0; // broadcast over the batch
  a.gradBias.strides[0] = 0;
  // Summed in f32: the workspace grows by the bias's elements.
  size_t plain = *kernel->workspaceBytes(a);
  a.workspaceBytes = plain;
  EXPECT_TRUE(kernel->validate(a).isOk());
  a.deterministic = true;
  a.workspaceBytes = *kernel->workspaceBytes(a);
  Status s = kernel->validate(a);
  EXPECT_EQ(s.code(), StatusCode::Unsupported);
  EXPECT_NE(s.message().find("cannot sum the gradient of a bias that broadcasts"),
            std::string::npos)
      << s.message();
  a.gradBias.data = nullptr;
  a.deterministic = false;
  a.workspaceBytes = plain;
  s = kernel->validate(a);
  EXPECT_NE(s.message().find("'gradBias' is null"), std::string::npos) << s.message();
}

TEST(BackwardAPI, CapturesReachTheBackward) {
  // A learned scale per head that multiplies the score: the derivative
  // reads it too.
  const char *text = R"(
func.func @f(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x2x300x64xbf16>, %v: tensor<2x2x300x64xbf16>,
             %slopes: tensor<4xf32>) -> tensor<2x4x300x64xbf16> {
  %o = attn.flash %q, %k, %v captures(%slopes : tensor<4xf32>) {scale = 0.125 : f32} score_mod {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index, %t: tensor<4xf32>):
    %s = tensor.extract %t[%h] : tensor<4xf32>
    %y = arith.mulf %x, %s : f32
    attn.yield %y : f32
  } : tensor<2x4x300x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x2x300x64xbf16> -> tensor<2x4x300x64xbf16>
  return %o : tensor<2x4x300x64xbf16>
}
)";
  auto kernel = compileBackward(text);
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->spec().scoreModCaptures, 1);
  // Both device functions read the capture.
  const std::string &source = kernel->spec().source;
  size_t grad = source.find("scoreModGrad(");
  ASSERT_NE(grad, std::string::npos);
  EXPECT_NE(source.find("captures[0]", grad), std::string::npos);
  BackwardArgs a = validArgs(*kernel);
  Status s = kernel->validate(a);
  EXPECT_NE(s.message().find("the score_mod reads 1 captured tensors but capture "
                             "0 is null"),
            std::string::npos)
      << s.message();
  a.scoreModCaptures[0] = a.q.data;
  EXPECT_TRUE(kernel->validate(a).isOk());
}

TEST(BackwardAPI, LaunchesPastTheGridLimitAreAnError) {
  auto kernel = compileBackward(forward());
  ASSERT_TRUE(kernel);
  BackwardArgs a = validArgs(*kernel);
  // The batch is the grid's z: at most 65535.
  a.batch = 65536;
  Status s = kernel->validate(a);
  EXPECT_NE(s.message().find("the backward's key kernel needs a grid of 5 x 2 "
                             "(heads) x 65536 (batch) blocks; CUDA allows "
                             "2147483647 x 65535 x 65535"),
            std::string::npos)
      << s.message();
}

TEST(BackwardAPI, BackwardNeedsTheFusedPipeline) {
  Context::Options contextOptions;
  contextOptions.diskCache = false;
  auto ctx = Context::create(contextOptions);
  ASSERT_TRUE(ctx.isOk());
  CompileOptions options;
  options.backward = true;
  options.unfused = true;
  auto compiled = compileSource(**ctx, forward(), options);
  ASSERT_FALSE(compiled.isOk());
  EXPECT_NE(compiled.status().message().find("needs the pipeline and no 'unfused'"),
            std::string::npos);
}

} // namespace
