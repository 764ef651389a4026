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

/// Whether `t` is a tensor of a graph of `nodes` nodes.
bool inGraph(Graph::Tensor t, size_t nodes) {
  return t.id >= 0 && t.id < static_cast<int>(nodes);
}

/// Why the tensor `name` of `shape` cannot be attention's (an extent out of
/// the kernels' 32-bit range), or "" where it can.
std::string extentsProblem(const std::string &name,
                           const std::vector<int64_t> &shape) {
  for (int64_t extent : shape)
    if (extent < 1 || extent > 2147483647)
      return "'" + name + "' has shape " + shapeText(shape) +
             "; extents must be between 1 and 2147483647";
  return "";
}

/// Whether q, k and v are all f16 or all bf16, what the kernels take.
bool sameHalfType(DataType q, DataType k, DataType v) {
  return q == k && q == v && (q == DataType::F16 || q == DataType::BF16);
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
  auto valid = [&](Tensor t) { return inGraph(t, nodes_.size()); };
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
    if (std::string problem = extentsProblem(n->name, n->shape);
        !problem.empty())
      return invalid(problem);
  if (!sameHalfType(q.type, k.type, v.type))
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
  if (options.sinks) {
    // gpt-oss's form: the sinks broadcast to a column of the scores, which
    // the softmax normalizes with them and the slice drops.
    if (!valid(*options.sinks))
      return invalid("'sinks' is not a tensor of this graph");
    const Node &n = nodes_[options.sinks->id];
    if (n.type != DataType::F32 || n.shape != std::vector<int64_t>{1, h, 1, 1})
      return invalid("'" + n.name + "' must be f32 [1, " + std::to_string(h) +
                     ", 1, 1] (one sink logit per query head), got " +
                     elementTypeName(n.type) + " " + shapeText(n.shape));
    std::string column = tensorType({b, h, sq, 1}, "f32");
    std::string withSink = tensorType({b, h, sq, skv + 1}, "f32");
    std::string zero = fresh(), col = fresh(), cat = fresh(), all = fresh();
    os << "  %" << zero << " = arith.constant dense<0.0> : " << column << "\n"
       << "  %" << col << " = attn.mask %" << zero << " bias(%" << n.name
       << " : " << tensorType(n.shape, "f32")
       << ") {kind = #attn.mask<bias>} : " << column << "\n"
       << "  %" << cat << " = tensor.concat dim(3) %" << current << ", %"
       << col << " : (" << scores << ", " << column << ") -> " << withSink
       << "\n"
       << "  %" << all << " = attn.softmax %" << cat << " {dim = 3} : "
       << withSink << " -> "
       << tensorType({b, h, sq, skv + 1}, elementTypeName(q.type)) << "\n"
       << "  %" << p << " = tensor.extract_slice %" << all
       << "[0, 0, 0, 0] [" << b << ", " << h << ", " << sq << ", " << skv
       << "] [1, 1, 1, 1] : "
       << tensorType({b, h, sq, skv + 1}, elementTypeName(q.type)) << " to "
       << probs << "\n";
  } else {
    os << "  %" << p << " = attn.softmax %" << current << " {dim = 3} : "
       << scores << " -> " << probs << "\n";
  }
  std::string o = fresh();
  std::vector<int64_t> outShape = {b, h, sq, v.shape[3]};
  os << "  %" << o << " = attn.matmul %" << p << ", %" << v.name << " : "
     << probs << ", " << tensorType(v.shape, elementTypeName(v.type)) << " -> "
     << tensorType(outShape, elementTypeName(q.type)) << "\n";
  body_ += os.str();
  nodes_.push_back({o, q.type, outShape});
  return Tensor{static_cast<int>(nodes_.size()) - 1};
}

