//===- Inputs.cpp - The inputs attn-run runs a function on ----------------===//

#include "attn/Run/Inputs.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/Npy/Npy.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace attn::run {

HostTensor randomInput(mlir::BlockArgument arg, std::mt19937_64 &rng,
                       mlir::func::FuncOp func) {
  auto type = mlir::cast<mlir::RankedTensorType>(arg.getType());
  HostTensor t(std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
  DataType element = *dataTypeOf(type.getElementType());
  std::normal_distribution<double> normal(0.0, 1.0);
  std::bernoulli_distribution keep(0.8);
  // Offsets of a ragged batch: 0, then the sorted cut points of the packed
  // tokens, then all of them (sequences of 0 tokens included); as many
  // tokens as sequences is a decode batch, one token each.
  int64_t packedTokens = -1;
  func.walk([&](mlir::attn::FlashOp flash) {
    if (flash.getCuSeqlensQ() == arg)
      packedTokens = flash.getQ().getType().getDimSize(0);
    else if (flash.getCuSeqlensK() == arg)
      packedTokens = flash.getK().getType().getDimSize(0);
  });
  // A block table: each sequence's pages drawn without repeats while the
  // cache has pages left (a random permutation, dealt in order).
  int64_t pages = -1;
  func.walk([&](mlir::attn::FlashOp flash) {
    if (flash.getBlockTable() == arg)
      pages = flash.getK().getType().getDimSize(0);
  });
  if (pages > 0 && element == DataType::I32 && type.getRank() == 2) {
    std::vector<int64_t> order(pages);
    for (int64_t i = 0; i < pages; ++i)
      order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i = 0; i < t.data.size(); ++i)
      t.data[i] = double(order[i % pages]);
    return t;
  }
  if (packedTokens >= 0 && element == DataType::I32 && type.getRank() == 1) {
    const int64_t sequences = type.getDimSize(0) - 1;
    std::uniform_int_distribution<int64_t> cut(0, packedTokens);
    for (int64_t b = 0; b <= sequences; ++b)
      t.data[b] = sequences == packedTokens ? double(b)
                  : b == 0                  ? 0.0
                  : b == sequences          ? double(packedTokens)
                                            : double(cut(rng));
    std::sort(t.data.begin(), t.data.end());
    return t;
  }
  if (element == DataType::I32 || element == DataType::I64) {
    // Lengths of keys: the key sequence of the attention that uses them
    // (an attn.mask's scores, or an attn.flash's keys per sequence).
    int64_t maxLength = 1;
    func.walk([&](mlir::Operation *op) {
      for (mlir::Value operand : op->getOperands()) {
        if (operand != arg || op->getNumOperands() == 0)
          continue;
        // Fused attention: its keys per sequence (a ragged or paged batch's
        // too), or v's rows for the backward; a graph op's operand 0 is the
        // score tensor, keys last.
        if (auto flash = mlir::dyn_cast<mlir::attn::FlashOp>(op)) {
          int64_t keys = flash.getKeysPerSequence();
          if (!mlir::ShapedType::isDynamic(keys))
            maxLength = std::max<int64_t>(maxLength, keys);
          continue;
        }
        mlir::Value keys = op->getOperand(0);
        int64_t keysDim = 3;
        if (mlir::isa<mlir::attn::FlashBwdOp>(op)) {
          keys = op->getOperand(2);
          keysDim = 2;
        }
        if (auto type = mlir::dyn_cast<mlir::RankedTensorType>(keys.getType()))
          if (type.getRank() == 4)
            maxLength = std::max<int64_t>(maxLength, type.getDimSize(keysDim));
      }
    });
    std::uniform_int_distribution<int64_t> length(1, maxLength);
    for (double &x : t.data)
      x = double(length(rng));
    return t;
  }
  for (double &x : t.data)
    x = element == DataType::Bool ? (keep(rng) ? 1.0 : 0.0)
                                  : representable(element, normal(rng));
  return t;
}

Result<std::vector<HostTensor>> makeInputs(mlir::func::FuncOp func,
                                           const std::vector<std::string> &npyFiles,
                                           std::mt19937_64 &rng) {
  mlir::Block &body = func.getBody().front();
  if (!npyFiles.empty() && npyFiles.size() != body.getNumArguments())
    return Status(StatusCode::InvalidArgument,
                  std::to_string(npyFiles.size()) + " .npy files for " +
                      std::to_string(body.getNumArguments()) + " arguments");
  std::vector<HostTensor> inputs;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    auto type = mlir::dyn_cast<mlir::RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() || !dataTypeOf(type.getElementType()))
      return Status(StatusCode::InvalidArgument,
                    "argument " + std::to_string(i) +
                        " must be a static tensor of f16, bf16, f32, i32, "
                        "i64 or i1");
    if (npyFiles.empty()) {
      inputs.push_back(randomInput(arg, rng, func));
      continue;
    }
    Result<npy::Array> loaded = npy::read(npyFiles[i]);
    if (!loaded)
      return loaded.status();
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    if (loaded->shape != shape)
      return Status(StatusCode::InvalidArgument,
                    npyFiles[i] + " has shape " + shapeString(loaded->shape) +
                        ", argument " + std::to_string(i) + " is " +
                        shapeString(shape));
    HostTensor t(shape);
    DataType element = *dataTypeOf(type.getElementType());
    for (size_t j = 0; j < t.data.size(); ++j)
      t.data[j] = representable(element, loaded->values[j]);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

