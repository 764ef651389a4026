//===- attn.h - The attn C++ API --------------------------------*- C++ -*-===//
//
// Compile attention from MLIR (text or file) or from a graph built in C++,
// and launch the resulting kernels:
//
//   auto ctx = attn::Context::create();                // no GPU needed
//   attn::Graph g;
//   auto q = g.input("q", attn::DataType::BF16, {2, 16, 1024, 128});
//   ...
//   auto out = g.sdpa(q, k, v, {.causal = true});
//   g.output(out->output);
//   auto compiled = attn::compileGraph(**ctx, g);      // fuse, configure, NVRTC
//   compiled->kernels[0]->launch(args, stream);        // needs a GPU
//
// Every step returns a Status or a Result whose message names the cause.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_ATTN_H
#define ATTN_ATTN_H

#include "attn/API/FlashOpText.h"
#include "attn/Runtime/Context.h"
#include "attn/Runtime/KernelGroup.h"
#include "attn/Version.h"

#include <optional>
#include <string>
#include <vector>

namespace attn {

/// The library's version, "0.3.0".
inline const char *version() { return ATTN_VERSION; }

struct CompileOptions {
  /// Run attn-canonicalize-graph, attn-fuse and attn-select-config first
  /// (ops that already carry a config keep it).
  bool runPipeline = true;
  /// Overrides for attn-select-config: the kernel variant ("sm90ws",
  /// "sm90", "sm80"; empty: the cost model's choice) and the tiles (0: the
  /// model's choice).
  std::string variant;
  int blockM = 0, blockN = 0, numWarps = 0, stages = 0;
  /// Instead of fusing, run --attn-lower-unfused: every graph op becomes its
  /// own kernel (the shape of PyTorch's math backend).
  bool unfused = false;
  /// After fusing, run --attn-derive-backward: each function returning an
  /// attn.flash becomes a training step (one more argument, the output's
  /// gradient; dq, dk, dv after the results), and the kernels include the
  /// backward's (KernelKind::FlashBackward, launched with BackwardArgs)
  /// after the forward's, which writes the logsumexp the backward reads.
  bool backward = false;
  /// With `backward`: also the gradient of each bias operand.
  bool backwardBiasGrad = false;
  /// With `backward`: the backward kernel variant ("sm90ws", "sm90",
  /// "sm80"; empty: the cost model's choice).
  std::string backwardVariant;
  /// With `backward`: the backward tiles as "MxNxWARPSxSTAGES" (e.g.
  /// "64x128x8x2"; empty: the cost model's), an error where they do not fit.
  std::string backwardTiles;
  /// Compile the kernels (NVRTC, ptxas). False: run the pipeline and emit
  /// every kernel's CUDA source, but build none; CompiledModule::kernels is
  /// empty and CompiledModule::emitted holds the specs. The IR (loweredIR)
  /// is what a build would run, less the tile changes that follow ptxas
  /// (narrower key tiles where a kernel spills), which compute the same.
  bool compileKernels = true;
};

/// The kernels of a module, one group per attn.flash, attn.flash_bwd and
/// attn.kernel in op order (each launched through its group, which picks
/// the kernel of the planned ones), and the IR after the pipeline.
struct CompiledModule {
  std::vector<std::shared_ptr<KernelGroup>> kernels;
  /// With CompileOptions::compileKernels off: the specs emitted, one per
  /// attn.flash, attn.flash_bwd and attn.kernel in op order, then those of
  /// dynamic key lengths' long-key tiles. Empty otherwise.
  std::vector<KernelSpec> emitted;
  std::string loweredIR;
  /// Remarks of the passes, e.g. why a chain was not fused ("file:line:col:
  /// remark: ...").
  std::vector<std::string> remarks;
  double pipelineMs = 0; ///< parse + passes + emission (+ build)
};

Result<CompiledModule> compileSource(Context &context, const std::string &mlir,
                                     const CompileOptions &options = {},
                                     const std::string &bufferName = "<source>");
Result<CompiledModule> compileFile(Context &context, const std::string &path,
                                   const CompileOptions &options = {});

/// The element type of a graph's tensors (one enumeration for the API, the
/// runtime and the tools: attn/Runtime/ElementType.h).
using DataType = ElementType;

/// Builds an attention graph the way a framework exports one (matmul, scale,
/// masks, softmax, matmul), so that compiling it exercises attn-fuse.
class Graph {
public:
  struct Tensor {
    int id = -1;
  };

