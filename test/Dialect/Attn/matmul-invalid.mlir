// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @rank_one(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{lhs must have rank >= 2, got rank 1}}
  %c = attn.matmul %a, %b : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

func.func @rank_mismatch(%a: tensor<2x8x16xf32>, %b: tensor<16x8xf32>) -> tensor<2x8x8xf32> {
  // expected-error @+1 {{lhs has rank 3 but rhs has rank 2}}
  %c = attn.matmul %a, %b : tensor<2x8x16xf32>, tensor<16x8xf32> -> tensor<2x8x8xf32>
  return %c : tensor<2x8x8xf32>
}

// -----

func.func @result_rank(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<1x8x8xf32> {
  // expected-error @+1 {{result has rank 3, expected 2}}
  %c = attn.matmul %a, %b : tensor<8x16xf32>, tensor<16x8xf32> -> tensor<1x8x8xf32>
  return %c : tensor<1x8x8xf32>
}

// -----

func.func @element_types(%a: tensor<8x16xf16>, %b: tensor<16x8xbf16>) -> tensor<8x8xf32> {
  // expected-error @+1 {{lhs element type 'f16' differs from rhs element type 'bf16'}}
  %c = attn.matmul %a, %b : tensor<8x16xf16>, tensor<16x8xbf16> -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// -----

func.func @result_element(%a: tensor<8x16xf16>, %b: tensor<16x8xf16>) -> tensor<8x8xbf16> {
  // expected-error @+1 {{result element type must be f32 or 'f16', got 'bf16'}}
  %c = attn.matmul %a, %b : tensor<8x16xf16>, tensor<16x8xf16> -> tensor<8x8xbf16>
  return %c : tensor<8x8xbf16>
}

// -----

func.func @contraction(%q: tensor<1x2x8x64xbf16>, %k: tensor<1x2x8x32xbf16>) -> tensor<1x2x8x8xf32> {
  // expected-error @+1 {{contraction mismatch: lhs dimension 3 is 64 but rhs dimension 3 is 32}}
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x2x8x64xbf16>, tensor<1x2x8x32xbf16> -> tensor<1x2x8x8xf32>
  return %s : tensor<1x2x8x8xf32>
}

// -----

func.func @heads_do_not_divide(%q: tensor<1x6x8x64xbf16>, %k: tensor<1x4x8x64xbf16>) -> tensor<1x6x8x8xf32> {
  // expected-error @+1 {{rhs heads (dimension 1) is 4, which must divide lhs heads 6}}
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<1x6x8x64xbf16>, tensor<1x4x8x64xbf16> -> tensor<1x6x8x8xf32>
  return %s : tensor<1x6x8x8xf32>
}

// -----

func.func @batch(%q: tensor<2x4x8x64xbf16>, %k: tensor<3x4x8x64xbf16>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{batch dimension 0 differs: lhs has 2, rhs has 3}}
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x8x64xbf16>, tensor<3x4x8x64xbf16> -> tensor<2x4x8x8xf32>
  return %s : tensor<2x4x8x8xf32>
}

// -----

func.func @result_shape(%q: tensor<2x4x8x64xbf16>, %k: tensor<2x4x16x64xbf16>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{result shape 2x4x8x8 does not match the expected 2x4x8x16 at dimension 3}}
  %s = attn.matmul %q, %k {transpose_rhs} : tensor<2x4x8x64xbf16>, tensor<2x4x16x64xbf16> -> tensor<2x4x8x8xf32>
  return %s : tensor<2x4x8x8xf32>
}

// -----

func.func @integer_operands(%a: tensor<8x16xi32>, %b: tensor<16x8xi32>) -> tensor<8x8xi32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values}}
  %c = attn.matmul %a, %b : tensor<8x16xi32>, tensor<16x8xi32> -> tensor<8x8xi32>
  return %c : tensor<8x8xi32>
}
