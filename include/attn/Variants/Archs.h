//===- Archs.h - The GPU architectures attn is tuned for --------*- C++ -*-===//
//
// One list of the architectures the cost model knows, with the reference
// part whose limits it plans for: the passes look them up, and the tools'
// help and the errors name them from here.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_VARIANTS_ARCHS_H
#define ATTN_VARIANTS_ARCHS_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

struct TunedArch {
  std::string_view name;     ///< "sm_80", as NVRTC's --gpu-architecture
  int computeCapability;     ///< 80, 86, 89, 90
  int numSMs;                ///< multiprocessors of the reference part
  int64_t maxSharedPerBlock; ///< bytes, opt-in limit
  int64_t maxSharedPerSM;    ///< bytes
  std::string_view parts;    ///< the GPUs of the arch, for messages
};

/// The tuned architectures, oldest first. A newer GPU (sm_100, sm_120, ...)
/// runs the sm80 variant with the limits of newerArchLimits().
const std::vector<TunedArch> &tunedArchs();
/// The shared memory and SM count assumed for an arch newer than every
/// tuned one: the smallest sm_8x part's, which every later part has.
TunedArch newerArchLimits(std::string_view name, int computeCapability);

/// "sm_80, sm_86, sm_89 or sm_90a".
std::string tunedArchNames();
/// "A100: sm_80; A10, A40, RTX 30xx: sm_86; ...".
std::string tunedArchParts();

} // namespace attn

#endif // ATTN_VARIANTS_ARCHS_H
