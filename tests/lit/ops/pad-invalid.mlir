// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Tests that the padding value must be rank 0 (here rank 1).
func.func @pad_value_not_rank0(%x: tensor<3xf32>, %p: tensor<1xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'loom.pad' op padding value 'tensor<1xf32>' must be a rank-0 tensor of 'f32'}}
  %0 = loom.pad %x, %p, low = [0], high = [0], interior = [0]
      : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that the padding value must have the operand's element type.
func.func @pad_value_wrong_element_type(%x: tensor<3xf32>, %p: tensor<f64>) -> tensor<4xf32> {
  // expected-error @+1 {{'loom.pad' op padding value 'tensor<f64>' must be a rank-0 tensor of 'f32'}}
  %0 = loom.pad %x, %p, low = [1], high = [0], interior = [0]
      : (tensor<3xf32>, tensor<f64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that low needs one entry per operand dim.
func.func @pad_low_length(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'loom.pad' op low has 1 entries but the operand 'tensor<2x3xf32>' has rank 2}}
  %0 = loom.pad %x, %p, low = [1], high = [0, 0], interior = [0, 0]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// Tests that high needs one entry per operand dim.
func.func @pad_high_length(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'loom.pad' op high has 3 entries but the operand 'tensor<2x3xf32>' has rank 2}}
  %0 = loom.pad %x, %p, low = [0, 0], high = [0, 0, 0], interior = [0, 0]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that interior needs one entry per operand dim (here none for a rank-1 operand).
func.func @pad_interior_length(%x: tensor<3xf32>, %p: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{'loom.pad' op interior has 0 entries but the operand 'tensor<3xf32>' has rank 1}}
  %0 = loom.pad %x, %p, low = [0], high = [0], interior = []
      : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that low entries are >= 0 (a negative low would crop).
func.func @pad_low_negative(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'loom.pad' op low[1] = -1 must be >= 0}}
  %0 = loom.pad %x, %p, low = [0, -1], high = [0, 0], interior = [0, 0]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Tests that high entries are >= 0.
func.func @pad_high_negative(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<0x3xf32> {
  // expected-error @+1 {{'loom.pad' op high[0] = -2 must be >= 0}}
  %0 = loom.pad %x, %p, low = [0, 0], high = [-2, 0], interior = [0, 0]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

// Tests that interior entries are >= 0.
func.func @pad_interior_negative(%x: tensor<3xf32>, %p: tensor<f32>) -> tensor<1xf32> {
  // expected-error @+1 {{'loom.pad' op interior[0] = -1 must be >= 0}}
  %0 = loom.pad %x, %p, low = [0], high = [0], interior = [-1]
      : (tensor<3xf32>, tensor<f32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// Tests that the result type is the inferred one (here the interior padding is not counted).
func.func @pad_wrong_result_shape(%x: tensor<3xf32>, %p: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'loom.pad' op result type 'tensor<4xf32>' does not match the inferred type 'tensor<6xf32>'}}
  %0 = loom.pad %x, %p, low = [1], high = [0], interior = [1]
      : (tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that the result type is the inferred one (here the wrong element type).
func.func @pad_wrong_result_element_type(%x: tensor<3xf32>, %p: tensor<f32>) -> tensor<3xf16> {
  // expected-error @+1 {{'loom.pad' op result type 'tensor<3xf16>' does not match the inferred type 'tensor<3xf32>'}}
  %0 = loom.pad %x, %p, low = [0], high = [0], interior = [0]
      : (tensor<3xf32>, tensor<f32>) -> tensor<3xf16>
  return %0 : tensor<3xf16>
}
