//===- Passes.td - attn passes -----------------------------*- tablegen -*-===//

#ifndef ATTN_TRANSFORMS_PASSES_TD
#define ATTN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttnCanonicalizeGraphPass : Pass<"attn-canonicalize-graph"> {
  let summary = "Canonicalize the graph, leaving score_mod bodies as written";
  let description = [{
    Applies every loaded dialect's and registered op's canonicalization
    patterns and folds, as `--canonicalize` does, to the ops of the graph:
    all ops nested in the pass's op except those in the regions of
    `attn.score_mod`, `attn.flash` and `attn.flash_bwd` (the score_mod
    bodies and, of a flash_bwd, its derivative). The ops holding those
    regions are canonicalized themselves (dead ones are erased).

    A score_mod body means what lib/Reference and the CUDA emitter define
    (ScoreModOps.h), which fixes values that MLIR's folders and patterns
    treat otherwise: `math.atan2(0, 0)` is 0 and folds to NaN, an
    `index_castui` through i1 and back is bit 0 of its operand and folds to
    the operand, and folds may assume what MLIR leaves poison or undefined
    (division by zero, shifts past the width) where attn defines a value.
    So the bodies keep exactly the ops they were written with, and the
    reference of the fused IR is that of the graph. The kernel compiler
    folds the body's constants itself. Dead graph ops are erased, so that
    they do not count as extra users and block fusion.
  }];
  let statistics = [
    Statistic<"numSkippedRegions", "skipped-regions",
              "Number of score_mod regions left as written">
  ];
}

