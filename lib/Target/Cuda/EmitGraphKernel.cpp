//===- EmitGraphKernel.cpp - attn.kernel to CUDA C++ ----------------------===//
//
// One graph op of the unfused path becomes one launch of a template of
// kernels-templates/attn/graph_ops.cuh. Shapes are static, so the emitted
// Config holds them as constants and the grid is fixed; the source asserts
// that the template computes the same grid as the spec.
//
//===----------------------------------------------------------------------===//

#include "attn/Target/Cuda/EmitCuda.h"
#include "EmitHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::attn;
using namespace mlir::attn::detail;

namespace {

using Shape4 = std::array<int64_t, 4>;

constexpr int kMapThreads = 256, kMapPerThread = 4;
constexpr int kSoftmaxThreads = 128;
constexpr int kMatmulThreads = 256, kMatmulTile = 128;

/// The rank-4 view of a static tensor of rank <= 4, or an error on `op`.
FailureOr<Shape4> rank4Shape(Operation *op, Type type, StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return op->emitOpError() << what << " has type " << type
                             << "; a GPU kernel needs a static shape";
  if (tensor.getRank() > 4)
    return op->emitOpError() << what << " has rank " << tensor.getRank()
                             << "; the graph-op kernels handle rank <= 4";
  Shape4 shape = {1, 1, 1, 1};
  int64_t pad = 4 - tensor.getRank();
  for (int64_t d = 0; d < tensor.getRank(); ++d)
    shape[pad + d] = tensor.getDimSize(d);
  return shape;
}

/// The element count, for shapes that checkElementCount accepted.
int64_t numElements(const Shape4 &shape) {
  return shape[0] * shape[1] * shape[2] * shape[3];
}

/// Each extent fits 32 bits (the verifiers), but four of them can overflow
/// the 64-bit element count (a grid of 0 blocks, once): reports on `op` and
/// fails where the count of `what` does not fit.
LogicalResult checkElementCount(Operation *op, const Shape4 &shape,
                                StringRef what) {
  int64_t count = 1;
  for (int64_t extent : shape)
    if (__builtin_mul_overflow(count, extent, &count))
      return op->emitOpError()
             << what << " has more than 2^63 elements; a graph-op kernel "
             << "indexes them with 64-bit integers";
  return success();
}

std::string shapeName(const Shape4 &shape) {
  std::string name;
  for (int64_t d : shape)
    name += (name.empty() ? "" : "x") + std::to_string(d);
  return name;
}

std::string shapeType(const Shape4 &shape) {
  return "attn::graph::Shape<" + std::to_string(shape[0]) + ", " +
         std::to_string(shape[1]) + ", " + std::to_string(shape[2]) + ", " +
         std::to_string(shape[3]) + ">";
}

/// What differs between the payloads: the name's suffix, the template, the
/// Config's members, the launch geometry.
struct Emission {
  std::string suffix;
  std::string templateName;
  std::string configBody;
  int threads = 0;
  std::array<int64_t, 3> grid = {1, 1, 1};
};

Type elementOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// An element-wise payload: Config holds In, Out, Shape, `extra` and
/// apply(x, p, idx) with `applyBody`.
FailureOr<Emission> emitMap(Operation *payload, const Shape4 &shape,
                            StringRef applyBody, StringRef extra = "") {
  FailureOr<::attn::ElementType> in =
      elementTypeOf(payload, elementOf(payload->getOperand(0)));
  FailureOr<::attn::ElementType> out =
      elementTypeOf(payload, elementOf(payload->getResult(0)));
  if (failed(in) || failed(out))
    return failure();
  Emission e;
  llvm::raw_string_ostream os(e.configBody);
  os << "  using In = " << templateElement(*in) << ";\n"
     << "  using Out = " << templateElement(*out) << ";\n"
     << "  using Shape = " << shapeType(shape) << ";\n"
     << extra
     << "  static __device__ __forceinline__ float apply(float x, const "
        "attn::GraphParams &p, const attn::i64 (&idx)[4]) {\n"
     << applyBody << "  }\n";
  e.templateName = "Map";
  e.threads = kMapThreads;
  int64_t perBlock = kMapThreads * kMapPerThread;
  e.grid[0] = (numElements(shape) + perBlock - 1) / perBlock;
  return e;
}

FailureOr<Emission> emitMask(MaskOp mask, const Shape4 &shape) {
  MaskAttr kind = mask.getKind();
  // Operand slots follow the kernel's inputs: the scores, then the optional
  // operands in the op's order.
  int slot = 1, lengthsSlot = 0, keepSlot = 0, biasSlot = 0;
  if (mask.getLengths())
    lengthsSlot = slot++;
  if (mask.getKeep())
    keepSlot = slot++;
  ::attn::ElementType biasElement = ::attn::ElementType::F32;
  if (Value bias = mask.getBias()) {
    biasSlot = slot++;
    FailureOr<::attn::ElementType> element = elementTypeOf(mask, elementOf(bias));
    if (failed(element))
      return failure();
    biasElement = *element;
  }
  // Each mask the kind names needs its operand; the op verifier checks that.
  std::string extra;
  llvm::raw_string_ostream os(extra);
  os << "  using BiasElement = " << templateElement(biasElement) << ";\n"
     << "  static constexpr bool kCausal = " << boolText(kind.getCausal()) << ";\n"
     << "  static constexpr bool kBottomRight = " << boolText(kind.getBottomRight()) << ";\n"
     << "  static constexpr bool kBottomRightTensor = " << boolText(kind.getAlignsToTensor()) << ";\n"
     << "  static constexpr bool kWindow = " << boolText(kind.hasWindow()) << ";\n"
     << "  static constexpr int kWindowLeft = " << kind.getWindowLeft() << ";\n"
     << "  static constexpr int kWindowRight = " << kind.getWindowRight() << ";\n"
     << "  static constexpr bool kKeyPadding = " << boolText(kind.getKeyPadding()) << ";\n"
     << "  static constexpr bool kKeep = " << boolText(kind.getKeep()) << ";\n"
     << "  static constexpr bool kBias = " << boolText(kind.getBias()) << ";\n"
     << "  static constexpr int kLengthsInput = " << lengthsSlot << ";\n"
     << "  static constexpr int kKeepInput = " << keepSlot << ";\n"
     << "  static constexpr int kBiasInput = " << biasSlot << ";\n";
  FailureOr<Emission> e = emitMap(
      mask, shape, "    return attn::graph::applyMask<Config>(x, p, idx);\n",
      extra);
  if (failed(e))
    return failure();
  for (auto [on, name] :
       {std::pair<bool, const char *>{kind.getCausal(), "_causal"},
        {kind.getBottomRight(), "br"},
        {kind.getAlignsToTensor(), "t"},
        {kind.hasWindow(), "_window"},
        {kind.getKeyPadding(), "_padded"},
        {kind.getKeep(), "_keep"},
        {kind.getBias(), "_bias"}})
    if (on)
      e->suffix += name;
  return e;
}

FailureOr<Emission> emitScoreMod(ScoreModOp scoreMod, const Shape4 &shape) {
  std::string extra;
  llvm::raw_string_ostream os(extra);
  if (failed(printScoreModFunction(&scoreMod.getBody(), os)))
    return failure();
  // The captures are the kernel's inputs after the scores (contiguous).
  return emitMap(scoreMod, shape,
                 "    return scoreMod(x, idx[0], idx[1], idx[2], idx[3], "
                 "p.in + 1);\n",
                 extra);
}

FailureOr<Emission> emitSoftmax(SoftmaxOp softmax, const Shape4 &shape) {
  // The dim of the rank-4 view.
  int64_t dim = softmax.getNormalizedDim() +
                (4 - softmax.getInput().getType().getRank());
  FailureOr<::attn::ElementType> in =
      elementTypeOf(softmax, elementOf(softmax.getInput()));
  FailureOr<::attn::ElementType> out =
      elementTypeOf(softmax, elementOf(softmax.getResult()));
  if (failed(in) || failed(out))
    return failure();
  Emission e;
  e.suffix = "_d" + std::to_string(dim);
  e.templateName = "Softmax";
  e.configBody = std::string("  using In = ") + templateElement(*in) + ";\n" +
                 "  using Out = " + templateElement(*out) + ";\n" +
                 "  using Shape = " + shapeType(shape) + ";\n" +
                 "  static constexpr int kDim = " + std::to_string(dim) + ";\n";
  e.threads = kSoftmaxThreads;
  e.grid[0] = numElements(shape) / shape[dim];
  return e;
}

FailureOr<Emission> emitMatmul(MatmulOp matmul, const Shape4 &outShape) {
  FailureOr<Shape4> lhs = rank4Shape(matmul, matmul.getLhs().getType(), "lhs");
  FailureOr<Shape4> rhs = rank4Shape(matmul, matmul.getRhs().getType(), "rhs");
  FailureOr<::attn::ElementType> element =
      elementTypeOf(matmul, elementOf(matmul.getLhs()));
  FailureOr<::attn::ElementType> out =
      elementTypeOf(matmul, elementOf(matmul.getResult()));
  if (failed(lhs) || failed(rhs) || failed(element) || failed(out))
    return failure();
  bool transposeLhs = matmul.getTransposeLhs(),
       transposeRhs = matmul.getTransposeRhs();
  int64_t depth = transposeLhs ? (*lhs)[2] : (*lhs)[3];
  Emission e;
  e.suffix = "_k" + std::to_string(depth);
  if (transposeLhs)
    e.suffix += "_tl";
  if (transposeRhs)
    e.suffix += "_tr";
  if ((*rhs)[1] != outShape[1])
    e.suffix += "_gqa" + std::to_string(outShape[1] / (*rhs)[1]);
  e.templateName = "Matmul";
  e.configBody = std::string("  using Element = ") + templateElement(*element) +
                 ";\n  using Out = " + templateElement(*out) + ";\n" +
                 "  using LhsShape = " + shapeType(*lhs) + ";\n" +
                 "  using RhsShape = " + shapeType(*rhs) + ";\n" +
                 "  using OutShape = " + shapeType(outShape) + ";\n" +
                 "  static constexpr bool kTransposeLhs = " +
                 boolText(transposeLhs) + ";\n" +
                 "  static constexpr bool kTransposeRhs = " +
                 boolText(transposeRhs) + ";\n";
  e.threads = kMatmulThreads;
  e.grid = {(outShape[3] + kMatmulTile - 1) / kMatmulTile,
            (outShape[2] + kMatmulTile - 1) / kMatmulTile,
            outShape[0] * outShape[1]};
  return e;
}

/// "bf16", or "f32_bf16" when the op converts.
std::string elementsName(Operation *payload) {
  auto name = [](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t;
    return s;
  };
  std::string in = name(elementOf(payload->getOperand(0)));
  std::string out = name(elementOf(payload->getResult(0)));
  return in == out ? in : in + "_" + out;
}

} // namespace

