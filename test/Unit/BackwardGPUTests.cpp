//===- BackwardGPUTests.cpp - The backward through the C++ API on a GPU ---===//
//
// Skipped (GTEST_SKIP) without a GPU. A training step compiled with
// CompileOptions::backward: the forward writes o and its logsumexp, the
// backward's gradients match the float64 reference in both dQ modes, and
// the deterministic mode gives bitwise identical gradients over 10 runs;
// gradients in rows that are not 16-byte aligned take the kernels' narrow
// stores and leave the rows' padding alone.
//
//===----------------------------------------------------------------------===//

#include "attn/API/CompileModule.h"
#include "attn/Reference/Reference.h"
#include "attn/Runtime/Half.h"
#include "attn/attn.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace attn;
using mlir::attn::reference::HostTensor;

namespace {

constexpr int64_t B = 2, Hq = 4, Hkv = 2, S = 300, D = 64;

const char *kForward = R"(
func.func @step(%q: tensor<2x4x300x64xbf16>, %k: tensor<2x2x300x64xbf16>,
                %v: tensor<2x2x300x64xbf16>) -> tensor<2x4x300x64xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>}
    : tensor<2x4x300x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x2x300x64xbf16> -> tensor<2x4x300x64xbf16>
  return %o : tensor<2x4x300x64xbf16>
}
)";

/// A bf16 device tensor and its values as the reference sees them.
struct Tensor {
  std::vector<int64_t> shape;
  DeviceBuffer buffer;
  HostTensor host;

  static Tensor make(std::vector<int64_t> shape, std::mt19937 *rng) {
    Tensor t;
    t.shape = shape;
    t.host = HostTensor(shape);
    int64_t n = t.host.numElements();
    std::vector<uint16_t> bits(n, 0xffff); // NaN: poison for outputs
    if (rng) {
      std::normal_distribution<float> normal;
      for (int64_t i = 0; i < n; ++i) {
        bits[i] = floatToBf16(normal(*rng));
        t.host.data[i] = bf16ToFloat(bits[i]);
      }
    }
    t.buffer = std::move(*DeviceBuffer::allocate(n * 2));
    EXPECT_TRUE((*Driver::get())->copyToDevice(t.buffer.get(), bits.data(), n * 2).isOk());
    return t;
  }
  TensorArg arg() const {
    return TensorArg::contiguous(reinterpret_cast<void *>(buffer.get()), shape.data());
  }
  std::vector<uint16_t> bits() const {
    std::vector<uint16_t> out(host.numElements());
    EXPECT_TRUE((*Driver::get())
                    ->copyToHost(out.data(), buffer.get(), out.size() * 2)
                    .isOk());
    return out;
  }
  HostTensor values() const {
    HostTensor h(shape);
    std::vector<uint16_t> b = bits();
    for (size_t i = 0; i < b.size(); ++i)
      h.data[i] = bf16ToFloat(b[i]);
    return h;
  }
};

