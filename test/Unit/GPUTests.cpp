//===- GPUTests.cpp - The C++ API end to end on a GPU ---------------------===//
//
// Skipped (GTEST_SKIP) without a GPU. The full feature table runs through
// scripts/gpu-tests.sh; this checks the library path a C++ user takes.
//
//===----------------------------------------------------------------------===//

#include "attn/API/CompileModule.h"
#include "attn/Reference/Reference.h"
#include "attn/Runtime/Half.h"
#include "attn/attn.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <random>

using namespace attn;

/// Inputs q, k and v of bf16 [B, H, S, D] and their causal sdpa as g's
/// output.
static void buildCausalSdpa(Graph &g, int64_t B, int64_t H, int64_t S,
                            int64_t D) {
  auto q = g.input("q", DataType::BF16, {B, H, S, D});
  auto k = g.input("k", DataType::BF16, {B, H, S, D});
  auto v = g.input("v", DataType::BF16, {B, H, S, D});
  Graph::SdpaOptions options;
  options.causal = true;
  auto out = g.sdpa(q, k, v, options);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  g.output(*out);
}

TEST(GPU, GraphCompiledAndLaunchedMatchesTheReference) {
  auto device = Context::device();
  if (!device.isOk())
    GTEST_SKIP() << device.status().message();
  auto ctx = Context::create();
  ASSERT_TRUE(ctx.isOk());
  const int64_t B = 2, H = 4, S = 300, D = 64;
  Graph g;
  ASSERT_NO_FATAL_FAILURE(buildCausalSdpa(g, B, H, S, D));
  auto compiled = compileGraph(**ctx, g);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();

  // Fresh random inputs (never zeros), poisoned output.
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal;
  int64_t n = B * H * S * D;
  std::vector<uint16_t> host[3];
  std::vector<mlir::attn::reference::HostTensor> inputs;
  std::vector<DeviceBuffer> buffers;
  for (auto &h : host) {
    mlir::attn::reference::HostTensor t({B, H, S, D});
    h.resize(n);
    for (int64_t i = 0; i < n; ++i) {
      h[i] = floatToBf16(normal(rng));
      t.data[i] = bf16ToFloat(h[i]);
    }
    inputs.push_back(t);
    auto buffer = DeviceBuffer::allocate(n * 2);
    ASSERT_TRUE(buffer.isOk()) << buffer.status().toString();
    ASSERT_TRUE((*Driver::get())->copyToDevice(buffer->get(), h.data(), n * 2).isOk());
    buffers.push_back(std::move(*buffer));
  }
  auto o = DeviceBuffer::allocate(n * 2);
  ASSERT_TRUE(o.isOk());
  ASSERT_TRUE((*Driver::get())->fill(o->get(), 0xff, n * 2).isOk());

  int64_t shape[4] = {B, H, S, D};
  FlashArgs args;
  args.batch = B;
  args.seqQ = args.seqKV = S;
  args.q = TensorArg::contiguous(reinterpret_cast<void *>(buffers[0].get()), shape);
  args.k = TensorArg::contiguous(reinterpret_cast<void *>(buffers[1].get()), shape);
  args.v = TensorArg::contiguous(reinterpret_cast<void *>(buffers[2].get()), shape);
  args.o = TensorArg::contiguous(reinterpret_cast<void *>(o->get()), shape);
  ASSERT_TRUE(compiled->kernels[0]->launch(args).isOk());
  ASSERT_TRUE((*Driver::get())->synchronize().isOk());
  std::vector<uint16_t> result(n);
  ASSERT_TRUE((*Driver::get())->copyToHost(result.data(), o->get(), n * 2).isOk());
  mlir::attn::reference::HostTensor got({B, H, S, D});
  for (int64_t i = 0; i < n; ++i)
    got.data[i] = bf16ToFloat(result[i]);

  mlir::MLIRContext context;
  registerAttnDialects(context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(*g.toMLIR(), &context);
  auto func = *module->getOps<mlir::func::FuncOp>().begin();
  auto expected = mlir::attn::reference::evaluate(func, inputs);
  ASSERT_TRUE(mlir::succeeded(expected));
  double err = mlir::attn::reference::relativeError(got, (*expected)[0]);
  EXPECT_LT(err, 1e-2);
  std::printf("relative error vs float64 reference: %.3e\n", err);
}

// With the real driver: a host pointer (a CPU bool mask) is an error that
// names the operand, never a launch; a decode launch that splits needs the
// caller's workspace and reports its size.
TEST(GPU, HostPointersAndMissingWorkspacesAreErrorsNotLaunches) {
  auto device = Context::device();
  if (!device.isOk())
    GTEST_SKIP() << device.status().message();
  auto ctx = Context::create();
  ASSERT_TRUE(ctx.isOk());
  const int64_t B = 2, Hq = 8, Hkv = 2, Skv = 1000, D = 128;
  Graph g;
  auto q = g.input("q", DataType::BF16, {B, Hq, 1, D});
  auto k = g.input("k", DataType::BF16, {B, Hkv, Skv, D});
  auto v = g.input("v", DataType::BF16, {B, Hkv, Skv, D});
  auto keep = g.input("keep", DataType::Bool, {1, 1, 1, Skv});
  Graph::SdpaOptions options;
  options.keep = keep;
  auto out = g.sdpa(q, k, v, options);
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  g.output(*out);
  auto compiled = compileGraph(**ctx, g);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  KernelGroup &kernel = *compiled->kernels[0];

  int64_t qShape[4] = {B, Hq, 1, D}, kvShape[4] = {B, Hkv, Skv, D};
  auto dq = DeviceBuffer::allocate(B * Hq * D * 2), dk = DeviceBuffer::allocate(B * Hkv * Skv * D * 2),
       dv = DeviceBuffer::allocate(B * Hkv * Skv * D * 2), dout = DeviceBuffer::allocate(B * Hq * D * 2),
       dkeep = DeviceBuffer::allocate(Skv);
  ASSERT_TRUE(dq.isOk() && dk.isOk() && dv.isOk() && dout.isOk() && dkeep.isOk());
  FlashArgs args;
  args.batch = B;
  args.seqQ = 1;
  args.seqKV = Skv;
  args.q = TensorArg::contiguous(reinterpret_cast<void *>(dq->get()), qShape);
  args.k = TensorArg::contiguous(reinterpret_cast<void *>(dk->get()), kvShape);
  args.v = TensorArg::contiguous(reinterpret_cast<void *>(dv->get()), kvShape);
  args.o = TensorArg::contiguous(reinterpret_cast<void *>(dout->get()), qShape);
  args.keep.strides[3] = 1;
  args.splits = 4;
  std::vector<unsigned char> hostKeep(Skv, 1);
  args.keep.data = hostKeep.data();
  Status s = kernel.launch(args);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("'keep' is not GPU memory"), std::string::npos) << s.message();

  args.keep.data = reinterpret_cast<void *>(dkeep->get());
  auto bytes = kernel.workspaceBytes(args);
  ASSERT_TRUE(bytes.isOk()) << bytes.status().toString();
  EXPECT_EQ(*bytes, sizeof(float) * 4 * B * Hq * (D + 1));
  s = kernel.launch(args);
  EXPECT_NE(s.message().find("bytes of workspace"), std::string::npos) << s.message();
  auto workspace = DeviceBuffer::allocate(*bytes);
  ASSERT_TRUE(workspace.isOk());
  ASSERT_TRUE((*Driver::get())->fill(dkeep->get(), 1, Skv).isOk());
  args.workspace = workspace->get();
  args.workspaceBytes = workspace->size();
  s = kernel.launch(args);
  EXPECT_TRUE(s.isOk()) << s.toString();
  EXPECT_TRUE((*Driver::get())->synchronize().isOk());
}

