//===- api_example.cpp - The attn C++ API end to end ----------------------===//
//
// Builds causal GQA attention with the graph builder, compiles it (fuse,
// configure, NVRTC; no GPU needed), prints what was built, and, where a GPU
// is present, runs it on random inputs and prints the output's checksum.
//
//   build/bin/attn-api-example
//
//===----------------------------------------------------------------------===//

#include "attn/Runtime/Half.h"
#include "attn/attn.h"

#include <cstdio>
#include <random>
#include <vector>

int main() {
  // 1. A context: picks the GPU's arch (sm_90a without a GPU) and the caches.
  auto context = attn::Context::create();
  if (!context) {
    std::fprintf(stderr, "%s\n", context.status().toString().c_str());
    return 1;
  }

  // 2. The graph, as a framework would export it.
  const int64_t batch = 2, heads = 32, kvHeads = 8, seq = 1024, dim = 128;
  attn::Graph graph;
  auto q = graph.input("q", attn::DataType::BF16, {batch, heads, seq, dim});
  auto k = graph.input("k", attn::DataType::BF16, {batch, kvHeads, seq, dim});
  auto v = graph.input("v", attn::DataType::BF16, {batch, kvHeads, seq, dim});
  attn::Graph::SdpaOptions options;
  options.causal = true;
  auto out = graph.sdpa(q, k, v, options);
  if (!out) {
    std::fprintf(stderr, "%s\n", out.status().toString().c_str());
    return 1;
  }
  graph.output(*out);

  // 3. Compile: attn-fuse, attn-select-config, emission, NVRTC (cached).
  auto compiled = attn::compileGraph(**context, graph);
  if (!compiled) {
    std::fprintf(stderr, "%s\n", compiled.status().toString().c_str());
    return 1;
  }
  // The op's kernels: what runs a launch is picked by the group.
  attn::KernelGroup &group = *compiled->kernels.front();
  attn::Kernel &kernel = group.primary();
  const attn::KernelSpec &spec = kernel.spec();
  auto grid = group.flash()->grid(batch, seq);
  std::printf("kernel %s for %s\n", spec.name.c_str(), kernel.arch().c_str());
  std::printf("  variant %s, tiles %dx%d, %d warps, %d stages\n",
              spec.variant.c_str(), spec.blockM, spec.blockN, spec.numWarps,
              spec.stages);
  auto registers = kernel.registers();
  std::printf("  grid %ux%ux%u, block %d, %s registers, %d B shared, %d B spilled\n",
              grid.x, grid.y, grid.z, kernel.blockThreads(),
              registers ? std::to_string(*registers).c_str() : "unknown",
              spec.sharedBytes, kernel.ptxas().spillStoreBytes);
  std::printf("  built in %.1f ms (%s)\n", kernel.buildMs(),
              attn::cacheOutcomeName(kernel.cacheOutcome()));

  // 4. Run, where there is a GPU.
  auto device = attn::Context::device();
  if (!device) {
    std::printf("no GPU, not launched: %s\n", device.status().message().c_str());
    return 0;
  }
  attn::Driver &driver = **attn::Driver::get();
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  auto upload = [&](int64_t n) {
    std::vector<uint16_t> host(n);
    for (auto &x : host)
      x = attn::floatToBf16(normal(rng));
    auto buffer = attn::DeviceBuffer::allocate(n * 2);
    if (buffer)
      (void)driver.copyToDevice(buffer->get(), host.data(), n * 2);
    return buffer;
  };
  int64_t qShape[4] = {batch, heads, seq, dim}, kvShape[4] = {batch, kvHeads, seq, dim};
  auto dq = upload(batch * heads * seq * dim), dk = upload(batch * kvHeads * seq * dim),
       dv = upload(batch * kvHeads * seq * dim), dout = upload(batch * heads * seq * dim);
  if (!dq || !dk || !dv || !dout) {
    std::fprintf(stderr, "allocation failed\n");
    return 1;
  }
  attn::FlashArgs args;
  args.batch = batch;
  args.seqQ = args.seqKV = seq;
  args.q = attn::TensorArg::contiguous(reinterpret_cast<void *>(dq->get()), qShape);
  args.k = attn::TensorArg::contiguous(reinterpret_cast<void *>(dk->get()), kvShape);
  args.v = attn::TensorArg::contiguous(reinterpret_cast<void *>(dv->get()), kvShape);
  args.o = attn::TensorArg::contiguous(reinterpret_cast<void *>(dout->get()), qShape);
  // Launches that split the keys (decode) write partial results to a
  // workspace the caller owns; this one needs none, but asking is cheap.
  auto workspaceBytes = group.workspaceBytes(args);
  if (!workspaceBytes) {
    std::fprintf(stderr, "%s\n", workspaceBytes.status().toString().c_str());
    return 1;
  }
  auto workspace = attn::DeviceBuffer::allocate(*workspaceBytes);
  if (!workspace) {
    std::fprintf(stderr, "%s\n", workspace.status().toString().c_str());
    return 1;
  }
  args.workspace = workspace->get();
  args.workspaceBytes = workspace->size();
  if (attn::Status s = group.launch(args); !s) {
    std::fprintf(stderr, "%s\n", s.toString().c_str());
    return 1;
  }
  if (attn::Status s = driver.synchronize(); !s) {
    std::fprintf(stderr, "%s\n", s.toString().c_str());
    return 1;
  }
  std::vector<uint16_t> result(batch * heads * seq * dim);
  (void)driver.copyToHost(result.data(), dout->get(), result.size() * 2);
  double sum = 0;
  for (uint16_t x : result)
    sum += attn::bf16ToFloat(x);
  std::printf("ran on %s: output checksum %.6f\n", device->name.c_str(), sum);
  return 0;
}
