// RUN: attn-opt %s -split-input-file -verify-diagnostics

func.func @arg_count(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{body has 0 arguments for 1 inputs}}
  %m = attn.kernel "scale"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
    %c = arith.constant dense<0.0> : tensor<1x1x8x8xf32>
    attn.yield %c : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @arg_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{body argument 0 has type 'tensor<1x1x8x8xf16>' but input 0 is 'tensor<1x1x8x8xf32>'}}
  %m = attn.kernel "scale"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf16>):
    %y = arith.extf %x : tensor<1x1x8x8xf16> to tensor<1x1x8x8xf32>
    attn.yield %y : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @no_payload(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{body must hold one graph op before attn.yield}}
  %m = attn.kernel "nothing"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    attn.yield %x : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @two_ops(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{body may hold constants and one graph op, but also has 'attn.scale'}}
  %m = attn.kernel "two"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %a = attn.scale %x {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    %b = attn.scale %a {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    attn.yield %b : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @not_graph(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{runs 'arith.negf', which is not a graph op}}
  %m = attn.kernel "neg"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %y = arith.negf %x : tensor<1x1x8x8xf32>
    attn.yield %y : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @yield(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{must yield the result of its op, of type 'tensor<1x1x8x8xf32>'}}
  %m = attn.kernel "scale"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %y = attn.scale %x {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    attn.yield %x : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @in_place_type(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xbf16> {
  // expected-error @+1 {{in_place needs a first input of the result type 'tensor<1x1x8x8xbf16>'}}
  %m = attn.kernel "softmax" in_place(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xbf16> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %y = attn.softmax %x {dim = 3} : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xbf16>
    attn.yield %y : tensor<1x1x8x8xbf16>
  }
  return %m : tensor<1x1x8x8xbf16>
}

// -----

func.func @isolated(%s: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %m = attn.kernel "scale"(%s) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %y = attn.mask %s {kind = #attn.mask<causal>} : tensor<1x1x8x8xf32>
    attn.yield %y : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}

// -----

// The kernel passes its inputs to the op by position: a body that swapped
// them was emitted with the shapes of one and run on the other.
func.func @operands_out_of_order(%a: tensor<1x1x8x16xf32>, %b: tensor<1x1x16x8xf32>) -> tensor<1x1x16x16xf32> {
  // expected-error @+1 {{operand 0 of 'attn.matmul' must be body argument 0 (the kernel passes its inputs in order)}}
  %m = attn.kernel "matmul"(%a, %b) : (tensor<1x1x8x16xf32>, tensor<1x1x16x8xf32>) -> tensor<1x1x16x16xf32> {
  ^bb0(%x: tensor<1x1x8x16xf32>, %y: tensor<1x1x16x8xf32>):
    %r = attn.matmul %y, %x : tensor<1x1x16x8xf32>, tensor<1x1x8x16xf32> -> tensor<1x1x16x16xf32>
    attn.yield %r : tensor<1x1x16x16xf32>
  }
  return %m : tensor<1x1x16x16xf32>
}

// -----

func.func @operand_count(%a: tensor<1x1x8x8xf32>, %b: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{'attn.scale' has 1 operands for 2 inputs}}
  %m = attn.kernel "scale"(%a, %b) : (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>, %y: tensor<1x1x8x8xf32>):
    %r = attn.scale %y {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    attn.yield %r : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}

// -----

func.func @operand_from_the_body(%a: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{operand 0 of 'attn.scale' must be body argument 0}}
  %m = attn.kernel "scale"(%a) : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  ^bb0(%x: tensor<1x1x8x8xf32>):
    %c = arith.constant dense<1.0> : tensor<1x1x8x8xf32>
    %r = attn.scale %c {factor = 2.0 : f32} : tensor<1x1x8x8xf32>
    attn.yield %r : tensor<1x1x8x8xf32>
  }
  return %m : tensor<1x1x8x8xf32>
}
