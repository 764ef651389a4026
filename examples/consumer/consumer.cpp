// The C++ API from an installed attn: builds causal attention with the
// graph builder, compiles it (no GPU needed) and prints what was built.
#include <attn/attn.h>

#include <cstdio>

int main() {
  attn::Context::Options options;
  options.arch = "sm_80";
  options.diskCache = false;
  auto context = attn::Context::create(options);
  if (!context) {
    std::fprintf(stderr, "%s\n", context.status().toString().c_str());
    return 1;
  }
  attn::Graph graph;
  auto q = graph.input("q", attn::DataType::BF16, {1, 2, 128, 64});
  auto k = graph.input("k", attn::DataType::BF16, {1, 2, 128, 64});
  auto v = graph.input("v", attn::DataType::BF16, {1, 2, 128, 64});
  attn::Graph::SdpaOptions sdpa;
  sdpa.causal = true;
  auto out = graph.sdpa(q, k, v, sdpa);
  if (!out) {
    std::fprintf(stderr, "%s\n", out.status().toString().c_str());
    return 1;
  }
  graph.output(*out);
  auto compiled = attn::compileGraph(**context, graph);
  if (!compiled) {
    std::fprintf(stderr, "%s\n", compiled.status().toString().c_str());
    return 1;
  }
  const attn::Kernel &kernel = compiled->kernels.front()->primary();
  std::printf("C++: attn %s compiled %s (variant %s) for %s\n", attn::version(),
              kernel.spec().name.c_str(), kernel.spec().variant.c_str(),
              kernel.arch().c_str());
  return 0;
}
