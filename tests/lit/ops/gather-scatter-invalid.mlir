// RUN: loom-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

// Tests that the table has rank >= 1.
func.func @gather_scalar_table(%t: tensor<f32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'loom.gather' op table must have rank >= 1, got 'tensor<f32>'}}
  %0 = loom.gather %t[%i] : (tensor<f32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that the result type is the inferred one: the row shape drops the table's first dim.
func.func @gather_result_shape(%t: tensor<100x16xf32>, %i: tensor<4x8xi32>) -> tensor<4x8x100xf32> {
  // expected-error @+1 {{'loom.gather' op result type 'tensor<4x8x100xf32>' does not match the inferred type 'tensor<4x8x16xf32>'}}
  %0 = loom.gather %t[%i] : (tensor<100x16xf32>, tensor<4x8xi32>) -> tensor<4x8x100xf32>
  return %0 : tensor<4x8x100xf32>
}

// -----

// Tests that the result type is the inferred one: the indices' shape comes first.
func.func @gather_result_order(%t: tensor<100x16xf32>, %i: tensor<4xi32>) -> tensor<16x4xf32> {
  // expected-error @+1 {{'loom.gather' op result type 'tensor<16x4xf32>' does not match the inferred type 'tensor<4x16xf32>'}}
  %0 = loom.gather %t[%i] : (tensor<100x16xf32>, tensor<4xi32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// Tests that the result type is the inferred one: it has the table's element type.
func.func @gather_result_element(%t: tensor<100x16xf32>, %i: tensor<4x8xi32>) -> tensor<4x8x16xf16> {
  // expected-error @+1 {{'loom.gather' op result type 'tensor<4x8x16xf16>' does not match the inferred type 'tensor<4x8x16xf32>'}}
  %0 = loom.gather %t[%i] : (tensor<100x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf16>
  return %0 : tensor<4x8x16xf16>
}

// -----

// Tests that gather indices are integers (not floats).
func.func @gather_float_indices(%t: tensor<100x16xf32>, %i: tensor<4x8xf32>) -> tensor<4x8x16xf32> {
  // expected-error @+1 {{'loom.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %0 = loom.gather %t[%i] : (tensor<100x16xf32>, tensor<4x8xf32>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}

// -----

// Tests that gather indices are i32 or i64 (not i1).
func.func @gather_i1_indices(%t: tensor<100x16xf32>, %i: tensor<4xi1>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'loom.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.gather %t[%i] : (tensor<100x16xf32>, tensor<4xi1>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// scatter_add
//===----------------------------------------------------------------------===//

// Tests that the scatter_add result has rank >= 1.
func.func @scatter_scalar_result(%u: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{'loom.scatter_add' op result must have rank >= 1, got 'tensor<f32>'}}
  %0 = loom.scatter_add %u[%i] : (tensor<4xf32>, tensor<4xi32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that the scatter_add result has a numeric element type (not i1).
func.func @scatter_i1_result(%u: tensor<4x8xf32>, %i: tensor<4x8xi32>) -> tensor<100xi1> {
  // expected-error @+1 {{'loom.scatter_add' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<100xi1>'}}
  %0 = loom.scatter_add %u[%i] : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<100xi1>
  return %0 : tensor<100xi1>
}

// -----

// Tests that updates have the element type of the result.
func.func @scatter_updates_element(%u: tensor<4x8x16xf32>, %i: tensor<4x8xi32>) -> tensor<100x16xf16> {
  // expected-error @+1 {{'loom.scatter_add' op updates 'tensor<4x8x16xf32>' and result 'tensor<100x16xf16>' differ in element type}}
  %0 = loom.scatter_add %u[%i] : (tensor<4x8x16xf32>, tensor<4x8xi32>) -> tensor<100x16xf16>
  return %0 : tensor<100x16xf16>
}

// -----

// Tests that updates are numeric (not i1), like the result.
func.func @scatter_i1_updates(%u: tensor<4x8xi1>, %i: tensor<4x8xi32>) -> tensor<100xi1> {
  // expected-error @+1 {{'loom.scatter_add' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xi1>'}}
  %0 = loom.scatter_add %u[%i] : (tensor<4x8xi1>, tensor<4x8xi32>) -> tensor<100xi1>
  return %0 : tensor<100xi1>
}

// -----

// Tests that updates have shape indices ++ result[1:] (wrong row size).
func.func @scatter_updates_row(%u: tensor<4x8x15xf32>, %i: tensor<4x8xi32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'loom.scatter_add' op updates 'tensor<4x8x15xf32>' must have shape [4, 8, 16] (indices' shape followed by the result's row shape)}}
  %0 = loom.scatter_add %u[%i] : (tensor<4x8x15xf32>, tensor<4x8xi32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// Tests that updates have shape indices ++ result[1:] (missing an indices dim).
func.func @scatter_updates_rank(%u: tensor<4x16xf32>, %i: tensor<4x8xi32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'loom.scatter_add' op updates 'tensor<4x16xf32>' must have shape [4, 8, 16] (indices' shape followed by the result's row shape)}}
  %0 = loom.scatter_add %u[%i] : (tensor<4x16xf32>, tensor<4x8xi32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// Tests that updates have shape indices ++ result[1:] (the table's row count is not part of it).
func.func @scatter_updates_table_shape(%u: tensor<100x16xf32>, %i: tensor<4xi32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'loom.scatter_add' op updates 'tensor<100x16xf32>' must have shape [4, 16] (indices' shape followed by the result's row shape)}}
  %0 = loom.scatter_add %u[%i] : (tensor<100x16xf32>, tensor<4xi32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// Tests that scatter_add indices are integers (not floats).
func.func @scatter_float_indices(%u: tensor<4x8x16xf32>, %i: tensor<4x8xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'loom.scatter_add' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %0 = loom.scatter_add %u[%i] : (tensor<4x8x16xf32>, tensor<4x8xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// Tests that gather rejects rows of an empty table.
func.func @gather_empty_table(%t: tensor<0x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{cannot take rows of the empty table 'tensor<0x4xf32>'}}
  %0 = loom.gather %t[%i] : (tensor<0x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
