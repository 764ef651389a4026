//===- Tensors.cpp - attn-run's tensors on the host and the GPU -----------===//

#include "attn/Run/Tensors.h"
#include "attn/Runtime/Half.h"

#include <cstring>

namespace attn::run {

std::optional<DataType> dataTypeOf(mlir::Type type) {
  if (type.isF16())
    return DataType::F16;
  if (type.isBF16())
    return DataType::BF16;
  if (type.isF32())
    return DataType::F32;
  if (type.isSignlessInteger(32))
    return DataType::I32;
  if (type.isSignlessInteger(64))
    return DataType::I64;
  if (type.isSignlessInteger(1))
    return DataType::Bool;
  return std::nullopt;
}

int bytesOf(DataType type) {
  switch (type) {
  case DataType::F16:
  case DataType::BF16: return 2;
  case DataType::F32:
  case DataType::I32: return 4;
  case DataType::I64: return 8;
  case DataType::Bool: return 1;
  }
  return 0;
}

double representable(DataType type, double x) {
  switch (type) {
  case DataType::F16: return halfToFloat(floatToHalf(float(x)));
  case DataType::BF16: return bf16ToFloat(floatToBf16(float(x)));
  case DataType::F32: return float(x);
  case DataType::I32: return double(int32_t(x));
  case DataType::I64: return double(int64_t(x));
  case DataType::Bool: return x != 0 ? 1 : 0;
  }
  return x;
}

void encode(DataType type, double x, unsigned char *dst) {
  switch (type) {
  case DataType::F16: {
    uint16_t h = floatToHalf(float(x));
    std::memcpy(dst, &h, 2);
    break;
  }
  case DataType::BF16: {
    uint16_t h = floatToBf16(float(x));
    std::memcpy(dst, &h, 2);
    break;
  }
  case DataType::F32: {
    float f = float(x);
    std::memcpy(dst, &f, 4);
    break;
  }
  case DataType::I32: {
    int32_t i = int32_t(x);
    std::memcpy(dst, &i, 4);
    break;
  }
  case DataType::I64: {
    int64_t i = int64_t(x);
    std::memcpy(dst, &i, 8);
    break;
  }
  case DataType::Bool: *dst = x != 0; break;
  }
}

double decode(DataType type, const unsigned char *src) {
  switch (type) {
  case DataType::F16: {
    uint16_t h;
    std::memcpy(&h, src, 2);
    return halfToFloat(h);
  }
  case DataType::BF16: {
    uint16_t h;
    std::memcpy(&h, src, 2);
    return bf16ToFloat(h);
  }
  case DataType::F32: {
    float f;
    std::memcpy(&f, src, 4);
    return f;
  }
  case DataType::I32: {
    int32_t i;
    std::memcpy(&i, src, 4);
    return i;
  }
  case DataType::I64: {
    int64_t i;
    std::memcpy(&i, src, 8);
    return double(i);
  }
  case DataType::Bool: return *src ? 1 : 0;
  }
  return 0;
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::vector<int64_t> bshdStrides(const std::vector<int64_t> &s) {
  return {s[1] * s[2] * s[3], s[3], s[1] * s[3], 1};
}

namespace {

/// Calls f(logicalIndex, physicalOffset) for every element.
template <class F>
void forEachElement(const std::vector<int64_t> &shape,
                    const std::vector<int64_t> &strides, F f) {
  int64_t n = numElements(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      offset += idx[d] * strides[d];
    f(i, offset);
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

} // namespace

Result<DeviceTensor> upload(const HostTensor &t, DataType type,
                            std::vector<int64_t> strides) {
  int64_t span = 1;
  for (size_t d = 0; d < t.shape.size(); ++d)
    span += (t.shape[d] - 1) * strides[d];
  std::vector<unsigned char> bytes(span * bytesOf(type), 0);
  forEachElement(t.shape, strides, [&](int64_t i, int64_t offset) {
    encode(type, t.data[i], bytes.data() + offset * bytesOf(type));
  });
  auto buffer = DeviceBuffer::allocate(bytes.size());
  if (!buffer)
    return buffer.status();
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return driver.status();
  if (Status s = (*driver)->copyToDevice(buffer->get(), bytes.data(), bytes.size());
      !s)
    return s;
  return DeviceTensor{std::make_shared<DeviceBuffer>(std::move(*buffer)),
                      t.shape, std::move(strides), type};
}

Result<DeviceTensor> allocatePoisoned(std::vector<int64_t> shape,
                                      DataType type,
                                      std::vector<int64_t> strides) {
  int64_t bytes = numElements(shape) * bytesOf(type);
  auto buffer = DeviceBuffer::allocate(bytes);
  if (!buffer)
    return buffer.status();
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return driver.status();
  if (Status s = (*driver)->fill(buffer->get(), 0xff, bytes); !s)
    return s;
  return DeviceTensor{std::make_shared<DeviceBuffer>(std::move(*buffer)),
                      std::move(shape), std::move(strides), type};
}

Result<HostTensor> download(const DeviceTensor &t) {
  std::vector<unsigned char> bytes(t.buffer->size());
  Result<Driver *> driver = Driver::get();
  if (!driver)
    return driver.status();
  if (Status s = (*driver)->copyToHost(bytes.data(), t.buffer->get(), bytes.size());
      !s)
    return s;
  HostTensor h(t.shape);
  forEachElement(t.shape, t.strides, [&](int64_t i, int64_t offset) {
    h.data[i] = decode(t.type, bytes.data() + offset * bytesOf(t.type));
  });
  return h;
}

double tensorBytes(const DeviceTensor &t) {
  return double(numElements(t.shape)) * bytesOf(t.type);
}

TensorArg tensorArg(const DeviceTensor &t) {
  TensorArg a;
  a.data = reinterpret_cast<const void *>(t.buffer->get());
  for (size_t d = 0; d < 4 && d < t.strides.size(); ++d)
    a.strides[d] = t.strides[d];
  return a;
}

TensorArg broadcastArg(const DeviceTensor &t) {
  TensorArg a = tensorArg(t);
  for (int d = 0; d < 4; ++d)
    if (t.shape[d] == 1)
      a.strides[d] = 0;
  return a;
}

TensorArg rank4Arg(const DeviceTensor &t) {
  TensorArg a;
  a.data = reinterpret_cast<const void *>(t.buffer->get());
  size_t pad = 4 - t.strides.size();
  for (size_t d = 0; d < t.strides.size(); ++d)
    a.strides[pad + d] = t.strides[d];
  return a;
}

} // namespace attn::run
