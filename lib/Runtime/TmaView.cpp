//===- TmaView.cpp - Operands as the TMA kernels read them ----------------===//

#include "TmaView.h"

namespace attn::detail {

namespace {
/// Bytes of an element that TMA moves (the TMA kernels read f16 and bf16).
constexpr i64 kTmaElementBytes = 2;
} // namespace

TmaView tmaRowsView(const char *name, const void *data, int headDim, int rows,
                    int heads, int batch, const i64 strides[3], int boxRows) {
  return TmaView{name,
                 data,
                 4,
                 {uint64_t(headDim), uint64_t(rows), uint64_t(heads),
                  uint64_t(batch)},
                 {strides[2], strides[1], strides[0]},
                 {64, uint32_t(boxRows), 1, 1},
                 {"row", "head", "batch"}};
}

std::string tmaRejection(const TmaView &t) {
  if (reinterpret_cast<uintptr_t>(t.data) % 16)
    return std::string(t.name) + "'s address is not 16-byte aligned, "
                                 "which TMA needs";
  for (int d = 0; d + 1 < t.rank; ++d) {
    if (t.dims[d + 1] == 1) // never stepped along (encodeTmaView)
      continue;
    const i64 stride = t.strides[d];
    constexpr i64 kLimit = (i64(1) << 40) / kTmaElementBytes;
    if (stride >= 0 && stride < kLimit && stride * kTmaElementBytes % 16 == 0)
      continue;
    const std::string size =
        stride > -kLimit && stride < kLimit
            ? std::to_string(stride * kTmaElementBytes) + " bytes"
            : std::to_string(stride) + " elements";
    return std::string(t.name) + "'s " + t.strideNames[d] + " stride is " +
           size + ", where TMA needs a multiple of 16 bytes from 0 to below 2^40";
  }
  return "";
}

Status encodeTmaView(Driver &driver, bool bf16, const TmaView &t,
                     TensorMap *target) {
  // A stride of an extent-1 dimension is never used, but must be a valid
  // one.
  uint64_t bytes[TmaView::kMaxRank - 1];
  uint64_t dense = t.dims[0] * kTmaElementBytes;
  for (int d = 0; d + 1 < t.rank; ++d) {
    bytes[d] = t.dims[d + 1] == 1 ? (dense + 15) / 16 * 16
                                  : uint64_t(t.strides[d]) * kTmaElementBytes;
    dense = bytes[d] * t.dims[d + 1];
  }
  Status s = driver.encodeTensorMap(target, bf16, t.data, t.rank, t.dims,
                                    bytes, t.box);
  if (!s)
    return Status(s.code(), std::string("the driver cannot encode a TMA "
                                        "descriptor of '") +
                                t.name + "': " + s.message());
  return s;
}

} // namespace attn::detail
