//===- Kernel.h - Compiled kernels and their launch arguments ---*- C++ -*-===//
//
// A Kernel is one compiled module (build facts, loading per CUDA context,
// occupancy, registers); each kind of kernel is a type of its own with its
// own launch arguments: FlashKernel (fused attention, FlashArgs; launched
// through its KernelGroup, which picks among an op's planned kernels),
// BackwardKernel (BackwardArgs), GraphKernel (one graph op of the unfused
// path, GraphArgs) and CacheAppendKernel (CacheAppendArgs). Context::build
// makes the type the spec's kind names; Kernel::as gives it back.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_RUNTIME_KERNEL_H
#define ATTN_RUNTIME_KERNEL_H

#include "attn/Runtime/Cache.h"
#include "attn/Runtime/Driver.h"
#include "attn/Runtime/KernelSpec.h"
#include "attn/Runtime/Status.h"
#include "attn/params.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace attn {

/// A device pointer and the element strides of its four dimensions, in BHSD
/// order (batch, heads, sequence, head dim). A BSHD tensor is passed as is,
/// with its strides permuted, without a copy.
struct TensorArg {
  const void *data = nullptr;
  int64_t strides[4] = {0, 0, 0, 0};

  /// Strides of a contiguous tensor of `shape`.
  static TensorArg contiguous(const void *data, const int64_t shape[4]);
};

/// The operands of one forward attention launch.
struct FlashArgs {
  int batch = 0, seqQ = 0, seqKV = 0;
  TensorArg q, k, v, o;     ///< k in [B, H, D, S] order when transposeK
  float *lse = nullptr;     ///< [batch, headsQ, seqQ] f32, if the kernel writes it
  const int *lengths = nullptr; ///< [batch] i32, with key_padding
  TensorArg keep;           ///< u8 (bool), with keep; strides 0 to broadcast
  TensorArg bias;           ///< with bias; strides 0 to broadcast
  /// Optional device counters (2 x u64, zeroed by the caller): the kernel
  /// adds the key tiles it computed and how many of them it masked
  /// element-wise (tiles outside the masks' reach are skipped, full ones
  /// are not masked).
  unsigned long long *tileStats = nullptr;
  /// Device memory of at least KernelGroup::workspaceBytes(args) bytes (the
  /// split-KV partials), used until the launch completes; 0 when that is 0.
  /// The caller owns it, so that a CUDA graph's memory pool can.
  DevicePtr workspace = 0;
  size_t workspaceBytes = 0;
  /// Split-KV: blocks that share one query block's key tiles, merged by a
  /// second kernel. 0: Kernel::chooseSplits decides (it splits when the
  /// launch would not fill the GPU, as in decode); 1: never; N: N.
  int splits = 0;
  /// The tensors the score_mod reads, in the order of the op's captures:
  /// contiguous, of the shapes and element types of the IR
  /// (KernelSpec::scoreModCaptures of them).
  const void *scoreModCaptures[kMaxScoreModCaptures] = {};
  /// Ragged batches (a kernel with KernelSpec::varlen): `batch` sequences
  /// packed in q and o ([seqQ tokens, Hq, D], passed as BHSD with
  /// strides[0] ignored) and in k and v ([seqKV tokens, Hkv, D]); sequence
  /// b's queries are rows cuSeqlensQ[b] .. cuSeqlensQ[b + 1], its keys
  /// likewise (batch + 1 i32 offsets each, in device memory, read only by
  /// the kernel, which clamps them to the tensors). lse is [Hq, seqQ].
  /// maxSeqlenQ / maxSeqlenK: the longest sequence's lengths if known (0:
  /// not known), which only guide the split-KV count.
  const int *cuSeqlensQ = nullptr, *cuSeqlensK = nullptr;
  int maxSeqlenQ = 0, maxSeqlenK = 0;
  /// Attention sinks (a kernel with KernelSpec::sinks): one f32 logit per
  /// query head, [headsQ] in device memory.
  const float *sinks = nullptr;
  /// Paged K/V caches (a kernel with KernelSpec::paged): k and v are
  /// caches of numPages pages of pageSize keys, [numPages, Hkv, pageSize,
  /// D] as BHSD (a page as the batch: flash_attn's (numPages, pageSize,
  /// Hkv, D) memory passed with its strides permuted). Sequence b's key n is
  /// row n % pageSize of page blockTable[b * blockTableStride + n /
  /// pageSize] (i32 in device memory, each entry clamped to the cache by
  /// the kernel); seqKV (a multiple of pageSize: pages per sequence x
  /// pageSize) keys at most, `lengths` (cache_seqlens) of them valid.
  const int *blockTable = nullptr;
  int64_t blockTableStride = 0;
  int numPages = 0, pageSize = 0;
  /// Batch-invariant results: each sequence's keys are split at fixed
  /// positions (every Kernel::kInvariantSplitKeys keys, rounded up to the
  /// kernel's key tile) and the splits merged in order by the combine
  /// kernel, always, so that a sequence's output is bitwise the same
  /// whatever else is in the batch and however many splits the launch has
  /// (splits, if set, only adds empty ones; the split count is at least
  /// what the longest possible sequence, seqKV keys, needs).
  bool batchInvariant = false;
};

