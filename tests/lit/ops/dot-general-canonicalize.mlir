// RUN: loom-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds of loom.dot_general: a transpose of an operand is absorbed into the op's dims where it
// keeps the operand's free dims in order, so x^T y is one GEMM reading x transposed.

// x^T y: the lhs contracts x's dim 0.
// CHECK-LABEL: func.func @lhs_transposed
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[Y:.*]]: tensor<8x6xf32>)
// CHECK-NOT: loom.transpose
// CHECK: loom.dot_general %[[X]], %[[Y]], batching_dims = [] x [], contracting_dims = [0] x [0] : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
func.func @lhs_transposed(%x: tensor<8x4xf32>, %y: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %t = loom.transpose %x, permutation = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %0 = loom.dot_general %t, %y, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// x w^T, batched, with the rhs's transpose moving its batch dim: both absorbed.
// CHECK-LABEL: func.func @batched_rhs_transposed
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5xf32>, %[[W:.*]]: tensor<7x2x5xf32>)
// CHECK-NOT: loom.transpose
// CHECK: loom.dot_general %[[X]], %[[W]], batching_dims = [0] x [1], contracting_dims = [2] x [2] : (tensor<2x3x5xf32>, tensor<7x2x5xf32>) -> tensor<2x3x7xf32>
func.func @batched_rhs_transposed(%x: tensor<2x3x5xf32>, %w: tensor<7x2x5xf32>) -> tensor<2x3x7xf32> {
  %t = loom.transpose %w, permutation = [1, 2, 0] : tensor<7x2x5xf32> -> tensor<2x5x7xf32>
  %0 = loom.dot_general %x, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x5xf32>, tensor<2x5x7xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

// A transpose that swaps two free dims stays: absorbing it would swap the result's dims.
// CHECK-LABEL: func.func @free_dims_swapped
// CHECK: %[[T:.*]] = loom.transpose
// CHECK: loom.dot_general %[[T]], %{{.*}}, batching_dims = [] x [], contracting_dims = [2] x [0]
func.func @free_dims_swapped(%x: tensor<3x4x5xf32>, %y: tensor<5x6xf32>) -> tensor<4x3x6xf32> {
  %t = loom.transpose %x, permutation = [1, 0, 2] : tensor<3x4x5xf32> -> tensor<4x3x5xf32>
  %0 = loom.dot_general %t, %y, batching_dims = [] x [], contracting_dims = [2] x [0] : (tensor<4x3x5xf32>, tensor<5x6xf32>) -> tensor<4x3x6xf32>
  return %0 : tensor<4x3x6xf32>
}
