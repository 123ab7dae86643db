// RUN: loom-opt %s -loom-widen-accumulations -split-input-file | FileCheck %s

// Tests of loom-widen-accumulations: bf16/f16 products and sums compute in f32 and round once;
// f32 ones, max reductions and elementwise ops are left alone.

// Tests that a bf16 matmul converts both operands to f32, contracts in f32 with the same dims,
// and rounds the result to bf16 for its users.
// CHECK-LABEL: func.func @matmul_bf16
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4x8xbf16>, %[[B:[a-z0-9_]+]]: tensor<8x2xbf16>)
// CHECK: %[[WA:[a-z0-9_]+]] = loom.convert %[[A]] : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-NEXT: %[[WB:[a-z0-9_]+]] = loom.convert %[[B]] : tensor<8x2xbf16> -> tensor<8x2xf32>
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = loom.dot_general %[[WA]], %[[WB]], batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = loom.convert %[[P]] : tensor<4x2xf32> -> tensor<4x2xbf16>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = loom.exp %[[R]] : tensor<4x2xbf16>
// CHECK-NEXT: return %[[E]]
func.func @matmul_bf16(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  %0 = loom.dot_general %a, %b, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
  %1 = loom.exp %0 : tensor<4x2xbf16>
  return %1 : tensor<4x2xbf16>
}

// -----

// Tests that an f16 sum accumulates in f32, while an f16 max and an f32 sum stay as they are.
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf16>, %[[Y:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK: %[[W:[a-z0-9_]+]] = loom.convert %[[X]] : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = loom.reduce sum %[[W]], dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[SN:[a-z0-9_]+]] = loom.convert %[[S]] : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = loom.reduce max %[[X]], dims = [1] : tensor<4x8xf16> -> tensor<4xf16>
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = loom.reduce sum %[[Y]], dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[SN]], %[[M]], %[[T]]
func.func @reductions(%x: tensor<4x8xf16>, %y: tensor<4x8xf32>)
    -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf32>) {
  %0 = loom.reduce sum %x, dims = [1] : tensor<4x8xf16> -> tensor<4xf16>
  %1 = loom.reduce max %x, dims = [1] : tensor<4x8xf16> -> tensor<4xf16>
  %2 = loom.reduce sum %y, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xf16>, tensor<4xf32>
}

// -----

// Tests that a bf16 scatter-add (an embedding's gradient, summing one update per token into
// its row) accumulates in f32: only the updates are converted, not the indices.
// CHECK-LABEL: func.func @scatter_add_bf16
// CHECK-SAME: (%[[U:[a-z0-9_]+]]: tensor<64x8xbf16>, %[[I:[a-z0-9_]+]]: tensor<64xi32>)
// CHECK-NEXT: %[[W:[a-z0-9_]+]] = loom.convert %[[U]] : tensor<64x8xbf16> -> tensor<64x8xf32>
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = loom.scatter_add %[[W]][%[[I]]] : (tensor<64x8xf32>, tensor<64xi32>) -> tensor<5x8xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = loom.convert %[[S]] : tensor<5x8xf32> -> tensor<5x8xbf16>
// CHECK-NEXT: return %[[R]]
func.func @scatter_add_bf16(%u: tensor<64x8xbf16>, %i: tensor<64xi32>) -> tensor<5x8xbf16> {
  %0 = loom.scatter_add %u[%i] : (tensor<64x8xbf16>, tensor<64xi32>) -> tensor<5x8xbf16>
  return %0 : tensor<5x8xbf16>
}