/// The operands of one backward launch (a KernelKind::FlashBackward kernel,
/// from attn.flash_bwd): the forward's operands, output and logsumexp, the
/// output's gradient, and where to write the gradients. Shapes follow the
/// forward's (FlashArgs); gradK and gradV have the K/V head count.
struct BackwardArgs {
  int batch = 0, seqQ = 0, seqKV = 0;
  TensorArg q, k, v, o, gradOutput;
  const float *lse = nullptr;   ///< [batch, headsQ, seqQ] f32, as the forward wrote it
  TensorArg gradQ, gradK, gradV; ///< written, in the element type
  const int *lengths = nullptr; ///< [batch] i32, with key_padding
  TensorArg keep;               ///< u8 (bool), with keep; strides 0 to broadcast
  TensorArg bias;               ///< with bias; strides 0 to broadcast
  /// With a bias gradient: written, in the bias's element type, with the
  /// bias's extents (1 where its stride is 0: those dimensions are summed).
  TensorArg gradBias;
  /// With the sinks' gradient (KernelSpec::sinks): the forward's sinks and
  /// their gradient, [headsQ] f32 each; contiguous.
  const float *sinks = nullptr;
  float *gradSinks = nullptr;
  /// Ragged batches (a kernel with KernelSpec::varlen), as
  /// FlashArgs::cuSeqlensQ / cuSeqlensK: `batch` sequences packed in q, o,
  /// gradOutput and gradQ ([seqQ tokens, Hq, D] as BHSD, strides[0]
  /// ignored) and in k, v, gradK and gradV ([seqKV tokens, Hkv, D]); lse is
  /// [Hq, seqQ]. Rows of no sequence are not written.
  const int *cuSeqlensQ = nullptr, *cuSeqlensK = nullptr;
  /// No atomics: dQ from a second, Q-stationary kernel; bitwise identical
  /// results run to run (a bias that broadcasts cannot get its gradient).
  bool deterministic = false;
  /// Device memory of at least Kernel::workspaceBytes(args) bytes,
  /// 256-byte aligned (the f32 sums and D), used until the launch's work on
  /// the stream is done. The caller owns it, as FlashArgs::workspace.
  DevicePtr workspace = 0;
  size_t workspaceBytes = 0;
  /// The tensors the score_mod reads, as FlashArgs::scoreModCaptures.
  const void *scoreModCaptures[kMaxScoreModCaptures] = {};
};

/// The operands of one cache append (KernelKind::CacheAppend): a decode
/// step's newTokens keys and values of each sequence, written into its
/// cache rows cacheSeqlens[b] .. + newTokens (rows past `capacity` are not
/// written), rotated by the rotary angles of those positions with
/// rotaryDim. Tensors as (batch or page, row, head, dim) strides, the last
/// contiguous.
struct CacheAppendArgs {
  int batch = 0, newTokens = 0, headsQ = 0, headsKV = 0;
  TensorArg kNew, vNew;     ///< [batch, newTokens, headsKV, dim]
  /// Dense: [batch, capacity, headsKV, dim]; paged: [numPages, pageSize,
  /// headsKV, dim] through blockTable.
  TensorArg kCache, vCache;
  int capacity = 0;         ///< rows per sequence (paged: pages x pageSize)
  const int *cacheSeqlens = nullptr; ///< [batch] i32, keys before the append
  int *seqlensOut = nullptr; ///< [batch] i32 written: cacheSeqlens + newTokens
  const int *blockTable = nullptr; ///< paged: [batch, pages per sequence]
  int64_t blockTableStride = 0;
  int pageSize = 0, numPages = 0;
  /// Rotary: cos and sin [rotaryPositions, rotaryDim / 2] f32 (at least
  /// capacity rows); q [batch, seqQ, headsQ, dim] read, qOut written
  /// rotated, at cacheSeqlens + t if qAtEachPosition, else cacheSeqlens.
  const float *cos = nullptr, *sin = nullptr;
  int rotaryPositions = 0;
  int seqQ = 0;
  TensorArg q, qOut;
  bool qAtEachPosition = false;
};

