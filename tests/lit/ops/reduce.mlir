// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round-trip tests of loom.reduce.

// CHECK-LABEL: func.func @sum_rows
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>) -> tensor<4xf32>
// CHECK: %[[R:[a-z0-9_]+]] = loom.reduce sum %[[X]], dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: return %[[R]] : tensor<4xf32>
func.func @sum_rows(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = loom.reduce sum %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @max_leading
// CHECK: loom.reduce max %{{.*}}, dims = [0] : tensor<4x8xi32> -> tensor<8xi32>
func.func @max_leading(%x: tensor<4x8xi32>) -> tensor<8xi32> {
  %0 = loom.reduce max %x, dims = [0] : tensor<4x8xi32> -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// Several dims that are not adjacent.
// CHECK-LABEL: func.func @sum_outer_dims
// CHECK: loom.reduce sum %{{.*}}, dims = [0, 2] : tensor<2x3x5xbf16> -> tensor<3xbf16>
func.func @sum_outer_dims(%x: tensor<2x3x5xbf16>) -> tensor<3xbf16> {
  %0 = loom.reduce sum %x, dims = [0, 2] : tensor<2x3x5xbf16> -> tensor<3xbf16>
  return %0 : tensor<3xbf16>
}

// Reducing over every dim gives a rank-0 result.
// CHECK-LABEL: func.func @max_all
// CHECK: loom.reduce max %{{.*}}, dims = [0, 1, 2] : tensor<2x3x5xf64> -> tensor<f64>
func.func @max_all(%x: tensor<2x3x5xf64>) -> tensor<f64> {
  %0 = loom.reduce max %x, dims = [0, 1, 2] : tensor<2x3x5xf64> -> tensor<f64>
  return %0 : tensor<f64>
}

// CHECK-LABEL: func.func @sum_all_vector
// CHECK: loom.reduce sum %{{.*}}, dims = [0] : tensor<16xi64> -> tensor<i64>
func.func @sum_all_vector(%x: tensor<16xi64>) -> tensor<i64> {
  %0 = loom.reduce sum %x, dims = [0] : tensor<16xi64> -> tensor<i64>
  return %0 : tensor<i64>
}

// Size-1 and size-0 dims.
// CHECK-LABEL: func.func @sum_size_one
// CHECK: loom.reduce sum %{{.*}}, dims = [1, 2] : tensor<4x1x0xf16> -> tensor<4xf16>
func.func @sum_size_one(%x: tensor<4x1x0xf16>) -> tensor<4xf16> {
  %0 = loom.reduce sum %x, dims = [1, 2] : tensor<4x1x0xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// No dims: the result is the operand's type.
// CHECK-LABEL: func.func @sum_no_dims
// CHECK: loom.reduce sum %{{.*}}, dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
func.func @sum_no_dims(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = loom.reduce sum %x, dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A rank-0 operand with no dims.
// CHECK-LABEL: func.func @max_scalar
// CHECK: loom.reduce max %{{.*}}, dims = [] : tensor<f32> -> tensor<f32>
func.func @max_scalar(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.reduce max %x, dims = [] : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}