Result<Graph::Attention> Graph::varlen(Tensor qRef, Tensor kRef, Tensor vRef,
                                       Tensor cuQRef, Tensor cuKRef,
                                       const VarlenOptions &options) {
  auto valid = [&](Tensor t) { return inGraph(t, nodes_.size()); };
  auto fail = [](const std::string &message) {
    return Status(StatusCode::InvalidArgument, "varlen: " + message);
  };
  for (Tensor t : {qRef, kRef, vRef, cuQRef, cuKRef})
    if (!valid(t))
      return fail("q, k, v and the offsets must be tensors of this graph");
  const Node q = nodes_[qRef.id], k = nodes_[kRef.id], v = nodes_[vRef.id],
             cuQ = nodes_[cuQRef.id], cuK = nodes_[cuKRef.id];
  for (const Node *n : {&q, &k, &v}) {
    if (n->shape.size() != 3)
      return fail("'" + n->name + "' has shape " + shapeText(n->shape) +
                  "; expected packed [tokens, heads, head_dim]");
    if (std::string problem = extentsProblem(n->name, n->shape);
        !problem.empty())
      return fail(problem);
  }
  for (const Node *n : {&cuQ, &cuK})
    if (n->shape.size() != 1 || n->shape[0] < 2 || n->type != DataType::I32)
      return fail("'" + n->name + "' must be i32 [batch + 1] offsets, got " +
                  elementTypeName(n->type) + " " + shapeText(n->shape));
  if (cuQ.shape != cuK.shape)
    return fail("the offsets of queries and keys differ in batch: " +
                shapeText(cuQ.shape) + " and " + shapeText(cuK.shape));
  if (!sameHalfType(q.type, k.type, v.type))
    return fail("q, k and v must be all f16 or all bf16");
  if (k.shape[1] != v.shape[1] || q.shape[1] % k.shape[1] != 0 ||
      k.shape[0] != v.shape[0] || k.shape[2] != q.shape[2])
    return fail("k " + shapeText(k.shape) + " and v " + shapeText(v.shape) +
                " must share tokens and heads, their heads divide q's and "
                "k's head dim be q's " +
                shapeText(q.shape));
  FlashOpText op;
  op.cuSeqlensQ = operandText(cuQ);
  op.cuSeqlensK = operandText(cuK);
  return appendFlash("varlen", q, k, v, op,
                     {q.shape[0], q.shape[1], v.shape[2]},
                     {q.shape[1], q.shape[0]}, q.shape[2], options);
}

Result<Graph::Attention> Graph::paged(Tensor qRef, Tensor kRef, Tensor vRef,
                                      Tensor lengthsRef, Tensor tableRef,
                                      const VarlenOptions &options) {
  auto valid = [&](Tensor t) { return inGraph(t, nodes_.size()); };
  auto fail = [](const std::string &message) {
    return Status(StatusCode::InvalidArgument, "paged: " + message);
  };
  for (Tensor t : {qRef, kRef, vRef, lengthsRef, tableRef})
    if (!valid(t))
      return fail("q, the caches, the lengths and the block table must be "
                  "tensors of this graph");
  const Node q = nodes_[qRef.id], k = nodes_[kRef.id], v = nodes_[vRef.id],
             lengths = nodes_[lengthsRef.id], table = nodes_[tableRef.id];
  for (const Node *n : {&q, &k, &v}) {
    if (n->shape.size() != 4)
      return fail("'" + n->name + "' has shape " + shapeText(n->shape) +
                  (n == &q ? "; expected [batch, heads, seq, head_dim]"
                           : "; expected pages [pages, heads, page_size, "
                             "head_dim]"));
    if (std::string problem = extentsProblem(n->name, n->shape);
        !problem.empty())
      return fail(problem);
  }
  if (table.type != DataType::I32 || table.shape.size() != 2 ||
      table.shape[0] != q.shape[0])
    return fail("'" + table.name + "' must be i32 [" +
                std::to_string(q.shape[0]) + ", pages per sequence], got " +
                elementTypeName(table.type) + " " + shapeText(table.shape));
  if (lengths.type != DataType::I32 ||
      lengths.shape != std::vector<int64_t>{q.shape[0]})
    return fail("'" + lengths.name + "' must be i32 [" +
                std::to_string(q.shape[0]) + "] (cache_seqlens), got " +
                elementTypeName(lengths.type) + " " + shapeText(lengths.shape));
  if (!sameHalfType(q.type, k.type, v.type))
    return fail("q, k and v must be all f16 or all bf16");
  if (k.shape[0] != v.shape[0] || k.shape[1] != v.shape[1] ||
      k.shape[2] != v.shape[2] || q.shape[1] % k.shape[1] != 0 ||
      k.shape[3] != q.shape[3])
    return fail("the caches " + shapeText(k.shape) + " and " +
                shapeText(v.shape) +
                " must share pages, heads and page size, their heads divide "
                "q's and k's head dim be q's " +
                shapeText(q.shape));
  FlashOpText op;
  op.lengths = operandText(lengths);
  op.blockTable = operandText(table);
  return appendFlash("paged", q, k, v, op,
                     {q.shape[0], q.shape[1], q.shape[2], v.shape[3]},
                     {q.shape[0], q.shape[1], q.shape[2]}, q.shape[3], options);
}

