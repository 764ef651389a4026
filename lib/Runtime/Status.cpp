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
  case ElementType::I32: return "i32";
  case ElementType::I64: return "i64";
  case ElementType::Bool: return "i1";
  }
  return "?";
}

int elementTypeBytes(ElementType type) {
  switch (type) {
  case ElementType::F16:
  case ElementType::BF16: return 2;
  case ElementType::F32:
  case ElementType::I32: return 4;
  case ElementType::I64: return 8;
  case ElementType::Bool: return 1;
  }
  return 0;
}

} // namespace attn
