//===- AttnOps.td - attn operations ------------------------*- tablegen -*-===//

#ifndef ATTN_DIALECT_ATTN_IR_ATTNOPS_TD
#define ATTN_DIALECT_ATTN_IR_ATTNOPS_TD

include "attn/Dialect/Attn/IR/AttnDialect.td"
include "attn/Dialect/Attn/IR/AttnAttrs.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

class Attn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Attn_Dialect, mnemonic, traits>;

def Attn_FloatTensor : RankedTensorOf<[F16, BF16, F32]>;
def Attn_HalfTensor : RankedTensorOf<[F16, BF16]>;

//===----------------------------------------------------------------------===//
// Graph ops
//===----------------------------------------------------------------------===//

def Attn_MatmulOp : Attn_Op<"matmul", [Pure]> {
  let summary = "Batched matrix product with head broadcast";
  let description = [{
    Multiplies the last two dimensions of `lhs` and `rhs`; the leading
    dimensions are batch dimensions. `transpose_lhs` / `transpose_rhs` swap the
    last two dimensions of an operand first. The heads dimension (rank - 3)
    of `rhs` may divide that of `lhs`: each `rhs` head then serves
    `lhs_heads / rhs_heads` consecutive `lhs` heads (GQA; MQA when it is 1).
    The result element type is f32 (accumulator) or the operands' type.

    ```mlir
    %s = attn.matmul %q, %k {transpose_rhs}
        : tensor<2x16x128x64xbf16>, tensor<2x4x128x64xbf16> -> tensor<2x16x128x128xf32>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$lhs, Attn_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Attn_ScaleOp : Attn_Op<"scale", [Pure, SameOperandsAndResultType]> {
  let summary = "Multiplies every element by a constant";
  let description = [{
    ```mlir
    %t = attn.scale %s {factor = 0.125 : f32} : tensor<2x16x128x128xf32>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$input, F32Attr:$factor);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Attn_MaskOp : Attn_Op<"mask", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "Masks or biases a score tensor";
  let description = [{
    Sets the scores that `kind` drops to -inf and adds the `bias` operand
    where `kind` has `bias`. The input is a score tensor
    `[batch, heads, queries, keys]`. `lengths` (one per batch) goes with
    `key_padding`, `keep` (i1, broadcast to the scores) with `keep`, `bias`
    (float, broadcast) with `bias`.

    ```mlir
    %m = attn.mask %t {kind = #attn.mask<causal>} : tensor<2x16x128x128xf32>
    %p = attn.mask %t lengths(%len : tensor<2xi32>)
           {kind = #attn.mask<key_padding>} : tensor<2x16x128x128xf32>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$input,
                       Optional<RankedTensorOf<[I32]>>:$lengths,
                       Optional<RankedTensorOf<[I1]>>:$keep,
                       Optional<Attn_FloatTensor>:$bias,
                       Attn_MaskAttr:$kind);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`lengths` `(` $lengths^ `:` type($lengths) `)`)?
    (`keep` `(` $keep^ `:` type($keep) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Attn_ScoreModOp : Attn_Op<"score_mod", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "Applies a scalar function to every score";
  let description = [{
    The region maps one score and its indices (batch, head, query, key) to a
    new score, like FlexAttention's `score_mod`. It holds `arith` and `math`
    ops on i1, i32, i64, index and f32 (the table of ScoreModOps.h, which
    also fixes what MLIR leaves undefined: division by zero, shifts past the
    width, out-of-range float-to-integer conversions) and ends in
    `attn.yield`.

    ```mlir
    %c = attn.score_mod %s {
    ^bb0(%x: f32, %b: index, %h: index, %q: index, %k: index):
      %cap = arith.constant 30.0 : f32
      %d = arith.divf %x, %cap : f32
      %t = math.tanh %d : f32
      %y = arith.mulf %t, %cap : f32
      attn.yield %y : f32
    } : tensor<2x16x128x128xf32>
    ```

    `captures` are tensors the function reads, as FlexAttention's captured
    buffers: a learned bias per head, a table of relative positions. Each
    enters the region as a block argument after the five scalars, of the
    same type, and is read with `tensor.extract` at indices computed from
    b, h, q and k. Captures have static shapes of rank 0 to 4 and elements
    of f32, f16, bf16 (widened with `arith.extf`), i1, i32 or i64; at most 4
    per op. An index outside a capture reads the nearest element (each
    index is clamped to its extent), in the kernel and in the reference.

    ```mlir
    %c = attn.score_mod %s captures(%slopes, %rel : tensor<16xf32>, tensor<255xbf16>) {
    ^bb0(%x: f32, %b: index, %h: index, %q: index, %k: index,
         %slope_t: tensor<16xf32>, %rel_t: tensor<255xbf16>):
      %slope = tensor.extract %slope_t[%h] : tensor<16xf32>
      %off = arith.constant 127 : index
      %d = arith.subi %q, %k : index
      %i = arith.addi %d, %off : index
      %r16 = tensor.extract %rel_t[%i] : tensor<255xbf16>
      %r = arith.extf %r16 : bf16 to f32
      %y0 = arith.mulf %slope, %r : f32
      %y = arith.addf %x, %y0 : f32
      attn.yield %y : f32
    } : tensor<2x16x128x128xf32>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$input,
                       Variadic<AnyRankedTensor>:$captures);
  let results = (outs Attn_FloatTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $input (`captures` `(` $captures^ `:` type($captures) `)`)?
    $body attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Attn_SoftmaxOp : Attn_Op<"softmax", [Pure]> {
  let summary = "Softmax along one dimension";
  let description = [{
    Computes `exp(x - max) / sum(exp(x - max))` along `dim` in f32 and
    converts to the result element type. A slice where every entry is -inf
    yields zeros. A negative `dim` counts from the last dimension (-1 is the
    last), as frameworks write it.

    ```mlir
    %p = attn.softmax %m {dim = 3} : tensor<2x16x128x128xf32> -> tensor<2x16x128x128xbf16>
    ```
  }];
  let arguments = (ins Attn_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Attn_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `dim` in [0, rank): a negative dim counts from the end.
    int64_t getNormalizedDim() {
      int64_t dim = getDim();
      return dim < 0 ? dim + getInput().getType().getRank() : dim;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Fused op
//===----------------------------------------------------------------------===//

def Attn_FlashOp : Attn_Op<"flash", [Pure, AttrSizedOperandSegments]> {
  let summary = "Fused scaled dot-product attention";
  let description = [{
    `softmax(score_mod(mask(scale * q @ k^T))) @ v`, computed tile by tile
    without materializing the scores. `q` is `[B, Hq, Sq, Dqk]`, `k`
    `[B, Hkv, Skv, Dqk]`, `v` `[B, Hkv, Skv, Dv]`, with `Hkv` dividing `Hq`
    (GQA/MQA); with `transpose_k`, `k` is given as `[B, Hkv, Dqk, Skv]`.
    The result is `[B, Hq, Sq, Dv]`; the optional second result
    is the natural-log logsumexp of each score row, `[B, Hq, Sq]` in f32. A
    row whose keys are all masked yields zeros (and -inf logsumexp).

    `mask` and its operands follow `attn.mask`. `config`, set by
    `--attn-select-config`, picks the kernel, and `plan` (#attn.launch_plan)
    the others a launch may run instead. The optional `score_mod`
    region has the signature of `attn.score_mod`'s, on f32 scores after
    scaling and before masking; its `captures` are those of
    `attn.score_mod`, and the region's block arguments after the five
    scalars (`--attn-fuse` carries them over from the graph op).

    Ragged (varlen) batches: with `cu_seqlens_q` and `cu_seqlens_k`
    (`[B + 1]` i32 offsets), `q` is packed `[Tq, Hq, Dqk]`, `k`
    `[Tk, Hkv, Dqk]`, `v` `[Tk, Hkv, Dv]` (flash_attn's THD layout) and the
    result `[Tq, Hq, Dv]`: sequence `b` has the queries
    `cu_seqlens_q[b] .. cu_seqlens_q[b + 1]` and the keys likewise, and
    attends only to its own keys. Causal masks and windows align per
    sequence (`bottom_right`: to the sequence's own last key), a score_mod
    sees `b` as the sequence and `q_idx`, `kv_idx` as positions within it,
    and the logsumexp is `[Hq, Tq]`. Rows that no sequence covers are left
    unwritten. Offsets are clamped to `[0, T]`; a sequence whose end is
    below its start is empty.

    Paged K/V caches: with `block_table` (`[B, P_max]` i32, flash_attn's
    block table), `k` and `v` are caches of pages, `[pages, Hkv,
    page_size, D]` (BHSD with a page as the batch: flash_attn's
    `(pages, page_size, Hkv, D)` memory is that with permuted strides).
    Sequence `b`'s keys are the rows of pages `block_table[b][0]`,
    `block_table[b][1]`, ... in order, `P_max * page_size` at most; the
    mask's `key_padding` and `lengths` (flash_attn's `cache_seqlens`) say
    how many, and `bottom_right` aligns to them (query `i` of `Sq` new
    tokens sees keys up to `lengths[b] - Sq + i`). Page indices are clamped
    to the cache, so no table reads outside it.

    ```mlir
    %o = attn.flash %q, %kc, %vc lengths(%len : tensor<8xi32>)
        block_table(%table : tensor<8x64xi32>)
        {scale = 0.088 : f32, mask = #attn.mask<causal, bottom_right, key_padding>}
        : tensor<8x32x1x128xbf16>, tensor<512x8x16x128xbf16>, tensor<512x8x16x128xbf16>
        -> tensor<8x32x1x128xbf16>
    ```

    Attention sinks (gpt-oss): `sinks` holds one f32 logit per query head
    (`[Hq]`, or `[1, Hq, 1, 1]` as a graph's broadcast column has it) that
    joins each row's softmax denominator and contributes no value: a row's
    weights are `exp(s_j) / (exp(sink_h) + sum_k exp(s_k))`, its
    logsumexp includes the sink, and a row with every key masked yields
    zeros (and the sink as its logsumexp). The sink is compared with the
    scores after scaling, score_mod and masking.

    ```mlir
    %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<4xi32>)
        cu_seqlens_k(%ck : tensor<4xi32>)
        {scale = 0.125 : f32, mask = #attn.mask<causal, bottom_right>}
        : tensor<300x16x64xbf16>, tensor<500x4x64xbf16>, tensor<500x4x64xbf16>
        -> tensor<300x16x64xbf16>
    ```

    ```mlir
    %o = attn.flash %q, %k, %v {scale = 0.125 : f32, mask = #attn.mask<causal>}
        : tensor<2x16x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>
        -> tensor<2x16x128x64xbf16>
    %p = attn.flash %q, %k, %v captures(%slopes : tensor<16xf32>)
        {scale = 0.125 : f32} score_mod {
        ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index,
             %slope_t: tensor<16xf32>):
          %slope = tensor.extract %slope_t[%h] : tensor<16xf32>
          %y = arith.mulf %x, %slope : f32
          attn.yield %y : f32
        } : tensor<2x16x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>
        -> tensor<2x16x128x64xbf16>
    ```
  }];
  let arguments = (ins Attn_HalfTensor:$q, Attn_HalfTensor:$k,
                       Attn_HalfTensor:$v,
                       Optional<RankedTensorOf<[I32]>>:$lengths,
                       Optional<RankedTensorOf<[I1]>>:$keep,
                       Optional<Attn_FloatTensor>:$bias,
                       Variadic<AnyRankedTensor>:$captures,
                       Optional<RankedTensorOf<[I32]>>:$cu_seqlens_q,
                       Optional<RankedTensorOf<[I32]>>:$cu_seqlens_k,
                       Optional<RankedTensorOf<[F32]>>:$sinks,
                       Optional<RankedTensorOf<[I32]>>:$block_table,
                       F32Attr:$scale,
                       UnitAttr:$transpose_k,
                       OptionalAttr<Attn_MaskAttr>:$mask,
                       OptionalAttr<Attn_ConfigAttr>:$config,
                       OptionalAttr<Attn_LaunchPlanAttr>:$plan);
  let results = (outs Attn_HalfTensor:$output,
                      Optional<RankedTensorOf<[F32]>>:$lse);
  let regions = (region MaxSizedRegion<1>:$score_mod);
  let assemblyFormat = [{
    $q `,` $k `,` $v
    (`lengths` `(` $lengths^ `:` type($lengths) `)`)?
    (`keep` `(` $keep^ `:` type($keep) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    (`cu_seqlens_q` `(` $cu_seqlens_q^ `:` type($cu_seqlens_q) `)`)?
    (`cu_seqlens_k` `(` $cu_seqlens_k^ `:` type($cu_seqlens_k) `)`)?
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    (`block_table` `(` $block_table^ `:` type($block_table) `)`)?
    attr-dict (`score_mod` $score_mod^)?
    `:` type($q) `,` type($k) `,` type($v) `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The mask, or an empty one when the op has none.
    MaskAttr getMaskOrEmpty();
    bool hasScoreMod() { return !getScoreMod().empty(); }
    /// Ragged batches: q, k, v and the output packed [tokens, heads, dim].
    bool isVarlen() { return static_cast<bool>(getCuSeqlensQ()); }
    /// Paged caches: k and v are pages, the block table maps keys to them.
    bool isPaged() { return static_cast<bool>(getBlockTable()); }
    /// Keys per sequence as the mask sees them: k's sequence extent, or a
    /// paged cache's pages per sequence times the page size (dynamic if
    /// either is).
    int64_t getKeysPerSequence();
    /// Dimensions of q, k (untransposed), v and the output by meaning, in
    /// the dense (BHSD) or the packed (THD) form; heads are dimension 1 in
    /// both.
    int64_t getSeqDim() { return isVarlen() ? 0 : 2; }
    int64_t getHeadDimDim() { return isVarlen() ? 2 : 3; }
    int64_t getHeadDimQK() { return getQ().getType().getDimSize(getHeadDimDim()); }
    int64_t getHeadDimV() { return getV().getType().getDimSize(getHeadDimDim()); }
    int64_t getHeadsQ() { return getQ().getType().getDimSize(1); }
    int64_t getHeadsKV() { return getK().getType().getDimSize(1); }
    /// What a kernel variant must support to run the op (the table of
    /// kernel variants' terms).
    ::attn::OperandShape getOperandShape();
  }];
  let hasRegionVerifier = 1;
}

def Attn_FlashBwdOp : Attn_Op<"flash_bwd", [Pure, AttrSizedOperandSegments,
                                             AttrSizedResultSegments]> {
  let summary = "Gradients of a fused attention (the backward of attn.flash)";
  let description = [{
    Given the operands of an `attn.flash`, its output `o`, its logsumexp
    `lse` and the gradient `grad_output` of a loss with respect to `o`,
    computes the gradients of that loss with respect to `q`, `k` and `v`,
    with a result `grad_bias`, with respect to `bias`, and with the
    forward's `sinks` as an operand, a last result `grad_sinks` (of the
    sinks' type, which the op does not repeat). `--attn-derive-backward`
    builds it from an `attn.flash`; the attributes, the mask operands, the
    `score_mod` region and its `captures` are the forward's.

    Ragged batches: with the forward's `cu_seqlens_q` and `cu_seqlens_k`,
    `q`, `k`, `v`, `o`, `grad_output` and the gradients are packed
    `[T, H, D]` and `lse` is `[Hq, Tq]`, as `attn.flash` has them; each
    sequence's gradients are those of its own attention, and rows that no
    sequence covers are left unwritten.

    With `P = exp(score_mod(scale * q k^T) + bias - lse)` (0 where the mask
    drops an entry, and on rows whose logsumexp is -inf), `dP = grad_output
    v^T`, `D = rowsum(grad_output * o)` and `dZ = P * (dP - D)`:

    - `dv = P^T grad_output`, `dbias = dZ` summed over the dimensions in
      which `bias` broadcasts;
    - with `dS = dZ * score_mod'(scale * q k^T)`: `dq = scale * dS k`,
      `dk = scale * dS^T q`;
    - `dsinks[h] = -sum over batches and rows of exp(sinks[h] - lse) * D`
      (a sink adds no value: its dP is 0). The logsumexp counts the sinks,
      so `dq`, `dk` and `dv` do not read them.

    `dk` and `dv` have the K/V head count: with GQA/MQA each sums over the
    query heads that share its K/V head. `dk` has `k`'s layout (transposed
    with `transpose_k`). `score_mod_grad` holds the derivative of `score_mod`
    with respect to the score (its argument 0), on the same arguments (the
    five scalars, then one per capture: a capture is read, never
    differentiated); both regions are present or both absent. `config`,
    set by `--attn-select-config`, picks the kernels, and `plan`
    (#attn.backward_plan) those that run where they spill.

    ```mlir
    %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %do, %lse
        {scale = 0.125 : f32, mask = #attn.mask<causal>}
        : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>,
          tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
        -> tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
    ```
  }];
  let arguments = (ins Attn_HalfTensor:$q, Attn_HalfTensor:$k,
                       Attn_HalfTensor:$v, Attn_HalfTensor:$o,
                       Attn_HalfTensor:$grad_output,
                       RankedTensorOf<[F32]>:$lse,
                       Optional<RankedTensorOf<[I32]>>:$lengths,
                       Optional<RankedTensorOf<[I1]>>:$keep,
                       Optional<Attn_FloatTensor>:$bias,
                       Variadic<AnyRankedTensor>:$captures,
                       Optional<RankedTensorOf<[I32]>>:$cu_seqlens_q,
                       Optional<RankedTensorOf<[I32]>>:$cu_seqlens_k,
                       Optional<RankedTensorOf<[F32]>>:$sinks,
                       F32Attr:$scale,
                       UnitAttr:$transpose_k,
                       OptionalAttr<Attn_MaskAttr>:$mask,
                       OptionalAttr<Attn_BackwardConfigAttr>:$config,
                       OptionalAttr<Attn_BackwardPlanAttr>:$plan);
  let results = (outs Attn_HalfTensor:$grad_q, Attn_HalfTensor:$grad_k,
                      Attn_HalfTensor:$grad_v,
                      Optional<Attn_FloatTensor>:$grad_bias,
                      Optional<RankedTensorOf<[F32]>>:$grad_sinks);
  let regions = (region MaxSizedRegion<1>:$score_mod,
                        MaxSizedRegion<1>:$score_mod_grad);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $o `,` $grad_output `,` $lse
    (`lengths` `(` $lengths^ `:` type($lengths) `)`)?
    (`keep` `(` $keep^ `:` type($keep) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    (`cu_seqlens_q` `(` $cu_seqlens_q^ `:` type($cu_seqlens_q) `)`)?
    (`cu_seqlens_k` `(` $cu_seqlens_k^ `:` type($cu_seqlens_k) `)`)?
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    attr-dict (`score_mod` $score_mod^)? (`score_mod_grad` $score_mod_grad^)?
    `:` type($q) `,` type($k) `,` type($v) `,` type($o) `,` type($grad_output)
    `,` type($lse)
    `->` type($grad_q) `,` type($grad_k) `,` type($grad_v)
    (`,` type($grad_bias)^)?
    `` custom<TypeOfSinks>(ref(type($sinks)), type($grad_sinks))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The mask, or an empty one when the op has none.
    MaskAttr getMaskOrEmpty();
    bool hasScoreMod() { return !getScoreMod().empty(); }
    /// True if the op computes the gradient of its bias operand.
    bool hasBiasGrad() { return static_cast<bool>(getGradBias()); }
    /// True if the op computes the gradient of its sinks operand.
    bool hasSinksGrad() { return static_cast<bool>(getGradSinks()); }
    /// Ragged batches: q, k, v, o and the gradients packed [tokens, heads,
    /// dim], as the forward's.
    bool isVarlen() { return static_cast<bool>(getCuSeqlensQ()); }
    /// What a backward variant must support to run the op.
    ::attn::OperandShape getOperandShape();
  }];
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Unfused kernels
//===----------------------------------------------------------------------===//

def Attn_KernelOp : Attn_Op<"kernel", [IsolatedFromAbove]> {
  let summary = "One graph op run as its own kernel (the unfused path)";
  let description = [{
    `--attn-lower-unfused` wraps each graph op in an `attn.kernel`: the
    shape of PyTorch's "math" backend, where every op is a launch and every
    intermediate goes through memory. The body holds exactly one graph op
    (`attn.matmul`, `attn.scale`, `attn.mask`, `attn.score_mod`,
    `attn.softmax`, or an `arith.extf`/`arith.truncf` cast) applied to the
    block arguments, which stand for the operands, after the constants its
    region uses (the body is isolated from above). With `in_place`, the
    result reuses the buffer of the first operand (same type): masking and
    scaling write the score tensor they read, with no copy. Each kernel with
    static shapes of rank <= 4 compiles to a GPU kernel
    (`attn-translate --attn-to-cuda`, `attn-run`).

    ```mlir
    %m = attn.kernel "mask_causal" in_place (%t) : (tensor<2x8x128x128xf32>) -> tensor<2x8x128x128xf32> {
    ^bb0(%x: tensor<2x8x128x128xf32>):
      %y = attn.mask %x {kind = #attn.mask<causal>} : tensor<2x8x128x128xf32>
      attn.yield %y : tensor<2x8x128x128xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$name, UnitAttr:$in_place,
                       Variadic<AnyRankedTensor>:$inputs);
  let results = (outs AnyRankedTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name (`in_place` $in_place^)? `(` $inputs `)` attr-dict `:`
    functional-type($inputs, $result) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The graph op the kernel runs (the op before the terminator).
    Operation *getPayload() {
      return getBody().front().getTerminator()->getPrevNode();
    }
  }];
}

def Attn_YieldOp : Attn_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["ScoreModOp", "FlashOp", "FlashBwdOp", "KernelOp"]>]> {
  let summary = "Returns the new score from a score_mod region, or a kernel's result";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // ATTN_DIALECT_ATTN_IR_ATTNOPS_TD
