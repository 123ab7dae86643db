// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Tests that loom.sin rejects integer operands.
func.func @sin_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = loom.sin %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Tests that loom.cos rejects integer operands.
func.func @cos_int(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = loom.cos %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Tests that loom.sin's result has its operand's type.
func.func @sin_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.sin' op requires the same type for all operands and results}}
  %0 = "loom.sin"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that loom.cos's result has its operand's shape.
func.func @cos_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.cos' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.cos"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}
