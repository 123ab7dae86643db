// RUN: loom-opt %s -loom-donate-arguments -split-input-file -verify-diagnostics | FileCheck %s

// Tests that a donated argument becomes writable and the home of its result, and that every
// other argument is read-only.
// CHECK-LABEL: func.func @step
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<4xf32> {bufferization.writable = true, loom.aliased_output = 0 : i64}
// CHECK-SAME: %[[G:[a-z0-9]+]]: tensor<4xf32> {bufferization.writable = false}
// CHECK: %[[NEW:.*]] = loom.sub %[[P]], %[[G]]
// CHECK: %[[HOME:.*]] = bufferization.materialize_in_destination %[[NEW]] in %[[P]]
// CHECK: return %[[HOME]], %{{.*}}
func.func @step(%p: tensor<4xf32> {loom.aliased_output = 0 : i64}, %g: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<f32>) {
  %0 = loom.sub %p, %g : tensor<4xf32>
  %1 = loom.reduce sum %g, dims = [0] : tensor<4xf32> -> tensor<f32>
  return %0, %1 : tensor<4xf32>, tensor<f32>
}

// -----

// Tests that an argument still returned at another position (here through a reshape) keeps
// its contents: it is not aliased and stays read-only.
// CHECK-LABEL: func.func @still_returned
// CHECK-SAME: %{{[a-z0-9]+}}: tensor<4xf32> {bufferization.writable = false})
// CHECK-NOT: materialize_in_destination
func.func @still_returned(%p: tensor<4xf32> {loom.aliased_output = 0 : i64})
    -> (tensor<4xf32>, tensor<2x2xf32>) {
  %0 = loom.neg %p : tensor<4xf32>
  %1 = tensor.expand_shape %p [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  return %0, %1 : tensor<4xf32>, tensor<2x2xf32>
}

// -----

// Tests that an argument returned unchanged in its own position is aliased to itself.
// CHECK-LABEL: func.func @unchanged
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<4xf32> {bufferization.writable = true
// CHECK: bufferization.materialize_in_destination %[[P]] in %[[P]]
func.func @unchanged(%p: tensor<4xf32> {loom.aliased_output = 0 : i64}) -> tensor<4xf32> {
  return %p : tensor<4xf32>
}

// -----

// Tests that a pairing with a result of another type is an error.
// expected-error @+1 {{loom.aliased_output of argument 0 names result 0, which does not exist or has a different type than 'tensor<4xf32>'}}
func.func @mismatch(%p: tensor<4xf32> {loom.aliased_output = 0 : i64}) -> tensor<2xf32> {
  %0 = tensor.extract_slice %p[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  return %0 : tensor<2xf32>
}
