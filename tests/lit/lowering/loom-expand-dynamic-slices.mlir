// RUN: loom-opt %s -loom-expand-dynamic-slices -split-input-file | FileCheck %s

// Tests of loom-expand-dynamic-slices (compiler/Lowering/ExpandDynamicSlices.cpp), the GPU's
// form of the dynamic slices: starts clamped with loom.max and loom.min, a box gathered along
// each dim it takes part of, an update gathered out to the operand's shape and selected
// inside the box. A dim taken whole reads no start.

// CHECK-LABEL: func.func @slice_rows
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8x4xf32>, %[[I:[a-z0-9_]+]]: tensor<i32>, %{{.*}}: tensor<i32>)
// CHECK-NEXT: %[[ZERO:.*]] = loom.constant dense<0> : tensor<i32>
// CHECK-NEXT: %[[LO:.*]] = loom.max %[[I]], %[[ZERO]] : tensor<i32>
// CHECK-NEXT: %[[LAST:.*]] = loom.constant dense<6> : tensor<i32>
// CHECK-NEXT: %[[S:.*]] = loom.min %[[LO]], %[[LAST]] : tensor<i32>
// CHECK-NEXT: %[[N:.*]] = loom.iota dim = 0 : tensor<2xi32>
// CHECK-NEXT: %[[B:.*]] = loom.broadcast_in_dim %[[S]], dims = [] : tensor<i32> -> tensor<2xi32>
// CHECK-NEXT: %[[ROWS:.*]] = loom.add %[[N]], %[[B]] : tensor<2xi32>
// CHECK-NEXT: %[[R:.*]] = loom.gather %[[X]][%[[ROWS]]] : (tensor<8x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @slice_rows(%x: tensor<8x4xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x4xf32> {
  %0 = loom.dynamic_slice %x[%i, %j] : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A box of columns: the dim goes to the front for the gather and back.
// CHECK-LABEL: func.func @slice_columns
// CHECK: %[[T:.*]] = loom.transpose %arg0, permutation = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK: %[[G:.*]] = loom.gather %[[T]][%{{.*}}] : (tensor<4x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
// CHECK: %[[R:.*]] = loom.transpose %[[G]], permutation = [1, 0] : tensor<3x8xf32> -> tensor<8x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @slice_columns(%x: tensor<8x4xf32>, %i: tensor<i64>, %j: tensor<i64>) -> tensor<8x3xf32> {
  %0 = loom.dynamic_slice %x[%i, %j] : (tensor<8x4xf32>, tensor<i64>, tensor<i64>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// CHECK-LABEL: func.func @update_rows
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8x4xf32>, %[[U:[a-z0-9_]+]]: tensor<2x4xf32>, %[[I:[a-z0-9_]+]]: tensor<i32>, %{{.*}}: tensor<i32>)
// CHECK: %[[S:.*]] = loom.min
// CHECK-NEXT: %[[NEG:.*]] = loom.neg %[[S]] : tensor<i32>
// CHECK: %[[WIDE:.*]] = loom.gather %[[U]][%{{.*}}] : (tensor<2x4xf32>, tensor<8xi32>) -> tensor<8x4xf32>
// CHECK: %[[AT:.*]] = loom.iota dim = 0 : tensor<8x4xi32>
// CHECK-DAG: loom.compare ge, %[[AT]]
// CHECK-DAG: loom.compare lt, %[[AT]]
// CHECK: %[[IN:.*]] = loom.and
// CHECK-NEXT: %[[R:.*]] = loom.select %[[IN]], %[[WIDE]], %[[X]] : tensor<8x4xi1>, tensor<8x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @update_rows(%x: tensor<8x4xf32>, %u: tensor<2x4xf32>, %i: tensor<i32>,
                       %j: tensor<i32>) -> tensor<8x4xf32> {
  %0 = loom.dynamic_update_slice %x, %u[%i, %j]
      : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