def AttnFusePass : Pass<"attn-fuse"> {
  let summary = "Fuse attention graphs into attn.flash";
  let description = [{
    Finds each `attn.softmax` over the key axis and walks the chain around
    it: `attn.matmul` (q, k), any number of scalings (`attn.scale`, or
    `arith.mulf`/`divf` by a splat constant; also on q or k), masks
    (`attn.mask`, merged; `arith.select` with a -inf fill), a bias
    (`arith.addf`), one `attn.score_mod`, element type casts, the softmax,
    and the `attn.matmul` with v; attention sinks where a per-head column
    (`attn.mask` adding a `[1, H, 1, 1]` f32 bias to a splat 0) is
    concatenated to the scores (`tensor.concat` along the keys) and sliced
    off the probabilities (`tensor.extract_slice`). The chain becomes one `attn.flash`. A chain that cannot be fused stays as it is and gets a
    remark (on stderr, with the softmax's location) that says why.

    Fused order: `scale`, then `score_mod`, then `bias`, then masks; a graph
    in another order is fused only where the result is the same.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numFused", "fused", "Number of chains fused into attn.flash">,
    Statistic<"numUnfused", "unfused", "Number of softmax chains left unfused">
  ];
}

def AttnLowerUnfusedPass : Pass<"attn-lower-unfused"> {
  let summary = "Run every graph op as its own kernel (the unfused path)";
  let description = [{
    Wraps each graph op (`attn.matmul`, `attn.scale`, `attn.mask`,
    `attn.score_mod`, `attn.softmax`, and tensor `arith.extf`/`truncf`) in
    an `attn.kernel`, the shape of PyTorch's "math" backend: one launch per
    op, intermediates in memory. Scale, mask and score_mod kernels are
    `in_place`: they rewrite the score tensor they read instead of copying
    it. Run it instead of `--attn-fuse` to keep the unfused graph as a
    reference and for profiling what fusion saves. Constants that a
    score_mod region uses are cloned into its kernel.
  }];
}

def AttnSelectConfigPass : Pass<"attn-select-config"> {
  let summary = "Choose the kernel variant and tiles of each attn.flash";
  let description = [{
    A cost model picks, for the target `arch`, the variant and the
    `block_m`/`block_n`/`num_warps`/`stages` that fit shared memory and
    registers and fill the multiprocessors, and records the choice as
    `#attn.config<...>`. The variants are the table of
    include/attn/Variants/KernelVariants.h: on sm_90a, head dims that are
    multiples of 16 with an untransposed K get `sm90ws` (TMA producer,
    warp-specialized wgmma consumers, persistent) where it is the fastest
    that fits, else `sm90` (head dims multiples of 64) or `sm80` (mma.sync,
    multiples of 8), with a remark naming why the faster variant could not
    serve. Any of the tile options given on the command line overrides the
    model. Ops that already carry a config keep it unless an
    override is given. An op no kernel supports (head dim over 256 or not a
    multiple of 8) is an error. An `attn.flash_bwd` without a config gets a
    `#attn.backward_config<...>`: of the table's backward variants
    (`KernelVariants.h`; on sm_90a `sm90`, wgmma, for head dims 64 and
    128, else `sm80`), the first candidate tiles that split its head
    dims and fit shared memory and the register limits of both of its
    kernels (the tile overrides are the forward's; `backward-variant`
    forces a backward variant, an error where it cannot serve).
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_80\"",
           "Target GPU, sm_XY (the tuned ones: --attn-pipeline's arch)">,
    Option<"variant", "variant", "std::string", /*default=*/"\"\"",
           "Override: kernel variant, sm90ws, sm90 or sm80 (empty = model)">,
    Option<"blockM", "block-m", "int64_t", /*default=*/"0",
           "Override: query rows per tile (0 = model)">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"0",
           "Override: keys per tile (0 = model)">,
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"0",
           "Override: warps per block (0 = model)">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Override: K/V pipeline stages (0 = model)">,
    Option<"backwardVariant", "backward-variant", "std::string",
           /*default=*/"\"\"",
           "Override: backward kernel variant, sm90 or sm80 (empty = model)">,
    Option<"backwardTiles", "backward-tiles", "std::string",
           /*default=*/"\"\"",
           "Override: backward tiles as BLOCK_MxBLOCK_NxWARPSxSTAGES, e.g. "
           "64x128x8x2 (empty = model)">
  ];
}

def AttnDeriveBackwardPass : Pass<"attn-derive-backward", "::mlir::ModuleOp"> {
  let summary = "Derive the backward of attn.flash: a function becomes a training step";
  let description = [{
    Rewrites each function that returns the output of an `attn.flash` into
    a training step: for each such op, in the order of the function's
    operations, the function takes one more argument, the gradient of the
    loss with respect to that output (`grad_output`, appended after the
    existing arguments), and returns, after its results, the gradients with
    respect to the op's `q`, `k` and `v` operands, its `bias` with
    `bias-grad`, and its `sinks` if it has them (learned parameters in
    gpt-oss; their gradient is one small reduction, where a bias's is a
    tensor of scores, hence the option). Between them an `attn.flash_bwd` carries the forward's
    attributes, mask operands, `score_mod` and its captures, and the
    derivative of the `score_mod` with respect to the score
    (`score_mod_grad`, on the same arguments), built by differentiating the
    region op by op (forward mode, the rules of `ScoreModDerivatives.cpp`,
    which name every op of the score_mod op table; integer, comparison and
    rounding ops have zero derivative).
    A forward without a logsumexp result gets one: the backward reads it.

    ```mlir
    func.func @f(%q, %k, %v) -> tensor<...> {
      %o = attn.flash %q, %k, %v {...} : ...
      return %o
    }
    // becomes
    func.func @f(%q, %k, %v, %grad_o) -> (tensor<...>, dq, dk, dv) {
      %o, %lse = attn.flash %q, %k, %v {...} : ...
      %dq, %dk, %dv = attn.flash_bwd %q, %k, %v, %o, %grad_o, %lse {...} : ...
      return %o, %dq, %dk, %dv
    }
    ```

    The runtime compiles the step's two kernels, which a caller (attn-run
    --backward, a torch autograd Function) launches separately: the
    forward, which saves `o` and `lse`, and later the backward. Run it
    after `--attn-fuse`. An `attn.flash` whose output other ops use, a
    module without an `attn.flash`, and a `score_mod` op that has no
    derivative (a `bitcast` of the score) are errors.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
  let options = [
    Option<"biasGrad", "bias-grad", "bool", /*default=*/"false",
           "Also return the gradient of each bias operand">
  ];
}

#endif // ATTN_TRANSFORMS_PASSES_TD