/// The operands of one graph-op kernel (the unfused path): one per input of
/// the attn.kernel, in order, and the result (which may share the first
/// input's memory, for an in_place kernel). Strides are those of the rank-4
/// view: a rank-r tensor's strides in the last r entries.
struct GraphArgs {
  std::vector<TensorArg> inputs;
  TensorArg output;
};


class Context;

/// A compiled module: what it is, what it costs, and its loading into each
/// CUDA context. The kinds below launch it.
class Kernel {
public:
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  virtual ~Kernel();

  const KernelSpec &spec() const { return spec_; }
  KernelKind kind() const { return spec_.kind; }
  const std::string &arch() const { return arch_; }
  const std::string &cacheKey() const { return cacheKey_; }
  const PtxasReport &ptxas() const { return entry_->ptxas; }
  const std::string &compileLog() const { return entry_->log; }
  CacheOutcome cacheOutcome() const { return outcome_; }
  /// Wall time of build(), including a cache lookup.
  double buildMs() const { return buildMs_; }

  /// This kernel as its kind's type (FlashKernel, BackwardKernel,
  /// GraphKernel, CacheAppendKernel), or null if it is of another kind.
  template <class KindT> KindT *as() {
    return kind() == KindT::kKind ? static_cast<KindT *>(this) : nullptr;
  }
  template <class KindT> const KindT *as() const {
    return kind() == KindT::kKind ? static_cast<const KindT *>(this)
                                  : nullptr;
  }

  struct Grid {
    unsigned x = 0, y = 0, z = 0;
  };
  int blockThreads() const { return spec_.threads; }
  /// Resident blocks per SM (needs a GPU).
  Result<int> occupancy(Device device = {});
  /// Registers per thread as the loaded module reports them (needs a GPU);
  /// ptxas' report in the compile log gives the same without one.
  Result<int> loadedRegisters(Device device = {});
  /// Registers per thread: ptxas' report, or, where the compile log has
  /// none (NVRTC does not always print it), the loaded module's count.
  Result<int> registers();

  /// Loads the module into `device`'s context, once per context. A launch
  /// loads it too, but not while its stream captures a CUDA graph: load (or
  /// launch) before capturing (KernelGroup::load loads every kernel of an
  /// op).
  Status load(Device device = {});

  /// A kernel built when first needed (Context::deferBuild).
  using DeferredBuild = std::function<Result<std::shared_ptr<Kernel>>()>;

  /// The error of a launch with `args` ("FlashArgs", ...) on a kernel of
  /// another kind: which arguments it takes.
  Status wrongKind(const char *args) const;

protected:
  friend class Context;
  Kernel() = default;
  /// The module in one CUDA context.
  struct Loaded {
    void *context = nullptr;
    int ordinal = 0;
    const DeviceInfo *device = nullptr;
    void *module = nullptr;
    void *function = nullptr;
    void *combine = nullptr; ///< the split-KV merge kernel (fused attention)
    /// The backward's other kernels: D and zeroing, deterministic dQ, the
    /// conversion of the f32 sums, and the sinks' gradient (with sinks).
    void *backwardPre = nullptr, *backwardDq = nullptr,
         *backwardConvert = nullptr, *backwardSinks = nullptr;
    int residentPerSm = 0;
  };
  /// The kernel loaded in `context`, the current one (of a ContextScope);
  /// loads it there first, unless `checkCapture` finds `stream` capturing
  /// a CUDA graph.
  Result<Loaded *> loadedIn(void *context, Stream stream, bool checkCapture);
  /// `device`'s context made current (until destroyed) with the kernel
  /// loaded there (loadedIn): what every call on the device starts with.
  struct InContext {
    Driver::Entered entered;
    Loaded *loaded;
    Driver &driver() const { return *entered.driver; }
  };
  Result<InContext> enterLoaded(Device device, Stream stream,
                                bool checkCapture);
  /// The entry points of this kind beside the main function, and their
  /// limits: looked up in `loaded` (fails the load where one is missing).
  virtual Status loadEntries(Driver &driver, Loaded &loaded);
  KernelSpec spec_;
  std::string arch_, cacheKey_;
  std::shared_ptr<const CacheEntry> entry_;
  CacheOutcome outcome_ = CacheOutcome::Miss;
  double buildMs_ = 0;

private:
  std::mutex loadMutex_;
  std::vector<std::unique_ptr<Loaded>> loaded_;
  std::atomic<Loaded *> lastLoaded_{nullptr};
};