TEST(BackwardGPU, MatchesTheReferenceAndIsDeterministicOnRequest) {
  auto device = Context::device();
  if (!device.isOk())
    GTEST_SKIP() << device.status().message();
  auto ctx = Context::create();
  ASSERT_TRUE(ctx.isOk());
  CompileOptions options;
  options.backward = true;
  auto compiled = compileSource(**ctx, kForward, options);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(compiled->kernels.size(), 2u);
  KernelGroup &forward = *compiled->kernels[0], &backward = *compiled->kernels[1];

  std::mt19937 rng(7);
  Tensor q = Tensor::make({B, Hq, S, D}, &rng), k = Tensor::make({B, Hkv, S, D}, &rng),
         v = Tensor::make({B, Hkv, S, D}, &rng), dO = Tensor::make({B, Hq, S, D}, &rng);
  Tensor o = Tensor::make({B, Hq, S, D}, nullptr);
  auto lse = DeviceBuffer::allocate(B * Hq * S * sizeof(float));
  ASSERT_TRUE(lse.isOk());

  FlashArgs f;
  f.batch = B;
  f.seqQ = f.seqKV = S;
  f.q = q.arg();
  f.k = k.arg();
  f.v = v.arg();
  f.o = o.arg();
  f.lse = reinterpret_cast<float *>(lse->get());
  ASSERT_TRUE(forward.launch(f).isOk());

  // The gradients of one backward launch.
  auto runBackward = [&](bool deterministic, Tensor &dq, Tensor &dk, Tensor &dv) {
    BackwardArgs a;
    a.batch = B;
    a.seqQ = a.seqKV = S;
    a.q = q.arg();
    a.k = k.arg();
    a.v = v.arg();
    a.o = o.arg();
    a.gradOutput = dO.arg();
    a.lse = reinterpret_cast<const float *>(lse->get());
    a.gradQ = dq.arg();
    a.gradK = dk.arg();
    a.gradV = dv.arg();
    a.deterministic = deterministic;
    auto bytes = backward.workspaceBytes(a);
    ASSERT_TRUE(bytes.isOk());
    auto workspace = DeviceBuffer::allocate(*bytes);
    ASSERT_TRUE(workspace.isOk());
    a.workspace = workspace->get();
    a.workspaceBytes = *bytes;
    Status s = backward.launch(a);
    ASSERT_TRUE(s.isOk()) << s.toString();
    ASSERT_TRUE((*Driver::get())->synchronize().isOk());
  };

  mlir::MLIRContext context;
  registerAttnDialects(context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(compiled->loweredIR, &context);
  ASSERT_TRUE(module);
  auto func = *module->getOps<mlir::func::FuncOp>().begin();
  auto expected = mlir::attn::reference::evaluate(
      func, {q.host, k.host, v.host, dO.host});
  ASSERT_TRUE(mlir::succeeded(expected));
  ASSERT_EQ(expected->size(), 4u); // o, dq, dk, dv

  for (bool deterministic : {false, true}) {
    Tensor dq = Tensor::make({B, Hq, S, D}, nullptr), dk = Tensor::make({B, Hkv, S, D}, nullptr),
           dv = Tensor::make({B, Hkv, S, D}, nullptr);
    runBackward(deterministic, dq, dk, dv);
    const Tensor *grads[] = {&dq, &dk, &dv};
    for (int g = 0; g < 3; ++g) {
      double err = mlir::attn::reference::relativeError(grads[g]->values(),
                                                        (*expected)[1 + g]);
      std::printf("%s gradient %d: relative error %.3e\n",
                  deterministic ? "deterministic" : "atomic", g, err);
      EXPECT_LT(err, 1e-2) << "gradient " << g;
    }
    if (!deterministic)
      continue;
    // Bitwise the same, run after run.
    std::vector<uint16_t> first[3] = {dq.bits(), dk.bits(), dv.bits()};
    for (int run = 1; run < 10; ++run) {
      runBackward(true, dq, dk, dv);
      for (int g = 0; g < 3; ++g)
        EXPECT_EQ(std::memcmp(first[g].data(), grads[g]->bits().data(),
                              first[g].size() * 2),
                  0)
            << "gradient " << g << " differs in run " << run;
    }
  }

  // Rows of D + 2 elements (132 bytes): dQ's conversion and the dK, dV
  // stores cannot use 16-byte stores; the last two columns stay poisoned.
  Tensor dq = Tensor::make({B, Hq, S, D + 2}, nullptr),
         dk = Tensor::make({B, Hkv, S, D + 2}, nullptr),
         dv = Tensor::make({B, Hkv, S, D + 2}, nullptr);
  runBackward(false, dq, dk, dv);
  const Tensor *grads[] = {&dq, &dk, &dv};
  for (int g = 0; g < 3; ++g) {
    std::vector<uint16_t> bits = grads[g]->bits();
    HostTensor values((*expected)[1 + g].shape);
    for (int64_t row = 0; row < values.numElements() / D; ++row) {
      for (int64_t d = 0; d < D; ++d)
        values.data[row * D + d] = bf16ToFloat(bits[row * (D + 2) + d]);
      EXPECT_EQ(bits[row * (D + 2) + D], 0xffff) << "gradient " << g;
      EXPECT_EQ(bits[row * (D + 2) + D + 1], 0xffff) << "gradient " << g;
    }
    double err = mlir::attn::reference::relativeError(values, (*expected)[1 + g]);
    std::printf("padded rows gradient %d: relative error %.3e\n", g, err);
    EXPECT_LT(err, 1e-2) << "gradient " << g;
  }
}

} // namespace