// A k stored back to front (a negative stride between keys, which TMA
// cannot take) reaches the persistent kernel's launch: the cp.async kernel
// compiled beside it runs instead, built at that launch, and matches the
// float64 reference like the TMA kernel does on the same keys stored in
// order.
TEST(GPU, KeysTmaCannotReadRunTheCpAsyncKernel) {
  auto device = Context::device();
  if (!device.isOk())
    GTEST_SKIP() << device.status().message();
  if (device->arch() != "sm_90a")
    GTEST_SKIP() << "the TMA kernel needs sm_90a; the GPU is " << device->arch();
  auto ctx = Context::create();
  ASSERT_TRUE(ctx.isOk());
  const int64_t B = 2, H = 4, S = 300, D = 128;
  Graph g;
  ASSERT_NO_FATAL_FAILURE(buildCausalSdpa(g, B, H, S, D));
  CompileOptions compile;
  compile.variant = "sm90ws";
  auto compiled = compileGraph(**ctx, g, compile);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  KernelGroup &kernel = *compiled->kernels[0];
  ASSERT_EQ(kernel.spec().variant, "sm90ws");

  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal;
  const int64_t n = B * H * S * D;
  std::vector<mlir::attn::reference::HostTensor> inputs;
  std::vector<DeviceBuffer> buffers;
  Driver &driver = **Driver::get();
  // q, k, v in order, then k again back to front along the keys.
  std::vector<uint16_t> keys;
  for (int i = 0; i < 3; ++i) {
    mlir::attn::reference::HostTensor t({B, H, S, D});
    std::vector<uint16_t> h(n);
    for (int64_t j = 0; j < n; ++j) {
      h[j] = floatToBf16(normal(rng));
      t.data[j] = bf16ToFloat(h[j]);
    }
    if (i == 1)
      keys = h;
    inputs.push_back(t);
    auto buffer = DeviceBuffer::allocate(n * 2);
    ASSERT_TRUE(buffer.isOk()) << buffer.status().toString();
    ASSERT_TRUE(driver.copyToDevice(buffer->get(), h.data(), n * 2).isOk());
    buffers.push_back(std::move(*buffer));
  }
  std::vector<uint16_t> reversed(n);
  for (int64_t bh = 0; bh < B * H; ++bh)
    for (int64_t s = 0; s < S; ++s)
      std::copy_n(&keys[(bh * S + s) * D], D,
                  &reversed[(bh * S + (S - 1 - s)) * D]);
  auto reversedBuffer = DeviceBuffer::allocate(n * 2);
  ASSERT_TRUE(reversedBuffer.isOk());
  ASSERT_TRUE(driver.copyToDevice(reversedBuffer->get(), reversed.data(), n * 2).isOk());

  mlir::MLIRContext context;
  registerAttnDialects(context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(*g.toMLIR(), &context);
  auto func = *module->getOps<mlir::func::FuncOp>().begin();
  auto expected = mlir::attn::reference::evaluate(func, inputs);
  ASSERT_TRUE(mlir::succeeded(expected));

  int64_t shape[4] = {B, H, S, D};
  auto run = [&](const TensorArg &keysArg) -> double {
    auto o = DeviceBuffer::allocate(n * 2);
    EXPECT_TRUE(o.isOk());
    EXPECT_TRUE(driver.fill(o->get(), 0xff, n * 2).isOk());
    FlashArgs args;
    args.batch = B;
    args.seqQ = args.seqKV = S;
    args.q = TensorArg::contiguous(reinterpret_cast<void *>(buffers[0].get()), shape);
    args.k = keysArg;
    args.v = TensorArg::contiguous(reinterpret_cast<void *>(buffers[2].get()), shape);
    args.o = TensorArg::contiguous(reinterpret_cast<void *>(o->get()), shape);
    auto bytes = kernel.workspaceBytes(args);
    EXPECT_TRUE(bytes.isOk()) << bytes.status().toString();
    auto workspace = DeviceBuffer::allocate(std::max<size_t>(*bytes, 1));
    EXPECT_TRUE(workspace.isOk());
    args.workspace = workspace->get();
    args.workspaceBytes = *bytes;
    Status s = kernel.launch(args);
    EXPECT_TRUE(s.isOk()) << s.toString();
    EXPECT_TRUE(driver.synchronize().isOk());
    std::vector<uint16_t> result(n);
    EXPECT_TRUE(driver.copyToHost(result.data(), o->get(), n * 2).isOk());
    mlir::attn::reference::HostTensor got({B, H, S, D});
    for (int64_t i = 0; i < n; ++i)
      got.data[i] = bf16ToFloat(result[i]);
    return mlir::attn::reference::relativeError(got, (*expected)[0]);
  };

  double inOrder = run(TensorArg::contiguous(reinterpret_cast<void *>(buffers[1].get()), shape));
  EXPECT_LT(inOrder, 1e-2);
  EXPECT_EQ(kernel.cpAsyncFallback(), nullptr); // TMA read them

  TensorArg backToFront = TensorArg::contiguous(
      reinterpret_cast<char *>(reversedBuffer->get()) + (S - 1) * D * 2, shape);
  backToFront.strides[2] = -D;
  double reversedError = run(backToFront);
  ASSERT_NE(kernel.cpAsyncFallback(), nullptr);
  EXPECT_EQ(kernel.cpAsyncFallback()->spec().variant, "sm90");
  EXPECT_LT(reversedError, 1e-2);
  std::printf("relative error vs float64 reference: TMA %.3e, cp.async "
              "(k back to front) %.3e\n",
              inOrder, reversedError);
}
