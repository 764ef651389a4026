//===- EmitCuda.cpp - attn.flash to CUDA C++ ------------------------------===//
//
// The emitted source binds typed constants into the templates of
// kernels-templates/ and prints the score_mod region as a device function.
//
//===----------------------------------------------------------------------===//

#include "attn/Target/Cuda/EmitCuda.h"
#include "attn/Support/ElementTypes.h"
#include "attn/Target/Cuda/KernelLayout.h"
#include "EmitHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detail;

namespace {

/// C++ type of a scalar in a score_mod region.
FailureOr<StringRef> cudaType(Type type) {
  if (type.isF32())
    return StringRef("float");
  if (type.isIndex() || type.isInteger(32))
    return StringRef("int");
  if (type.isInteger(64))
    return StringRef("long long");
  if (type.isInteger(1))
    return StringRef("bool");
  return failure();
}

} // namespace

std::string mlir::attn::detail::floatLiteral(APFloat value) {
  float f = value.convertToFloat();
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "__int_as_float(0x" << llvm::format_hex_no_prefix(bits, 8) << "u)";
  if (std::isfinite(f))
    os << " /* " << llvm::format("%g", f) << " */";
  return text;
}

namespace {

/// Prints the ops of a score_mod region as C++ statements.
class ScoreModPrinter {
public:
  ScoreModPrinter(raw_ostream &os) : os(os) {}

  LogicalResult print(Region &region) {
    Block &block = region.front();
    static const char *argNames[] = {"score", "b", "h", "q_idx", "kv_idx"};
    for (auto [arg, name] : llvm::zip(block.getArguments(), argNames))
      names[arg] = name;
    for (Operation &op : block)
      if (failed(printOp(op)))
        return failure();
    return success();
  }

private:
  FailureOr<std::string> nameOf(Value value, Operation *user) {
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    // A constant defined outside the region is inlined.
    if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
      if (failed(printOp(*constant)))
        return failure();
      return names.lookup(value);
    }
    return user->emitOpError()
           << "uses a value defined outside the score_mod region that is not "
              "an arith.constant; it cannot be emitted as device code";
  }

  LogicalResult define(Operation &op, const std::string &expr) {
    Value result = op.getResult(0);
    FailureOr<StringRef> type = cudaType(result.getType());
    if (failed(type))
      return op.emitOpError() << "has result type " << result.getType()
                              << ", which a score_mod cannot use on the GPU "
                                 "(f32, index, i1, i32 and i64 can)";
    std::string name = "v" + std::to_string(counter++);
    os << "    const " << *type << " " << name << " = " << expr << ";\n";
    names[result] = name;
    return success();
  }

