// RUN: loom-opt %s -split-input-file -loom-cpu-to-linalg | FileCheck %s --implicit-check-not="loom."

// Tests of loom-autodiff inside the CPU pipeline (compiler/Pipeline/CpuPipeline.cpp): a
// value_and_grad of a small loss, sum(tanh(x . w)), comes out of loom-cpu-to-linalg as linalg
// only, with one matmul forward and one per gradient asked for.

// Tests that with both gradients asked for there are exactly three matmuls: x . w forward,
// dx = g . w^T and dw = x^T . g backward, each reading its operands as they lie (transposed
// operands through indexing maps, no transpose copies), where g = 1 - y * y is one fused
// generic (the mul by the seed 1 folded away), and that no Loom op is left.
// CHECK-NOT: linalg.matmul
// CHECK: %[[FWD:[a-z0-9_]+]] = linalg.matmul ins(%[[X:[a-z0-9_]+]], %[[W:[a-z0-9_]+]] : tensor<32x24xf32>, tensor<24x48xf32>)
// CHECK: %[[Y:[a-z0-9_]+]] = linalg.generic {{.*}} ins(%[[FWD]] : tensor<32x48xf32>)
// CHECK-NEXT: ^bb0(%[[IN:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = math.tanh %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[T]] : f32
// CHECK: %[[LOSS:[a-z0-9_]+]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[Y]] : tensor<32x48xf32>)
// CHECK-NEXT: ^bb0(%[[E:[a-z0-9_]+]]: f32, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = arith.addf %[[E]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[G:[a-z0-9_]+]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<32x48xf32>)
// CHECK-NEXT: ^bb0(%[[YV:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[YY:[a-z0-9_]+]] = arith.mulf %[[YV]], %[[YV]] : f32
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = arith.subf %{{[a-z0-9_]+}}, %[[YY]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
// CHECK-NOT: linalg.transpose
// CHECK: %[[DX:[a-z0-9_]+]] = linalg.matmul indexing_maps = [{{.*}}] ins(%[[G]], %[[W]] : tensor<32x48xf32>, tensor<24x48xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[DW:[a-z0-9_]+]] = linalg.matmul indexing_maps = [{{.*}}] ins(%[[X]], %[[G]] : tensor<32x24xf32>, tensor<32x48xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: return %[[LOSS]], %[[DW]], %[[DX]] : tensor<f32>, tensor<24x48xf32>, tensor<32x24xf32>
// CHECK-NOT: linalg.matmul
func.func private @loss(%w: tensor<24x48xf32>, %x: tensor<32x24xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<32x24xf32>, tensor<24x48xf32>) -> tensor<32x48xf32>
  %1 = loom.tanh %0 : tensor<32x48xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<32x48xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%w: tensor<24x48xf32>, %x: tensor<32x24xf32>)
    -> (tensor<f32>, tensor<24x48xf32>, tensor<32x24xf32>) {
  %v, %gw, %gx = loom.value_and_grad @loss(%w, %x) wrt = [0, 1]
      : (tensor<24x48xf32>, tensor<32x24xf32>) -> (tensor<f32>, tensor<24x48xf32>, tensor<32x24xf32>)
  return %v, %gw, %gx : tensor<f32>, tensor<24x48xf32>, tensor<32x24xf32>
}

// -----

// Tests that with only dw asked for there are exactly two matmuls: the VJP's matmul for dx is
// dead and removed, and dw = x^T . g needs no transpose.
// CHECK-NOT: linalg.matmul
// CHECK: %[[FWD:[a-z0-9_]+]] = linalg.matmul ins(%[[X:[a-z0-9_]+]], %[[W:[a-z0-9_]+]] : tensor<32x24xf32>, tensor<24x48xf32>)
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.transpose
// CHECK: %[[DW:[a-z0-9_]+]] = linalg.matmul indexing_maps = [{{.*}}] ins(%[[X]], %{{[a-z0-9_]+}} : tensor<32x24xf32>, tensor<32x48xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: return %{{[a-z0-9_]+}}, %[[DW]] : tensor<f32>, tensor<24x48xf32>
// CHECK-NOT: linalg.matmul
func.func private @loss(%w: tensor<24x48xf32>, %x: tensor<32x24xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<32x24xf32>, tensor<24x48xf32>) -> tensor<32x48xf32>
  %1 = loom.tanh %0 : tensor<32x48xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<32x48xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%w: tensor<24x48xf32>, %x: tensor<32x24xf32>) -> (tensor<f32>, tensor<24x48xf32>) {
  %v, %gw = loom.value_and_grad @loss(%w, %x) wrt = [0]
      : (tensor<24x48xf32>, tensor<32x24xf32>) -> (tensor<f32>, tensor<24x48xf32>)
  return %v, %gw : tensor<f32>, tensor<24x48xf32>
}
