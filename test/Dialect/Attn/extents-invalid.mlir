// RUN: attn-opt %s -split-input-file -verify-diagnostics
// RUN: attn-opt %s -split-input-file -verify-diagnostics -attn-fuse

// Zero extents once divided by zero in the verifiers and emitters (SIGFPE),
// and extents past 32 bits were truncated on the way to a kernel (2^32 + 1
// heads became 1): both are located errors that name the dimension.

func.func @flash_zero_kv_heads(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x0x64x64xbf16>, %v: tensor<1x0x64x64xbf16>) -> tensor<1x1x64x64xbf16> {
  // expected-error @+1 {{'attn.flash' op 'k' dimension 1 (heads) is 0; extents must be between 1 and 2147483647}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x1x64x64xbf16>, tensor<1x0x64x64xbf16>, tensor<1x0x64x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}

// -----

func.func @flash_huge_heads(%q: tensor<1x4294967297x64x64xbf16>, %k: tensor<1x1x64x64xbf16>, %v: tensor<1x1x64x64xbf16>) -> tensor<1x4294967297x64x64xbf16> {
  // expected-error @+1 {{'q' dimension 1 (heads) is 4294967297; extents must be between 1 and 2147483647}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<1x4294967297x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16> -> tensor<1x4294967297x64x64xbf16>
  return %o : tensor<1x4294967297x64x64xbf16>
}

// -----

func.func @flash_huge_batch(%q: tensor<4611686018427387904x1x64x64xbf16>, %k: tensor<4611686018427387904x1x64x64xbf16>, %v: tensor<4611686018427387904x1x64x64xbf16>) -> tensor<4611686018427387904x1x64x64xbf16> {
  // expected-error @+1 {{'q' dimension 0 (batch) is 4611686018427387904; extents must be between 1 and 2147483647}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32} : tensor<4611686018427387904x1x64x64xbf16>, tensor<4611686018427387904x1x64x64xbf16>, tensor<4611686018427387904x1x64x64xbf16> -> tensor<4611686018427387904x1x64x64xbf16>
  return %o : tensor<4611686018427387904x1x64x64xbf16>
}

// -----

func.func @flash_transposed_k_zero_seq(%q: tensor<1x1x64x64xbf16>, %k: tensor<1x1x64x0xbf16>, %v: tensor<1x1x0x64xbf16>) -> tensor<1x1x64x64xbf16> {
  // expected-error @+1 {{'k' dimension 3 (seq) is 0}}
  %o = attn.flash %q, %k, %v {scale = 1.0 : f32, transpose_k} : tensor<1x1x64x64xbf16>, tensor<1x1x64x0xbf16>, tensor<1x1x0x64xbf16> -> tensor<1x1x64x64xbf16>
  return %o : tensor<1x1x64x64xbf16>
}

// -----

func.func @flash_zero_lengths(%q: tensor<?x1x64x64xbf16>, %k: tensor<?x1x64x64xbf16>, %v: tensor<?x1x64x64xbf16>, %len: tensor<0xi32>) -> tensor<?x1x64x64xbf16> {
  // expected-error @+1 {{'lengths' dimension 0 is 0}}
  %o = attn.flash %q, %k, %v lengths(%len : tensor<0xi32>) {scale = 1.0 : f32, mask = #attn.mask<key_padding>} : tensor<?x1x64x64xbf16>, tensor<?x1x64x64xbf16>, tensor<?x1x64x64xbf16> -> tensor<?x1x64x64xbf16>
  return %o : tensor<?x1x64x64xbf16>
}

// -----

// A graph whose q, k and v have 0 heads reached the flash verifier through
// --attn-fuse; the matmul stops it first.
func.func @graph_zero_heads(%q: tensor<1x0x16x16xbf16>, %k: tensor<1x0x16x16xbf16>, %v: tensor<1x0x16x16xbf16>) -> tensor<1x0x16x16xbf16> {
  // expected-error @+1 {{'attn.matmul' op 'lhs' dimension 1 is 0}}
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x0x16x16xbf16>, tensor<1x0x16x16xbf16> -> tensor<1x0x16x16xf32>
  %p = attn.softmax %s {dim = 3} : tensor<1x0x16x16xf32> -> tensor<1x0x16x16xbf16>
  %o = attn.matmul %p, %v : tensor<1x0x16x16xbf16>, tensor<1x0x16x16xbf16> -> tensor<1x0x16x16xbf16>
  return %o : tensor<1x0x16x16xbf16>
}

// -----

func.func @matmul_zero_rhs_heads(%q: tensor<1x4x64x64xbf16>, %k: tensor<1x0x64x64xbf16>) -> tensor<1x4x64x64xf32> {
  // expected-error @+1 {{'attn.matmul' op 'rhs' dimension 1 is 0; extents must be between 1 and 2147483647}}
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x4x64x64xbf16>, tensor<1x0x64x64xbf16> -> tensor<1x4x64x64xf32>
  return %s : tensor<1x4x64x64xf32>
}

// -----

func.func @softmax_over_nothing(%s: tensor<1x1x4x0xf32>) -> tensor<1x1x4x0xf32> {
  // expected-error @+1 {{'attn.softmax' op 'input' dimension 3 is 0; extents must be between 1 and 2147483647}}
  %p = attn.softmax %s {dim = 3} : tensor<1x1x4x0xf32> -> tensor<1x1x4x0xf32>
  return %p : tensor<1x1x4x0xf32>
}

// -----

func.func @scale_huge(%s: tensor<2147483648xf32>) -> tensor<2147483648xf32> {
  // expected-error @+1 {{'attn.scale' op 'input' dimension 0 is 2147483648}}
  %t = attn.scale %s {factor = 2.0 : f32} : tensor<2147483648xf32>
  return %t : tensor<2147483648xf32>
}

// -----

func.func @mask_zero_keep(%s: tensor<1x1x8x8xf32>, %keep: tensor<1x1x8x0xi1>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{'attn.mask' op 'keep' dimension 3 is 0}}
  %m = attn.mask %s keep(%keep : tensor<1x1x8x0xi1>) {kind = #attn.mask<keep>} : tensor<1x1x8x8xf32>
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @score_mod_zero(%s: tensor<1x1x0x8xf32>) -> tensor<1x1x0x8xf32> {
  // expected-error @+1 {{'attn.score_mod' op 'input' dimension 2 is 0}}
  %c = attn.score_mod %s {
  ^bb0(%x: f32, %b: index, %h: index, %i: index, %j: index):
    attn.yield %x : f32
  } : tensor<1x1x0x8xf32>
  return %c : tensor<1x1x0x8xf32>
}

// -----

func.func @kernel_zero_input(%s: tensor<1x0xf32>) -> tensor<1x0xf32> {
  // expected-error @+1 {{'attn.kernel' op 'input 0' dimension 1 is 0}}
  %m = attn.kernel "cast"(%s) : (tensor<1x0xf32>) -> tensor<1x0xf32> {
  ^bb0(%x: tensor<1x0xf32>):
    attn.yield %x : tensor<1x0xf32>
  }
  return %m : tensor<1x0xf32>
}