  LogicalResult printOp(Operation &op) {
    SmallVector<std::string> in;
    for (Value operand : op.getOperands()) {
      FailureOr<std::string> name = nameOf(operand, &op);
      if (failed(name))
        return failure();
      in.push_back(*name);
    }
    auto binary = [&](StringRef symbol) {
      return define(op, "(" + in[0] + " " + symbol.str() + " " + in[1] + ")");
    };
    auto call = [&](StringRef fn) {
      std::string expr = fn.str() + "(";
      llvm::raw_string_ostream es(expr);
      llvm::interleaveComma(in, es);
      es << ")";
      return define(op, expr);
    };
    auto cast = [&]() -> LogicalResult {
      FailureOr<StringRef> type = cudaType(op.getResult(0).getType());
      if (failed(type))
        return define(op, in[0]); // reports the type
      return define(op, "static_cast<" + type->str() + ">(" + in[0] + ")");
    };
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](arith::ConstantOp c) -> LogicalResult {
          if (auto f = dyn_cast<FloatAttr>(c.getValue())) {
            if (!f.getType().isF32())
              return c.emitOpError() << "score_mod constants must be f32";
            return define(op, floatLiteral(f.getValue()));
          }
          if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
            return define(op, std::to_string(i.getValue().getSExtValue()));
          return c.emitOpError() << "has a constant that is not a scalar";
        })
        .Case([&](arith::AddFOp) { return binary("+"); })
        .Case([&](arith::SubFOp) { return binary("-"); })
        .Case([&](arith::MulFOp) { return binary("*"); })
        .Case([&](arith::DivFOp) { return binary("/"); })
        .Case([&](arith::RemFOp) { return call("fmodf"); })
        .Case([&](arith::NegFOp) { return define(op, "(-" + in[0] + ")"); })
        .Case<arith::MaximumFOp, arith::MaxNumFOp>(
            [&](Operation *) { return call("fmaxf"); })
        .Case<arith::MinimumFOp, arith::MinNumFOp>(
            [&](Operation *) { return call("fminf"); })
        .Case([&](arith::AddIOp) { return binary("+"); })
        .Case([&](arith::SubIOp) { return binary("-"); })
        .Case([&](arith::MulIOp) { return binary("*"); })
        .Case([&](arith::DivSIOp) { return binary("/"); })
        .Case([&](arith::RemSIOp) { return binary("%"); })
        .Case([&](arith::AndIOp) { return binary("&"); })
        .Case([&](arith::OrIOp) { return binary("|"); })
        .Case([&](arith::XOrIOp) { return binary("^"); })
        .Case([&](arith::MaxSIOp) { return call("max"); })
        .Case([&](arith::MinSIOp) { return call("min"); })
        .Case([&](arith::CmpFOp cmp) -> LogicalResult {
          // Ordered predicates are C comparisons; unordered ones negate the
          // opposite ordered comparison, so NaN compares true.
          using P = arith::CmpFPredicate;
          switch (cmp.getPredicate()) {
          case P::OEQ: return binary("==");
          case P::ONE: return define(op, "(" + in[0] + " < " + in[1] + " || " + in[0] + " > " + in[1] + ")");
          case P::OLT: return binary("<");
          case P::OLE: return binary("<=");
          case P::OGT: return binary(">");
          case P::OGE: return binary(">=");
          case P::UEQ: return define(op, "!(" + in[0] + " < " + in[1] + " || " + in[0] + " > " + in[1] + ")");
          case P::UNE: return binary("!=");
          case P::ULT: return define(op, "!(" + in[0] + " >= " + in[1] + ")");
          case P::ULE: return define(op, "!(" + in[0] + " > " + in[1] + ")");
          case P::UGT: return define(op, "!(" + in[0] + " <= " + in[1] + ")");
          case P::UGE: return define(op, "!(" + in[0] + " < " + in[1] + ")");
          case P::AlwaysTrue: return define(op, "true");
          case P::AlwaysFalse: return define(op, "false");
          case P::ORD: return define(op, "!(isnan(" + in[0] + ") || isnan(" + in[1] + "))");
          case P::UNO: return define(op, "(isnan(" + in[0] + ") || isnan(" + in[1] + "))");
          }
          return failure();
        })
        .Case([&](arith::CmpIOp cmp) -> LogicalResult {
          using P = arith::CmpIPredicate;
          switch (cmp.getPredicate()) {
          case P::eq: return binary("==");
          case P::ne: return binary("!=");
          case P::slt: return binary("<");
          case P::sle: return binary("<=");
          case P::sgt: return binary(">");
          case P::sge: return binary(">=");
          default:
            return cmp.emitOpError()
                   << "unsigned comparisons are not supported in score_mod";
          }
        })
        .Case([&](arith::SelectOp) {
          return define(op, "(" + in[0] + " ? " + in[1] + " : " + in[2] + ")");
        })
        .Case<arith::IndexCastOp, arith::SIToFPOp, arith::FPToSIOp,
              arith::ExtSIOp, arith::TruncIOp>([&](Operation *) { return cast(); })
        .Case([&](math::TanhOp) { return call("tanhf"); })
        .Case([&](math::ExpOp) { return call("expf"); })
        .Case([&](math::Exp2Op) { return call("exp2f"); })
        .Case([&](math::LogOp) { return call("logf"); })
        .Case([&](math::Log2Op) { return call("log2f"); })
        .Case([&](math::SqrtOp) { return call("sqrtf"); })
        .Case([&](math::RsqrtOp) { return call("rsqrtf"); })
        .Case([&](math::AbsFOp) { return call("fabsf"); })
        .Case([&](math::ErfOp) { return call("erff"); })
        .Case([&](math::SinOp) { return call("sinf"); })
        .Case([&](math::CosOp) { return call("cosf"); })
        .Case([&](math::PowFOp) { return call("powf"); })
        .Case([&](math::FmaOp) { return call("fmaf"); })
        .Case([&](math::FloorOp) { return call("floorf"); })
        .Case([&](math::CeilOp) { return call("ceilf"); })
        .Case([&](YieldOp) -> LogicalResult {
          os << "    return " << in[0] << ";\n";
          return success();
        })
        .Default([&](Operation *other) {
          return other->emitOpError()
                 << "cannot be emitted as device code in a score_mod; "
                    "supported are arith and math ops on f32 and integers";
        });
  }

  raw_ostream &os;
  llvm::DenseMap<Value, std::string> names;
  unsigned counter = 0;
};

} // namespace