Status setInputValues(mlir::func::FuncOp func,
                      const std::vector<std::string> &specs,
                      std::vector<HostTensor> &inputs) {
  for (const std::string &spec : specs) {
    auto bad = [&](const std::string &why) {
      return Status(StatusCode::InvalidArgument,
                    "--set-input=" + spec + ": " + why);
    };
    llvm::StringRef text(spec);
    auto [indexText, valuesText] = text.split(':');
    unsigned index = 0;
    if (indexText.getAsInteger(10, index) || valuesText.empty())
      return bad("expected ARGUMENT:v0,v1,... (an argument index, then its "
                 "values)");
    if (index >= func.getNumArguments() || index >= inputs.size())
      return bad("the function has " + std::to_string(func.getNumArguments()) +
                 " arguments");
    HostTensor &t = inputs[index];
    llvm::SmallVector<llvm::StringRef> parts;
    valuesText.split(parts, ',');
    if (static_cast<int64_t>(parts.size()) != t.numElements())
      return bad("argument " + std::to_string(index) + " (" +
                 shapeString(t.shape) + ") holds " +
                 std::to_string(t.numElements()) + " values, got " +
                 std::to_string(parts.size()));
    DataType element = *dataTypeOf(
        mlir::cast<mlir::RankedTensorType>(func.getArgument(index).getType())
            .getElementType());
    for (auto [i, part] : llvm::enumerate(parts)) {
      double value;
      if (part.trim().getAsDouble(value))
        return bad("'" + part.str() + "' is not a number");
      t.data[i] = representable(element, value);
    }
  }
  return Status::ok();
}

namespace {

/// How an attn.flash's k or v argument holds its keys: rows of sequence b
/// (dense), rows of a packed ragged batch, or slots of cache pages; and
/// which of them some sequence reads.
struct KeyRows {
  enum class Form { Dense, Ragged, Paged } form;
  bool transposed = false; // k as [B, H, D, S]
  // Dense: [B][S]; ragged: [T]; paged: [pages][page size].
  std::vector<char> read;
};

} // namespace

