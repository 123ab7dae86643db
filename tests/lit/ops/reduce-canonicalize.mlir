// RUN: loom-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds of loom.reduce.

// A reduce over no dims folds to its operand.
// CHECK-LABEL: func.func @reduce_no_dims
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NOT: loom.reduce
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @reduce_no_dims(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = loom.reduce sum %x, dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The same for max, on a rank-0 operand.
// CHECK-LABEL: func.func @reduce_max_scalar_no_dims
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<i32>)
// CHECK-NEXT: return %[[X]] : tensor<i32>
func.func @reduce_max_scalar_no_dims(%x: tensor<i32>) -> tensor<i32> {
  %0 = loom.reduce max %x, dims = [] : tensor<i32> -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// A real reduce stays.
// CHECK-LABEL: func.func @reduce_stays
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = loom.reduce sum %[[X]], dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @reduce_stays(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = loom.reduce sum %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A reduce over a size-1 dim changes the type, so it stays too.
// CHECK-LABEL: func.func @reduce_size_one_stays
// CHECK-NEXT: %[[R:.*]] = loom.reduce max %{{.*}}, dims = [0] : tensor<1x8xf32> -> tensor<8xf32>
// CHECK-NEXT: return %[[R]] : tensor<8xf32>
func.func @reduce_size_one_stays(%x: tensor<1x8xf32>) -> tensor<8xf32> {
  %0 = loom.reduce max %x, dims = [0] : tensor<1x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A reduce over all dims stays.
// CHECK-LABEL: func.func @reduce_all_stays
// CHECK-NEXT: %[[R:.*]] = loom.reduce sum %{{.*}}, dims = [0, 1] : tensor<4x8xi64> -> tensor<i64>
// CHECK-NEXT: return %[[R]] : tensor<i64>
func.func @reduce_all_stays(%x: tensor<4x8xi64>) -> tensor<i64> {
  %0 = loom.reduce sum %x, dims = [0, 1] : tensor<4x8xi64> -> tensor<i64>
  return %0 : tensor<i64>
}
