//===- TensorChecks.h - Launch argument checks ------------------*- C++ -*-===//
//
// Private to AttnRuntime: the checks Kernel::validate and Kernel::launch
// apply to each operand, shared by the forward (Context.cpp) and the
// backward (Backward.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_LIB_RUNTIME_TENSORCHECKS_H
#define ATTN_LIB_RUNTIME_TENSORCHECKS_H

#include "attn/Runtime/Context.h"

namespace attn::detail {

Status invalid(const std::string &message);

/// A 16-bit tensor read with 16-byte copies: 16-byte aligned base, unit
/// stride in the contiguous dimension, other strides multiples of 8.
Status checkTensor(const char *name, const TensorArg &t, int contiguousDim);

/// `pointer` (named `name`; null passes) is memory of device `ordinal`, as
/// far as the driver can tell; the driver must be loaded.
Status checkDevicePointer(const char *name, const void *pointer, int ordinal);

/// A window bound as the kernels take it: one wider than every query and
/// key changes no mask, and clamped to seqQ + seqKV it keeps the kernels'
/// diagonal +- bound sums in range. -1 (unbounded) stays.
int clampWindowBound(int bound, int seqQ, int seqKV);

/// Exactly the first spec.scoreModCaptures of `captures` are set.
Status checkCaptures(const KernelSpec &spec,
                     const void *const (&captures)[kMaxScoreModCaptures]);

} // namespace attn::detail

#endif // ATTN_LIB_RUNTIME_TENSORCHECKS_H
