// RUN: loom-opt %s -loom-autodiff -split-input-file -verify-diagnostics | FileCheck %s

// Tests that the VJP of loom.attention is one loom.attention_grad reading the forward's
// operands, its result and logsumexp, and the result's cotangent; the gradients of the
// arguments asked for are its query and value gradients.
// CHECK-LABEL: func.func private @loss_value_and_grad_0_2
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<1x4x2x8xf32>, %[[K:[a-z0-9_]+]]: tensor<1x4x2x8xf32>, %[[V:[a-z0-9_]+]]: tensor<1x4x2x8xf32>)
// CHECK: %[[OUT:[a-z0-9_]+]], %[[LSE:[a-z0-9_]+]] = loom.attention %[[Q]], %[[K]], %[[V]], scale = 5.000000e-01 causal
// CHECK: %[[SEED:[0-9]+]] = loom.broadcast_in_dim
// CHECK: %[[DQ:[a-z0-9_]+]], %[[DK:[a-z0-9_]+]], %[[DV:[a-z0-9_]+]] = loom.attention_grad %[[Q]], %[[K]], %[[V]], %[[OUT]], %[[LSE]], %[[SEED]], scale = 5.000000e-01 causal
// CHECK: return %{{.*}}, %[[DQ]], %[[DV]]
func.func @loss(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>)
    -> tensor<f32> {
  %out, %lse = loom.attention %q, %k, %v, scale = 0.5 causal
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  %s = loom.reduce sum %out, dims = [0, 1, 2, 3] : tensor<1x4x2x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>)
    -> (tensor<f32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) {
  %l, %dq, %dv = loom.value_and_grad @loss(%q, %k, %v) wrt = [0, 2]
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<f32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
  return %l, %dq, %dv : tensor<f32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>
}

// -----

// Tests that a loss reading the logsumexp is rejected with a message naming it.
func.func @lse_loss(%q: tensor<1x4x2x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'loom.attention' op has a gradient flowing into its logsumexp, which loom-autodiff does not differentiate (only into its result)}}
  %out, %lse = loom.attention %q, %q, %q, scale = 0.5
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  %s = loom.reduce sum %lse, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%q: tensor<1x4x2x8xf32>) -> (tensor<f32>, tensor<1x4x2x8xf32>) {
  %l, %dq = loom.value_and_grad @lse_loss(%q) wrt = [0]
      : (tensor<1x4x2x8xf32>) -> (tensor<f32>, tensor<1x4x2x8xf32>)
  return %l, %dq : tensor<f32>, tensor<1x4x2x8xf32>
}

// -----

// Tests that the gradient of an attention with dropout reads the same seeds and rate (it
// regenerates the forward's mask), and the seeds get no cotangent.
// CHECK-LABEL: func.func private @dropout_loss_value_and_grad_0
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<1x4x2x8xf32>, %[[S:[a-z0-9_]+]]: tensor<1x2xi32>)
// CHECK: loom.attention %[[Q]], %[[Q]], %[[Q]] seeds %[[S]], scale = 5.000000e-01 dropout = 2.000000e-01
// CHECK: loom.attention_grad %[[Q]], %[[Q]], %[[Q]], %{{.*}}, %{{.*}}, %{{.*}} seeds %[[S]], scale = 5.000000e-01 dropout = 2.000000e-01
func.func @dropout_loss(%q: tensor<1x4x2x8xf32>, %seeds: tensor<1x2xi32>) -> tensor<f32> {
  %out, %lse = loom.attention %q, %q, %q seeds %seeds, scale = 0.5 dropout = 0.2
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2xi32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  %s = loom.reduce sum %out, dims = [0, 1, 2, 3] : tensor<1x4x2x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%q: tensor<1x4x2x8xf32>, %seeds: tensor<1x2xi32>)
    -> (tensor<f32>, tensor<1x4x2x8xf32>) {
  %l, %dq = loom.value_and_grad @dropout_loss(%q, %seeds) wrt = [0]
      : (tensor<1x4x2x8xf32>, tensor<1x2xi32>) -> (tensor<f32>, tensor<1x4x2x8xf32>)
  return %l, %dq : tensor<f32>, tensor<1x4x2x8xf32>
}
