// RUN: loom-opt %s -loom-lower-to-linalg -split-input-file | FileCheck %s

// Tests that loom.dynamic_slice and loom.dynamic_update_slice (compiler/Lowering/LowerShape.cpp)
// become tensor.extract_slice and tensor.insert_slice at starts read from their rank-0
// tensors and clamped to [0, dim - size]; a dim taken whole starts at 0 without reading its
// start.

// CHECK-LABEL: func.func @dynamic_slice
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8x4xf32>, %[[I:[a-z0-9_]+]]: tensor<i64>, %{{.*}}: tensor<i32>)
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[I]][] : tensor<i64>
// CHECK-NEXT: %[[C:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[LO:.*]] = arith.maxsi %[[C]], %[[ZERO]] : index
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 6 : index
// CHECK-NEXT: %[[S:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK-NEXT: %[[R:.*]] = tensor.extract_slice %[[X]][%[[S]], 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @dynamic_slice(%x: tensor<8x4xf32>, %i: tensor<i64>, %j: tensor<i32>) -> tensor<2x4xf32> {
  %0 = loom.dynamic_slice %x[%i, %j] : (tensor<8x4xf32>, tensor<i64>, tensor<i32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic_update_slice
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8x4xf32>, %[[U:[a-z0-9_]+]]: tensor<2x3xf32>, %[[I:[a-z0-9_]+]]: tensor<i32>, %[[J:[a-z0-9_]+]]: tensor<i32>)
// CHECK: %[[S0:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: tensor.extract %[[J]][]
// CHECK: %[[LAST:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S1:.*]] = arith.minsi %{{.*}}, %[[LAST]] : index
// CHECK-NEXT: %[[R:.*]] = tensor.insert_slice %[[U]] into %[[X]][%[[S0]], %[[S1]]] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<8x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @dynamic_update_slice(%x: tensor<8x4xf32>, %u: tensor<2x3xf32>, %i: tensor<i32>,
                                %j: tensor<i32>) -> tensor<8x4xf32> {
  %0 = loom.dynamic_update_slice %x, %u[%i, %j]
      : (tensor<8x4xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
