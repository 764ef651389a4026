//===- Nvrtc.h - Compiling kernels with NVRTC -------------------*- C++ -*-===//

#ifndef ATTN_RUNTIME_NVRTC_H
#define ATTN_RUNTIME_NVRTC_H

#include "attn/Runtime/Status.h"

#include <string>
#include <vector>

namespace attn {

/// What ptxas reported for one kernel (-v).
struct PtxasReport {
  bool parsed = false;
  int registers = 0;
  int sharedBytes = 0; ///< static shared memory
  int stackFrameBytes = 0;
  int spillStoreBytes = 0;
  int spillLoadBytes = 0;
  int constantBytes = 0;
};

/// Parses ptxas' "-v" lines of `log` for the entry `kernelName`.
PtxasReport parsePtxasReport(const std::string &log,
                             const std::string &kernelName);

struct NvrtcOutput {
  std::string cubin;
  std::string ptx;
  std::string log;
  PtxasReport ptxas;
  std::vector<std::string> options;
};

/// NVRTC, loaded with dlopen at first use. Thread-safe.
class Nvrtc {
public:
  /// The loaded library, or why it could not be loaded.
  static Result<Nvrtc *> get();

  /// "13.0".
  const std::string &version() const { return version_; }

  /// Options passed for `arch` ("sm_90a"): the target, C++17, ptxas -v, and
  /// the embedded templates on the include path.
  static std::vector<std::string> compileOptions(const std::string &arch);

  /// Compiles one translation unit to a cubin for `arch`. On failure the
  /// status holds the whole log and the options.
  Result<NvrtcOutput> compile(const std::string &source,
                              const std::string &fileName,
                              const std::string &kernelName,
                              const std::string &arch) const;

  struct Api;

private:
  Nvrtc(const Api *api, std::string version)
      : api_(api), version_(std::move(version)) {}
  const Api *api_;
  std::string version_;
};

} // namespace attn

#endif // ATTN_RUNTIME_NVRTC_H
