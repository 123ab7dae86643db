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

// -----

// Tests that a result computed by a private function (a layer's optimizer update), which
// every call donates into the operand it read, is written into that argument inside the
// function, once, and the caller keeps no write-back per call.
// CHECK-LABEL: func.func private @update
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<4xf32>, %[[G:[a-z0-9]+]]: tensor<4xf32>)
// CHECK: %[[NEW:.*]] = loom.sub %[[P]], %[[G]]
// CHECK: %[[HOME:.*]] = bufferization.materialize_in_destination %[[NEW]] in %[[P]]
// CHECK: return %[[HOME]], %[[NEW]]
// CHECK-LABEL: func.func @two_layers
// CHECK-NOT: materialize_in_destination
// CHECK: %[[A:.*]]:2 = call @update
// CHECK: %[[B:.*]]:2 = call @update
// CHECK-NOT: materialize_in_destination
// CHECK: return %[[A]]#0, %[[B]]#0, %[[A]]#1
func.func private @update(%p: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = loom.sub %p, %g : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}
func.func @two_layers(%p0: tensor<4xf32> {loom.aliased_output = 0 : i64},
                      %p1: tensor<4xf32> {loom.aliased_output = 1 : i64}, %g: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0:2 = call @update(%p0, %g) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %1:2 = call @update(%p1, %g) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %1#0, %0#1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that a function also called without donating keeps its result apart: each donating
// caller writes back after its call.
// CHECK-LABEL: func.func private @shared
// CHECK-NOT: materialize_in_destination
// CHECK: return
// CHECK-LABEL: func.func @donating
// CHECK: %[[R:.*]] = call @shared
// CHECK: bufferization.materialize_in_destination %[[R]] in
// CHECK-LABEL: func.func @keeping
// CHECK-NOT: materialize_in_destination
func.func private @shared(%p: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.neg %p : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @donating(%p: tensor<4xf32> {loom.aliased_output = 0 : i64}) -> tensor<4xf32> {
  %0 = call @shared(%p) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @keeping(%p: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = call @shared(%p) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %p : tensor<4xf32>, tensor<4xf32>
}
