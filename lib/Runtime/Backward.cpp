//===- Backward.cpp - Launching the backward of fused attention -----------===//
//
// A KernelKind::FlashBackward kernel is four entries of one module (see
// kernels-templates/attn/flash_bwd.cuh): _pre, the K/V-stationary main
// kernel, _dq (the deterministic mode, and every launch of a variant whose
// table row says its atomics are slower) and _convert; with the sinks'
// gradient a fifth, _sinks. The launch enqueues them
// on one stream in the caller's CUDA context, as a forward launch does:
// pointers checked against the launch's device, scratch memory from the
// caller's workspace, no allocation, synchronization or module load during
// stream capture.
//
//===----------------------------------------------------------------------===//

#include "TensorChecks.h"
#include "TmaView.h"
#include "attn/Runtime/Context.h"
#include "attn/Variants/KernelVariants.h"

#include "attn/params_bwd.h"

#include <algorithm>
#include <array>

namespace attn {

using detail::checkCaptures;
using detail::checkDevicePointer;
using detail::checkTensor;
using detail::clampWindowBound;
using detail::invalid;
using detail::TmaView;

namespace {

constexpr size_t kWorkspaceAlignment = 256;

size_t alignUp(size_t bytes) {
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment *
         kWorkspaceAlignment;
}

/// Where a launch keeps its f32 scratch in the workspace, in bytes.
struct WorkspaceLayout {
  size_t delta = 0, dqAccum = 0, dbiasAccum = 0, total = 0;
  /// The f32 dQ sum's floats (zeroed before the kernels, whole tiles).
  size_t dqAccumFloats = 0;
  bool atomicDq = false;
  /// dbias: its extents (1 where the bias broadcasts), and whether some of
  /// them sum over a dimension of the scores (then it is accumulated).
  int dbiasShape[4] = {1, 1, 1, 1};
  bool accumulateBias = false;
};

/// Batch entries of the per-row buffers (lse, D, the dQ sum): a ragged
/// batch's rows are packed in one.
int rowBatch(const KernelSpec &spec, const BackwardArgs &a) {
  return spec.varlen ? 1 : a.batch;
}

WorkspaceLayout layoutOf(const KernelSpec &spec, const BackwardArgs &a) {
  WorkspaceLayout w;
  const size_t rows = static_cast<size_t>(rowBatch(spec, a)) * spec.headsQ * a.seqQ;
  w.delta = 0;
  w.total = alignUp(rows * sizeof(float));
  const BackwardKernelVariant *variant =
      findBackwardKernelVariant(spec.variant);
  w.atomicDq = !a.deterministic && variant && variant->atomicDq;
  if (w.atomicDq) {
    // Room for whole query tiles per head: the sm90 kernel adds a block's
    // dQ of a tile in one bulk reduction (TiledDqAccum, flash_bwd.cuh).
    const size_t tileRows = static_cast<size_t>(std::max<int64_t>(spec.blockM, 1));
    const size_t paddedRows = static_cast<size_t>(rowBatch(spec, a)) * spec.headsQ *
                              ((a.seqQ + tileRows - 1) / tileRows) * tileRows;
    w.dqAccum = w.total;
    w.dqAccumFloats = paddedRows * spec.headDimQK;
    w.total += alignUp(w.dqAccumFloats * sizeof(float));
  }
  if (spec.biasGrad) {
    const int full[4] = {a.batch, spec.headsQ, a.seqQ, a.seqKV};
    size_t elements = 1;
    for (int d = 0; d < 4; ++d) {
      w.dbiasShape[d] = a.bias.strides[d] == 0 ? 1 : full[d];
      w.accumulateBias |= w.dbiasShape[d] == 1 && full[d] > 1;
      elements *= w.dbiasShape[d];
    }
    if (w.accumulateBias) {
      w.dbiasAccum = w.total;
      w.total += alignUp(elements * sizeof(float));
    }
  }
  return w;
}

/// The blocks of the row kernels: _pre's warps take
/// backwardPreRowsPerWarp rows each; _convert's a row each, and at least
/// one per kBackwardConvertFloatsPerWarp of a tiled dQ sum (whose padded
/// tiles may hold more than the rows).
long long rowBlocksFor(long long rows, int rowsPerWarp = 1) {
  const long long perBlock = (kBackwardRowThreads / 32) * rowsPerWarp;
  return (rows + perBlock - 1) / perBlock;
}
long long preBlocks(const KernelSpec &spec, long long rows) {
  return rowBlocksFor(rows, backwardPreRowsPerWarp(spec.headDimV));
}
long long convertBlocks(const WorkspaceLayout &w, long long rows) {
  constexpr long long kFloatsPerBlock =
      kBackwardConvertFloatsPerWarp * (kBackwardRowThreads / 32);
  return std::max(rowBlocksFor(rows),
                  (static_cast<long long>(w.dqAccumFloats) + kFloatsPerBlock - 1) /
                      kFloatsPerBlock);
}

/// A gradient the kernels write two elements at a time: 4-byte aligned,
/// contiguous in its last dimension, even strides.
Status checkGradient(const char *name, const TensorArg &t) {
  if (!t.data)
    return invalid(std::string("'") + name + "' is a null pointer");
  if (reinterpret_cast<uintptr_t>(t.data) % 4)
    return invalid(std::string("'") + name + "' must be 4-byte aligned");
  if (t.strides[3] != 1)
    return invalid(std::string("'") + name +
                   "' must be contiguous in dimension 3 (stride " +
                   std::to_string(t.strides[3]) + ")");
  for (int d = 0; d < 3; ++d)
    if (t.strides[d] % 2)
      return invalid(std::string("'") + name + "' stride of dimension " +
                     std::to_string(d) + " is " + std::to_string(t.strides[d]) +
                     "; it must be even");
  return Status::ok();
}

/// The grids of the two main kernels: (key blocks, K/V heads, batch) and
/// (query blocks, query heads, batch); a ragged batch's x enumerates every
/// sequence's blocks (at most varlenMBlocks; the kernels find their
/// sequence from the offsets).
std::array<long long, 3> keyGrid(const KernelSpec &spec, const BackwardArgs &a) {
  if (spec.varlen)
    return {varlenMBlocks(a.batch, a.seqKV, int(spec.blockN)), spec.headsKV, 1};
  return {(a.seqKV + spec.blockN - 1) / spec.blockN, spec.headsKV, a.batch};
}
std::array<long long, 3> queryGrid(const KernelSpec &spec,
                                   const BackwardArgs &a) {
  if (spec.varlen)
    return {varlenMBlocks(a.batch, a.seqQ, int(spec.blockM)), spec.headsQ, 1};
  return {(a.seqQ + spec.blockM - 1) / spec.blockM, spec.headsQ, a.batch};
}

/// q, k, v and gradOutput as the tensor maps of a TMA variant read them:
/// boxes of a query tile's rows (q, gradOutput) or a key block's (k, v).
std::array<TmaView, 4> backwardTmaViews(const KernelSpec &spec,
                                        const BackwardArgs &a) {
  auto view = [&](const char *name, const TensorArg &t, int dim, int rows,
                  int heads, int box) {
    const i64 strides[3] = {t.strides[0], t.strides[1], t.strides[2]};
    return detail::tmaRowsView(name, t.data, dim, rows, heads, a.batch,
                               strides, box);
  };
  return {view("q", a.q, spec.headDimQK, a.seqQ, spec.headsQ, spec.blockM),
          view("k", a.k, spec.headDimQK, a.seqKV, spec.headsKV, spec.blockN),
          view("v", a.v, spec.headDimV, a.seqKV, spec.headsKV, spec.blockN),
          view("gradOutput", a.gradOutput, spec.headDimV, a.seqQ, spec.headsQ,
               spec.blockM)};
}

bool readsByTma(const KernelSpec &spec) {
  const BackwardKernelVariant *variant = findBackwardKernelVariant(spec.variant);
  return variant && variant->tma;
}

} // namespace

Status BackwardKernel::loadEntries(Driver &driver, Loaded &loaded) {
  for (auto [suffix, slot] :
       {std::pair<const char *, void **>{"_pre", &loaded.backwardPre},
        {"_dq", &loaded.backwardDq},
        {"_convert", &loaded.backwardConvert}}) {
    Result<void *> aux = driver.getFunction(loaded.module, spec_.name + suffix);
    if (!aux)
      return aux.status();
    *slot = *aux;
  }
  if (spec_.sinks) {
    Result<void *> sinks = driver.getFunction(loaded.module, spec_.name + "_sinks");
    if (!sinks)
      return sinks.status();
    loaded.backwardSinks = *sinks;
  }
  if (spec_.backwardDqSharedBytes > loaded.device->maxSharedPerBlockOptin)
    return Status(StatusCode::Unsupported,
                       "kernel " + spec_.name + "_dq needs " +
                           std::to_string(spec_.backwardDqSharedBytes) +
                           " bytes of shared memory; " + loaded.device->name +
                           " allows " +
                           std::to_string(loaded.device->maxSharedPerBlockOptin));
  if (Status s = driver.setDynamicShared(loaded.backwardDq,
                                          spec_.backwardDqSharedBytes);
      !s)
    return s;
  return Status::ok();
}

Result<size_t> BackwardKernel::workspaceBytes(const BackwardArgs &a) const {
  if (a.batch <= 0 || a.seqQ <= 0 || a.seqKV <= 0)
    return invalid("batch, seqQ and seqKV must be positive, got " +
                   std::to_string(a.batch) + ", " + std::to_string(a.seqQ) +
                   ", " + std::to_string(a.seqKV));
  return layoutOf(spec_, a).total;
}

Status BackwardKernel::validate(const BackwardArgs &a) const {
  Result<size_t> needed = workspaceBytes(a);
  if (!needed)
    return needed.status();
  // A spec is a value anyone can fill in: what the launch divides by and
  // what the kernels take as int must be in range.
  if (spec_.headsQ < 1 || spec_.headsKV < 1 || spec_.headsQ % spec_.headsKV ||
      spec_.blockM < 16 || spec_.blockN < 16 || spec_.threads < 1 ||
      spec_.threads > 1024 || spec_.backwardDqThreads < 1 ||
      spec_.backwardDqThreads > 1024)
    return invalid("kernel " + spec_.name + " has an invalid spec: heads " +
                   std::to_string(spec_.headsQ) + "/" +
                   std::to_string(spec_.headsKV) + ", tile " +
                   std::to_string(spec_.blockM) + "x" +
                   std::to_string(spec_.blockN) + ", " +
                   std::to_string(spec_.threads) + " and " +
                   std::to_string(spec_.backwardDqThreads) + " threads");
  // CUDA allows 2^31 - 1 blocks along x and 65535 along y (heads) and z
  // (batch); the row kernels' grids grow with the rows [batch, headsQ,
  // seqQ] (the conversion's with the padded dQ sum).
  const long long rows =
      static_cast<long long>(rowBatch(spec_, a)) * spec_.headsQ * a.seqQ;
  for (auto [what, grid] :
       {std::pair<const char *, std::array<long long, 3>>{
            "key", keyGrid(spec_, a)},
        {"query", queryGrid(spec_, a)},
        {"preprocessing", {preBlocks(spec_, rows), 1, 1}},
        {"conversion", {convertBlocks(layoutOf(spec_, a), rows), 1, 1}}})
    if (grid[0] > 2147483647LL || grid[1] > 65535 || grid[2] > 65535)
      return invalid("the backward's " + std::string(what) +
                     " kernel needs a grid of " + std::to_string(grid[0]) +
                     " x " + std::to_string(grid[1]) + " (heads) x " +
                     std::to_string(grid[2]) +
                     " (batch) blocks; CUDA allows 2147483647 x 65535 x 65535");
  auto mismatch = [&](const char *what, int64_t fixed, int64_t given) {
    return invalid(std::string("kernel ") + spec_.name +
                   " was specialized for " + what + " " + std::to_string(fixed) +
                   " but the launch has " + std::to_string(given));
  };
  if (spec_.batch >= 0 && spec_.batch != a.batch)
    return mismatch("batch", spec_.batch, a.batch);
  if (spec_.seqQ >= 0 && spec_.seqQ != a.seqQ)
    return mismatch("seqQ", spec_.seqQ, a.seqQ);
  if (spec_.seqKV >= 0 && spec_.seqKV != a.seqKV)
    return mismatch("seqKV", spec_.seqKV, a.seqKV);
  for (auto [name, t] : {std::pair<const char *, const TensorArg *>{"q", &a.q},
                         {"k", &a.k},
                         {"v", &a.v},
                         {"o", &a.o},
                         {"gradOutput", &a.gradOutput}})
    if (Status s = checkTensor(name, *t, 3); !s)
      return s;
  for (auto [name, t] :
       {std::pair<const char *, const TensorArg *>{"gradQ", &a.gradQ},
        {"gradK", &a.gradK},
        {"gradV", &a.gradV}})
    if (Status s = checkGradient(name, *t); !s)
      return s;
  if (!a.lse)
    return invalid("'lse' is a null pointer; the backward reads the "
                   "forward's logsumexp");
  if (spec_.varlen && (!a.cuSeqlensQ || !a.cuSeqlensK))
    return invalid("the backward of a ragged batch needs 'cuSeqlensQ' and "
                   "'cuSeqlensK' (batch + 1 offsets each)");
  if (!spec_.varlen && (a.cuSeqlensQ || a.cuSeqlensK))
    return invalid("'cuSeqlensQ' or 'cuSeqlensK' is given but kernel " +
                   spec_.name +
                   " is the backward of a dense batch: compile the backward "
                   "of a ragged attention (cu_seqlens) for packed sequences");
  if (spec_.keyPadding && !a.lengths)
    return invalid("the mask has key_padding but 'lengths' is null");
  if (spec_.keep && !a.keep.data)
    return invalid("the mask has keep but 'keep' is null");
  if (spec_.bias && !a.bias.data)
    return invalid("the mask has bias but 'bias' is null");
  if (spec_.biasGrad) {
    if (!a.gradBias.data)
      return invalid("the kernel computes the bias gradient but 'gradBias' "
                     "is null");
    if (a.deterministic && layoutOf(spec_, a).accumulateBias)
      return Status(StatusCode::Unsupported,
                    "the deterministic mode cannot sum the gradient of a bias "
                    "that broadcasts (a stride of 0); give a full bias or "
                    "leave the mode off");
  }
  if (spec_.sinks && (!a.sinks || !a.gradSinks))
    return invalid(std::string("the kernel computes the sinks' gradient but '") +
                   (a.sinks ? "gradSinks" : "sinks") + "' is null");
  if (!spec_.sinks && a.gradSinks)
    return invalid("'gradSinks' is given but the kernel computes no sinks' "
                   "gradient: compile the backward of an attention with sinks");
  if (Status s = checkCaptures(spec_, a.scoreModCaptures); !s)
    return s;
  if (readsByTma(spec_))
    for (const TmaView &view : backwardTmaViews(spec_, a))
      if (std::string why = detail::tmaRejection(view); !why.empty())
        return Status(StatusCode::Unsupported,
                      "backward variant " + spec_.variant +
                          " reads its operands by TMA, but " + why +
                          "; compile the backward with another variant "
                          "(--backward-variant=sm90)");
  if (*needed && (!a.workspace || a.workspaceBytes < *needed))
    return invalid("the backward needs a workspace of " +
                   std::to_string(*needed) + " bytes, got " +
                   std::to_string(a.workspace ? a.workspaceBytes : 0) +
                   " (BackwardArgs::workspace, sized by "
                   "KernelGroup::workspaceBytes)");
  if (a.workspace % kWorkspaceAlignment)
    return invalid("the workspace must be " +
                   std::to_string(kWorkspaceAlignment) + "-byte aligned");
  return Status::ok();
}

Status BackwardKernel::checkPointers(const BackwardArgs &a, int ordinal) const {
  const std::pair<const char *, const void *> pointers[] = {
      {"q", a.q.data},
      {"k", a.k.data},
      {"v", a.v.data},
      {"o", a.o.data},
      {"gradOutput", a.gradOutput.data},
      {"lse", a.lse},
      {"gradQ", a.gradQ.data},
      {"gradK", a.gradK.data},
      {"gradV", a.gradV.data},
      {"lengths", a.lengths},
      {"keep", a.keep.data},
      {"bias", a.bias.data},
      {"gradBias", a.gradBias.data},
      {"sinks", a.sinks},
      {"gradSinks", a.gradSinks},
      {"cuSeqlensQ", a.cuSeqlensQ},
      {"cuSeqlensK", a.cuSeqlensK},
      {"workspace", reinterpret_cast<const void *>(a.workspace)}};
  for (const auto &[name, pointer] : pointers)
    if (Status s = checkDevicePointer(name, pointer, ordinal); !s)
      return s;
  for (int i = 0; i < kMaxScoreModCaptures; ++i) {
    const std::string name = "score_mod capture " + std::to_string(i);
    if (Status s = checkDevicePointer(name.c_str(), a.scoreModCaptures[i],
                                      ordinal);
        !s)
      return s;
  }
  return Status::ok();
}

Status BackwardKernel::launch(const BackwardArgs &a, Stream stream,
                              Device device) {
  if (Status s = validate(a); !s)
    return s;
  // The context stays current for the launches and is popped after them.
  Result<InContext> in = enterLoaded(device, stream, true);
  if (!in)
    return in.status();
  Driver *driver = &in->driver();
  const Loaded &loaded = *in->loaded;
  if (Status s = checkPointers(a, loaded.ordinal); !s)
    return s;

  const WorkspaceLayout w = layoutOf(spec_, a);
  char *workspace = reinterpret_cast<char *>(a.workspace);
  FlashBwdParams p = {};
  p.q = a.q.data;
  p.k = a.k.data;
  p.v = a.v.data;
  p.o = a.o.data;
  p.dout = a.gradOutput.data;
  p.lse = a.lse;
  p.dq = const_cast<void *>(a.gradQ.data);
  p.dk = const_cast<void *>(a.gradK.data);
  p.dv = const_cast<void *>(a.gradV.data);
  p.lengths = a.lengths;
  p.keep = static_cast<const unsigned char *>(a.keep.data);
  p.bias = a.bias.data;
  p.dbias = const_cast<void *>(a.gradBias.data);
  p.sinks = a.sinks;
  p.dsinks = a.gradSinks;
  p.delta = reinterpret_cast<float *>(workspace + w.delta);
  p.dq_accum = w.atomicDq ? reinterpret_cast<float *>(workspace + w.dqAccum) : nullptr;
  p.dbias_accum = w.accumulateBias
                      ? reinterpret_cast<float *>(workspace + w.dbiasAccum)
                      : nullptr;
  for (int i = 0; i < kMaxScoreModCaptures; ++i)
    p.score_mod_captures[i] = a.scoreModCaptures[i];
  const TensorArg *strided[] = {&a.q, &a.k, &a.v, &a.o, &a.gradOutput,
                                &a.gradQ, &a.gradK, &a.gradV};
  i64 *strides[] = {p.q_strides, p.k_strides, p.v_strides, p.o_strides,
                    p.dout_strides, p.dq_strides, p.dk_strides, p.dv_strides};
  // Packed rows have no batch stride: sequences start at their offsets.
  for (int t = 0; t < 8; ++t)
    for (int d = 0; d < 3; ++d)
      strides[t][d] = spec_.varlen && d == 0 ? 0 : strided[t]->strides[d];
  p.cu_seqlens_q = a.cuSeqlensQ;
  p.cu_seqlens_k = a.cuSeqlensK;
  i64 accumStride = 1;
  for (int d = 3; d >= 0; --d) {
    p.keep_strides[d] = a.keep.strides[d];
    p.bias_strides[d] = a.bias.strides[d];
    p.dbias_shape[d] = w.dbiasShape[d];
    // A summed dimension adds into one element: stride 0.
    p.dbias_strides[d] = w.dbiasShape[d] == 1 ? 0 : a.gradBias.strides[d];
    p.dbias_accum_strides[d] = w.dbiasShape[d] == 1 ? 0 : accumStride;
    accumStride *= w.dbiasShape[d];
  }
  p.batch = a.batch;
  p.heads_q = spec_.headsQ;
  p.heads_kv = spec_.headsKV;
  p.seq_q = a.seqQ;
  p.seq_kv = a.seqKV;
  p.window_left = clampWindowBound(spec_.windowLeft, a.seqQ, a.seqKV);
  p.window_right = clampWindowBound(spec_.windowRight, a.seqQ, a.seqKV);
  p.scale = spec_.scale;

  // A TMA variant's main kernel takes the tensor maps too (validate checked
  // that TMA can read the operands).
  BackwardTmaMaps maps = {};
  if (readsByTma(spec_)) {
    const bool bf16 = spec_.element == ElementType::BF16;
    const std::array<TmaView, 4> views = backwardTmaViews(spec_, a);
    TensorMap *targets[4] = {&maps.q, &maps.k, &maps.v, &maps.dout};
    for (int i = 0; i < 4; ++i)
      if (Status s = detail::encodeTmaView(*driver, bf16, views[i], targets[i]);
          !s)
        return s;
  }
  void *args[] = {&p};
  void *mainArgs[] = {&p, &maps};
  const long long rows =
      static_cast<long long>(rowBatch(spec_, a)) * spec_.headsQ * a.seqQ;

  // The dQ sum starts at zero: one memset (the pre kernel's per-row stores
  // into the tiled sum were scattered).
  if (w.atomicDq)
    if (Status s = driver->fillWordsAsync(
            reinterpret_cast<DevicePtr>(p.dq_accum), 0, w.dqAccumFloats, stream);
        !s)
      return s;
  if (Status s = driver->launch(loaded.backwardPre,
                                static_cast<unsigned>(preBlocks(spec_, rows)), 1, 1,
                                kBackwardRowThreads, 0, stream, args);
      !s)
    return s;
  // dsinks reads only D and the logsumexp.
  if (spec_.sinks)
    if (Status s = driver->launch(loaded.backwardSinks, unsigned(spec_.headsQ),
                                  1, 1, kBackwardRowThreads, 0, stream, args);
        !s)
      return s;
  const std::array<long long, 3> keys = keyGrid(spec_, a);
  if (Status s = driver->launch(loaded.function, unsigned(keys[0]),
                                unsigned(keys[1]), unsigned(keys[2]),
                                spec_.threads, spec_.sharedBytes, stream,
                                readsByTma(spec_) ? mainArgs : args);
      !s)
    return s;
  if (!w.atomicDq) {
    const std::array<long long, 3> queries = queryGrid(spec_, a);
    if (Status s = driver->launch(
            loaded.backwardDq, unsigned(queries[0]), unsigned(queries[1]),
            unsigned(queries[2]), spec_.backwardDqThreads,
            spec_.backwardDqSharedBytes, stream, args);
        !s)
      return s;
  }
  if (w.atomicDq || w.accumulateBias) {
    return driver->launch(loaded.backwardConvert,
                          static_cast<unsigned>(convertBlocks(w, rows)), 1, 1,
                          kBackwardRowThreads, 0, stream, args);
  }
  return Status::ok();
}

} // namespace attn
