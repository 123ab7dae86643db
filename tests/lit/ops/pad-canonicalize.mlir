// RUN: loom-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds of loom.pad: a pad that adds no element is its operand; zero pads side by side that
// are added up are one concatenation.

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

// -----

// Tests that the sum of zero pads lying side by side along one dim (the gradient of three
// slices of one value) is their concatenation, with no pad or add left.
// CHECK-LABEL: func.func @adjacent_pads_concatenate
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<2x1x4xf32>, %[[K:[a-z0-9_]+]]: tensor<2x1x4xf32>, %[[V:[a-z0-9_]+]]: tensor<2x1x4xf32>)
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = loom.concatenate(%[[Q]], %[[K]], %[[V]]) dim = 1
// CHECK-NEXT: return %[[R]] : tensor<2x3x4xf32>
func.func @adjacent_pads_concatenate(%q: tensor<2x1x4xf32>, %k: tensor<2x1x4xf32>,
                                     %v: tensor<2x1x4xf32>) -> tensor<2x3x4xf32> {
  %zero = loom.constant dense<0.0> : tensor<f32>
  %pv = loom.pad %v, %zero, low = [0, 2, 0], high = [0, 0, 0], interior = [0, 0, 0]
      : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %pk = loom.pad %k, %zero, low = [0, 1, 0], high = [0, 1, 0], interior = [0, 0, 0]
      : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %s = loom.add %pv, %pk : tensor<2x3x4xf32>
  %pq = loom.pad %q, %zero, low = [0, 0, 0], high = [0, 2, 0], interior = [0, 0, 0]
      : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %r = loom.add %s, %pq : tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

// Tests that two adjacent zero pads that leave zeros around them become one zero pad of
// their concatenation.
// CHECK-LABEL: func.func @adjacent_pads_within
// CHECK: %[[C:[a-z0-9_]+]] = loom.concatenate(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) dim = 0 : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = loom.pad %[[C]], %{{[a-z0-9_]+}}, low = [1, 1], high = [2, 0], interior = [0, 0]
// CHECK-NEXT: return %[[R]] : tensor<6x3xf32>
func.func @adjacent_pads_within(%a: tensor<1x2xf32>, %b: tensor<2x2xf32>) -> tensor<6x3xf32> {
  %zero = loom.constant dense<0.0> : tensor<f32>
  %pa = loom.pad %a, %zero, low = [1, 1], high = [4, 0], interior = [0, 0]
      : (tensor<1x2xf32>, tensor<f32>) -> tensor<6x3xf32>
  %pb = loom.pad %b, %zero, low = [2, 1], high = [2, 0], interior = [0, 0]
      : (tensor<2x2xf32>, tensor<f32>) -> tensor<6x3xf32>
  %r = loom.add %pb, %pa : tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}

// -----

// Tests that pads are left to add up when they overlap, leave a gap, differ along two dims
// or pad with something other than zero.
// CHECK-LABEL: func.func @pads_that_stay
// CHECK-NOT: loom.concatenate
// CHECK-COUNT-4: loom.add
func.func @pads_that_stay(%a: tensor<2x2xf32>, %one: tensor<f32>)
    -> (tensor<4x2xf32>, tensor<5x2xf32>, tensor<4x4xf32>, tensor<4x2xf32>) {
  %zero = loom.constant dense<0.0> : tensor<f32>
  %top = loom.pad %a, %zero, low = [0, 0], high = [2, 0], interior = [0, 0]
      : (tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %mid = loom.pad %a, %zero, low = [1, 0], high = [1, 0], interior = [0, 0]
      : (tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %overlap = loom.add %top, %mid : tensor<4x2xf32>
  %g0 = loom.pad %a, %zero, low = [0, 0], high = [3, 0], interior = [0, 0]
      : (tensor<2x2xf32>, tensor<f32>) -> tensor<5x2xf32>
  %g1 = loom.pad %a, %zero, low = [3, 0], high = [0, 0], interior = [0, 0]
      : (tensor<2x2xf32>, tensor<f32>) -> tensor<5x2xf32>
  %gap = loom.add %g0, %g1 : tensor<5x2xf32>
  %d0 = loom.pad %a, %zero, low = [0, 0], high = [2, 2], interior = [0, 0]
      : (tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  %d1 = loom.pad %a, %zero, low = [2, 2], high = [0, 0], interior = [0, 0]
      : (tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  %diagonal = loom.add %d0, %d1 : tensor<4x4xf32>
  %o0 = loom.pad %a, %one, low = [0, 0], high = [2, 0], interior = [0, 0]
      : (tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %o1 = loom.pad %a, %one, low = [2, 0], high = [0, 0], interior = [0, 0]
      : (tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %ones = loom.add %o0, %o1 : tensor<4x2xf32>
  return %overlap, %gap, %diagonal, %ones : tensor<4x2xf32>, tensor<5x2xf32>, tensor<4x4xf32>, tensor<4x2xf32>
}
