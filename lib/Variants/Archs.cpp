//===- Archs.cpp - The GPU architectures attn is tuned for ----------------===//

#include "attn/Variants/Archs.h"

namespace attn {

const std::vector<TunedArch> &tunedArchs() {
  // Reference parts: A100, A10/RTX 3090 class, L4/RTX 4090 class, H100/H200.
  static const std::vector<TunedArch> archs = {
      {"sm_80", 80, 108, 166912, 167936, "A100"},
      {"sm_86", 86, 84, 101376, 102400, "A10, A40, RTX 30xx"},
      {"sm_89", 89, 128, 101376, 102400, "L4, L40, RTX 40xx"},
      {"sm_90a", 90, 132, 232448, 233472, "H100, H200"},
  };
  return archs;
}

TunedArch newerArchLimits(std::string_view name, int computeCapability) {
  return {name, computeCapability, 128, 101376, 102400, ""};
}

std::string tunedArchNames() {
  const std::vector<TunedArch> &archs = tunedArchs();
  std::string names;
  for (size_t i = 0; i < archs.size(); ++i) {
    if (i > 0)
      names += i + 1 == archs.size() ? " or " : ", ";
    names += archs[i].name;
  }
  return names;
}

std::string tunedArchParts() {
  std::string parts;
  for (const TunedArch &arch : tunedArchs()) {
    if (!parts.empty())
      parts += "; ";
    parts += std::string(arch.parts) + ": " + std::string(arch.name);
  }
  return parts;
}

} // namespace attn
