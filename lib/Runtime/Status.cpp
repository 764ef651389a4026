//===- Status.cpp - Errors as values --------------------------------------===//

#include "attn/Runtime/Status.h"
#include "attn/Runtime/KernelSpec.h"

namespace attn {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok: return "Ok";
  case StatusCode::InvalidArgument: return "InvalidArgument";
  case StatusCode::Unsupported: return "Unsupported";
  case StatusCode::NoDevice: return "NoDevice";
  case StatusCode::CompileError: return "CompileError";
  case StatusCode::DriverError: return "DriverError";
  case StatusCode::IoError: return "IoError";
  case StatusCode::ParseError: return "ParseError";
  }
  return "Unknown";
}

std::string Status::toString() const {
  if (isOk())
    return "ok";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

const char *elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F16: return "f16";
  case ElementType::BF16: return "bf16";
  case ElementType::F32: return "f32";
  }
  return "?";
}

int elementTypeBytes(ElementType type) {
  return type == ElementType::F32 ? 4 : 2;
}

} // namespace attn
