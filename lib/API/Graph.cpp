//===- Graph.cpp - Building attention graphs in C++ -----------------------===//
//
// The builder writes the graph as MLIR text in the order frameworks export
// it; compiling it then goes through the same parser, verifier and passes as
// any other input.
//
//===----------------------------------------------------------------------===//

#include "attn/attn.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace attn {

namespace {

std::string tensorType(const std::vector<int64_t> &shape, const char *element) {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  return text + element + ">";
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

Status invalid(const std::string &message) {
  return Status(StatusCode::InvalidArgument, "sdpa: " + message);
}

} // namespace

Graph::Tensor Graph::input(const std::string &name, DataType type,
                           std::vector<int64_t> shape) {
  nodes_.push_back({name, type, std::move(shape)});
  inputs_.push_back(static_cast<int>(nodes_.size()) - 1);
  return Tensor{static_cast<int>(nodes_.size()) - 1};
}

void Graph::output(Tensor tensor) { outputs_.push_back(tensor.id); }

Result<Graph::Tensor> Graph::sdpa(Tensor qRef, Tensor kRef, Tensor vRef,
                                  const SdpaOptions &options) {
  auto valid = [&](Tensor t) {
    return t.id >= 0 && t.id < static_cast<int>(nodes_.size());
  };
  if (!valid(qRef) || !valid(kRef) || !valid(vRef))
    return invalid("q, k and v must be tensors of this graph");
  const Node q = nodes_[qRef.id], k = nodes_[kRef.id], v = nodes_[vRef.id];
  for (const Node *n : {&q, &k, &v})
    if (n->shape.size() != 4)
      return invalid("'" + n->name + "' has shape " + shapeText(n->shape) +
                     "; expected [batch, heads, seq, head_dim]");
  // Checked before any division by a head count; the verifiers would
  // reject the text anyway.
  for (const Node *n : {&q, &k, &v})
    for (int64_t extent : n->shape)
      if (extent < 1 || extent > 2147483647)
        return invalid("'" + n->name + "' has shape " + shapeText(n->shape) +
                       "; extents must be between 1 and 2147483647");
  if (q.type != k.type || q.type != v.type ||
      (q.type != DataType::F16 && q.type != DataType::BF16))
    return invalid("q, k and v must be all f16 or all bf16");
  if (k.shape[0] != q.shape[0] || v.shape[0] != q.shape[0])
    return invalid("batch sizes differ: q " + std::to_string(q.shape[0]) +
                   ", k " + std::to_string(k.shape[0]) + ", v " +
                   std::to_string(v.shape[0]));
  if (k.shape[1] != v.shape[1] || q.shape[1] % k.shape[1] != 0)
    return invalid("k and v heads (" + std::to_string(k.shape[1]) + ", " +
                   std::to_string(v.shape[1]) +
                   ") must be equal and divide q heads (" +
                   std::to_string(q.shape[1]) + ")");
  if (k.shape[2] != v.shape[2])
    return invalid("k and v sequence lengths differ: " +
                   std::to_string(k.shape[2]) + " and " +
                   std::to_string(v.shape[2]));
  if (k.shape[3] != q.shape[3])
    return invalid("q and k head dims differ: " + std::to_string(q.shape[3]) +
                   " and " + std::to_string(k.shape[3]));

  int64_t b = q.shape[0], h = q.shape[1], sq = q.shape[2], skv = k.shape[2];
  std::string scores = tensorType({b, h, sq, skv}, "f32");
  std::ostringstream os;
  auto fresh = [&] { return "t" + std::to_string(counter_++); };
  std::string s = fresh();
  os << "  %" << s << " = attn.matmul %" << q.name << ", %" << k.name
     << " {transpose_rhs} : " << tensorType(q.shape, elementTypeName(q.type)) << ", "
     << tensorType(k.shape, elementTypeName(k.type)) << " -> " << scores << "\n";
  float scale = options.scale.value_or(1.0f / std::sqrt(float(q.shape[3])));
  char scaleText[32];
  std::snprintf(scaleText, sizeof(scaleText), "%.9g", scale);
  std::string t = fresh();
  os << "  %" << t << " = attn.scale %" << s << " {factor = " << scaleText
     << " : f32} : " << scores << "\n";
  std::string current = t;
  if (!options.scoreModCaptures.empty() && options.scoreMod.empty())
    return invalid("score_mod captures need a score_mod");
  if (!options.scoreMod.empty()) {
    std::string captures, captureTypes, captureArgs;
    for (auto [i, capture] : llvm::enumerate(options.scoreModCaptures)) {
      if (!valid(capture))
        return invalid("score_mod capture " + std::to_string(i) +
                       " is not a tensor of this graph");
      const Node &n = nodes_[capture.id];
      std::string type = tensorType(n.shape, elementTypeName(n.type));
      captures += (i ? ", %" : "%") + n.name;
      captureTypes += (i ? ", " : "") + type;
      captureArgs += ", %capture" + std::to_string(i) + ": " + type;
    }
    std::string m = fresh();
    os << "  %" << m << " = attn.score_mod %" << current;
    if (!captures.empty())
      os << " captures(" << captures << " : " << captureTypes << ")";
    os << " {\n"
       << "  ^bb0(%score: f32, %b: index, %h: index, %q_idx: index, %kv_idx: "
          "index"
       << captureArgs << "):\n    " << options.scoreMod << "\n  } : "
       << scores << "\n";
    current = m;
  }

  std::vector<std::string> items;
  if (options.causal)
    items.push_back("causal");
  if (options.windowLeft >= 0 || options.windowRight >= 0)
    items.push_back("window = [" + std::to_string(options.windowLeft) + ", " +
                    std::to_string(options.windowRight) + "]");
  if (options.bottomRight)
    items.push_back("bottom_right");
  std::string operands;
  auto addOperand = [&](const std::optional<Tensor> &t, const char *item,
                        const char *keyword) -> Status {
    if (!t)
      return Status::ok();
    if (!valid(*t))
      return invalid(std::string("'") + keyword + "' is not a tensor of this graph");
    const Node &n = nodes_[t->id];
    items.push_back(item);
    operands += std::string(" ") + keyword + "(%" + n.name + " : " +
                tensorType(n.shape, elementTypeName(n.type)) + ")";
    return Status::ok();
  };
  if (Status st = addOperand(options.lengths, "key_padding", "lengths"); !st)
    return st;
  if (Status st = addOperand(options.keep, "keep", "keep"); !st)
    return st;
  if (Status st = addOperand(options.bias, "bias", "bias"); !st)
    return st;
  if (!items.empty()) {
    std::string m = fresh();
    os << "  %" << m << " = attn.mask %" << current << operands
       << " {kind = #attn.mask<";
    for (size_t i = 0; i < items.size(); ++i)
      os << (i ? ", " : "") << items[i];
    os << ">} : " << scores << "\n";
    current = m;
  }
  std::string p = fresh();
  std::string probs = tensorType({b, h, sq, skv}, elementTypeName(q.type));
  os << "  %" << p << " = attn.softmax %" << current << " {dim = 3} : "
     << scores << " -> " << probs << "\n";
  std::string o = fresh();
  std::vector<int64_t> outShape = {b, h, sq, v.shape[3]};
  os << "  %" << o << " = attn.matmul %" << p << ", %" << v.name << " : "
     << probs << ", " << tensorType(v.shape, elementTypeName(v.type)) << " -> "
     << tensorType(outShape, elementTypeName(q.type)) << "\n";
  body_ += os.str();
  nodes_.push_back({o, q.type, outShape});
  return Tensor{static_cast<int>(nodes_.size()) - 1};
}

Result<std::string> Graph::toMLIR() const {
  if (outputs_.empty())
    return Status(StatusCode::InvalidArgument, "the graph has no output");
  std::ostringstream os;
  os << "func.func @graph(";
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Node &n = nodes_[inputs_[i]];
    os << (i ? ", " : "") << "%" << n.name << ": "
       << tensorType(n.shape, elementTypeName(n.type));
  }
  os << ") -> (";
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Node &n = nodes_[outputs_[i]];
    os << (i ? ", " : "") << tensorType(n.shape, elementTypeName(n.type));
  }
  os << ") {\n" << body_ << "  return ";
  for (size_t i = 0; i < outputs_.size(); ++i)
    os << (i ? ", " : "") << "%" << nodes_[outputs_[i]].name;
  os << " : ";
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Node &n = nodes_[outputs_[i]];
    os << (i ? ", " : "") << tensorType(n.shape, elementTypeName(n.type));
  }
  os << "\n}\n";
  return os.str();
}

Result<CompiledModule> compileGraph(Context &context, const Graph &graph,
                                    const CompileOptions &options) {
  Result<std::string> text = graph.toMLIR();
  if (!text)
    return text.status();
  return compileSource(context, *text, options, "<graph>");
}

} // namespace attn
