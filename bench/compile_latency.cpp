//===- compile_latency.cpp - How long a kernel takes to get ---------------===//
//
// Not a timed test: prints the latency of a cold compile (NVRTC), a disk
// cache hit (new context, same directory) and a memory cache hit (same
// context), against the targets < 2 s, < 5 ms and < 20 us. These time the
// runtime's build() of an emitted kernel, which is what a JIT user waits for.
//
//===----------------------------------------------------------------------===//

#include "attn/API/CompileModule.h"
#include "attn/Target/Cuda/EmitCuda.h"
#include "attn/attn.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <vector>

using Clock = std::chrono::steady_clock;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  const char *text = R"(
func.func @sdpa(%q: tensor<4x16x2048x128xbf16>, %k: tensor<4x16x2048x128xbf16>, %v: tensor<4x16x2048x128xbf16>) -> tensor<4x16x2048x128xbf16> {
  %o = attn.flash %q, %k, %v {scale = 0.0883883461 : f32, mask = #attn.mask<causal>,
       config = #attn.config<variant = "sm80", block_m = 128, block_n = 64, num_warps = 8, stages = 2>}
    : tensor<4x16x2048x128xbf16>, tensor<4x16x2048x128xbf16>, tensor<4x16x2048x128xbf16> -> tensor<4x16x2048x128xbf16>
  return %o : tensor<4x16x2048x128xbf16>
})";
  mlir::MLIRContext context;
  attn::registerAttnDialects(context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  mlir::attn::FlashOp op;
  module->walk([&](mlir::attn::FlashOp flash) { op = flash; });
  auto spec = mlir::attn::emitFlashKernel(op);
  if (mlir::failed(spec))
    return 1;

  std::string dir = "/tmp/attn-compile-latency-" + std::to_string(getpid());
  attn::Context::Options options;
  options.arch = "sm_90a";
  options.cacheDirectory = dir;
  auto build = [&](attn::Context &ctx, attn::CacheOutcome expected) {
    auto start = Clock::now();
    auto kernel = ctx.build(*spec);
    double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    if (!kernel || (*kernel)->cacheOutcome() != expected) {
      std::fprintf(stderr, "unexpected: %s\n",
                   kernel ? attn::cacheOutcomeName((*kernel)->cacheOutcome())
                          : kernel.status().toString().c_str());
      std::exit(1);
    }
    return us;
  };

  std::vector<double> cold, disk, memory;
  for (int i = 0; i < 3; ++i) {
    std::system(("rm -rf " + dir).c_str());
    auto ctx = attn::Context::create(options);
    cold.push_back(build(**ctx, attn::CacheOutcome::Miss));
  }
  for (int i = 0; i < 20; ++i) {
    auto ctx = attn::Context::create(options);
    disk.push_back(build(**ctx, attn::CacheOutcome::DiskHit));
    for (int j = 0; j < 50; ++j)
      memory.push_back(build(**ctx, attn::CacheOutcome::MemoryHit));
  }
  std::system(("rm -rf " + dir).c_str());
  auto line = [](const char *what, double us, double targetUs) {
    std::printf("%-22s %12.1f us   target < %9.0f us   %s\n", what, us, targetUs,
                us < targetUs ? "met" : "MISSED");
  };
  std::printf("compile latency of %s (median)\n", spec->name.c_str());
  line("cold compile (NVRTC)", median(cold), 2e6);
  line("disk cache hit", median(disk), 5e3);
  line("memory cache hit", median(memory), 20);
  return 0;
}
