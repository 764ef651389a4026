//===- Nvrtc.cpp - Compiling kernels with NVRTC ---------------------------===//

#include "attn/Runtime/Nvrtc.h"
#include "attn/Runtime/Templates.h"
#include "SharedLibrary.h"

#include <nvrtc.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>

namespace attn {

struct Nvrtc::Api {
  decltype(&nvrtcVersion) version;
  decltype(&nvrtcGetErrorString) getErrorString;
  decltype(&nvrtcCreateProgram) createProgram;
  decltype(&nvrtcDestroyProgram) destroyProgram;
  decltype(&nvrtcCompileProgram) compileProgram;
  decltype(&nvrtcGetProgramLogSize) getProgramLogSize;
  decltype(&nvrtcGetProgramLog) getProgramLog;
  decltype(&nvrtcGetCUBINSize) getCubinSize;
  decltype(&nvrtcGetCUBIN) getCubin;
  decltype(&nvrtcGetPTXSize) getPtxSize;
  decltype(&nvrtcGetPTX) getPtx;
};

namespace {

/// NVRTC's sonames first, then $CUDA_HOME's copy.
std::vector<std::string> nvrtcCandidates() {
  std::vector<std::string> candidates = {"libnvrtc.so.13", "libnvrtc.so.12",
                                         "libnvrtc.so"};
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *home = std::getenv(var))
      candidates.push_back(std::string(home) + "/lib64/libnvrtc.so");
  candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so");
  return candidates;
}

/// Destroys the program on every path out of compile().
struct ProgramGuard {
  const Nvrtc::Api *api = nullptr;
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program)
      api->destroyProgram(&program);
  }
};

} // namespace

Result<Nvrtc *> Nvrtc::get() {
  static std::once_flag once;
  static std::unique_ptr<Nvrtc> instance;
  static Status failure;
  std::call_once(once, [] {
    std::string tried;
    SharedLibrary library = SharedLibrary::open(nvrtcCandidates(), tried);
    if (!library) {
      failure = Status(StatusCode::NoDevice,
                       "NVRTC not found (" + tried +
                           "); install the CUDA Toolkit or set CUDA_HOME");
      return;
    }
    auto api = std::make_unique<Api>();
    library.bind(api->version, "nvrtcVersion");
    library.bind(api->getErrorString, "nvrtcGetErrorString");
    library.bind(api->createProgram, "nvrtcCreateProgram");
    library.bind(api->destroyProgram, "nvrtcDestroyProgram");
    library.bind(api->compileProgram, "nvrtcCompileProgram");
    library.bind(api->getProgramLogSize, "nvrtcGetProgramLogSize");
    library.bind(api->getProgramLog, "nvrtcGetProgramLog");
    library.bind(api->getCubinSize, "nvrtcGetCUBINSize");
    library.bind(api->getCubin, "nvrtcGetCUBIN");
    library.bind(api->getPtxSize, "nvrtcGetPTXSize");
    library.bind(api->getPtx, "nvrtcGetPTX");
    if (!library.missing().empty()) {
      failure = Status(StatusCode::NoDevice,
                       "the NVRTC library lacks " + library.missing() +
                           "; it is older than CUDA 11.1");
      return;
    }
    int major = 0, minor = 0;
    api->version(&major, &minor);
    instance.reset(new Nvrtc(api.release(),
                             std::to_string(major) + "." + std::to_string(minor)));
  });
  if (!instance)
    return failure;
  return instance.get();
}

std::vector<std::string> Nvrtc::compileOptions(const std::string &arch) {
  return {"--gpu-architecture=" + arch, "-std=c++17", "--ptxas-options=-v",
          "-default-device", "-lineinfo"};
}

