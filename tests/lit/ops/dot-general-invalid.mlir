// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Tests that lhs and rhs have the same element type.
func.func @element_type_lhs_rhs(%l: tensor<4x8xf32>, %r: tensor<8x16xf16>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'loom.dot_general' op lhs 'tensor<4x8xf32>' and rhs 'tensor<8x16xf16>' differ in element type}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xf32>, tensor<8x16xf16>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that the result has the operands' element type.
func.func @element_type_result(%l: tensor<4x8xf32>, %r: tensor<8x16xf32>) -> tensor<4x16xf16> {
  // expected-error @+1 {{'loom.dot_general' op result type 'tensor<4x16xf16>' does not match the inferred type 'tensor<4x16xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// Tests that the element type is not i1.
func.func @element_type_i1(%l: tensor<4x8xi1>, %r: tensor<8x16xi1>) -> tensor<4x16xi1> {
  // expected-error @+1 {{'loom.dot_general' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4x8xi1>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xi1>, tensor<8x16xi1>) -> tensor<4x16xi1>
  return %0 : tensor<4x16xi1>
}

// -----

// Tests that lhs and rhs have as many batching dims as each other.
func.func @batching_count(%l: tensor<2x4x8xf32>, %r: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'loom.dot_general' op lhs has 1 batching dims but rhs has 0}}
  %0 = loom.dot_general %l, %r, batching_dims = [0] x [], contracting_dims = [2] x [0]
      : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Tests that lhs and rhs have as many contracting dims as each other.
func.func @contracting_count(%l: tensor<4x8xf32>, %r: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'loom.dot_general' op lhs has 1 contracting dims but rhs has 2}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0, 1]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that every listed lhs dim is a dim of lhs.
func.func @lhs_dim_out_of_range(%l: tensor<4x8xf32>, %r: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'loom.dot_general' op lhs dim 2 is not a dim of lhs 'tensor<4x8xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [2] x [0]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that every listed rhs dim is a dim of rhs.
func.func @rhs_dim_out_of_range(%l: tensor<4x8xf32>, %r: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'loom.dot_general' op rhs dim 2 is not a dim of rhs 'tensor<8x16xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [2]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that a negative dim is not a dim of its operand.
func.func @rhs_dim_negative(%l: tensor<4x8xf32>, %r: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'loom.dot_general' op rhs dim -1 is not a dim of rhs 'tensor<8x16xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [-1]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that a batching dim is a dim of its operand too.
func.func @batching_dim_out_of_range(%l: tensor<2x4x8xf32>, %r: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'loom.dot_general' op lhs dim 3 is not a dim of lhs 'tensor<2x4x8xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [3] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Tests that a dim is listed once within the contracting dims.
func.func @contracting_dim_twice(%l: tensor<2x2xf32>, %r: tensor<2x2xf32>) -> tensor<f32> {
  // expected-error @+1 {{'loom.dot_general' op lhs dim 1 is listed twice}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1, 1] x [0, 1]
      : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that a dim is listed once across batching and contracting.
func.func @batching_and_contracting(%l: tensor<8x8xf32>, %r: tensor<8x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'loom.dot_general' op rhs dim 0 is listed twice}}
  %0 = loom.dot_general %l, %r, batching_dims = [0] x [0], contracting_dims = [1] x [0]
      : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that paired batching dims have equal sizes.
func.func @batching_sizes(%l: tensor<2x4x8xf32>, %r: tensor<3x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'loom.dot_general' op batching dims differ in size: lhs dim 0 of 'tensor<2x4x8xf32>' vs rhs dim 0 of 'tensor<3x8x16xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Tests that paired contracting dims have equal sizes.
func.func @contracting_sizes(%l: tensor<4x8xf32>, %r: tensor<7x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'loom.dot_general' op contracting dims differ in size: lhs dim 1 of 'tensor<4x8xf32>' vs rhs dim 0 of 'tensor<7x16xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xf32>, tensor<7x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that the result type is the inferred one: lhs free dims come before rhs free dims.
func.func @result_free_dim_order(%l: tensor<4x8xf32>, %r: tensor<8x16xf32>) -> tensor<16x4xf32> {
  // expected-error @+1 {{'loom.dot_general' op result type 'tensor<16x4xf32>' does not match the inferred type 'tensor<4x16xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// Tests that the result type is the inferred one: batch dims lead even when not leading in
// the operands.
func.func @result_batch_first(%l: tensor<3x6x4x5xf32>, %r: tensor<5x4x7x3xf32>)
    -> tensor<6x4x7xf32> {
  // expected-error @+1 {{'loom.dot_general' op result type 'tensor<6x4x7xf32>' does not match the inferred type 'tensor<4x6x7xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [2] x [1], contracting_dims = [0, 3] x [3, 0]
      : (tensor<3x6x4x5xf32>, tensor<5x4x7x3xf32>) -> tensor<6x4x7xf32>
  return %0 : tensor<6x4x7xf32>
}

// -----

// Tests that the result type is the inferred one: the batch dims follow the lhs order.
func.func @result_batch_order(%l: tensor<2x3x8xf32>, %r: tensor<3x2x8x9xf32>) -> tensor<2x3x9xf32> {
  // expected-error @+1 {{'loom.dot_general' op result type 'tensor<2x3x9xf32>' does not match the inferred type 'tensor<3x2x9xf32>'}}
  %0 = loom.dot_general %l, %r, batching_dims = [1, 0] x [0, 1], contracting_dims = [2] x [2]
      : (tensor<2x3x8xf32>, tensor<3x2x8x9xf32>) -> tensor<2x3x9xf32>
  return %0 : tensor<2x3x9xf32>
}
