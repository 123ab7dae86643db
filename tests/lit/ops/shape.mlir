// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round-trip tests of the shape ops: loom.broadcast_in_dim, loom.reshape, loom.transpose,
// loom.slice and loom.concatenate.

//===----------------------------------------------------------------------===//
// broadcast_in_dim
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast_row
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: %[[R:[a-z0-9_]+]] = loom.broadcast_in_dim %[[X]], dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: return %[[R]] : tensor<4x8xf32>
func.func @broadcast_row(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = loom.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A rank-0 operand broadcasts with empty dims.
// CHECK-LABEL: func.func @broadcast_scalar
// CHECK: loom.broadcast_in_dim %{{.*}}, dims = [] : tensor<i32> -> tensor<2x3xi32>
func.func @broadcast_scalar(%x: tensor<i32>) -> tensor<2x3xi32> {
  %0 = loom.broadcast_in_dim %x, dims = [] : tensor<i32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// Size-1 operand dims expand to the result dim's size.
// CHECK-LABEL: func.func @broadcast_size_one
// CHECK: loom.broadcast_in_dim %{{.*}}, dims = [0, 2] : tensor<1x5xbf16> -> tensor<3x7x5xbf16>
func.func @broadcast_size_one(%x: tensor<1x5xbf16>) -> tensor<3x7x5xbf16> {
  %0 = loom.broadcast_in_dim %x, dims = [0, 2] : tensor<1x5xbf16> -> tensor<3x7x5xbf16>
  return %0 : tensor<3x7x5xbf16>
}

// Same shape in and out (identity), on i1.
// CHECK-LABEL: func.func @broadcast_identity
// CHECK: loom.broadcast_in_dim %{{.*}}, dims = [0, 1] : tensor<2x3xi1> -> tensor<2x3xi1>
func.func @broadcast_identity(%x: tensor<2x3xi1>) -> tensor<2x3xi1> {
  %0 = loom.broadcast_in_dim %x, dims = [0, 1] : tensor<2x3xi1> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape_flatten
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>) -> tensor<32xf32>
// CHECK: %[[R:[a-z0-9_]+]] = loom.reshape %[[X]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK: return %[[R]] : tensor<32xf32>
func.func @reshape_flatten(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = loom.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// To and from rank 0 through size-1 dims.
// CHECK-LABEL: func.func @reshape_scalar
// CHECK: %[[A:[a-z0-9_]+]] = loom.reshape %{{.*}} : tensor<1x1xi64> -> tensor<i64>
// CHECK: loom.reshape %[[A]] : tensor<i64> -> tensor<1x1x1xi64>
func.func @reshape_scalar(%x: tensor<1x1xi64>) -> tensor<1x1x1xi64> {
  %0 = loom.reshape %x : tensor<1x1xi64> -> tensor<i64>
  %1 = loom.reshape %0 : tensor<i64> -> tensor<1x1x1xi64>
  return %1 : tensor<1x1x1xi64>
}

// CHECK-LABEL: func.func @reshape_split
// CHECK: loom.reshape %{{.*}} : tensor<6x4xf16> -> tensor<2x3x1x4xf16>
func.func @reshape_split(%x: tensor<6x4xf16>) -> tensor<2x3x1x4xf16> {
  %0 = loom.reshape %x : tensor<6x4xf16> -> tensor<2x3x1x4xf16>
  return %0 : tensor<2x3x1x4xf16>
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose_2d
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK: %[[R:[a-z0-9_]+]] = loom.transpose %[[X]], permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK: return %[[R]] : tensor<8x4xf32>
func.func @transpose_2d(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = loom.transpose %x, permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @transpose_3d
// CHECK: loom.transpose %{{.*}}, permutation = [2, 0, 1] : tensor<2x1x5xi32> -> tensor<5x2x1xi32>
func.func @transpose_3d(%x: tensor<2x1x5xi32>) -> tensor<5x2x1xi32> {
  %0 = loom.transpose %x, permutation = [2, 0, 1] : tensor<2x1x5xi32> -> tensor<5x2x1xi32>
  return %0 : tensor<5x2x1xi32>
}

// Rank 0: the empty permutation.
// CHECK-LABEL: func.func @transpose_scalar
// CHECK: loom.transpose %{{.*}}, permutation = [] : tensor<f64> -> tensor<f64>
func.func @transpose_scalar(%x: tensor<f64>) -> tensor<f64> {
  %0 = loom.transpose %x, permutation = [] : tensor<f64> -> tensor<f64>
  return %0 : tensor<f64>
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @slice_strided
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>) -> tensor<4x3xf32>
// CHECK: %[[R:[a-z0-9_]+]] = loom.slice %[[X]], start = [0, 2], limit = [4, 8], strides = [1, 2] : tensor<4x8xf32> -> tensor<4x3xf32>
// CHECK: return %[[R]] : tensor<4x3xf32>
func.func @slice_strided(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  %0 = loom.slice %x, start = [0, 2], limit = [4, 8], strides = [1, 2]
      : tensor<4x8xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// Strides that do not divide the extent round up: ceil((10 - 1) / 4) = 3.
// CHECK-LABEL: func.func @slice_round_up
// CHECK: loom.slice %{{.*}}, start = [1], limit = [10], strides = [4] : tensor<10xi64> -> tensor<3xi64>
func.func @slice_round_up(%x: tensor<10xi64>) -> tensor<3xi64> {
  %0 = loom.slice %x, start = [1], limit = [10], strides = [4] : tensor<10xi64> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// start == limit gives an empty dim; size-1 result dims.
// CHECK-LABEL: func.func @slice_empty_and_unit
// CHECK: loom.slice %{{.*}}, start = [3, 2, 0], limit = [3, 3, 1], strides = [1, 5, 1] : tensor<4x8x1xf32> -> tensor<0x1x1xf32>
func.func @slice_empty_and_unit(%x: tensor<4x8x1xf32>) -> tensor<0x1x1xf32> {
  %0 = loom.slice %x, start = [3, 2, 0], limit = [3, 3, 1], strides = [1, 5, 1]
      : tensor<4x8x1xf32> -> tensor<0x1x1xf32>
  return %0 : tensor<0x1x1xf32>
}

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @concatenate_two
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<2x8xf32>, %[[B:[a-z0-9_]+]]: tensor<3x8xf32>) -> tensor<5x8xf32>
// CHECK: %[[R:[a-z0-9_]+]] = loom.concatenate(%[[A]], %[[B]]) dim = 0 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
// CHECK: return %[[R]] : tensor<5x8xf32>
func.func @concatenate_two(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) -> tensor<5x8xf32> {
  %0 = loom.concatenate(%a, %b) dim = 0 : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// Three inputs along the last dim.
// CHECK-LABEL: func.func @concatenate_three
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<2x1xi32>, %[[B:[a-z0-9_]+]]: tensor<2x4xi32>, %[[C:[a-z0-9_]+]]: tensor<2x2xi32>)
// CHECK: loom.concatenate(%[[A]], %[[B]], %[[C]]) dim = 1 : (tensor<2x1xi32>, tensor<2x4xi32>, tensor<2x2xi32>) -> tensor<2x7xi32>
func.func @concatenate_three(%a: tensor<2x1xi32>, %b: tensor<2x4xi32>, %c: tensor<2x2xi32>)
    -> tensor<2x7xi32> {
  %0 = loom.concatenate(%a, %b, %c) dim = 1
      : (tensor<2x1xi32>, tensor<2x4xi32>, tensor<2x2xi32>) -> tensor<2x7xi32>
  return %0 : tensor<2x7xi32>
}

// A single input.
// CHECK-LABEL: func.func @concatenate_one
// CHECK: loom.concatenate(%{{.*}}) dim = 0 : (tensor<3xi1>) -> tensor<3xi1>
func.func @concatenate_one(%a: tensor<3xi1>) -> tensor<3xi1> {
  %0 = loom.concatenate(%a) dim = 0 : (tensor<3xi1>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}
