//===- SharedLibrary.h - dlopen'ed libraries (runtime-internal) -*- C++ -*-===//
//
// NVRTC and the CUDA driver are opened at first use, so that attn starts on
// machines without them and reports their absence as a status.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_LIB_RUNTIME_SHAREDLIBRARY_H
#define ATTN_LIB_RUNTIME_SHAREDLIBRARY_H

#include <dlfcn.h>
#include <string>
#include <type_traits>
#include <vector>

namespace attn {

/// A library opened with dlopen, and its entry points bound by name.
class SharedLibrary {
public:
  /// Opens the first of `candidates` that loads; `tried` lists the others
  /// with dlerror's reason.
  static SharedLibrary open(const std::vector<std::string> &candidates,
                            std::string &tried) {
    SharedLibrary library;
    for (const std::string &name : candidates) {
      library.handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (library.handle_)
        break;
      tried += (tried.empty() ? "" : "; ") + std::string(dlerror());
    }
    return library;
  }

  explicit operator bool() const { return handle_ != nullptr; }

  /// Binds `fn` to the symbol `name`; remembers a missing one.
  template <class Fn> void bind(Fn &fn, const char *name) {
    fn = reinterpret_cast<Fn>(dlsym(handle_, name));
    if (!fn)
      missing_ += (missing_.empty() ? "" : ", ") + std::string(name);
  }

  /// The symbols bind() did not find ("" if none).
  const std::string &missing() const { return missing_; }

private:
  void *handle_ = nullptr;
  std::string missing_;
};

} // namespace attn

#endif // ATTN_LIB_RUNTIME_SHAREDLIBRARY_H
