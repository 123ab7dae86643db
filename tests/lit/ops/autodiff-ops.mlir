// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round-trip tests of the differentiation ops: loom.stop_gradient and loom.value_and_grad.

//===----------------------------------------------------------------------===//
// stop_gradient
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[S:[a-z0-9_]+]] = loom.stop_gradient %[[X]] : tensor<4xf32>
// CHECK: return %[[S]] : tensor<4xf32>
func.func @stop_gradient(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.stop_gradient %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Any Loom tensor, here rank 0 and integer.
// CHECK-LABEL: func.func @stop_gradient_rank0_int
// CHECK: loom.stop_gradient %{{.*}} : tensor<i32>
func.func @stop_gradient_rank0_int(%x: tensor<i32>) -> tensor<i32> {
  %0 = loom.stop_gradient %x : tensor<i32>
  return %0 : tensor<i32>
}

//===----------------------------------------------------------------------===//
// value_and_grad
//===----------------------------------------------------------------------===//

func.func private @square(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.mul %x, %x : tensor<f32>
  return %0 : tensor<f32>
}

// One argument differentiated.
// CHECK-LABEL: func.func @value_and_grad_one
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<f32>)
// CHECK: %[[R:[a-z0-9_]+]]:2 = loom.value_and_grad @square(%[[A]]) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK: return %[[R]]#0, %[[R]]#1 : tensor<f32>, tensor<f32>
func.func @value_and_grad_one(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @square(%a) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

func.func private @loss(%w: tensor<4x2xf32>, %x: tensor<8x4xf32>, %b: tensor<2xf32>)
    -> tensor<f32> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %1 = loom.reduce sum %0, dims = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  %2 = loom.reduce sum %b, dims = [0] : tensor<2xf32> -> tensor<f32>
  %3 = loom.add %1, %2 : tensor<f32>
  return %3 : tensor<f32>
}

// Several arguments differentiated (not all of them); the gradients follow the value.
// CHECK-LABEL: func.func @value_and_grad_several
// CHECK-SAME: (%[[W:[a-z0-9_]+]]: tensor<4x2xf32>, %[[X:[a-z0-9_]+]]: tensor<8x4xf32>, %[[B:[a-z0-9_]+]]: tensor<2xf32>)
// CHECK: %[[R:[a-z0-9_]+]]:3 = loom.value_and_grad @loss(%[[W]], %[[X]], %[[B]]) wrt = [0, 2] : (tensor<4x2xf32>, tensor<8x4xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<4x2xf32>, tensor<2xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @value_and_grad_several(%w: tensor<4x2xf32>, %x: tensor<8x4xf32>, %b: tensor<2xf32>)
    -> (tensor<f32>, tensor<4x2xf32>, tensor<2xf32>) {
  %v, %gw, %gb = loom.value_and_grad @loss(%w, %x, %b) wrt = [0, 2]
      : (tensor<4x2xf32>, tensor<8x4xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<4x2xf32>, tensor<2xf32>)
  return %v, %gw, %gb : tensor<f32>, tensor<4x2xf32>, tensor<2xf32>
}

func.func private @loss_with_aux(%x: tensor<4xf64>, %labels: tensor<4xi32>)
    -> (tensor<f64>, tensor<4xf64>, tensor<4xi32>) {
  %0 = loom.mul %x, %x : tensor<4xf64>
  %1 = loom.reduce sum %0, dims = [0] : tensor<4xf64> -> tensor<f64>
  return %1, %0, %labels : tensor<f64>, tensor<4xf64>, tensor<4xi32>
}

// Auxiliary results (here an f64 tensor and an integer one) come between the value and the
// gradients.
// CHECK-LABEL: func.func @value_and_grad_aux
// CHECK: %[[R:[a-z0-9_]+]]:4 = loom.value_and_grad @loss_with_aux(%{{.*}}, %{{.*}}) wrt = [0] : (tensor<4xf64>, tensor<4xi32>) -> (tensor<f64>, tensor<4xf64>, tensor<4xi32>, tensor<4xf64>)
func.func @value_and_grad_aux(%x: tensor<4xf64>, %l: tensor<4xi32>)
    -> (tensor<f64>, tensor<4xf64>, tensor<4xi32>, tensor<4xf64>) {
  %r:4 = loom.value_and_grad @loss_with_aux(%x, %l) wrt = [0]
      : (tensor<4xf64>, tensor<4xi32>) -> (tensor<f64>, tensor<4xf64>, tensor<4xi32>, tensor<4xf64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<f64>, tensor<4xf64>, tensor<4xi32>, tensor<4xf64>
}

// An empty wrt list gives the callee's results only.
// CHECK-LABEL: func.func @value_and_grad_no_wrt
// CHECK: loom.value_and_grad @square(%{{.*}}) wrt = [] : (tensor<f32>) -> tensor<f32>
func.func @value_and_grad_no_wrt(%a: tensor<f32>) -> tensor<f32> {
  %v = loom.value_and_grad @square(%a) wrt = [] : (tensor<f32>) -> tensor<f32>
  return %v : tensor<f32>
}
