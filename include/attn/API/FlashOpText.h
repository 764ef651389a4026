//===- FlashOpText.h - The one writer of attn.flash text --------*- C++ -*-===//
//
// Every attn.flash that attn writes as text goes through writeFlashOp: the
// C++ Graph API's varlen and paged forms, the C API's attn_write_flash_op,
// and through it the Python package (attn.sdpa, attn.varlen,
// attn.with_kvcache) and scripts/gen-graphs.py. One writer, so that the IR
// the JIT compiles spells the op one way whichever front end made it.
//
// The writer checks what would make the text unreadable (names, extents,
// operands that need each other, a scale with no decimal form); what the
// text means (shapes that fit together, masks the kernels support) is the
// op verifier's to judge when the text is parsed. Plain C++: no MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_API_FLASHOPTEXT_H
#define ATTN_API_FLASHOPTEXT_H

#include "attn/Runtime/ElementType.h"
#include "attn/Runtime/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attn {

/// The extent of a dimension known only at launch ('?' in the type).
constexpr int64_t kDynamicExtent = -1;

/// One tensor operand: its SSA name (without '%'; empty: the operand's
/// default, see FlashOpText) and its type.
struct FlashOperandText {
  std::string name;
  ElementType element = ElementType::BF16;
  std::vector<int64_t> shape; ///< kDynamicExtent for '?'
};

/// What one attn.flash is. Optional operands add their mask item (lengths:
/// key_padding, keep: keep, bias: bias). The default names are those of
/// the Python package: %q, %k, %v, %len, %keep, %bias, %captured0..,
/// %cq, %ck, %sinks, %table.
struct FlashOpText {
  /// Non-empty: a func.func of this name taking the operands as arguments
  /// in the order q, k, v, cu_seqlens_q, cu_seqlens_k, lengths, keep, bias,
  /// captures, sinks, block_table, and returning the op's results. Empty:
  /// the op statement alone, without indentation or newline, for the
  /// caller's function.
  std::string function;
  /// Dense [B, Hq, Sq, Dqk], [B, Hkv, Skv, Dqk] (transposeK: [B, Hkv, Dqk,
  /// Skv]), [B, Hkv, Skv, Dv]; with cu_seqlens packed [T, H, D]; with a
  /// block table k and v are pages. q's element is the output's.
  FlashOperandText q, k, v;
  std::optional<FlashOperandText> lengths, keep, bias;
  /// Tensors the score_mod reads (its block arguments %capture0..).
  std::vector<FlashOperandText> captures;
  std::optional<FlashOperandText> cuSeqlensQ, cuSeqlensK, sinks, blockTable;
  /// Written as the shortest decimal that reads back as this double.
  double scale = 1.0;
  bool causal = false;
  /// [left, right], -1 unbounded on that side.
  std::optional<std::pair<int64_t, int64_t>> window;
  bool bottomRight = false;
  bool transposeK = false;
  /// The score_mod region's body over %score, %b, %h, %q_idx, %kv_idx and
  /// the captures, ending in attn.yield; empty: no region. Each line is
  /// indented by four spaces.
  std::string scoreMod;
  /// Also the logsumexp: [B, Hq, Sq] f32, packed [Hq, Tq].
  bool returnLse = false;
  std::string outputName = "o", lseName = "lse";
};

/// The text of `op`, or where it could not be read back an InvalidArgument
/// status whose message names the field at fault (without a prefix: the
/// caller says which call it was).
Result<std::string> writeFlashOp(const FlashOpText &op);

/// The shortest decimal that reads back as `value`, as Python's repr()
/// spells it ("0.125", "2.0", "1e-05"), except that an exponent form
/// always has a '.' ("1.0e-05"), which MLIR's float literals need; the
/// scale's spelling. Only for finite values.
std::string writeShortestDouble(double value);

} // namespace attn

#endif // ATTN_API_FLASHOPTEXT_H
