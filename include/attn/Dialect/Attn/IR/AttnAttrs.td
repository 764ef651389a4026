//===- AttnAttrs.td - attn attributes ----------------------*- tablegen -*-===//

#ifndef ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD
#define ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD

include "attn/Dialect/Attn/IR/AttnDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Attn_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Attn_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Attn_MaskAttr : Attn_Attr<"Mask", "mask"> {
  let summary = "Which score entries take part in the softmax";
  let description = [{
    A set of masks, applied together (an entry takes part only if every mask
    keeps it). Query `i` and key `j` index a score tensor with `Sq` queries
    and `Skv` keys; `diag(i) = i` (top-left alignment) or
    `diag(i) = i + Skv - Sq` with `bottom_right`, where with `key_padding`
    `Skv` is each batch entry's own key count, `min(lengths[b], Skv)`: the
    new queries of a sequence in a padded cache see its keys up to
    `lengths[b] - Sq + i` (flash_attn's `cache_seqlens`).

    - `causal`: keep `j <= diag(i)`.
    - `window = [L, R]`: keep `diag(i) - L <= j <= diag(i) + R`; `-1` leaves
      that side unbounded.
    - `bottom_right`: aligns `causal` and `window` to the bottom-right corner.
    - `bottom_right = tensor` (with `key_padding` only): aligns to the score
      tensor's `Skv` even though `key_padding` hides the keys past
      `lengths[b]`, as a graph means with a bottom-right mask and a separate
      key-padding mask (attn-fuse merges them into this).
    - `key_padding`: keep `j < lengths[b]` (a `lengths` operand).
    - `keep`: keep where a boolean tensor is true (a `keep` operand,
      broadcast to the score shape).
    - `bias`: add a float tensor to the scores (a `bias` operand, broadcast).

    ```mlir
    #attn.mask<causal>
    #attn.mask<causal, bottom_right>
    #attn.mask<window = [256, 0], key_padding>
    #attn.mask<causal, bottom_right = tensor, key_padding>
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"bool", "false">:$causal,
    DefaultValuedParameter<"bool", "false">:$bottomRight,
    DefaultValuedParameter<"int64_t", "-1">:$windowLeft,
    DefaultValuedParameter<"int64_t", "-1">:$windowRight,
    DefaultValuedParameter<"bool", "false">:$keyPadding,
    DefaultValuedParameter<"bool", "false">:$keep,
    DefaultValuedParameter<"bool", "false">:$bias,
    DefaultValuedParameter<"bool", "false">:$alignsToTensor);
  let builders = [
    AttrBuilder<(ins), [{
      return $_get($_ctxt, false, false, -1, -1, false, false, false, false);
    }]>,
    AttrBuilder<(ins "bool":$causal, "bool":$bottomRight,
                     "int64_t":$windowLeft, "int64_t":$windowRight,
                     "bool":$keyPadding, "bool":$keep, "bool":$bias), [{
      return $_get($_ctxt, causal, bottomRight, windowLeft, windowRight,
                   keyPadding, keep, bias, /*alignsToTensor=*/false);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True if a sliding window bounds either side.
    bool hasWindow() const {
      return getWindowLeft() >= 0 || getWindowRight() >= 0;
    }
    /// True if the mask keeps every entry and adds nothing.
    bool isEmpty() const {
      return !getCausal() && !hasWindow() && !getKeyPadding() && !getKeep() &&
             !getBias();
    }
    /// True if whole key tiles can be skipped from indices alone.
    bool hasPositionalBound() const { return getCausal() || hasWindow(); }
    /// Where causal and window put the diagonal of query i.
    enum class Alignment {
      TopLeft,           ///< key i
      BottomRightTensor, ///< key i + Skv - Sq
      BottomRightLength, ///< key i + min(lengths[b], Skv) - Sq
    };
    Alignment getAlignment() const {
      if (!getBottomRight())
        return Alignment::TopLeft;
      return getKeyPadding() && !getAlignsToTensor()
                 ? Alignment::BottomRightLength
                 : Alignment::BottomRightTensor;
    }
  }];
}

def Attn_ConfigAttr : Attn_Attr<"Config", "config"> {
  let summary = "The kernel variant and tile configuration of an attn.flash";
  let description = [{
    Chosen by `--attn-select-config` or given by hand. `variant` names the
    template family in `kernels-templates/`; `block_m` query rows and
    `block_n` keys make one tile; `num_warps` warps share a query tile;
    `stages` is the depth of the K/V shared-memory pipeline.

    ```mlir
    #attn.config<variant = "sm80", block_m = 128, block_n = 64, num_warps = 4, stages = 2>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"kernel template family">:$variant,
    "int64_t":$block_m,
    "int64_t":$block_n,
    "int64_t":$num_warps,
    "int64_t":$stages);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Attn_BackwardConfigAttr : Attn_Attr<"BackwardConfig", "backward_config"> {
  let summary = "The kernel variant and tiles of an attn.flash_bwd";
  let description = [{
    Chosen by `--attn-select-config` or given by hand. The backward's main
    kernel is K/V-stationary: a block of `num_warps` warps owns `block_n`
    keys of one (batch, K/V head), each warp 16 of them, and sweeps the
    query tiles of `block_m` rows through a `stages`-deep (1 or 2) cp.async
    pipeline. Warps that share 16 keys split the tile's queries and the
    head dims of dK and dV between them: `num_warps / (block_n / 16)` of
    them, which must divide `block_m / 16`. The deterministic dQ kernel
    uses `block_m` query rows (a warp per 16) against `block_n` keys. Each
    variant's rules are a row of the table of backward kernel variants
    (`attn/Variants/KernelVariants.h`), which this verifier reads.

    ```mlir
    #attn.backward_config<variant = "sm80", block_m = 64, block_n = 64, num_warps = 4, stages = 2>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"kernel template family">:$variant,
    "int64_t":$block_m,
    "int64_t":$block_n,
    "int64_t":$num_warps,
    "int64_t":$stages);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Attn_LaunchPlanAttr : Attn_Attr<"LaunchPlan", "launch_plan"> {
  let summary = "The kernels an attn.flash may launch besides its config's";
  let description = [{
    Set by `--attn-select-config` beside `config`, so that the runtime
    emits every kernel an op may launch in one pass and only chooses among
    them after compiling (lib/API/Compile.cpp). All fields are optional:

    - `spill_block_n`: narrower key tiles of `config` (its variant, block_m,
      warps and stages), most keys first. Where ptxas spills the config's
      kernel, the first of these whose kernel does not spill runs instead
      (the register model counts a score_mod as a fixed amount of work).
      Absent where the tiles were given: those are kept, spills and all.
    - `long_keys`: with a dynamic key length, the tiles that suit keys past
      the first kernel's range (KernelVariants.h, alignedKeysUpTo); both
      kernels are compiled and launches pick by length.
      `long_keys_spill_block_n` narrows them as `spill_block_n` does.
    - `cp_async`: for a persistent (TMA) config, the cp.async kernel of the
      same attention that runs launches whose q, k or v TMA cannot read
      (compiled at the first such launch); `cp_async_spill_block_n` narrows
      it.

    ```mlir
    #attn.launch_plan<spill_block_n = array<i64: 112, 96>,
                      cp_async = #attn.config<variant = "sm80", block_m = 128, block_n = 64, num_warps = 4, stages = 2>>
    ```
  }];
  let parameters = (ins
    OptionalParameter<"DenseI64ArrayAttr">:$spill_block_n,
    OptionalParameter<"ConfigAttr">:$long_keys,
    OptionalParameter<"DenseI64ArrayAttr">:$long_keys_spill_block_n,
    OptionalParameter<"ConfigAttr">:$cp_async,
    OptionalParameter<"DenseI64ArrayAttr">:$cp_async_spill_block_n);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The configs `spill_block_n`-style `blockNs` name: `config` with each
    /// of those key tiles, in order.
    static ::llvm::SmallVector<ConfigAttr>
    narrowed(ConfigAttr config, DenseI64ArrayAttr blockNs);
  }];
}

def Attn_BackwardPlanAttr : Attn_Attr<"BackwardPlan", "backward_plan"> {
  let summary = "The kernel an attn.flash_bwd runs where its config's spills";
  let description = [{
    Set by `--attn-select-config` beside a model-chosen `config`:
    `spill` is the config the model picks without that config's variant
    (the warp-specialized consumers have 240 registers, and some masks'
    element-wise work takes more than the model counts). Where ptxas spills
    the config's kernels and not this one's, this one runs.

    ```mlir
    #attn.backward_plan<spill = #attn.backward_config<variant = "sm90", block_m = 64, block_n = 128, num_warps = 8, stages = 2>>
    ```
  }];
  let parameters = (ins OptionalParameter<"BackwardConfigAttr">:$spill);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD
