// RUN: loom-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds and canonicalization patterns of the shape ops.

//===----------------------------------------------------------------------===//
// broadcast_in_dim
//===----------------------------------------------------------------------===//

// An identity broadcast folds away.
// CHECK-LABEL: func.func @broadcast_identity
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NOT: loom.broadcast_in_dim
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @broadcast_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = loom.broadcast_in_dim %x, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A broadcast of a splat constant becomes a constant of the result type.
// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:.*]] = loom.constant dense<2.500000e+00> : tensor<4x8xf32>
// CHECK-NEXT: return %[[C]] : tensor<4x8xf32>
func.func @broadcast_splat() -> tensor<4x8xf32> {
  %c = loom.constant dense<2.5> : tensor<8xf32>
  %0 = loom.broadcast_in_dim %c, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// broadcast(broadcast(x, [1]), [2, 3]) is one broadcast with dims [3].
// CHECK-LABEL: func.func @broadcast_of_broadcast
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<5xf32>)
// CHECK-NEXT: %[[B:.*]] = loom.broadcast_in_dim %[[X]], dims = [3] : tensor<5xf32> -> tensor<2x3x4x5xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_of_broadcast(%x: tensor<5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = loom.broadcast_in_dim %x, dims = [1] : tensor<5xf32> -> tensor<4x5xf32>
  %1 = loom.broadcast_in_dim %0, dims = [2, 3] : tensor<4x5xf32> -> tensor<2x3x4x5xf32>
  return %1 : tensor<2x3x4x5xf32>
}

// -----

// Composing dims [0, 2] with [0, 1, 3] gives [0, 3]; the size-1 dim stays broadcastable.
// CHECK-LABEL: func.func @broadcast_of_broadcast_size_one
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<1x5xf32>)
// CHECK-NEXT: %[[B:.*]] = loom.broadcast_in_dim %[[X]], dims = [0, 3] : tensor<1x5xf32> -> tensor<2x3x4x5xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_of_broadcast_size_one(%x: tensor<1x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = loom.broadcast_in_dim %x, dims = [0, 2] : tensor<1x5xf32> -> tensor<1x3x5xf32>
  %1 = loom.broadcast_in_dim %0, dims = [0, 1, 3] : tensor<1x3x5xf32> -> tensor<2x3x4x5xf32>
  return %1 : tensor<2x3x4x5xf32>
}

// -----

// A real broadcast of a non-constant stays.
// CHECK-LABEL: func.func @broadcast_stays
// CHECK-NEXT: %[[B:.*]] = loom.broadcast_in_dim %{{.*}}, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_stays(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = loom.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A broadcast of a non-splat constant stays (only splats fold).
// CHECK-LABEL: func.func @broadcast_dense_constant_stays
// CHECK-NEXT: %[[C:.*]] = loom.constant dense<[1, 2]> : tensor<2xi32>
// CHECK-NEXT: %[[B:.*]] = loom.broadcast_in_dim %[[C]], dims = [1] : tensor<2xi32> -> tensor<3x2xi32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_dense_constant_stays() -> tensor<3x2xi32> {
  %c = loom.constant dense<[1, 2]> : tensor<2xi32>
  %0 = loom.broadcast_in_dim %c, dims = [1] : tensor<2xi32> -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// A reshape to the operand's own type folds away.
// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NOT: loom.reshape
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @reshape_same_type(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = loom.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// reshape(reshape(x)) is one reshape from x.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = loom.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x16xf32>
func.func @reshape_of_reshape(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %0 = loom.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = loom.reshape %0 : tensor<32xf32> -> tensor<2x16xf32>
  return %1 : tensor<2x16xf32>
}

// -----

// A reshape back to the original type disappears altogether.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4x8xf32>
func.func @reshape_round_trip(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = loom.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = loom.reshape %0 : tensor<32xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A reshape of a non-splat constant becomes a constant, in row-major order.
// CHECK-LABEL: func.func @reshape_dense_constant
// CHECK-NEXT: %[[C:.*]] = loom.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NEXT: return %[[C]] : tensor<2x3xi32>
func.func @reshape_dense_constant() -> tensor<2x3xi32> {
  %c = loom.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = loom.reshape %c : tensor<6xi32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// A real reshape of a non-constant stays.
// CHECK-LABEL: func.func @reshape_stays
// CHECK-NEXT: %[[R:.*]] = loom.reshape %{{.*}} : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_stays(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = loom.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// An identity transpose folds away.
// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NOT: loom.transpose
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @transpose_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = loom.transpose %x, permutation = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// transpose(transpose(x, [1, 0, 2]), [0, 2, 1]) is transpose(x, [1, 2, 0]).
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3x5xf32>)
// CHECK-NEXT: %[[T:.*]] = loom.transpose %[[X]], permutation = [1, 2, 0] : tensor<2x3x5xf32> -> tensor<3x5x2xf32>
// CHECK-NEXT: return %[[T]] : tensor<3x5x2xf32>
func.func @transpose_of_transpose(%x: tensor<2x3x5xf32>) -> tensor<3x5x2xf32> {
  %0 = loom.transpose %x, permutation = [1, 0, 2] : tensor<2x3x5xf32> -> tensor<3x2x5xf32>
  %1 = loom.transpose %0, permutation = [0, 2, 1] : tensor<3x2x5xf32> -> tensor<3x5x2xf32>
  return %1 : tensor<3x5x2xf32>
}

// -----

// Composing [2, 0, 1] with its inverse [1, 2, 0] is the identity: nothing is left.
// CHECK-LABEL: func.func @transpose_cancels
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3x5xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3x5xf32>
func.func @transpose_cancels(%x: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %0 = loom.transpose %x, permutation = [2, 0, 1] : tensor<2x3x5xf32> -> tensor<5x2x3xf32>
  %1 = loom.transpose %0, permutation = [1, 2, 0] : tensor<5x2x3xf32> -> tensor<2x3x5xf32>
  return %1 : tensor<2x3x5xf32>
}

// -----

// A transpose of a splat constant is a splat constant of the result type.
// CHECK-LABEL: func.func @transpose_splat
// CHECK-NEXT: %[[C:.*]] = loom.constant dense<7> : tensor<8x4xi64>
// CHECK-NEXT: return %[[C]] : tensor<8x4xi64>
func.func @transpose_splat() -> tensor<8x4xi64> {
  %c = loom.constant dense<7> : tensor<4x8xi64>
  %0 = loom.transpose %c, permutation = [1, 0] : tensor<4x8xi64> -> tensor<8x4xi64>
  return %0 : tensor<8x4xi64>
}

// -----

// The composition is applied in place: the inner transpose keeps its other user, and a third
// transpose composes again: [1, 2, 0] then [1, 2, 0] is [2, 0, 1].
// CHECK-LABEL: func.func @transpose_chain_multi_use
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3x5xf32>)
// CHECK-DAG: %[[T0:.*]] = loom.transpose %[[X]], permutation = [1, 0, 2] : tensor<2x3x5xf32> -> tensor<3x2x5xf32>
// CHECK-DAG: %[[T1:.*]] = loom.transpose %[[X]], permutation = [1, 2, 0] : tensor<2x3x5xf32> -> tensor<3x5x2xf32>
// CHECK-DAG: %[[T2:.*]] = loom.transpose %[[X]], permutation = [2, 0, 1] : tensor<2x3x5xf32> -> tensor<5x2x3xf32>
// CHECK: return %[[T1]], %[[T0]], %[[T2]]
func.func @transpose_chain_multi_use(%x: tensor<2x3x5xf32>)
    -> (tensor<3x5x2xf32>, tensor<3x2x5xf32>, tensor<5x2x3xf32>) {
  %0 = loom.transpose %x, permutation = [1, 0, 2] : tensor<2x3x5xf32> -> tensor<3x2x5xf32>
  %1 = loom.transpose %0, permutation = [0, 2, 1] : tensor<3x2x5xf32> -> tensor<3x5x2xf32>
  %2 = loom.transpose %1, permutation = [1, 2, 0] : tensor<3x5x2xf32> -> tensor<5x2x3xf32>
  return %1, %0, %2 : tensor<3x5x2xf32>, tensor<3x2x5xf32>, tensor<5x2x3xf32>
}

// -----

// A real transpose stays.
// CHECK-LABEL: func.func @transpose_stays
// CHECK-NEXT: %[[T:.*]] = loom.transpose %{{.*}}, permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_stays(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = loom.transpose %x, permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// A slice of the whole operand folds away.
// CHECK-LABEL: func.func @slice_full
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NOT: loom.slice
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @slice_full(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = loom.slice %x, start = [0, 0], limit = [4, 8], strides = [1, 1]
      : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A slice of a splat constant is a splat constant of the result type.
// CHECK-LABEL: func.func @slice_splat
// CHECK-NEXT: %[[C:.*]] = loom.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: return %[[C]] : tensor<2x3xf32>
func.func @slice_splat() -> tensor<2x3xf32> {
  %c = loom.constant dense<1.0> : tensor<4x8xf32>
  %0 = loom.slice %c, start = [1, 2], limit = [3, 8], strides = [1, 2]
      : tensor<4x8xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A real slice stays.
// CHECK-LABEL: func.func @slice_stays
// CHECK-NEXT: %[[S:.*]] = loom.slice %{{.*}}, start = [0, 2], limit = [4, 8], strides = [1, 2] : tensor<4x8xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return %[[S]]
func.func @slice_stays(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  %0 = loom.slice %x, start = [0, 2], limit = [4, 8], strides = [1, 2]
      : tensor<4x8xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

// A concatenate of one input folds to that input.
// CHECK-LABEL: func.func @concatenate_one
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NOT: loom.concatenate
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @concatenate_one(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = loom.concatenate(%x) dim = 1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A concatenate of two inputs stays.
// CHECK-LABEL: func.func @concatenate_stays
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[C:.*]] = loom.concatenate(%[[X]], %[[X]]) dim = 1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[C]]
func.func @concatenate_stays(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %0 = loom.concatenate(%x, %x) dim = 1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
