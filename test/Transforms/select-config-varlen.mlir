// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_90a 2>%t.remarks | FileCheck %s --check-prefix=SM90
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: attn-opt %s -split-input-file -attn-select-config=arch=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: not attn-opt %s -split-input-file "-attn-select-config=arch=sm_90a variant=sm90ws" 2>&1 | FileCheck %s --check-prefix=FORCED

// Ragged batches: the warp-specialized TMA kernel reads whole sequences of
// a dense batch, so on sm_90a the cp.async wgmma kernel runs them, with a
// remark that says why; head dims that wgmma cannot take stay on mma.sync.
// The packed tokens say nothing of the sequences' lengths: prefill tiles.
// SM90-LABEL: func @varlen_hd128
// SM90: config = #attn.config<variant = "sm90", block_m = 128, block_n = 128, num_warps = 8, stages = 2>
// SM80-LABEL: func @varlen_hd128
// SM80: config = #attn.config<variant = "sm80"
// REMARK: select-config-varlen.mlir:[[@LINE+4]]:8: remark: kernel variant sm90, not sm90ws: it needs a dense batch (ragged sequences at cu_seqlens offsets would need TMA boxes cut at each sequence's bounds)
// FORCED: error: 'attn.flash' op variant sm90ws cannot run this attention: it needs a dense batch
func.func @varlen_hd128(%q: tensor<4096x32x128xbf16>, %k: tensor<4096x8x128xbf16>, %v: tensor<4096x8x128xbf16>,
                        %cq: tensor<9xi32>, %ck: tensor<9xi32>) -> tensor<4096x32x128xbf16> {
  %o = attn.flash %q, %k, %v cu_seqlens_q(%cq : tensor<9xi32>) cu_seqlens_k(%ck : tensor<9xi32>)
      {scale = 0.088388 : f32, mask = #attn.mask<causal, bottom_right>}
    : tensor<4096x32x128xbf16>, tensor<4096x8x128xbf16>, tensor<4096x8x128xbf16> -> tensor<4096x32x128xbf16>
  return %o : tensor<4096x32x128xbf16>
}

// -----

// SM90-LABEL: func @varlen_hd96
// SM90: config = #attn.config<variant = "sm80"
// REMARK: select-config-varlen.mlir:[[@LINE+2]]:8: remark: kernel variant sm80, not sm90ws: it needs a dense batch
func.func @varlen_hd96(%q: tensor<100x4x96xf16>, %cq: tensor<3xi32>) -> tensor<100x4x96xf16> {
  %o = attn.flash %q, %q, %q cu_seqlens_q(%cq : tensor<3xi32>) cu_seqlens_k(%cq : tensor<3xi32>) {scale = 0.1 : f32}
    : tensor<100x4x96xf16>, tensor<100x4x96xf16>, tensor<100x4x96xf16> -> tensor<100x4x96xf16>
  return %o : tensor<100x4x96xf16>
}
