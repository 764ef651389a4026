//===- Tensors.h - attn-run's tensors on the host and the GPU ---*- C++ -*-===//
//
// Host tensors are the reference's (values as double); a device tensor is a
// buffer with the shape, element strides and element type of a function
// value. Values cross over rounded to their element type.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUN_TENSORS_H
#define ATTN_RUN_TENSORS_H

#include "attn/Reference/Reference.h"
#include "attn/attn.h"

#include "mlir/IR/Types.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attn::run {

using mlir::attn::reference::HostTensor;

/// The element type of a tensor attn-run can hold (f16, bf16, f32, i32,
/// i64, i1), or nothing.
std::optional<DataType> dataTypeOf(mlir::Type type);
int bytesOf(DataType type);
/// `x` rounded to what `type` can hold.
double representable(DataType type, double x);
void encode(DataType type, double x, unsigned char *dst);
double decode(DataType type, const unsigned char *src);

int64_t numElements(const std::vector<int64_t> &shape);
/// "2x16x128x64".
std::string shapeString(const std::vector<int64_t> &shape);
std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape);
/// BSHD memory order for a logical BHSD shape.
std::vector<int64_t> bshdStrides(const std::vector<int64_t> &shape);

struct DeviceTensor {
  std::shared_ptr<DeviceBuffer> buffer;
  std::vector<int64_t> shape; ///< logical (BHSD for rank 4)
  std::vector<int64_t> strides;
  DataType type = DataType::F32;
};

/// Copies `t` to a new device buffer laid out by `strides`.
Result<DeviceTensor> upload(const HostTensor &t, DataType type,
                            std::vector<int64_t> strides);
/// A new buffer whose every byte is 0xff (NaN in f16, bf16 and f32): an
/// element no kernel writes shows up as NaN.
Result<DeviceTensor> allocatePoisoned(std::vector<int64_t> shape,
                                      DataType type,
                                      std::vector<int64_t> strides);
Result<HostTensor> download(const DeviceTensor &t);
double tensorBytes(const DeviceTensor &t);

/// The launch argument of a rank-4 tensor.
TensorArg tensorArg(const DeviceTensor &t);
/// A mask operand broadcast to the score shape: stride 0 where size 1.
TensorArg broadcastArg(const DeviceTensor &t);
/// A tensor as a graph-op kernel sees it: the strides of its rank-4 view
/// (a rank-r tensor's in the last r entries).
TensorArg rank4Arg(const DeviceTensor &t);

} // namespace attn::run

#endif // ATTN_RUN_TENSORS_H
