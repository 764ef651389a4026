//===- Npy.h - Reading NumPy .npy files -------------------------*- C++ -*-===//
//
// A strict reader of the .npy format (versions 1 to 3, little-endian, C
// order) for the inputs of attn-run. Everything in a file is checked before
// it is used: only regular files of bounded size are opened (never a FIFO or
// a device), the header must be the dictionary NumPy writes, the shape's
// byte count must not overflow and must equal the data that follows. Any
// other file is an error that names the file and what is wrong with it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_NPY_NPY_H
#define ATTN_NPY_NPY_H

#include "attn/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn::npy {

/// The element types attn reads: '<f2', '<f4', '<f8', '<i4', '<i8', '|b1'
/// and '|u1' (read as bool).
enum class Dtype { F16, F32, F64, I32, I64, Bool, U8 };

/// An array, its values widened to double.
struct Array {
  std::vector<int64_t> shape;
  Dtype dtype = Dtype::F32;
  std::vector<double> values;
};

struct ReadOptions {
  /// Files larger than this are refused before they are read.
  uint64_t maxFileBytes = uint64_t(16) << 30;
};

/// Parses the bytes of a .npy file; `name` prefixes every error message.
Result<Array> parse(const std::string &bytes, const std::string &name,
                    const ReadOptions &options = {});

/// Reads and parses the regular file at `path`.
Result<Array> read(const std::string &path, const ReadOptions &options = {});

} // namespace attn::npy

#endif // ATTN_NPY_NPY_H
