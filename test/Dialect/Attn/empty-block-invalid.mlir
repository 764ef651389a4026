// RUN: attn-opt %s -split-input-file -verify-diagnostics

// A region whose block is empty has no terminator; the verifiers asked it for
// one (LLVM ERROR: out of memory, or SIGSEGV in a long-lived process).

func.func @kernel_empty_body(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{'attn.kernel' op body must end in attn.yield}}
  %m = "attn.kernel"(%s) <{name = "x"}> ({
  ^bb0(%x: tensor<1x1x8x8xf32>):
  }) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @kernel_no_terminator(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{'attn.kernel' op body must end in attn.yield}}
  %m = "attn.kernel"(%s) <{name = "x"}> ({
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %y = attn.scale %x {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
  }) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @score_mod_empty_body(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{'attn.score_mod' op score_mod region must end in attn.yield}}
  %m = "attn.score_mod"(%s) ({
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
  }) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @flash_score_mod_empty_body(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  // expected-error @+1 {{'attn.flash' op score_mod region must end in attn.yield}}
  %o = "attn.flash"(%q, %k, %v) <{scale = 1.0 : f32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0>}> ({
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
  }) : (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>) -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}
