// RUN: loom-opt %s -loom-autodiff | FileCheck %s
// RUN: loom-opt %s -loom-autodiff -loom-lower-to-linalg -cse | FileCheck %s --check-prefix=CSE
// RUN: loom-opt %s -loom-autodiff -loom-lower-to-linalg -cse -loom-drop-optimization-barriers | FileCheck %s --check-prefix=DROP

// Groups marked loom.remat (the DSL's remat; two layers out = t * t with t = tanh(x w)):
// the backward keeps each layer's input and output, and recomputes what it reads inside a
// layer (t) from the layer's inputs, read through barriers, just before the layer's backward
// (the second layer's first). The marks are gone after differentiation.

// CHECK-LABEL: func.func private @layers_value_and_grad_1_2
// CHECK-NOT: loom.remat
// The forward.
// CHECK: %[[P1:[a-z0-9_]+]] = loom.dot_general %arg0, %arg1
// CHECK: %[[T1:[a-z0-9_]+]] = loom.tanh %[[P1]]
// CHECK: %[[O1:[a-z0-9_]+]] = loom.mul %[[T1]], %[[T1]]
// CHECK: %[[P2:[a-z0-9_]+]] = loom.dot_general %[[O1]], %arg2
// CHECK: %[[T2:[a-z0-9_]+]] = loom.tanh %[[P2]]
// CHECK: loom.mul %[[T2]], %[[T2]]
// CHECK: loom.reduce sum
// The second layer again, from its input (the first layer's output) and its weight.
// CHECK: %[[IN2:[a-z0-9_]+]] = loom.optimization_barrier %[[O1]]
// CHECK: %[[W2:[a-z0-9_]+]] = loom.optimization_barrier %arg2
// CHECK: %[[R2:[a-z0-9_]+]] = loom.dot_general %[[IN2]], %[[W2]]
// CHECK: %[[RT2:[a-z0-9_]+]] = loom.tanh %[[R2]]
// CHECK: loom.mul %{{.*}}, %[[RT2]]
// Then the first layer's, from the argument.
// CHECK: %[[IN1:[a-z0-9_]+]] = loom.optimization_barrier %arg0
// CHECK: %[[W1:[a-z0-9_]+]] = loom.optimization_barrier %arg1
// CHECK: %[[R1:[a-z0-9_]+]] = loom.dot_general %[[IN1]], %[[W1]]
// CHECK: %[[RT1:[a-z0-9_]+]] = loom.tanh %[[R1]]
// CHECK: loom.mul %{{.*}}, %[[RT1]]
// CHECK: return

// CSE leaves the recomputed products apart from the forward's: each follows its barriers.
// CSE-LABEL: func.func private @layers_value_and_grad_1_2
// CSE-COUNT-2: linalg.matmul
// CSE-COUNT-2: loom.optimization_barrier
// CSE: linalg.matmul
// CSE-COUNT-2: loom.optimization_barrier
// CSE: linalg.matmul
// CSE: return

// DROP-LABEL: func.func private @layers_value_and_grad_1_2
// DROP-NOT: loom.optimization_barrier
// DROP: return
func.func private @layers(%x: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] {loom.remat = 1 : i64} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = loom.tanh %0 {loom.remat = 1 : i64} : tensor<64x64xf32>
  %2 = loom.mul %1, %1 {loom.remat = 1 : i64} : tensor<64x64xf32>
  %3 = loom.dot_general %2, %w2, batching_dims = [] x [], contracting_dims = [1] x [0] {loom.remat = 2 : i64} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %4 = loom.tanh %3 {loom.remat = 2 : i64} : tensor<64x64xf32>
  %5 = loom.mul %4, %4 {loom.remat = 2 : i64} : tensor<64x64xf32>
  %6 = loom.reduce sum %5, dims = [0, 1] : tensor<64x64xf32> -> tensor<f32>
  return %6 : tensor<f32>
}
func.func @main(%x: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %v, %g1, %g2 = loom.value_and_grad @layers(%x, %w1, %w2) wrt = [1, 2] : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>)
  return %v, %g1, %g2 : tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>
}
