//===- EmitFlashBackward.cpp - attn.flash_bwd to CUDA C++ -----------------===//
//
// The backward's translation unit binds typed constants into
// kernels-templates/attn/<variant>/flash_bwd.cuh, prints the score_mod and
// its derivative (the score_mod_grad region) as device functions with the
// forward's printer, and defines the four entries the runtime launches.
//
//===----------------------------------------------------------------------===//

#include "EmitHelpers.h"
#include "attn/Target/Cuda/BackwardLayout.h"
#include "attn/Target/Cuda/EmitCuda.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detail;

namespace {

/// The readable part of the name: attn_bwd_bf16_hd128_causal_...
std::string backwardKernelName(const ::attn::KernelSpec &spec) {
  std::string name = "attn_bwd_";
  name += ::attn::elementTypeName(spec.element);
  name += "_hd" + std::to_string(spec.headDimQK);
  if (spec.headDimV != spec.headDimQK)
    name += "x" + std::to_string(spec.headDimV);
  if (spec.headsQ != spec.headsKV)
    name += "_gqa" + std::to_string(spec.headsQ / spec.headsKV);
  if (spec.causal)
    name += spec.bottomRight ? "_causalbr" : "_causal";
  if (spec.window)
    name += spec.bottomRight && !spec.causal ? "_windowbr" : "_window";
  if (spec.keyPadding)
    name += "_padded";
  if (spec.keep)
    name += "_keep";
  if (spec.bias)
    name += spec.biasGrad ? "_dbias" : "_bias";
  if (spec.scoreMod)
    name += "_mod";
  name += "_" + spec.variant + "_" + std::to_string(spec.blockM) + "x" +
          std::to_string(spec.blockN) + "w" + std::to_string(spec.numWarps) +
          "s" + std::to_string(spec.stages);
  return name;
}

} // namespace

