// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round-trip tests of loom.dot_general.

// A batched matmul [B, M, K] x [B, K, N] -> [B, M, N].
// CHECK-LABEL: func.func @batched_matmul
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<2x4x8xf32>, %[[R:[a-z0-9_]+]]: tensor<2x8x16xf32>)
// CHECK: %[[D:[a-z0-9_]+]] = loom.dot_general %[[L]], %[[R]], batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
// CHECK: return %[[D]] : tensor<2x4x16xf32>
func.func @batched_matmul(%l: tensor<2x4x8xf32>, %r: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = loom.dot_general %l, %r, batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// A plain matmul: empty batching dims.
// CHECK-LABEL: func.func @matmul
// CHECK: loom.dot_general %{{.*}}, %{{.*}}, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
func.func @matmul(%l: tensor<4x8xbf16>, %r: tensor<8x16xbf16>) -> tensor<4x16xbf16> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// A matmul with the rhs transposed ([M, K] x [N, K]), on i32.
// CHECK-LABEL: func.func @matmul_rhs_transposed
// CHECK: loom.dot_general %{{.*}}, %{{.*}}, batching_dims = [] x [], contracting_dims = [1] x [1] : (tensor<4x8xi32>, tensor<16x8xi32>) -> tensor<4x16xi32>
func.func @matmul_rhs_transposed(%l: tensor<4x8xi32>, %r: tensor<16x8xi32>) -> tensor<4x16xi32> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [1]
      : (tensor<4x8xi32>, tensor<16x8xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// Several contracting dims, listed in different orders on each side, and a batch dim that
// is not leading on either side: lhs [K1, M, B, K2], rhs [K2, B, N, K1] -> [B, M, N].
// CHECK-LABEL: func.func @multi_contract_inner_batch
// CHECK: loom.dot_general %{{.*}}, %{{.*}}, batching_dims = [2] x [1], contracting_dims = [0, 3] x [3, 0] : (tensor<3x6x4x5xf32>, tensor<5x4x7x3xf32>) -> tensor<4x6x7xf32>
func.func @multi_contract_inner_batch(%l: tensor<3x6x4x5xf32>, %r: tensor<5x4x7x3xf32>)
    -> tensor<4x6x7xf32> {
  %0 = loom.dot_general %l, %r, batching_dims = [2] x [1], contracting_dims = [0, 3] x [3, 0]
      : (tensor<3x6x4x5xf32>, tensor<5x4x7x3xf32>) -> tensor<4x6x7xf32>
  return %0 : tensor<4x6x7xf32>
}

// Two batch dims listed out of order: the result's batch dims follow the lhs batch order.
// CHECK-LABEL: func.func @batch_order
// CHECK: loom.dot_general %{{.*}}, %{{.*}}, batching_dims = [1, 0] x [0, 1], contracting_dims = [2] x [2] : (tensor<2x3x8xf64>, tensor<3x2x8x9xf64>) -> tensor<3x2x9xf64>
func.func @batch_order(%l: tensor<2x3x8xf64>, %r: tensor<3x2x8x9xf64>) -> tensor<3x2x9xf64> {
  %0 = loom.dot_general %l, %r, batching_dims = [1, 0] x [0, 1], contracting_dims = [2] x [2]
      : (tensor<2x3x8xf64>, tensor<3x2x8x9xf64>) -> tensor<3x2x9xf64>
  return %0 : tensor<3x2x9xf64>
}

// No batching and no contracting dims: an outer product.
// CHECK-LABEL: func.func @outer_product
// CHECK: loom.dot_general %{{.*}}, %{{.*}}, batching_dims = [] x [], contracting_dims = [] x [] : (tensor<3xi64>, tensor<4xi64>) -> tensor<3x4xi64>
func.func @outer_product(%l: tensor<3xi64>, %r: tensor<4xi64>) -> tensor<3x4xi64> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [] x []
      : (tensor<3xi64>, tensor<4xi64>) -> tensor<3x4xi64>
  return %0 : tensor<3x4xi64>
}

// Contracting every dim gives a rank-0 result.
// CHECK-LABEL: func.func @full_contraction
// CHECK: loom.dot_general %{{.*}}, %{{.*}}, batching_dims = [] x [], contracting_dims = [0, 1] x [0, 1] : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<f16>
func.func @full_contraction(%l: tensor<4x8xf16>, %r: tensor<4x8xf16>) -> tensor<f16> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [0, 1] x [0, 1]
      : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<f16>
  return %0 : tensor<f16>
}

// Size-1 dims: a batch of one, a contraction of length one, a free dim of one.
// CHECK-LABEL: func.func @size_one_dims
// CHECK: loom.dot_general %{{.*}}, %{{.*}}, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<1x1x1xf32>, tensor<1x1x5xf32>) -> tensor<1x1x5xf32>
func.func @size_one_dims(%l: tensor<1x1x1xf32>, %r: tensor<1x1x5xf32>) -> tensor<1x1x5xf32> {
  %0 = loom.dot_general %l, %r, batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<1x1x1xf32>, tensor<1x1x5xf32>) -> tensor<1x1x5xf32>
  return %0 : tensor<1x1x5xf32>
}
