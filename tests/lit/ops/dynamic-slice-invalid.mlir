// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Tests of the loom.dynamic_slice and loom.dynamic_update_slice verifiers
// (compiler/IR/DynamicSliceOps.cpp): one rank-0 start per dim, a box that fits.

func.func @slice_start_count(%x: tensor<8x4xf32>, %i: tensor<i32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'loom.dynamic_slice' op has 1 start indices but the operand 'tensor<8x4xf32>' has rank 2}}
  %0 = loom.dynamic_slice %x[%i] : (tensor<8x4xf32>, tensor<i32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_start_rank(%x: tensor<8x4xf32>, %i: tensor<i32>, %j: tensor<1xi32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'loom.dynamic_slice' op start index 1 must be a rank-0 tensor, not 'tensor<1xi32>'}}
  %0 = loom.dynamic_slice %x[%i, %j] : (tensor<8x4xf32>, tensor<i32>, tensor<1xi32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_float_start(%x: tensor<8x4xf32>, %i: tensor<f32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'loom.dynamic_slice' op operand #1 must be variadic of statically shaped tensor of}}
  %0 = loom.dynamic_slice %x[%i, %i] : (tensor<8x4xf32>, tensor<f32>, tensor<f32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_too_large(%x: tensor<8x4xf32>, %i: tensor<i32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'loom.dynamic_slice' op result dim 1 has size 5, more than the operand's 4}}
  %0 = loom.dynamic_slice %x[%i, %i] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @slice_element_type(%x: tensor<8x4xf32>, %i: tensor<i32>) -> tensor<2x4xf64> {
  // expected-error @+1 {{'loom.dynamic_slice' op result 'tensor<2x4xf64>' must have the rank and element type of the operand 'tensor<8x4xf32>'}}
  %0 = loom.dynamic_slice %x[%i, %i] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}

// -----

func.func @update_rank(%x: tensor<8x4xf32>, %u: tensor<4xf32>, %i: tensor<i32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'loom.dynamic_update_slice' op update 'tensor<4xf32>' must have the rank and element type of the operand 'tensor<8x4xf32>'}}
  %0 = loom.dynamic_update_slice %x, %u[%i, %i] : (tensor<8x4xf32>, tensor<4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @update_too_large(%x: tensor<8x4xf32>, %u: tensor<9x4xf32>, %i: tensor<i32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'loom.dynamic_update_slice' op update dim 0 has size 9, more than the operand's 8}}
  %0 = loom.dynamic_update_slice %x, %u[%i, %i] : (tensor<8x4xf32>, tensor<9x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @update_result_type(%x: tensor<8x4xf32>, %u: tensor<2x4xf32>, %i: tensor<i32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'loom.dynamic_update_slice' op result type 'tensor<2x4xf32>' must be the operand's 'tensor<8x4xf32>'}}
  %0 = loom.dynamic_update_slice %x, %u[%i, %i] : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
