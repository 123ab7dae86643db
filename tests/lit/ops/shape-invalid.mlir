// RUN: loom-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// broadcast_in_dim
//===----------------------------------------------------------------------===//

// Tests that dims needs one entry per operand dim (here too few).
func.func @broadcast_dims_too_few(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.broadcast_in_dim' op dims has 1 entries but the operand 'tensor<4x8xf32>' has rank 2}}
  %0 = loom.broadcast_in_dim %x, dims = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that dims needs one entry per operand dim (here too many).
func.func @broadcast_dims_too_many(%x: tensor<4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'loom.broadcast_in_dim' op dims has 2 entries but the operand 'tensor<4xf32>' has rank 1}}
  %0 = loom.broadcast_in_dim %x, dims = [0, 1] : tensor<4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Tests that every entry of dims is a result dim (too large).
func.func @broadcast_dim_too_large(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.broadcast_in_dim' op dims[0] = 2 is not a dim of result 'tensor<4x8xf32>'}}
  %0 = loom.broadcast_in_dim %x, dims = [2] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that every entry of dims is a result dim (negative).
func.func @broadcast_dim_negative(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.broadcast_in_dim' op dims[0] = -1 is not a dim of result 'tensor<4x8xf32>'}}
  %0 = loom.broadcast_in_dim %x, dims = [-1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that dims is strictly increasing: a broadcast never transposes.
func.func @broadcast_dims_decreasing(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'loom.broadcast_in_dim' op dims must be strictly increasing, got [1, 0]}}
  %0 = loom.broadcast_in_dim %x, dims = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Tests that dims is strictly increasing: a repeated entry is rejected.
func.func @broadcast_dims_repeated(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'loom.broadcast_in_dim' op dims must be strictly increasing, got [0, 0]}}
  %0 = loom.broadcast_in_dim %x, dims = [0, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Tests that each operand dim has size 1 or the size of its result dim.
func.func @broadcast_bad_size(%x: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.broadcast_in_dim' op operand dim 0 has size 3, which cannot broadcast to result dim 1 of size 8}}
  %0 = loom.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that operand and result have the same element type.
func.func @broadcast_element_type(%x: tensor<8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'loom.broadcast_in_dim' op operand 'tensor<8xf32>' and result 'tensor<4x8xf16>' differ in element type}}
  %0 = loom.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// Tests that reshape keeps the number of elements.
func.func @reshape_element_count(%x: tensor<4x8xf32>) -> tensor<31xf32> {
  // expected-error @+1 {{'loom.reshape' op operand 'tensor<4x8xf32>' has 32 elements but result 'tensor<31xf32>' has 31}}
  %0 = loom.reshape %x : tensor<4x8xf32> -> tensor<31xf32>
  return %0 : tensor<31xf32>
}

// -----

// Tests that reshape keeps the element type.
func.func @reshape_element_type(%x: tensor<4x8xf32>) -> tensor<32xi32> {
  // expected-error @+1 {{'loom.reshape' op operand 'tensor<4x8xf32>' and result 'tensor<32xi32>' differ in element type}}
  %0 = loom.reshape %x : tensor<4x8xf32> -> tensor<32xi32>
  return %0 : tensor<32xi32>
}

// -----

// Tests that shape ops take only statically shaped tensors.
func.func @reshape_dynamic(%x: tensor<?xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'loom.reshape' op operand #0 must be statically shaped tensor of}}
  %0 = loom.reshape %x : tensor<?xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// Tests that the permutation has one entry per operand dim.
func.func @transpose_short_permutation(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.transpose' op permutation has 1 entries but the operand 'tensor<4x8xf32>' has rank 2}}
  %0 = loom.transpose %x, permutation = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that every permutation entry is an operand dim.
func.func @transpose_out_of_range(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.transpose' op permutation [0, 2] is not a permutation of 0..1}}
  %0 = loom.transpose %x, permutation = [0, 2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that a permutation entry may not be negative.
func.func @transpose_negative(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.transpose' op permutation [-1, 0] is not a permutation of 0..1}}
  %0 = loom.transpose %x, permutation = [-1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that a permutation lists every dim once.
func.func @transpose_repeated(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'loom.transpose' op permutation [0, 0] is not a permutation of 0..1}}
  %0 = loom.transpose %x, permutation = [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Tests that the result type is the operand's with permuted dims (wrong shape).
func.func @transpose_result_shape(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.transpose' op result type 'tensor<4x8xf32>' does not match the inferred type 'tensor<8x4xf32>'}}
  %0 = loom.transpose %x, permutation = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that the result type is the operand's with permuted dims (wrong element type).
func.func @transpose_result_element(%x: tensor<4x8xf32>) -> tensor<8x4xf16> {
  // expected-error @+1 {{'loom.transpose' op result type 'tensor<8x4xf16>' does not match the inferred type 'tensor<8x4xf32>'}}
  %0 = loom.transpose %x, permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// Tests that start has one entry per operand dim.
func.func @slice_start_rank(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.slice' op start has 1 entries but the operand 'tensor<4x8xf32>' has rank 2}}
  %0 = loom.slice %x, start = [0], limit = [4, 8], strides = [1, 1]
      : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that limit has one entry per operand dim.
func.func @slice_limit_rank(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.slice' op limit has 3 entries but the operand 'tensor<4x8xf32>' has rank 2}}
  %0 = loom.slice %x, start = [0, 0], limit = [4, 8, 1], strides = [1, 1]
      : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that strides has one entry per operand dim.
func.func @slice_strides_rank(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.slice' op strides has 1 entries but the operand 'tensor<4x8xf32>' has rank 2}}
  %0 = loom.slice %x, start = [0, 0], limit = [4, 8], strides = [1]
      : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that 0 <= start.
func.func @slice_negative_start(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.slice' op dim 1: need 0 <= start (-1) <= limit (7) <= size (8)}}
  %0 = loom.slice %x, start = [0, -1], limit = [4, 7], strides = [1, 1]
      : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that start <= limit.
func.func @slice_start_after_limit(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.slice' op dim 0: need 0 <= start (3) <= limit (2) <= size (4)}}
  %0 = loom.slice %x, start = [3, 0], limit = [2, 8], strides = [1, 1]
      : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that limit <= the operand dim's size.
func.func @slice_limit_past_end(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{'loom.slice' op dim 1: need 0 <= start (0) <= limit (9) <= size (8)}}
  %0 = loom.slice %x, start = [0, 0], limit = [4, 9], strides = [1, 1]
      : tensor<4x8xf32> -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

// Tests that strides are >= 1 (zero).
func.func @slice_zero_stride(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.slice' op dim 1: stride 0 must be >= 1}}
  %0 = loom.slice %x, start = [0, 0], limit = [4, 8], strides = [1, 0]
      : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that strides are >= 1 (negative).
func.func @slice_negative_stride(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'loom.slice' op dim 0: stride -2 must be >= 1}}
  %0 = loom.slice %x, start = [0, 0], limit = [4, 8], strides = [-2, 1]
      : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that the result type is the inferred one: ceil((8 - 2) / 2) = 3, not 4.
func.func @slice_result_type(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'loom.slice' op result type 'tensor<4x4xf32>' does not match the inferred type 'tensor<4x3xf32>'}}
  %0 = loom.slice %x, start = [0, 2], limit = [4, 8], strides = [1, 2]
      : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Tests that the slice result keeps the operand's element type.
func.func @slice_result_element(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'loom.slice' op result type 'tensor<4x8xbf16>' does not match the inferred type 'tensor<4x8xf32>'}}
  %0 = loom.slice %x, start = [0, 0], limit = [4, 8], strides = [1, 1]
      : tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

// Tests that concatenate needs at least one input (generic form: the custom form cannot
// spell an empty input list).
func.func @concatenate_no_inputs() -> tensor<2xf32> {
  // expected-error @+1 {{'loom.concatenate' op needs at least one input}}
  %0 = "loom.concatenate"() {dim = 0 : i64} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that all inputs have the same element type.
func.func @concatenate_element_type(%a: tensor<2x8xf32>, %b: tensor<3x8xf16>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'loom.concatenate' op input 1 'tensor<3x8xf16>' differs in rank or element type from input 0 'tensor<2x8xf32>'}}
  %0 = loom.concatenate(%a, %b) dim = 0 : (tensor<2x8xf32>, tensor<3x8xf16>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// Tests that all inputs have the same rank.
func.func @concatenate_rank(%a: tensor<2x8xf32>, %b: tensor<3x8x1xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'loom.concatenate' op input 1 'tensor<3x8x1xf32>' differs in rank or element type from input 0 'tensor<2x8xf32>'}}
  %0 = loom.concatenate(%a, %b) dim = 0
      : (tensor<2x8xf32>, tensor<3x8x1xf32>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// Tests that dim < rank.
func.func @concatenate_dim_too_large(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'loom.concatenate' op dim 2 is out of range for input 'tensor<2x8xf32>'}}
  %0 = loom.concatenate(%a, %b) dim = 2 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// Tests that 0 <= dim.
func.func @concatenate_dim_negative(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'loom.concatenate' op dim -1 is out of range for input 'tensor<2x8xf32>'}}
  %0 = loom.concatenate(%a, %b) dim = -1 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// Tests that rank-0 inputs cannot be concatenated (no dim is in range).
func.func @concatenate_scalar(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'loom.concatenate' op dim 0 is out of range for input 'tensor<f32>'}}
  %0 = loom.concatenate(%a) dim = 0 : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that the inputs agree on every dim but dim.
func.func @concatenate_other_dim(%a: tensor<2x8xf32>, %b: tensor<3x7xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'loom.concatenate' op input 1 'tensor<3x7xf32>' differs from input 0 'tensor<2x8xf32>' in dim 1, which is not concatenated}}
  %0 = loom.concatenate(%a, %b) dim = 0 : (tensor<2x8xf32>, tensor<3x7xf32>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// Tests that the inputs agree on every dim but dim, for the third of three inputs.
func.func @concatenate_third_input(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>, %c: tensor<3x7xf32>)
    -> tensor<2x23xf32> {
  // expected-error @+1 {{'loom.concatenate' op input 2 'tensor<3x7xf32>' differs from input 0 'tensor<2x8xf32>' in dim 0, which is not concatenated}}
  %0 = loom.concatenate(%a, %b, %c) dim = 1
      : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<3x7xf32>) -> tensor<2x23xf32>
  return %0 : tensor<2x23xf32>
}

// -----

// Tests that the result type is the inferred one.
func.func @concatenate_result_type(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{'loom.concatenate' op result type 'tensor<6x8xf32>' does not match the inferred type 'tensor<5x8xf32>'}}
  %0 = loom.concatenate(%a, %b) dim = 0 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}