/// Fused attention (KernelKind::Flash, from attn.flash): the attention
/// function and its split-KV combine. Launched through the op's
/// KernelGroup, which picks among the planned kernels and enqueues the
/// chosen one's attention and combine.
class FlashKernel final : public Kernel {
public:
  static constexpr KernelKind kKind = KernelKind::Flash;

  /// The launch grid without split-KV: one block per work tile of `batch`
  /// and `seqQ` (schedule()).
  Grid grid(int batch, int seqQ) const;
  /// The work tiles of a launch and their order, as the kernel decodes
  /// them (kernels-templates/attn/tile_scheduler.h).
  TileSchedule schedule(int batch, int seqQ, int splits) const;
  /// How the launch's rows map to queries (see packsQueryHeads).
  RowPacking rowPacking(int seqQ) const;
  /// True if a launch with `seqQ` packs the query heads that share a K/V
  /// head into the rows of one block, so that K and V are read once per
  /// K/V head: a kernel compiled with packed rows (KernelSpec::packGroup:
  /// a few static tokens x the heads, under any mask), or one-token decode
  /// with GQA/MQA and no mask that depends on the query's position or head
  /// (rows are then the heads, by strides).
  bool packsQueryHeads(int seqQ) const;

  /// Split-KV heuristic: a launch of `blocks` blocks of `tilesPerBlock` key
  /// tiles that leaves some of the `multiprocessors` x `residentPerSm` block
  /// slots empty splits each block's tiles, into the fewest splits whose
  /// waves fill the slots within kSplitEfficiency of the best count (at
  /// least 2 tiles per split, at most kMaxSplits; bench/splits.py measures
  /// the alternatives).
  static int chooseSplits(long long blocks, int tilesPerBlock,
                          int multiprocessors, int residentPerSm);
  static constexpr int kMaxSplits = 32;
  /// Batch-invariant launches split every sequence's keys at multiples of
  /// this (FlashArgs::batchInvariant), into at most kMaxInvariantSplits.
  static constexpr int kInvariantSplitKeys = 2048;
  static constexpr int kMaxInvariantSplits = 1024;
  static constexpr double kSplitEfficiency = 0.85;
  /// The splits a launch of this kernel with `args` in `device` uses
  /// (needs a GPU when args.splits is 0; KernelGroup::splitsFor picks the
  /// kernel first).
  Result<int> splitsFor(const FlashArgs &args, Device device = {});
  /// Bytes of workspace a launch of this kernel with `args` on `stream` in
  /// `device` needs (FlashArgs::workspace): 0 unless it splits the keys or
  /// a persistent kernel schedules its tiles dynamically (a 4-byte counter
  /// the launch zeroes in stream order).
  Result<size_t> workspaceBytes(const FlashArgs &args, Stream stream = nullptr,
                                Device device = {});

  /// True for a persistent kernel, which reads q, k and v by TMA
  /// (KernelGroup runs its launches that TMA cannot read elsewhere).
  bool persistent() const;

