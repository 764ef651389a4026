//===- FlashOpText.cpp - The one writer of attn.flash text ----------------===//
//
// The spelling is the Python package's, which every kernel cache and test
// of it has seen: operands in the op's assembly order, mask items in the
// order MaskAttr prints them, the region's lines indented by four spaces.
//
//===----------------------------------------------------------------------===//

#include "attn/API/FlashOpText.h"

#include <charconv>
#include <cmath>
#include <map>

namespace attn {

namespace {

// Unprefixed: each caller says which call it was.
Status invalid(const std::string &message) {
  return Status(StatusCode::InvalidArgument, message);
}

std::string tensorType(const FlashOperandText &t) {
  std::string text = "tensor<";
  for (int64_t extent : t.shape)
    text += (extent == kDynamicExtent ? "?" : std::to_string(extent)) + "x";
  return text + elementTypeName(t.element) + ">";
}

/// MLIR's suffix-id (what follows '%'): digits, or a letter or one of
/// "$._-" and then those or digits.
bool isValueName(const std::string &name) {
  if (name.empty())
    return false;
  auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
  auto isStart = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '$' ||
           c == '.' || c == '_' || c == '-';
  };
  bool digits = true;
  for (char c : name)
    digits = digits && isDigit(c);
  if (digits)
    return true;
  if (!isStart(name[0]))
    return false;
  for (char c : name)
    if (!isStart(c) && !isDigit(c))
      return false;
  return true;
}

/// MLIR's bare-id (a symbol after '@').
bool isSymbolName(const std::string &name) {
  if (name.empty())
    return false;
  auto isLetter = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!isLetter(name[0]))
    return false;
  for (char c : name)
    if (!isLetter(c) && !(c >= '0' && c <= '9') && c != '$' && c != '.')
      return false;
  return true;
}

/// One operand as the writer uses it: its role (for messages), name and
/// type.
struct Operand {
  std::string role, name, type;
};

/// `t` as an Operand with `defaultName` where it has none, or why it
/// cannot be written.
Result<Operand> operandOf(const std::string &role, const FlashOperandText &t,
                          const std::string &defaultName) {
  std::string name = t.name.empty() ? defaultName : t.name;
  if (!isValueName(name))
    return invalid(role + " is named '" + name +
                   "', which is not an SSA name (letters, digits and "
                   "'$._-', not starting with a digit unless all digits)");
  for (int64_t extent : t.shape)
    if (extent < 0 && extent != kDynamicExtent)
      return invalid(role + " has extent " + std::to_string(extent) +
                     "; extents are >= 0, or kDynamicExtent (-1) for '?'");
  return Operand{role, name, tensorType(t)};
}

} // namespace

std::string writeShortestDouble(double value) {
  // to_chars gives the shortest digits that read back as `value`; laid
  // out here as Python's repr lays them out.
  char buffer[64];
  auto end = std::to_chars(buffer, buffer + sizeof(buffer), value,
                           std::chars_format::scientific)
                 .ptr;
  std::string scientific(buffer, end);
  std::string sign;
  if (!scientific.empty() && scientific[0] == '-') {
    sign = "-";
    scientific.erase(0, 1);
  }
  size_t e = scientific.find('e');
  std::string digits = scientific.substr(0, e);
  if (digits.size() > 1)
    digits.erase(1, 1); // the '.'
  int exponent = std::stoi(scientific.substr(e + 1));
  // value = 0.DIGITS * 10^point.
  int point = exponent + 1;
  int count = static_cast<int>(digits.size());
  if (point > -4 && point <= 16) {
    if (point <= 0)
      return sign + "0." + std::string(-point, '0') + digits;
    if (point >= count)
      return sign + digits + std::string(point - count, '0') + ".0";
    return sign + digits.substr(0, point) + "." + digits.substr(point);
  }
  std::string mantissa =
      digits.substr(0, 1) + "." + (count > 1 ? digits.substr(1) : "0");
  std::string power = std::to_string(std::abs(exponent));
  if (power.size() < 2)
    power = "0" + power;
  return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + power;
}

