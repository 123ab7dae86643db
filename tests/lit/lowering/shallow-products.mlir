// RUN: loom-opt %s -loom-lower-to-linalg -split-input-file | FileCheck %s
// RUN: loom-opt %s -loom-cpu-to-linalg -split-input-file | FileCheck %s --check-prefix=FUSED

// Tests that a product contracting 3 elements per result element is an elementwise generic
// over the result's dims: one slice of each operand per contracted index (the lhs's columns
// broadcast along n, the rhs's rows along m), summed in index order; no GEMM.
// CHECK-DAG: #[[M:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[N:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @three_deep
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<6x3xf32>, %[[R:[a-z0-9_]+]]: tensor<3x5xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[L0:.*]] = tensor.extract_slice %[[L]][0, 0] [6, 1] [1, 1] : tensor<6x3xf32> to tensor<6xf32>
// CHECK: %[[R0:.*]] = tensor.extract_slice %[[R]][0, 0] [1, 5] [1, 1] : tensor<3x5xf32> to tensor<5xf32>
// CHECK: %[[L1:.*]] = tensor.extract_slice %[[L]][0, 1] [6, 1] [1, 1]
// CHECK: %[[R1:.*]] = tensor.extract_slice %[[R]][1, 0] [1, 5] [1, 1]
// CHECK: %[[L2:.*]] = tensor.extract_slice %[[L]][0, 2] [6, 1] [1, 1]
// CHECK: %[[R2:.*]] = tensor.extract_slice %[[R]][2, 0] [1, 5] [1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[M]], #[[N]], #[[M]], #[[N]], #[[M]], #[[N]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[L0]], %[[R0]], %[[L1]], %[[R1]], %[[L2]], %[[R2]] : {{.*}}) outs(%{{.*}} : tensor<6x5xf32>)
// CHECK-NEXT: ^bb0(%[[A0:[a-z0-9_]+]]: f32, %[[B0:[a-z0-9_]+]]: f32, %[[A1:[a-z0-9_]+]]: f32, %[[B1:[a-z0-9_]+]]: f32, %[[A2:[a-z0-9_]+]]: f32, %[[B2:[a-z0-9_]+]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[P0:.*]] = arith.mulf %[[A0]], %[[B0]] : f32
// CHECK-NEXT: %[[P1:.*]] = arith.mulf %[[A1]], %[[B1]] : f32
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[P0]], %[[P1]] : f32
// CHECK-NEXT: %[[P2:.*]] = arith.mulf %[[A2]], %[[B2]] : f32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[P2]] : f32
// CHECK-NEXT: linalg.yield %[[S2]] : f32
func.func @three_deep(%l: tensor<6x3xf32>, %r: tensor<3x5xf32>) -> tensor<6x5xf32> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<6x3xf32>, tensor<3x5xf32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

// Tests that an rhs contracted on its last dim ([N, K], a classifier head's weight in the
// input gradient g w^T) is transposed to [K, N] first, so that each of its slices runs along
// the innermost loop with a unit stride; an f64 outer product (K = 1) is one multiply.
// CHECK-LABEL: func.func @rhs_contracted_last
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<8x2xf64>, %[[W:[a-z0-9_]+]]: tensor<16x2xf64>)
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<16x2xf64>) outs(%{{.*}} : tensor<2x16xf64>) permutation = [1, 0]
// CHECK: tensor.extract_slice %[[WT]][0, 0] [1, 16] [1, 1] : tensor<2x16xf64> to tensor<16xf64>
// CHECK: tensor.extract_slice %[[WT]][1, 0] [1, 16] [1, 1] : tensor<2x16xf64> to tensor<16xf64>
// CHECK: linalg.generic
// CHECK-NOT: linalg.matmul
// CHECK-LABEL: func.func @outer
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f64, %[[B:[a-z0-9_]+]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f64
// CHECK-NEXT: linalg.yield %[[P]] : f64
func.func @rhs_contracted_last(%g: tensor<8x2xf64>, %w: tensor<16x2xf64>) -> tensor<8x16xf64> {
  %0 = loom.dot_general %g, %w, batching_dims = [] x [], contracting_dims = [1] x [1]
      : (tensor<8x2xf64>, tensor<16x2xf64>) -> tensor<8x16xf64>
  return %0 : tensor<8x16xf64>
}
func.func @outer(%u: tensor<8x1xf64>, %v: tensor<1x16xf64>) -> tensor<8x16xf64> {
  %0 = loom.dot_general %u, %v, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<8x1xf64>, tensor<1x16xf64>) -> tensor<8x16xf64>
  return %0 : tensor<8x16xf64>
}

// -----

// Tests the bounds of the elementwise form: 17 products per element, a 16-bit product (which
// accumulates in f32 through the GEMM path) and a batched product stay GEMMs.
// CHECK-LABEL: func.func @too_deep
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @bf16
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @batched
// CHECK: linalg.batch_matmul
func.func @too_deep(%l: tensor<4x17xf32>, %r: tensor<17x8xf32>) -> tensor<4x8xf32> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x17xf32>, tensor<17x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func @bf16(%l: tensor<4x2xbf16>, %r: tensor<2x8xbf16>) -> tensor<4x8xbf16> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x2xbf16>, tensor<2x8xbf16>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}
func.func @batched(%l: tensor<3x4x2xf32>, %r: tensor<3x2x8xf32>) -> tensor<3x4x8xf32> {
  %0 = loom.dot_general %l, %r, batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<3x4x2xf32>, tensor<3x2x8xf32>) -> tensor<3x4x8xf32>
  return %0 : tensor<3x4x8xf32>
}

// -----

// Tests a ReLU's backward after a 10-class head (the MLP's dh = select(h > 0, g w^T, 0)):
// the product fuses into the select, one loop nest that never writes g w^T.
// FUSED-LABEL: func.func @relu_backward
// FUSED: linalg.transpose
// FUSED-COUNT-1: linalg.generic
// FUSED-NOT: linalg.generic
// FUSED-NOT: linalg.matmul
// FUSED: return
func.func @relu_backward(%h: tensor<64x32xf32>, %g: tensor<64x10xf32>, %w: tensor<32x10xf32>)
    -> tensor<64x32xf32> {
  %0 = loom.dot_general %g, %w, batching_dims = [] x [], contracting_dims = [1] x [1]
      : (tensor<64x10xf32>, tensor<32x10xf32>) -> tensor<64x32xf32>
  %zero = loom.constant dense<0.0> : tensor<64x32xf32>
  %live = loom.compare gt, %h, %zero : tensor<64x32xf32> -> tensor<64x32xi1>
  %1 = loom.select %live, %0, %zero : tensor<64x32xi1>, tensor<64x32xf32>
  return %1 : tensor<64x32xf32>
}