FlashOperandText Graph::operandText(const Node &node) {
  return {node.name, node.type, node.shape};
}

Result<Graph::Attention>
Graph::appendFlash(const char *form, const Node &q, const Node &k,
                   const Node &v, FlashOpText op, std::vector<int64_t> outShape,
                   std::vector<int64_t> lseShape, int64_t headDim,
                   const VarlenOptions &options) {
  auto valid = [&](Tensor t) { return inGraph(t, nodes_.size()); };
  auto fail = [&](const std::string &message) {
    return Status(StatusCode::InvalidArgument,
                  std::string(form) + ": " + message);
  };
  if (!options.scoreModCaptures.empty() && options.scoreMod.empty())
    return fail("score_mod captures need a score_mod");
  op.q = operandText(q);
  op.k = operandText(k);
  op.v = operandText(v);
  const bool paged = op.blockTable.has_value();
  op.causal = options.causal;
  if (options.windowLeft >= 0 || options.windowRight >= 0)
    op.window = {options.windowLeft, options.windowRight};
  // A paged cache aligns to each sequence's length.
  op.bottomRight = (options.bottomRight || paged) && (op.causal || op.window);
  for (auto [i, capture] : llvm::enumerate(options.scoreModCaptures)) {
    if (!valid(capture))
      return fail("score_mod capture " + std::to_string(i) +
                  " is not a tensor of this graph");
    op.captures.push_back(operandText(nodes_[capture.id]));
  }
  if (options.sinks) {
    if (!valid(*options.sinks))
      return fail("'sinks' is not a tensor of this graph");
    const Node &n = nodes_[options.sinks->id];
    const int64_t heads = op.q.shape[1];
    if (n.type != DataType::F32 || n.shape != std::vector<int64_t>{heads})
      return fail("'" + n.name + "' must be f32 [" + std::to_string(heads) +
                  "] (one sink logit per query head), got " +
                  elementTypeName(n.type) + " " + shapeText(n.shape));
    op.sinks = operandText(n);
  }
  // The f32 widened exactly: its text reads back as this f32.
  op.scale = options.scale.value_or(1.0f / std::sqrt(float(headDim)));
  op.scoreMod = options.scoreMod;
  op.returnLse = options.returnLse;
  op.outputName = "t" + std::to_string(counter_);
  if (options.returnLse)
    op.lseName = "t" + std::to_string(counter_ + 1);
  Result<std::string> text = writeFlashOp(op);
  if (!text)
    return fail(text.status().message());
  counter_ += options.returnLse ? 2 : 1;
  body_ += "  " + *text + "\n";
  Attention result;
  nodes_.push_back({op.outputName, op.q.element, outShape});
  result.output = Tensor{static_cast<int>(nodes_.size()) - 1};
  if (options.returnLse) {
    nodes_.push_back({op.lseName, DataType::F32, lseShape});
    result.lse = Tensor{static_cast<int>(nodes_.size()) - 1};
  }
  return result;
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
