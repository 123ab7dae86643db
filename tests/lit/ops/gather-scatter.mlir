// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round-trip tests of loom.gather and loom.scatter_add.

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

// An embedding lookup with 2-D indices.
// CHECK-LABEL: func.func @gather_embedding
// CHECK-SAME: (%[[T:[a-z0-9_]+]]: tensor<100x16xf32>, %[[I:[a-z0-9_]+]]: tensor<4x8xi32>)
// CHECK: %[[G:[a-z0-9_]+]] = loom.gather %[[T]][%[[I]]] : (tensor<100x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
// CHECK: return %[[G]] : tensor<4x8x16xf32>
func.func @gather_embedding(%t: tensor<100x16xf32>, %i: tensor<4x8xi32>) -> tensor<4x8x16xf32> {
  %0 = loom.gather %t[%i] : (tensor<100x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}

// 1-D i64 indices.
// CHECK-LABEL: func.func @gather_i64
// CHECK: loom.gather %{{.*}}[%{{.*}}] : (tensor<50x3xbf16>, tensor<7xi64>) -> tensor<7x3xbf16>
func.func @gather_i64(%t: tensor<50x3xbf16>, %i: tensor<7xi64>) -> tensor<7x3xbf16> {
  %0 = loom.gather %t[%i] : (tensor<50x3xbf16>, tensor<7xi64>) -> tensor<7x3xbf16>
  return %0 : tensor<7x3xbf16>
}

// Multi-dim indices and multi-dim rows: the result is indices' shape ++ row shape.
// CHECK-LABEL: func.func @gather_multi_dim
// CHECK: loom.gather %{{.*}}[%{{.*}}] : (tensor<10x2x3xi32>, tensor<4x1x5xi64>) -> tensor<4x1x5x2x3xi32>
func.func @gather_multi_dim(%t: tensor<10x2x3xi32>, %i: tensor<4x1x5xi64>)
    -> tensor<4x1x5x2x3xi32> {
  %0 = loom.gather %t[%i] : (tensor<10x2x3xi32>, tensor<4x1x5xi64>) -> tensor<4x1x5x2x3xi32>
  return %0 : tensor<4x1x5x2x3xi32>
}

// A rank-0 index takes a single row.
// CHECK-LABEL: func.func @gather_scalar_index
// CHECK: loom.gather %{{.*}}[%{{.*}}] : (tensor<100x16xi1>, tensor<i64>) -> tensor<16xi1>
func.func @gather_scalar_index(%t: tensor<100x16xi1>, %i: tensor<i64>) -> tensor<16xi1> {
  %0 = loom.gather %t[%i] : (tensor<100x16xi1>, tensor<i64>) -> tensor<16xi1>
  return %0 : tensor<16xi1>
}

// A rank-1 table has scalar rows: the result has the indices' shape.
// CHECK-LABEL: func.func @gather_rank1_table
// CHECK: loom.gather %{{.*}}[%{{.*}}] : (tensor<9xf64>, tensor<2x3xi32>) -> tensor<2x3xf64>
func.func @gather_rank1_table(%t: tensor<9xf64>, %i: tensor<2x3xi32>) -> tensor<2x3xf64> {
  %0 = loom.gather %t[%i] : (tensor<9xf64>, tensor<2x3xi32>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

//===----------------------------------------------------------------------===//
// scatter_add
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @scatter_embedding_grad
// CHECK-SAME: (%[[U:[a-z0-9_]+]]: tensor<4x8x16xf32>, %[[I:[a-z0-9_]+]]: tensor<4x8xi32>)
// CHECK: %[[S:[a-z0-9_]+]] = loom.scatter_add %[[U]][%[[I]]] : (tensor<4x8x16xf32>, tensor<4x8xi32>) -> tensor<100x16xf32>
// CHECK: return %[[S]] : tensor<100x16xf32>
func.func @scatter_embedding_grad(%u: tensor<4x8x16xf32>, %i: tensor<4x8xi32>)
    -> tensor<100x16xf32> {
  %0 = loom.scatter_add %u[%i] : (tensor<4x8x16xf32>, tensor<4x8xi32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// i64 indices, integer updates.
// CHECK-LABEL: func.func @scatter_i64
// CHECK: loom.scatter_add %{{.*}}[%{{.*}}] : (tensor<7x3xi64>, tensor<7xi64>) -> tensor<50x3xi64>
func.func @scatter_i64(%u: tensor<7x3xi64>, %i: tensor<7xi64>) -> tensor<50x3xi64> {
  %0 = loom.scatter_add %u[%i] : (tensor<7x3xi64>, tensor<7xi64>) -> tensor<50x3xi64>
  return %0 : tensor<50x3xi64>
}

// Multi-dim indices and rows.
// CHECK-LABEL: func.func @scatter_multi_dim
// CHECK: loom.scatter_add %{{.*}}[%{{.*}}] : (tensor<4x1x5x2x3xf16>, tensor<4x1x5xi32>) -> tensor<10x2x3xf16>
func.func @scatter_multi_dim(%u: tensor<4x1x5x2x3xf16>, %i: tensor<4x1x5xi32>)
    -> tensor<10x2x3xf16> {
  %0 = loom.scatter_add %u[%i] : (tensor<4x1x5x2x3xf16>, tensor<4x1x5xi32>) -> tensor<10x2x3xf16>
  return %0 : tensor<10x2x3xf16>
}

// A rank-0 index adds a single row.
// CHECK-LABEL: func.func @scatter_scalar_index
// CHECK: loom.scatter_add %{{.*}}[%{{.*}}] : (tensor<16xf32>, tensor<i64>) -> tensor<100x16xf32>
func.func @scatter_scalar_index(%u: tensor<16xf32>, %i: tensor<i64>) -> tensor<100x16xf32> {
  %0 = loom.scatter_add %u[%i] : (tensor<16xf32>, tensor<i64>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// A rank-1 result: updates have the indices' shape.
// CHECK-LABEL: func.func @scatter_rank1_result
// CHECK: loom.scatter_add %{{.*}}[%{{.*}}] : (tensor<2x3xbf16>, tensor<2x3xi32>) -> tensor<9xbf16>
func.func @scatter_rank1_result(%u: tensor<2x3xbf16>, %i: tensor<2x3xi32>) -> tensor<9xbf16> {
  %0 = loom.scatter_add %u[%i] : (tensor<2x3xbf16>, tensor<2x3xi32>) -> tensor<9xbf16>
  return %0 : tensor<9xbf16>
}
