// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @outside(%x: f32) {
  // expected-error @+1 {{expects parent op to be one of 'attn.score_mod, attn.flash, attn.flash_bwd, attn.kernel'}}
  attn.yield %x : f32
}
