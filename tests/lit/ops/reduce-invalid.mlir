// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Tests that dims is strictly increasing (decreasing order is rejected).
func.func @dims_decreasing(%x: tensor<4x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'loom.reduce' op dims must be strictly increasing, got [1, 0]}}
  %0 = loom.reduce sum %x, dims = [1, 0] : tensor<4x8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that dims is strictly increasing (a repeated dim is rejected).
func.func @dims_repeated(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'loom.reduce' op dims must be strictly increasing, got [1, 1]}}
  %0 = loom.reduce sum %x, dims = [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that every entry of dims is an operand dim (too large).
func.func @dim_too_large(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'loom.reduce' op dims[0] = 2 is not a dim of operand 'tensor<4x8xf32>'}}
  %0 = loom.reduce max %x, dims = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that every entry of dims is an operand dim (negative).
func.func @dim_negative(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'loom.reduce' op dims[0] = -1 is not a dim of operand 'tensor<4x8xf32>'}}
  %0 = loom.reduce max %x, dims = [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that a rank-0 operand has no dim to reduce.
func.func @dim_of_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'loom.reduce' op dims[0] = 0 is not a dim of operand 'tensor<f32>'}}
  %0 = loom.reduce sum %x, dims = [0] : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that the result drops the reduced dims (it does not keep them as size 1).
func.func @result_keeps_dim(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'loom.reduce' op result type 'tensor<4x1xf32>' does not match the inferred type 'tensor<4xf32>'}}
  %0 = loom.reduce sum %x, dims = [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Tests that the result type is the operand's without the reduced dims (wrong dim dropped).
func.func @result_wrong_dim(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'loom.reduce' op result type 'tensor<8xf32>' does not match the inferred type 'tensor<4xf32>'}}
  %0 = loom.reduce sum %x, dims = [1] : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that the result keeps the operand's element type.
func.func @result_element_type(%x: tensor<4x8xi32>) -> tensor<4xi64> {
  // expected-error @+1 {{'loom.reduce' op result type 'tensor<4xi64>' does not match the inferred type 'tensor<4xi32>'}}
  %0 = loom.reduce sum %x, dims = [1] : tensor<4x8xi32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Tests that reducing over all dims gives a rank-0 result, not a size-1 one.
func.func @result_all_dims(%x: tensor<4x8xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'loom.reduce' op result type 'tensor<1xf32>' does not match the inferred type 'tensor<f32>'}}
  %0 = loom.reduce max %x, dims = [0, 1] : tensor<4x8xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// Tests that reduce takes numeric tensors only (not i1).
func.func @operand_i1(%x: tensor<4x8xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'loom.reduce' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xi1>'}}
  %0 = loom.reduce max %x, dims = [1] : tensor<4x8xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Tests that the kind is sum or max.
func.func @unknown_kind(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'loom.reduce' expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max]}}
  %0 = loom.reduce min %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