  /// Checks sizes, alignment and strides against the spec (no GPU needed).
  /// A launch goes through the op's KernelGroup, which picks the kernel,
  /// checks that every pointer is memory of the launch's device, and
  /// enqueues on a stream of `device`'s context.
  Status validate(const FlashArgs &args) const;

private:
  friend class KernelGroup;
  Status loadEntries(Driver &driver, Loaded &loaded) override;
  Result<int> splitsIn(Loaded &loaded, const FlashArgs &args) const;
  /// The caller's workspace of a launch: the partial outputs of `splits`
  /// splits, then, where a persistent kernel with a causal mask or a window
  /// has more work tiles than blocks, the counter of its dynamic tile
  /// scheduler (without room for it, tiles are assigned statically).
  struct ForwardWorkspace {
    size_t splitBytes = 0;
    bool counter = false;
    size_t counterOffset = 0;
    size_t bytes = 0;
  };
  ForwardWorkspace forwardWorkspace(const Loaded &loaded, const FlashArgs &args,
                                    int splits) const;
  /// Blocks of a persistent launch of `tiles` work tiles: one per resident
  /// slot, at most one per tile.
  static unsigned persistentBlocks(const Loaded &loaded, long long tiles);
  Status checkPointers(const FlashArgs &args, int ordinal) const;
  /// The operands of a launch as the kernel reads them: pointers, strides
  /// and sizes (no splits or workspace yet), and, in place, the view of a
  /// launch that packs query heads into rows.
  FlashParams operandParams(const FlashArgs &args) const;
  void packQueryHeads(FlashParams &params, const FlashArgs &args) const;
  /// Why TMA cannot read q, k or v of `params` ("" if it can), by the
  /// rules cuTensorMapEncodeTiled documents.
  std::string tmaRejection(const FlashParams &params) const;
  /// The TMA descriptors of q, k and v for a persistent kernel's launch.
  Status encodeTmaMaps(Driver &driver, const FlashParams &params,
                       TmaMaps &maps) const;
  /// The merge of a launch that splits the keys: its parameters and
  /// blocks (0: the launch did not split).
  struct CombineLaunch {
    FlashParams params;
    unsigned blocks = 0;
  };
  /// Enqueues this kernel's attention function for `args` (validated) on
  /// `stream` in `loaded`'s context, the current one, reading q, k and v
  /// through `maps` if it is persistent; fills `combine` where the launch
  /// splits the keys (KernelGroup::launch enqueues it next).
  Status enqueueAttention(Driver &driver, Loaded &loaded, const FlashArgs &args,
                          Stream stream, const TmaMaps *maps,
                          CombineLaunch &combine);
  Status enqueueCombine(Driver &driver, const Loaded &loaded,
                        CombineLaunch &combine, Stream stream) const;
};

/// The backward (KernelKind::FlashBackward, from attn.flash_bwd): the
/// workspace a launch with `args` needs (from its sizes and mode alone; no
/// GPU needed), the checks, and the launch: up to four kernels enqueued on
/// `stream` in `device`'s context, with the same rules as a forward launch
/// (pointers of that device, the caller's workspace, no allocation,
/// synchronization or load during capture).
class BackwardKernel final : public Kernel {
public:
  static constexpr KernelKind kKind = KernelKind::FlashBackward;
  Result<size_t> workspaceBytes(const BackwardArgs &args) const;
  Status validate(const BackwardArgs &args) const;
  Status launch(const BackwardArgs &args, Stream stream = nullptr,
                Device device = {});

private:
  Status loadEntries(Driver &driver, Loaded &loaded) override;
  Status checkPointers(const BackwardArgs &args, int ordinal) const;
};

/// One graph op of the unfused path (KernelKind::GraphOp, from
/// attn.kernel): a grid fixed by its shapes.
class GraphKernel final : public Kernel {
public:
  static constexpr KernelKind kKind = KernelKind::GraphOp;
  Grid grid() const;
  Status validate(const GraphArgs &args) const;
  Status launch(const GraphArgs &args, Stream stream = nullptr,
                Device device = {});
};

/// The cache append (KernelKind::CacheAppend, Context::buildCacheAppend):
/// one kernel, no workspace.
class CacheAppendKernel final : public Kernel {
public:
  static constexpr KernelKind kKind = KernelKind::CacheAppend;
  Status validate(const CacheAppendArgs &args) const;
  Status launch(const CacheAppendArgs &args, Stream stream = nullptr,
                Device device = {});
};

/// `kernel` as its kind's type, sharing its ownership; null if it is of
/// another kind.
template <class KindT>
std::shared_ptr<KindT> kernelAs(const std::shared_ptr<Kernel> &kernel) {
  KindT *typed = kernel ? kernel->as<KindT>() : nullptr;
  return typed ? std::shared_ptr<KindT>(kernel, typed) : nullptr;
}

} // namespace attn

#endif // ATTN_RUNTIME_KERNEL_H