Result<std::string> writeFlashOp(const FlashOpText &op) {
  if (!op.function.empty() && !isSymbolName(op.function))
    return invalid("the function is named '" + op.function +
                   "', which is not a symbol name (a letter or '_', then "
                   "letters, digits and '_$.')");
  if (!std::isfinite(op.scale))
    return invalid("scale must be finite, got " + std::to_string(op.scale));
  if (op.cuSeqlensQ.has_value() != op.cuSeqlensK.has_value())
    return invalid(
        "cu_seqlens_q and cu_seqlens_k go together (the offsets "
        "of a ragged batch's queries and keys); got only " +
        std::string(op.cuSeqlensQ ? "cu_seqlens_q" : "cu_seqlens_k"));
  if (!op.captures.empty() && op.scoreMod.empty())
    return invalid("captures are read by a score_mod, and there is none");
  // The results' types follow q's and v's.
  const bool packed = op.cuSeqlensQ.has_value();
  const size_t rank = packed ? 3 : 4;
  for (const FlashOperandText *t : {&op.q, &op.v})
    if (t->shape.size() != rank)
      return invalid(std::string(t == &op.q ? "q" : "v") + " has rank " +
                     std::to_string(t->shape.size()) + "; expected " +
                     (packed ? "3 ([tokens, heads, head_dim], with cu_seqlens)"
                             : "4 ([batch, heads, seq, head_dim])"));
  if (op.k.shape.size() != 3 && op.k.shape.size() != 4)
    return invalid("k has rank " + std::to_string(op.k.shape.size()) +
                   "; expected 3 or 4");

  // Operands in the op's assembly order; the role of each but q, k, v and
  // the captures is its keyword.
  std::vector<Operand> operands;
  Status error = Status::ok();
  auto add = [&](const std::string &role, const FlashOperandText *t,
                 const std::string &defaultName) {
    if (!t || !error)
      return;
    Result<Operand> operand = operandOf(role, *t, defaultName);
    if (operand)
      operands.push_back(std::move(*operand));
    else
      error = operand.status();
  };
  auto optional = [](const std::optional<FlashOperandText> &t) {
    return t ? &*t : nullptr;
  };
  add("q", &op.q, "q");
  add("k", &op.k, "k");
  add("v", &op.v, "v");
  add("lengths", optional(op.lengths), "len");
  add("keep", optional(op.keep), "keep");
  add("bias", optional(op.bias), "bias");
  const size_t firstCapture = operands.size();
  for (size_t i = 0; i < op.captures.size(); ++i)
    add("capture " + std::to_string(i), &op.captures[i],
        "captured" + std::to_string(i));
  const size_t afterCaptures = operands.size();
  add("cu_seqlens_q", optional(op.cuSeqlensQ), "cq");
  add("cu_seqlens_k", optional(op.cuSeqlensK), "ck");
  add("sinks", optional(op.sinks), "sinks");
  add("block_table", optional(op.blockTable), "table");
  if (!error)
    return error;

  if (!isValueName(op.outputName))
    return invalid("the output is named '" + op.outputName +
                   "', which is not an SSA name");
  if (op.returnLse && !isValueName(op.lseName))
    return invalid("the logsumexp is named '" + op.lseName +
                   "', which is not an SSA name");
  if (op.returnLse && op.outputName == op.lseName)
    return invalid("the output and the logsumexp are both named '" +
                   op.outputName + "'");

  const FlashOperandText &q = op.q, &v = op.v;
  FlashOperandText out{"", q.element, {}}, lse{"", ElementType::F32, {}};
  if (packed) {
    out.shape = {q.shape[0], q.shape[1], v.shape[2]};
    lse.shape = {q.shape[1], q.shape[0]};
  } else {
    out.shape = {q.shape[0], q.shape[1], q.shape[2], v.shape[3]};
    lse.shape = {q.shape[0], q.shape[1], q.shape[2]};
  }
  std::string results = tensorType(out);
  std::string names = "%" + op.outputName;
  if (op.returnLse) {
    results += ", " + tensorType(lse);
    names += ", %" + op.lseName;
  }

  std::string text = names + " = attn.flash %" + operands[0].name + ", %" +
                     operands[1].name + ", %" + operands[2].name;
  auto clause = [&](const Operand &o) {
    text += " " + o.role + "(%" + o.name + " : " + o.type + ")";
  };
  for (size_t i = 3; i < firstCapture; ++i)
    clause(operands[i]);
  if (afterCaptures > firstCapture) {
    std::string values, types;
    for (size_t i = firstCapture; i < afterCaptures; ++i) {
      values += (i > firstCapture ? ", %" : "%") + operands[i].name;
      types += (i > firstCapture ? ", " : "") + operands[i].type;
    }
    text += " captures(" + values + " : " + types + ")";
  }
  for (size_t i = afterCaptures; i < operands.size(); ++i)
    clause(operands[i]);

  std::vector<std::string> items;
  if (op.causal)
    items.push_back("causal");
  if (op.window)
    items.push_back("window = [" + std::to_string(op.window->first) + ", " +
                    std::to_string(op.window->second) + "]");
  if (op.bottomRight)
    items.push_back("bottom_right");
  if (op.lengths)
    items.push_back("key_padding");
  if (op.keep)
    items.push_back("keep");
  if (op.bias)
    items.push_back("bias");
  text += " {scale = " + writeShortestDouble(op.scale) + " : f32";
  if (!items.empty()) {
    text += ", mask = #attn.mask<";
    for (size_t i = 0; i < items.size(); ++i)
      text += (i ? ", " : "") + items[i];
    text += ">";
  }
  if (op.transposeK)
    text += ", transpose_k";
  text += "}";

  if (!op.scoreMod.empty()) {
    text += " score_mod {\n  ^bb0(%score: f32, %b: index, %h: index, "
            "%q_idx: index, %kv_idx: index";
    for (size_t i = firstCapture; i < afterCaptures; ++i)
      text += ", %capture" + std::to_string(i - firstCapture) + ": " +
              operands[i].type;
    text += "):\n    ";
    for (char c : op.scoreMod)
      text += c == '\n' ? std::string("\n    ") : std::string(1, c);
    text += "\n  }";
  }
  text += " : " + operands[0].type + ", " + operands[1].type + ", " +
          operands[2].type + " -> " + results;
  if (op.function.empty())
    return text;

  // The function's arguments: the offsets of a ragged batch come right
  // after q, k and v, as the Python package has always had them.
  std::vector<const Operand *> arguments = {&operands[0], &operands[1],
                                            &operands[2]};
  for (size_t i = afterCaptures; i < operands.size(); ++i)
    if (operands[i].role == "cu_seqlens_q" ||
        operands[i].role == "cu_seqlens_k")
      arguments.push_back(&operands[i]);
  for (size_t i = 3; i < afterCaptures; ++i)
    arguments.push_back(&operands[i]);
  for (size_t i = afterCaptures; i < operands.size(); ++i)
    if (operands[i].role != "cu_seqlens_q" &&
        operands[i].role != "cu_seqlens_k")
      arguments.push_back(&operands[i]);
  // Each value of the function is defined once.
  std::map<std::string, std::string> roles = {{op.outputName, "the output"}};
  if (op.returnLse)
    roles.emplace(op.lseName, "the logsumexp");
  std::string signature;
  for (const Operand *a : arguments) {
    auto [it, fresh] = roles.emplace(a->name, a->role);
    if (!fresh)
      return invalid(a->role + " and " + it->second + " are both named '" +
                     a->name +
                     "'; the function's arguments and results "
                     "need names of their own");
    signature += (signature.empty() ? "%" : ", %") + a->name + ": " + a->type;
  }
  return "func.func @" + op.function + "(" + signature + ") -> (" + results +
         ") {\n  " + text + "\n  return " + names + " : " + results + "\n}\n";
}

} // namespace attn