Result<int64_t> poisonUnreadKeys(mlir::func::FuncOp func,
                                 std::vector<HostTensor> &inputs) {
  auto fail = [](const std::string &why) {
    return Status(StatusCode::InvalidArgument, "--poison-padding: " + why);
  };
  mlir::Block &entry = func.getBody().front();
  // The function argument `value` is, or none.
  auto argumentOf = [&](mlir::Value value) -> std::optional<unsigned> {
    auto arg = mlir::dyn_cast_or_null<mlir::BlockArgument>(value);
    if (!arg || arg.getOwner() != &entry || arg.getArgNumber() >= inputs.size())
      return std::nullopt;
    return arg.getArgNumber();
  };
  llvm::DenseMap<unsigned, KeyRows> rowsOf;
  std::string error;
  func.walk([&](mlir::attn::FlashOp flash) {
    if (!error.empty())
      return;
    auto named = [&](mlir::Value value, const char *what)
        -> std::optional<unsigned> {
      std::optional<unsigned> index = argumentOf(value);
      if (!index)
        error = std::string("the ") + what + " of an attn.flash is not a "
                "function argument";
      return index;
    };
    std::optional<unsigned> k = named(flash.getK(), "k");
    std::optional<unsigned> v = named(flash.getV(), "v");
    std::optional<unsigned> lengths, table, offsets;
    const bool keyPadding = flash.getMaskOrEmpty().getKeyPadding();
    if (keyPadding)
      lengths = named(flash.getLengths(), "lengths");
    if (flash.isPaged())
      table = named(flash.getBlockTable(), "block table");
    if (flash.isVarlen())
      offsets = named(flash.getCuSeqlensK(), "cu_seqlens_k");
    if (!error.empty())
      return;
    const std::vector<int64_t> &kShape = inputs[*k].shape;
    // Sequence b's keys: the first `keys` of its rows, clamped as the
    // kernels clamp them.
    auto keysOf = [&](int64_t b, int64_t rows) {
      if (!keyPadding)
        return rows;
      return std::clamp<int64_t>(
          static_cast<int64_t>(inputs[*lengths].data[b]), 0, rows);
    };
    KeyRows rows;
    if (flash.isPaged()) {
      const HostTensor &t = inputs[*table];
      const int64_t pages = kShape[0], pageSize = kShape[2];
      const int64_t batch = t.shape[0], perSequence = t.shape[1];
      rows.form = KeyRows::Form::Paged;
      rows.read.assign(pages * pageSize, 0);
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t keys = keysOf(b, perSequence * pageSize);
        for (int64_t key = 0; key < keys; ++key) {
          const int64_t page = std::clamp<int64_t>(
              static_cast<int64_t>(t.data[b * perSequence + key / pageSize]),
              0, pages - 1);
          rows.read[page * pageSize + key % pageSize] = 1;
        }
      }
    } else if (flash.isVarlen()) {
      const HostTensor &cu = inputs[*offsets];
      const int64_t tokens = kShape[0], batch = cu.shape[0] - 1;
      rows.form = KeyRows::Form::Ragged;
      rows.read.assign(tokens, 0);
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t start = std::clamp<int64_t>(
            static_cast<int64_t>(cu.data[b]), 0, tokens);
        const int64_t end = std::clamp<int64_t>(
            static_cast<int64_t>(cu.data[b + 1]), start, tokens);
        const int64_t keys = keysOf(b, end - start);
        std::fill_n(rows.read.begin() + start, keys, 1);
      }
    } else {
      rows.form = KeyRows::Form::Dense;
      rows.transposed = flash.getTransposeK();
      const int64_t batch = kShape[0];
      const int64_t seq = flash.getKeysPerSequence();
      rows.read.assign(batch * seq, 0);
      for (int64_t b = 0; b < batch; ++b)
        std::fill_n(rows.read.begin() + b * seq, keysOf(b, seq), 1);
    }
    // k and v: their rows alike (a transposed k lays its out differently).
    for (unsigned index : {*k, *v}) {
      KeyRows mine = rows;
      mine.transposed = rows.transposed && index == *k && *k != *v;
      auto [it, inserted] = rowsOf.try_emplace(index, mine);
      if (inserted)
        continue;
      if (it->second.form != mine.form ||
          it->second.transposed != mine.transposed ||
          it->second.read.size() != mine.read.size()) {
        error = "argument " + std::to_string(index) +
                " is k or v of attn.flash ops that lay its keys out "
                "differently";
        return;
      }
      for (size_t i = 0; i < mine.read.size(); ++i)
        it->second.read[i] |= mine.read[i];
    }
  });
  if (!error.empty())
    return fail(error);
  if (rowsOf.empty())
    return fail("the function has no attn.flash (the graph ops of the "
                "unfused path read k and v in ways this cannot tell)");
  for (auto &entryRows : rowsOf)
    for (mlir::Operation *user :
         entry.getArgument(entryRows.first).getUsers())
      if (!mlir::isa<mlir::attn::FlashOp, mlir::attn::FlashBwdOp>(user))
        return fail("argument " + std::to_string(entryRows.first) +
                    " is read by " + user->getName().getStringRef().str() +
                    " too, whose reads it cannot tell");
  int64_t poisoned = 0;
  for (auto &[index, rows] : rowsOf) {
    HostTensor &t = inputs[index];
    const std::vector<int64_t> &shape = t.shape;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto poison = [&](int64_t element) {
      t.data[element] = nan;
      ++poisoned;
    };
    if (rows.form == KeyRows::Form::Ragged) {
      // [T, H, D].
      const int64_t width = shape[1] * shape[2];
      for (int64_t token = 0; token < shape[0]; ++token)
        if (!rows.read[token])
          for (int64_t i = 0; i < width; ++i)
            poison(token * width + i);
      continue;
    }
    // [B, H, S, D] (a transposed k [B, H, D, S]), or a paged cache's
    // [pages, H, page size, D]: rows of sequences or of pages alike.
    const int64_t heads = shape[1];
    const int64_t rowCount = rows.transposed ? shape[3] : shape[2];
    const int64_t dim = rows.transposed ? shape[2] : shape[3];
    for (int64_t group = 0; group < shape[0]; ++group)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = 0; r < rowCount; ++r) {
          if (rows.read[group * rowCount + r])
            continue;
          for (int64_t d = 0; d < dim; ++d)
            poison(rows.transposed
                       ? ((group * heads + h) * dim + d) * rowCount + r
                       : ((group * heads + h) * rowCount + r) * dim + d);
        }
  }
  return poisoned;
}

} // namespace attn::run
