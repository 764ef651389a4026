//===- ParallelFor.h - Independent work items on a few threads --*- C++ -*-===//
//
// One place for the library's fan-out: the float64 reference's (batch,
// head) slices and the kernels of a module that NVRTC compiles.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_SUPPORT_PARALLELFOR_H
#define ATTN_SUPPORT_PARALLELFOR_H

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace attn {

/// The threads parallelFor runs on when not told: one per core.
inline unsigned defaultThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Runs work(i) for every i in [0, count) on up to `threads` threads (0:
/// defaultThreads()), the calling one among them; each thread takes the
/// next item as it frees up. work must be safe to call concurrently for
/// different items.
template <class Work>
void parallelFor(size_t count, Work &&work, unsigned threads = 0) {
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i = next++; i < count; i = next++)
      work(i);
  };
  const size_t used =
      std::min<size_t>(count, threads ? threads : defaultThreads());
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < used; ++t)
    helpers.emplace_back(run);
  run();
  for (std::thread &helper : helpers)
    helper.join();
}

} // namespace attn

#endif // ATTN_SUPPORT_PARALLELFOR_H