LogicalResult mlir::attn::detail::printScoreModBody(Region &region,
                                                    raw_ostream &os) {
  return ScoreModPrinter(os).print(region);
}

const char *mlir::attn::detail::boolText(bool value) {
  return value ? "true" : "false";
}

namespace {

/// The readable part of the kernel name: attn_fwd_bf16_hd128_causal_...
std::string kernelName(const ::attn::KernelSpec &spec) {
  std::string name = "attn_fwd_";
  name += ::attn::elementTypeName(spec.element);
  name += "_hd" + std::to_string(spec.headDimQK);
  if (spec.headDimV != spec.headDimQK)
    name += "x" + std::to_string(spec.headDimV);
  if (spec.transposeK)
    name += "_kt";
  if (spec.causal)
    name += spec.bottomRight ? "_causalbr" : "_causal";
  if (spec.window)
    name += spec.bottomRight && !spec.causal ? "_windowbr" : "_window";
  if (spec.keyPadding)
    name += "_padded";
  if (spec.keep)
    name += "_keep";
  if (spec.bias)
    name += "_bias";
  if (spec.scoreMod)
    name += "_mod";
  if (spec.writesLse)
    name += "_lse";
  name += "_" + spec.variant + "_" + std::to_string(spec.blockM) + "x" +
          std::to_string(spec.blockN) + "w" + std::to_string(spec.numWarps) +
          "s" + std::to_string(spec.stages);
  return name;
}

} // namespace

FailureOr<::attn::ElementType>
mlir::attn::detail::elementTypeOf(Operation *op, Type type) {
  std::optional<::attn::ElementType> element = toElementType(type);
  if (element && (*element == ::attn::ElementType::F16 ||
                  *element == ::attn::ElementType::BF16 ||
                  *element == ::attn::ElementType::F32))
    return *element;
  return op->emitOpError() << "has element type " << type
                           << ", which the kernels do not support";
}

const char *mlir::attn::detail::templateElement(::attn::ElementType type) {
  switch (type) {
  case ::attn::ElementType::F16:
    return "attn::F16";
  case ::attn::ElementType::BF16:
    return "attn::BF16";
  case ::attn::ElementType::F32:
    return "float";
  case ::attn::ElementType::I32:
    return "int";
  case ::attn::ElementType::Bool:
    return "bool";
  }
  return "";
}

