// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Tests that bitwise ops reject float operands.
func.func @xor_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = loom.xor %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that shifts reject i1.
func.func @shift_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = loom.shift_left %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Tests that bitcast_convert needs equal bit widths.
func.func @bitcast_width(%a: tensor<4xi32>) -> tensor<4xf64> {
  // expected-error @+1 {{cannot reinterpret 'i32' as 'f64': they differ in bit width}}
  %0 = loom.bitcast_convert %a : tensor<4xi32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Tests that bitcast_convert keeps the shape.
func.func @bitcast_shape(%a: tensor<4xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = loom.bitcast_convert %a : tensor<4xi32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that loom.and rejects float operands.
func.func @and_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = loom.and %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that loom.or rejects operands of two types.
func.func @or_mixed(%a: tensor<4xi32>, %b: tensor<4xi64>) -> tensor<4xi32> {
  // expected-error @+1 {{'loom.or' op requires the same type for all operands and results}}
  %0 = "loom.or"(%a, %b) : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Tests that loom.or rejects bf16.
func.func @or_bf16(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = loom.or %a, %a : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
