// RUN: loom-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds of loom.pad: a pad that adds no element is its operand.

// Tests that a pad with all-zero low, high and interior folds to its operand.
// CHECK-LABEL: func.func @pad_all_zero
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %{{[a-z0-9_]+}}: tensor<f32>)
// CHECK-NOT: loom.pad
// CHECK: return %[[X]] : tensor<2x3xf32>
func.func @pad_all_zero(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<2x3xf32> {
  %0 = loom.pad %x, %p, low = [0, 0], high = [0, 0], interior = [0, 0]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that a rank-0 pad (which has nothing to pad) folds to its operand.
// CHECK-LABEL: func.func @pad_rank0
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<i32>, %{{[a-z0-9_]+}}: tensor<i32>)
// CHECK-NOT: loom.pad
// CHECK: return %[[X]] : tensor<i32>
func.func @pad_rank0(%x: tensor<i32>, %p: tensor<i32>) -> tensor<i32> {
  %0 = loom.pad %x, %p, low = [], high = [], interior = [] : (tensor<i32>, tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// Tests that interior padding of a size-1 dim adds nothing, so the pad folds.
// CHECK-LABEL: func.func @pad_interior_size_one
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<1x4xf32>, %{{[a-z0-9_]+}}: tensor<f32>)
// CHECK-NOT: loom.pad
// CHECK: return %[[X]] : tensor<1x4xf32>
func.func @pad_interior_size_one(%x: tensor<1x4xf32>, %p: tensor<f32>) -> tensor<1x4xf32> {
  %0 = loom.pad %x, %p, low = [0, 0], high = [0, 0], interior = [3, 0]
      : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Tests that a pad adding elements stays, unchanged.
// CHECK-LABEL: func.func @pad_real
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[P:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = loom.pad %[[X]], %[[P]], low = [1], high = [2], interior = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK-NEXT: return %[[R]] : tensor<6xf32>
func.func @pad_real(%x: tensor<3xf32>, %p: tensor<f32>) -> tensor<6xf32> {
  %0 = loom.pad %x, %p, low = [1], high = [2], interior = [0]
      : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Tests that interior padding alone (no low or high) is a real pad and stays.
// CHECK-LABEL: func.func @pad_interior_only
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[P:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = loom.pad %[[X]], %[[P]], low = [0], high = [0], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<5xf32>
// CHECK-NEXT: return %[[R]] : tensor<5xf32>
func.func @pad_interior_only(%x: tensor<3xf32>, %p: tensor<f32>) -> tensor<5xf32> {
  %0 = loom.pad %x, %p, low = [0], high = [0], interior = [1]
      : (tensor<3xf32>, tensor<f32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
