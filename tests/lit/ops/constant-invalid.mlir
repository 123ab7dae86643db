// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Invalid loom.constant and loom.iota: one case per constraint (see LoomOps.td).

// Tests that loom.constant rejects a value whose shape differs from the result type.
func.func @constant_shape_mismatch() {
  // expected-error @+1 {{'loom.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "loom.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

// Tests that loom.constant rejects a value whose element type differs from the result type.
func.func @constant_element_mismatch() {
  // expected-error @+1 {{'loom.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "loom.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf64>
  return
}

// -----

// Tests that loom.constant rejects an element type outside the accepted list (i8).
func.func @constant_i8() {
  // expected-error @+1 {{'loom.constant' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<2xi8>'}}
  %0 = loom.constant dense<1> : tensor<2xi8>
  return
}

// -----

// Tests that loom.constant rejects a vector value (its result must be a tensor).
func.func @constant_vector() {
  // expected-error @+1 {{'loom.constant' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'vector<2xf32>'}}
  %0 = loom.constant dense<1.0> : vector<2xf32>
  return
}

// -----

// Tests that loom.constant rejects an unranked result.
func.func @constant_unranked() {
  // expected-error @+1 {{'loom.constant' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<*xf32>
  return
}

// -----

// Tests that loom.constant rejects a dynamically shaped result.
func.func @constant_dynamic() {
  // expected-error @+1 {{'loom.constant' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<?xf32>'}}
  %0 = "loom.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<?xf32>
  return
}

// -----

// Tests that loom.constant rejects a value that is not an elements attribute.
func.func @constant_scalar_value() {
  // expected-error @+1 {{'loom.constant' op attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = "loom.constant"() {value = 1.0 : f32} : () -> tensor<f32>
  return
}

// -----

// Tests that loom.constant requires its value.
func.func @constant_no_value() {
  // expected-error @+1 {{'loom.constant' op requires attribute 'value'}}
  %0 = "loom.constant"() : () -> tensor<2xf32>
  return
}

// -----

// Tests that loom.iota rejects a rank-0 result.
func.func @iota_rank0() {
  // expected-error @+1 {{'loom.iota' op result must have rank >= 1, got 'tensor<i32>'}}
  %0 = loom.iota dim = 0 : tensor<i32>
  return
}

// -----

// Tests that loom.iota rejects a dim equal to the result's rank.
func.func @iota_dim_is_rank() {
  // expected-error @+1 {{'loom.iota' op dim 2 is out of range for result 'tensor<2x3xi32>'}}
  %0 = loom.iota dim = 2 : tensor<2x3xi32>
  return
}

// -----

// Tests that loom.iota rejects a dim above the result's rank.
func.func @iota_dim_above_rank() {
  // expected-error @+1 {{'loom.iota' op dim 7 is out of range for result 'tensor<4xf32>'}}
  %0 = loom.iota dim = 7 : tensor<4xf32>
  return
}

// -----

// Tests that loom.iota rejects the i1 element type (it counts in numbers only).
func.func @iota_i1() {
  // expected-error @+1 {{'loom.iota' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.iota dim = 0 : tensor<4xi1>
  return
}

// -----

// Tests that loom.iota rejects a dynamically shaped result.
func.func @iota_dynamic() {
  // expected-error @+1 {{'loom.iota' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<?xi32>'}}
  %0 = loom.iota dim = 0 : tensor<?xi32>
  return
}

// -----

// Tests that loom.iota rejects an unranked result.
func.func @iota_unranked() {
  // expected-error @+1 {{'loom.iota' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xi32>'}}
  %0 = "loom.iota"() {dim = 0 : i64} : () -> tensor<*xi32>
  return
}

// -----

// Tests that loom.iota requires its dim.
func.func @iota_no_dim() {
  // expected-error @+1 {{'loom.iota' op requires attribute 'dim'}}
  %0 = "loom.iota"() : () -> tensor<4xi32>
  return
}