FailureOr<::attn::KernelSpec> mlir::attn::emitFlashKernel(FlashOp op) {
  ConfigAttr config = op.getConfigAttr();
  if (!config)
    return op.emitOpError()
           << "has no #attn.config; run --attn-select-config first";
  MaskAttr mask = op.getMaskOrEmpty();
  RankedTensorType q = op.getQ().getType(), k = op.getK().getType(),
                   v = op.getV().getType();

  ::attn::KernelSpec spec;
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
  if (spec.headDimQK % 8 || spec.headDimV % 8 ||
      spec.headDimQK > kMaxHeadDim || spec.headDimV > kMaxHeadDim)
    return op.emitOpError() << "head dims " << spec.headDimQK << "/"
                            << spec.headDimV
                            << " are not supported (multiples of 8 up to "
                            << kMaxHeadDim << ")";
  spec.transposeK = op.getTransposeK();
  spec.causal = mask.getCausal();
  spec.bottomRight = mask.getBottomRight();
  spec.window = mask.hasWindow();
  spec.windowLeft = mask.getWindowLeft();
  spec.windowRight = mask.getWindowRight();
  spec.keyPadding = mask.getKeyPadding();
  spec.keep = mask.getKeep();
  spec.bias = mask.getBias();
  if (spec.bias) {
    FailureOr<::attn::ElementType> biasElement = elementTypeOf(
        op, cast<RankedTensorType>(op.getBias().getType()).getElementType());
    if (failed(biasElement))
      return failure();
    spec.biasElement = *biasElement;
  }
  spec.scoreMod = op.hasScoreMod();
  spec.writesLse = static_cast<bool>(op.getLse());
  spec.scale = op.getScale().convertToFloat();
  spec.batch = q.isDynamicDim(0) ? -1 : q.getDimSize(0);
  spec.seqQ = q.isDynamicDim(2) ? -1 : q.getDimSize(2);
  int64_t kSeqDim = spec.transposeK ? 3 : 2;
  spec.seqKV = k.isDynamicDim(kSeqDim) ? -1 : k.getDimSize(kSeqDim);
  const ::attn::KernelVariant *variant =
      ::attn::findKernelVariant(spec.variant);
  if (!variant)
    return op.emitOpError() << "has unknown kernel variant " << spec.variant;
  spec.sharedBytes = variant->sharedBytes(
      {spec.blockM, spec.blockN, spec.numWarps, spec.stages},
      {spec.headDimQK, spec.headDimV, spec.transposeK, false});
  spec.name = kernelName(spec);

  std::string scoreModBody;
  if (spec.scoreMod) {
    llvm::raw_string_ostream body(scoreModBody);
    if (failed(printScoreModBody(op.getScoreMod(), body)))
      return failure();
  } else {
    scoreModBody = "    return score;\n";
  }

  llvm::raw_string_ostream os(spec.source);
  os << "// Generated by attn from " << op.getLoc() << "\n"
     << "// " << spec.name << ": " << spec.threads << " threads, "
     << spec.sharedBytes << " bytes of shared memory\n"
     << "#include \"" << variant->header << "\"\n\n"
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
     << "  static constexpr bool kTransposeK = " << boolText(spec.transposeK) << ";\n"
     << "  static constexpr bool kCausal = " << boolText(spec.causal) << ";\n"
     << "  static constexpr bool kBottomRight = " << boolText(spec.bottomRight) << ";\n"
     << "  static constexpr bool kWindow = " << boolText(spec.window) << ";\n"
     << "  static constexpr bool kKeyPadding = " << boolText(spec.keyPadding) << ";\n"
     << "  static constexpr bool kKeep = " << boolText(spec.keep) << ";\n"
     << "  static constexpr bool kBias = " << boolText(spec.bias) << ";\n"
     << "  static constexpr bool kScoreMod = " << boolText(spec.scoreMod) << ";\n"
     << "  static constexpr bool kWriteLse = " << boolText(spec.writesLse) << ";\n"
     << "  static __device__ __forceinline__ float scoreMod(float score, int b, "
        "int h, int q_idx, int kv_idx) {\n"
     << scoreModBody << "  }\n"
     << "};\n"
     << "using Kernel = " << variant->kernelTemplate << "<Config>;\n"
     << "static_assert(Kernel::kSharedBytes == " << spec.sharedBytes
     << ", \"shared-memory model (KernelVariants.cpp) and template "
        "disagree\");\n"
     << "} // namespace\n\n";
  if (variant->persistent) {
    // One block per SM (setmaxnreg needs the cap); the tensor maps live in
    // the parameter space, where TMA reads them.
    os << "extern \"C\" __global__ void __launch_bounds__(" << spec.threads
       << ", 1) " << spec.name
       << "(const __grid_constant__ attn::FlashParams params, "
          "const __grid_constant__ attn::TmaMaps maps) {\n"
       << "  extern __shared__ __align__(1024) char smem[];\n"
       << "  Kernel::run(params, maps, smem);\n"
       << "}\n\n";
  } else {
    os << "extern \"C\" __global__ void __launch_bounds__(" << spec.threads
       << ") " << spec.name << "(const attn::FlashParams params) {\n"
       << "  extern __shared__ __align__(16) char smem[];\n"
       << "  Kernel::run(params, smem);\n"
       << "}\n\n";
  }
  os << "// Merges the partial results of a split-KV launch.\n"
     << "extern \"C\" __global__ void __launch_bounds__(attn::kCombineThreads) "
     << spec.name << "_combine(const attn::FlashParams params) {\n"
     << "  attn::FlashCombine<Config>::run(params);\n"
     << "}\n";
  return spec;
}