FailureOr<::attn::KernelSpec> mlir::attn::emitFlashBackwardKernel(FlashBwdOp op) {
  BackwardConfigAttr config = op.getConfigAttr();
  if (!config)
    return op.emitOpError()
           << "has no #attn.backward_config; run --attn-select-config first";
  if (op.getTransposeK())
    return op.emitOpError()
           << "has transpose_k, which the backward kernels do not support "
              "yet (the reference does); pass k as [batch, heads, seq, dim]";
  MaskAttr mask = op.getMaskOrEmpty();
  RankedTensorType q = op.getQ().getType(), k = op.getK().getType(),
                   v = op.getV().getType();

  ::attn::KernelSpec spec;
  spec.kind = ::attn::KernelKind::FlashBackward;
  spec.variant = config.getVariant().str();
  spec.blockM = config.getBlockM();
  spec.blockN = config.getBlockN();
  spec.numWarps = config.getNumWarps();
  spec.stages = config.getStages();
  spec.threads = spec.numWarps * 32;
  FailureOr<::attn::ElementType> element = elementTypeOf(op, q.getElementType());
  if (failed(element))
    return failure();
  spec.element = *element;
  spec.headDimQK = q.getDimSize(3);
  spec.headDimV = v.getDimSize(3);
  spec.headsQ = q.getDimSize(1);
  spec.headsKV = k.getDimSize(1);
  BackwardTile tile{spec.blockM,    spec.blockN,    spec.numWarps,
                    spec.stages,    spec.headDimQK, spec.headDimV};
  if (spec.headDimQK % 8 || spec.headDimV % 8 ||
      spec.headDimQK > kMaxHeadDim || spec.headDimV > kMaxHeadDim)
    return op.emitOpError() << "head dims " << spec.headDimQK << "/"
                            << spec.headDimV
                            << " are not supported by the backward kernels "
                               "(multiples of 8 up to "
                            << kMaxHeadDim << ")";
  if (!backwardSplitsHeadDims(tile))
    return op.emitOpError()
           << "config splits head dims " << spec.headDimQK << "/"
           << spec.headDimV << " over " << config.getWarpsPerKeyTile()
           << " warps per 16 keys, which does not give whole 8-column tiles";
  spec.causal = mask.getCausal();
  spec.bottomRight = mask.getBottomRight();
  spec.window = mask.hasWindow();
  spec.windowLeft = mask.getWindowLeft();
  spec.windowRight = mask.getWindowRight();
  spec.keyPadding = mask.getKeyPadding();
  spec.keep = mask.getKeep();
  spec.bias = mask.getBias();
  spec.biasGrad = op.hasBiasGrad();
  if (spec.bias) {
    FailureOr<::attn::ElementType> biasElement = elementTypeOf(
        op, cast<RankedTensorType>(op.getBias().getType()).getElementType());
    if (failed(biasElement))
      return failure();
    spec.biasElement = *biasElement;
  }
  spec.scoreMod = op.hasScoreMod();
  spec.writesLse = false;
  spec.scale = op.getScale().convertToFloat();
  spec.batch = q.isDynamicDim(0) ? -1 : q.getDimSize(0);
  spec.seqQ = q.isDynamicDim(2) ? -1 : q.getDimSize(2);
  spec.seqKV = k.isDynamicDim(2) ? -1 : k.getDimSize(2);
  spec.sharedBytes = backwardSharedBytes(tile);
  spec.backwardDqSharedBytes = backwardDqSharedBytes(tile);
  spec.backwardDqThreads = spec.blockM / 16 * 32;
  spec.name = backwardKernelName(spec);

  std::string scoreModBody = "    return score;\n";
  std::string scoreModGradBody = "    return 1.f;\n";
  if (spec.scoreMod) {
    scoreModBody.clear();
    scoreModGradBody.clear();
    llvm::raw_string_ostream body(scoreModBody), grad(scoreModGradBody);
    if (failed(printScoreModBody(op.getScoreMod(), body)) ||
        failed(printScoreModBody(op.getScoreModGrad(), grad)))
      return failure();
  }

  const std::string signature =
      "(float score, int b, int h, int q_idx, int kv_idx) {\n";
  llvm::raw_string_ostream os(spec.source);
  os << "// Generated by attn from " << op.getLoc() << "\n"
     << "// " << spec.name << ": " << spec.threads << " threads, "
     << spec.sharedBytes << " bytes of shared memory (dQ kernel: "
     << spec.backwardDqThreads << ", " << spec.backwardDqSharedBytes << ")\n"
     << "#include \"attn/" << spec.variant << "/flash_bwd.cuh\"\n\n"
     << "namespace {\n"
     << "struct Config {\n"
     << "  using Element = " << templateElement(spec.element) << ";\n"
     << "  using BiasElement = " << templateElement(spec.biasElement) << ";\n"
     << "  static constexpr int kHeadDimQK = " << spec.headDimQK << ";\n"
     << "  static constexpr int kHeadDimV = " << spec.headDimV << ";\n"
     << "  static constexpr int kBlockM = " << spec.blockM << ";\n"
     << "  static constexpr int kBlockN = " << spec.blockN << ";\n"
     << "  static constexpr int kNumWarps = " << spec.numWarps << ";\n"
     << "  static constexpr int kStages = " << spec.stages << ";\n"
     << "  static constexpr bool kCausal = " << boolText(spec.causal) << ";\n"
     << "  static constexpr bool kBottomRight = " << boolText(spec.bottomRight) << ";\n"
     << "  static constexpr bool kWindow = " << boolText(spec.window) << ";\n"
     << "  static constexpr bool kKeyPadding = " << boolText(spec.keyPadding) << ";\n"
     << "  static constexpr bool kKeep = " << boolText(spec.keep) << ";\n"
     << "  static constexpr bool kBias = " << boolText(spec.bias) << ";\n"
     << "  static constexpr bool kBiasGrad = " << boolText(spec.biasGrad) << ";\n"
     << "  static constexpr bool kScoreMod = " << boolText(spec.scoreMod) << ";\n"
     << "  static __device__ __forceinline__ float scoreMod" << signature
     << scoreModBody << "  }\n"
     << "  // d scoreMod / d score (the score_mod_grad region).\n"
     << "  static __device__ __forceinline__ float scoreModGrad" << signature
     << scoreModGradBody << "  }\n"
     << "};\n"
     << "using KV = attn::" << spec.variant << "::FlashBackwardKV<Config>;\n"
     << "using Q = attn::" << spec.variant << "::FlashBackwardQ<Config>;\n"
     << "static_assert(KV::kSharedBytes == " << spec.sharedBytes
     << " && Q::kSharedBytes == " << spec.backwardDqSharedBytes
     << " && Q::kThreads == " << spec.backwardDqThreads
     << ", \"resource model (BackwardLayout.h) and template disagree\");\n"
     << "} // namespace\n\n"
     << "// dK, dV (and dbias; dQ with atomics) of a block of keys. One block\n"
     << "// per SM is enough: without it ptxas may cap registers for occupancy\n"
     << "// and spill.\n"
     << "extern \"C\" __global__ void __launch_bounds__(" << spec.threads
     << ", 1) " << spec.name << "(const attn::FlashBwdParams params) {\n"
     << "  extern __shared__ __align__(16) char smem[];\n"
     << "  KV::run(params, smem);\n"
     << "}\n\n"
     << "// Deterministic mode: dQ of a block of queries.\n"
     << "extern \"C\" __global__ void __launch_bounds__("
     << spec.backwardDqThreads << ", 1) " << spec.name
     << "_dq(const attn::FlashBwdParams params) {\n"
     << "  extern __shared__ __align__(16) char smem[];\n"
     << "  Q::run(params, smem);\n"
     << "}\n\n"
     << "// D = rowsum(dO * O); zeroes the sums.\n"
     << "extern \"C\" __global__ void __launch_bounds__(attn::kBackwardRowThreads) "
     << spec.name << "_pre(const attn::FlashBwdParams params) {\n"
     << "  attn::FlashBackwardPre<Config>::run(params);\n"
     << "}\n\n"
     << "// The f32 sums to their element types.\n"
     << "extern \"C\" __global__ void __launch_bounds__(attn::kBackwardRowThreads) "
     << spec.name << "_convert(const attn::FlashBwdParams params) {\n"
     << "  attn::FlashBackwardConvert<Config>::run(params);\n"
     << "}\n";
  return spec;
}
