// RUN: loom-opt %s -loom-autodiff -split-input-file | FileCheck %s
// RUN: loom-opt %s -loom-autodiff=rematerialize=false -split-input-file | FileCheck %s --check-prefix=KEEP

// Tests of loom-autodiff's rematerialization: a forward value the backward reads is
// recomputed there when its elementwise chain reads only values kept anyway, and kept when
// recomputing it would keep as many bytes alive in its place.

// tanh(x * x) reads only the argument: the backward recomputes it instead of keeping the
// forward's 16 KiB result alive.
// CHECK-LABEL: func.func private @chain_value_and_grad_0
// CHECK: %[[SQ:[a-z0-9_]+]] = loom.mul %arg0, %arg0
// CHECK: %[[T:[a-z0-9_]+]] = loom.tanh %[[SQ]]
// CHECK: loom.reduce sum %[[T]]
// CHECK: %[[SQ2:[a-z0-9_]+]] = loom.mul %arg0, %arg0
// CHECK-NEXT: %[[T2:[a-z0-9_]+]] = loom.tanh %[[SQ2]]
// CHECK-NEXT: loom.mul %[[T2]], %[[T2]]
// CHECK: return
// KEEP-LABEL: func.func private @chain_value_and_grad_0
// KEEP-COUNT-1: loom.tanh
// KEEP-NOT: loom.tanh
func.func private @chain(%x: tensor<64x64xf32>) -> tensor<f32> {
  %0 = loom.mul %x, %x : tensor<64x64xf32>
  %1 = loom.tanh %0 : tensor<64x64xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<64x64xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>) {
  %v, %g = loom.value_and_grad @chain(%x) wrt = [0] : (tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>)
  return %v, %g : tensor<f32>, tensor<64x64xf32>
}

// -----

// exp(x y) would need the product of the matmul kept in its place, as many bytes: the
// forward's exp stays the one the backward reads.
// CHECK-LABEL: func.func private @product_value_and_grad_0
// CHECK-COUNT-1: loom.exp
// CHECK-NOT: loom.exp
func.func private @product(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %y, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = loom.exp %0 : tensor<64x64xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<64x64xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>) {
  %v, %g = loom.value_and_grad @product(%x, %y) wrt = [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>)
  return %v, %g : tensor<f32>, tensor<64x64xf32>
}

// -----

// tanh(x * x) feeds a product, and the product's gradient with respect to w reads it: the
// backward's product needs it in memory, so recomputing it would write it out again. The
// forward's tanh is kept, as a GELU's output feeding an MLP's second matmul is.
// KEEP-LABEL: func.func private @gelu_like(
// CHECK-LABEL: func.func private @gelu_like_value_and_grad
// CHECK-COUNT-1: loom.tanh
// CHECK-NOT: loom.tanh
func.func private @gelu_like(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<f32> {
  %0 = loom.mul %x, %x : tensor<64x64xf32>
  %1 = loom.tanh %0 : tensor<64x64xf32>
  %2 = loom.dot_general %1, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %3 = loom.reduce sum %2, dims = [0, 1] : tensor<64x64xf32> -> tensor<f32>
  return %3 : tensor<f32>
}
func.func @main(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %v, %gx, %gw = loom.value_and_grad @gelu_like(%x, %w) wrt = [0, 1] : (tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>)
  return %v, %gx, %gw : tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>
}
