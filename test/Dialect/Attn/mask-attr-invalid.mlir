// RUN: attn-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown mask item 'causual'; expected causal, bottom_right, window, key_padding, keep or bias}}
func.func private @f() attributes {m = #attn.mask<causual>}

// -----

// expected-error @+1 {{mask item 'causal' given twice}}
func.func private @f() attributes {m = #attn.mask<causal, causal>}

// -----

// expected-error @+1 {{window = [-1, -1] bounds neither side; drop it}}
func.func private @f() attributes {m = #attn.mask<window = [-1, -1]>}

// -----

// expected-error @+1 {{window bounds must be -1 (unbounded) or >= 0, got [-5, 0]}}
func.func private @f() attributes {m = #attn.mask<window = [-5, 0]>}

// -----

// expected-error @+1 {{bottom_right aligns causal or window, but the mask has neither}}
func.func private @f() attributes {m = #attn.mask<bottom_right, key_padding>}

// -----

// expected-error @+1 {{expected '['}}
func.func private @f() attributes {m = #attn.mask<window = 4>}

// -----

// 2^32 was truncated to a window of 0 on the way to the kernel.
// expected-error @+1 {{window bounds must be at most 2147483647, got [4294967296, 0]}}
func.func private @f() attributes {m = #attn.mask<window = [4294967296, 0]>}

// -----

// expected-error @+1 {{unknown bottom_right alignment 'lengths'; expected 'tensor' (plain bottom_right aligns to each sequence's length)}}
func.func private @f() attributes {m = #attn.mask<causal, bottom_right = lengths, key_padding>}

// -----

// expected-error @+1 {{bottom_right = tensor differs from bottom_right only with key_padding; drop '= tensor'}}
func.func private @f() attributes {m = #attn.mask<causal, bottom_right = tensor>}