FailureOr<::attn::KernelSpec> mlir::attn::emitGraphKernel(KernelOp op) {
  Operation *payload = op.getPayload();
  FailureOr<Shape4> outShape =
      rank4Shape(op, op.getResult().getType(), "the result");
  if (failed(outShape) ||
      failed(checkElementCount(op, *outShape, "the result")))
    return failure();
  ::attn::KernelSpec spec;
  spec.kind = ::attn::KernelKind::GraphOp;
  spec.variant = "graph";
  spec.outputShape = *outShape;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    FailureOr<Shape4> shape =
        rank4Shape(op, input.getType(), "input " + std::to_string(i));
    if (failed(shape) || failed(checkElementCount(
                             op, *shape, "input " + std::to_string(i))))
      return failure();
    spec.inputShapes.push_back(*shape);
  }
  if (spec.inputShapes.size() > 4)
    return op.emitOpError() << "has " << spec.inputShapes.size()
                            << " inputs; a graph-op kernel takes at most 4";

  FailureOr<Emission> emission =
      llvm::TypeSwitch<Operation *, FailureOr<Emission>>(payload)
          .Case([&](MatmulOp matmul) { return emitMatmul(matmul, *outShape); })
          .Case([&](SoftmaxOp softmax) { return emitSoftmax(softmax, *outShape); })
          .Case([&](MaskOp mask) { return emitMask(mask, *outShape); })
          .Case([&](ScoreModOp scoreMod) {
            return emitScoreMod(scoreMod, *outShape);
          })
          .Case([&](ScaleOp scale) {
            return emitMap(scale, *outShape,
                           "    return x * " +
                               floatLiteral(scale.getFactor()) + ";\n");
          })
          .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *cast) {
            return emitMap(cast, *outShape, "    return x;\n");
          })
          .Default([&](Operation *other) -> FailureOr<Emission> {
            return op.emitOpError()
                   << "runs '" << other->getName()
                   << "', for which there is no GPU kernel";
          });
  if (failed(emission))
    return failure();
  // y and z are limited to 65535 blocks, x to 2^31 - 1.
  const int64_t limits[3] = {std::numeric_limits<int32_t>::max(), 65535, 65535};
  for (int d = 0; d < 3; ++d) {
    if (emission->grid[d] > limits[d])
      return op.emitOpError()
             << "needs " << emission->grid[d] << " blocks along grid dimension "
             << d << "; CUDA allows " << limits[d];
    spec.grid[d] = static_cast<unsigned>(emission->grid[d]);
  }
  spec.graphOp = payload->getName().stripDialect().str();
  spec.threads = emission->threads;
  spec.name = "attn_" + spec.graphOp + "_" + elementsName(payload) + "_" +
              shapeName(*outShape) + emission->suffix;

  llvm::raw_string_ostream os(spec.source);
  os << "// Generated by attn from " << op.getLoc() << "\n"
     << "// " << spec.name << ": " << spec.threads << " threads, grid "
     << spec.grid[0] << "x" << spec.grid[1] << "x" << spec.grid[2] << "\n"
     << "#include \"attn/graph_ops.cuh\"\n\n"
     << "namespace {\n"
     << "struct Config {\n"
     << emission->configBody << "};\n"
     << "using Kernel = attn::graph::" << emission->templateName << "<Config>;\n"
     << "static_assert(Kernel::kThreads == " << spec.threads
     << " && Kernel::kGridX == " << spec.grid[0]
     << " && Kernel::kGridY == " << spec.grid[1]
     << " && Kernel::kGridZ == " << spec.grid[2]
     << ", \"launch geometry of the emitter and the template disagree\");\n"
     << "} // namespace\n\n"
     << "extern \"C\" __global__ void __launch_bounds__(Kernel::kThreads, "
        "Kernel::kMinBlocks) "
     << spec.name << "(const attn::GraphParams params) {\n"
     << "  Kernel::run(params);\n"
     << "}\n";
  return spec;
}
