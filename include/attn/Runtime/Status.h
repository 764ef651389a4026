//===- Status.h - Errors as values ------------------------------*- C++ -*-===//

#ifndef ATTN_RUNTIME_STATUS_H
#define ATTN_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace attn {

enum class StatusCode {
  Ok,
  InvalidArgument, ///< bad input: shape, dtype, pointer, option
  Unsupported,     ///< valid input that no kernel handles
  NoDevice,        ///< no driver or no GPU
  CompileError,    ///< NVRTC failed (the message holds the log)
  DriverError,     ///< a CUDA driver call failed
  IoError,         ///< cache or file access failed
  ParseError,      ///< MLIR input did not parse or verify
};

const char *statusCodeName(StatusCode code);

/// Success, or a code and a message that names the cause.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }

  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// "CompileError: ..." or "ok".
  std::string toString() const;

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

/// A value or the Status that explains why there is none.
template <class T> class [[nodiscard]] Result {
public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status status) : status_(std::move(status)) {
    assert(!status_.isOk() && "a Result without a value needs an error");
  }

  bool isOk() const { return value_.has_value(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return status_; }
  T &value() {
    assert(isOk());
    return *value_;
  }
  const T &value() const {
    assert(isOk());
    return *value_;
  }
  T &operator*() { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace attn

#endif // ATTN_RUNTIME_STATUS_H