Result<NvrtcOutput> Nvrtc::compile(const std::string &source,
                                   const std::string &fileName,
                                   const std::string &kernelName,
                                   const std::string &arch) const {
  const std::vector<EmbeddedTemplate> &templates = embeddedTemplates();
  std::vector<const char *> headerSources, headerNames;
  for (const EmbeddedTemplate &t : templates) {
    headerSources.push_back(t.source);
    headerNames.push_back(t.name);
  }
  ProgramGuard guard{api_};
  nvrtcResult rc = api_->createProgram(
      &guard.program, source.c_str(), fileName.c_str(),
      static_cast<int>(headerSources.size()), headerSources.data(),
      headerNames.data());
  if (rc != NVRTC_SUCCESS)
    return Status(StatusCode::CompileError,
                  std::string("nvrtcCreateProgram failed: ") +
                      api_->getErrorString(rc));

  NvrtcOutput out;
  out.options = compileOptions(arch);
  std::vector<const char *> options;
  for (const std::string &option : out.options)
    options.push_back(option.c_str());
  rc = api_->compileProgram(guard.program, static_cast<int>(options.size()),
                            options.data());
  size_t logSize = 0;
  api_->getProgramLogSize(guard.program, &logSize);
  out.log.resize(logSize);
  if (logSize)
    api_->getProgramLog(guard.program, out.log.data());
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n'))
    out.log.pop_back();
  if (rc != NVRTC_SUCCESS) {
    std::ostringstream msg;
    msg << "NVRTC failed to compile " << fileName << " for " << arch << " ("
        << api_->getErrorString(rc) << ")\noptions:";
    for (const std::string &option : out.options)
      msg << " " << option;
    msg << "\nlog:\n" << out.log;
    return Status(StatusCode::CompileError, msg.str());
  }

  size_t size = 0;
  api_->getCubinSize(guard.program, &size);
  out.cubin.resize(size);
  api_->getCubin(guard.program, out.cubin.data());
  // PTX only exists when compiling for a virtual arch; a cubin build has none.
  if (api_->getPtxSize(guard.program, &size) == NVRTC_SUCCESS && size > 1) {
    out.ptx.resize(size);
    api_->getPtx(guard.program, out.ptx.data());
  }
  out.ptxas = parsePtxasReport(out.log, kernelName);
  return out;
}

PtxasReport parsePtxasReport(const std::string &log,
                             const std::string &kernelName) {
  PtxasReport report;
  // ptxas prints, per entry: "Compiling entry function 'NAME'", then
  // "Function properties for NAME" with stack and spill bytes, then "Used N
  // registers, ... N bytes smem, ...".
  // The whole name: "NAME" is a prefix of "NAME_combine".
  const std::string heading = "Function properties for " + kernelName;
  size_t start = log.find(heading);
  auto continuesName = [&](size_t at) {
    size_t end = at + heading.size();
    return end < log.size() && (std::isalnum(static_cast<unsigned char>(log[end])) ||
                                log[end] == '_');
  };
  while (start != std::string::npos && continuesName(start))
    start = log.find(heading, start + 1);
  if (start == std::string::npos)
    return report;
  std::string tail = log.substr(start);
  size_t next = tail.find("Compiling entry function", 1);
  if (next != std::string::npos)
    tail = tail.substr(0, next);
  std::smatch m;
  if (std::regex_search(tail, m,
                        std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)"))) {
    report.stackFrameBytes = std::stoi(m[1]);
    report.spillStoreBytes = std::stoi(m[2]);
    report.spillLoadBytes = std::stoi(m[3]);
  }
  if (std::regex_search(tail, m, std::regex(R"(Used (\d+) registers)"))) {
    report.registers = std::stoi(m[1]);
    report.parsed = true;
  }
  if (std::regex_search(tail, m, std::regex(R"((\d+) bytes smem)")))
    report.sharedBytes = std::stoi(m[1]);
  if (std::regex_search(tail, m, std::regex(R"((\d+) bytes cmem\[0\])")))
    report.constantBytes = std::stoi(m[1]);
  return report;
}

} // namespace attn