  struct SdpaOptions {
    std::optional<float> scale; ///< default 1/sqrt(head dim)
    bool causal = false;
    /// Align causal/window to the bottom-right: with lengths, to each
    /// sequence's last key lengths[b] - 1 (flash_attn's cache_seqlens).
    bool bottomRight = false;
    int windowLeft = -1, windowRight = -1; ///< -1: unbounded
    std::optional<Tensor> lengths; ///< [B] i32: key padding
    std::optional<Tensor> keep;    ///< bool, broadcast to [B, Hq, Sq, Skv]
    std::optional<Tensor> bias;    ///< float, broadcast likewise
    /// Body of a score_mod region over %score, %b, %h, %q_idx, %kv_idx,
    /// ending in `attn.yield %x : f32`, e.g. a softcap:
    ///   "%c = arith.constant 30.0 : f32\n %d = arith.divf %score, %c : f32\n"
    ///   "%t = math.tanh %d : f32\n %y = arith.mulf %t, %c : f32\n"
    ///   "attn.yield %y : f32"
    std::string scoreMod;
    /// Tensors the score_mod reads (inputs of this graph, at most 4), as
    /// %capture0, %capture1, ... with tensor.extract, e.g. a bias per head:
    ///   "%c = tensor.extract %capture0[%h] : tensor<16xf32>\n ..."
    std::vector<Tensor> scoreModCaptures;
    /// Attention sinks (gpt-oss): [1, Hq, 1, 1] f32, one logit per query
    /// head, written as a graph does (a column concatenated to the scores
    /// before the softmax and sliced off after it); attn-fuse makes it the
    /// fused op's sinks operand.
    std::optional<Tensor> sinks;
  };

  /// Attention over a ragged batch (flash_attn's varlen form) or a paged
  /// cache (flash_attn_with_kvcache's).
  struct VarlenOptions {
    std::optional<float> scale; ///< default 1/sqrt(head dim)
    /// Causal, aligned to each sequence's last key (bottomRight, as
    /// flash_attn aligns it) or to its first.
    bool causal = false;
    bool bottomRight = true;
    int windowLeft = -1, windowRight = -1; ///< -1: unbounded
    /// A score_mod body as in SdpaOptions; %b is the sequence, %q_idx and
    /// %kv_idx positions within it.
    std::string scoreMod;
    std::vector<Tensor> scoreModCaptures;
    bool returnLse = false; ///< also the logsumexp, [Hq, Tq] f32
    /// Attention sinks: [Hq] f32, one logit per query head in every row's
    /// denominator (FlashArgs::sinks at launch).
    std::optional<Tensor> sinks;
  };
  struct Attention {
    Tensor output;
    std::optional<Tensor> lse;
  };

  Tensor input(const std::string &name, DataType type,
               std::vector<int64_t> shape);
  /// Appends softmax(mask(scale * q k^T)) v; checks shapes.
  Result<Tensor> sdpa(Tensor q, Tensor k, Tensor v, const SdpaOptions &options);
  /// Appends attention over a ragged batch, as one attn.flash (there is no
  /// graph form of it): q [Tq, Hq, D], k [Tk, Hkv, D] and v [Tk, Hkv, Dv]
  /// packed, and the [B + 1] i32 offsets of each sequence's queries and
  /// keys (FlashArgs::cuSeqlensQ / cuSeqlensK at launch); checks shapes.
  Result<Attention> varlen(Tensor q, Tensor k, Tensor v, Tensor cuSeqlensQ,
                           Tensor cuSeqlensK, const VarlenOptions &options);
  /// Appends attention of q [B, Hq, Sq, D] over paged caches kCache,
  /// vCache [pages, Hkv, page_size, D] (BHSD with a page as the batch), as
  /// one attn.flash: sequence b's keys are its row of blockTable [B,
  /// pages per sequence] i32, cacheSeqlens [B] i32 of them valid; causal
  /// and windows align to each sequence's length (bottomRight is implied).
  /// FlashArgs::blockTable ... at launch; checks shapes.
  Result<Attention> paged(Tensor q, Tensor kCache, Tensor vCache,
                          Tensor cacheSeqlens, Tensor blockTable,
                          const VarlenOptions &options);
  void output(Tensor tensor);

  /// The graph as an MLIR function `@graph`, verified.
  Result<std::string> toMLIR() const;

private:
  struct Node {
    std::string name; // SSA name without %
    DataType type;
    std::vector<int64_t> shape;
  };
  /// Appends one attn.flash (writeFlashOp) of q, k, v and `op`, which holds
  /// the serving operands, with the options' masks, score_mod, captures,
  /// sinks and scale; a paged cache aligns to each sequence's length
  /// (key_padding, bottom_right). The results' shapes are the graph's
  /// record of them. `form` names the call in messages.
  Result<Attention> appendFlash(const char *form, const Node &q, const Node &k,
                                const Node &v, FlashOpText op,
                                std::vector<int64_t> outShape,
                                std::vector<int64_t> lseShape, int64_t headDim,
                                const VarlenOptions &options);
  static FlashOperandText operandText(const Node &node);

  std::vector<Node> nodes_;
  std::vector<int> inputs_, outputs_;
  std::string body_;
  int counter_ = 0;
};

Result<CompiledModule> compileGraph(Context &context, const Graph &graph,
                                    const CompileOptions &options = {});

} // namespace attn

#endif // ATTN_ATTN_H
