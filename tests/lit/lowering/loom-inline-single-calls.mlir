// RUN: loom-opt %s -loom-inline-single-calls -split-input-file | FileCheck %s

// A private function called once: its body replaces the call, in the call's place, and the
// function is gone.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[B:.*]] = loom.add %[[A]], %[[A]]
// CHECK-NEXT: %[[Y:.*]] = loom.mul %[[B]], %[[A]]
// CHECK-NEXT: %[[Z:.*]] = loom.exp %[[Y]]
// CHECK-NEXT: return %[[Z]], %[[B]]
// CHECK-NOT: func.func private @grad
func.func private @grad(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %y = loom.mul %x, %w : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %b = loom.add %a, %a : tensor<4xf32>
  %r = call @grad(%b, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = loom.exp %r : tensor<4xf32>
  return %e, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// A call inside a function that is itself called once moves along with that body.
// CHECK-LABEL: func.func @nested
// CHECK-NEXT: %[[N:.*]] = loom.neg
// CHECK-NEXT: %[[T:.*]] = loom.tanh %[[N]]
// CHECK-NEXT: return %[[T]]
// CHECK-NOT: func.func private
func.func private @inner(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = loom.tanh %x : tensor<2xf32>
  return %t : tensor<2xf32>
}
func.func private @outer(%x: tensor<2xf32>) -> tensor<2xf32> {
  %n = loom.neg %x : tensor<2xf32>
  %r = call @inner(%n) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @nested(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = call @outer(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// Left to the inliner: a function called twice, a public one, and one whose address is also
// taken.
// CHECK-LABEL: func.func private @twice
// CHECK-LABEL: func.func @public_callee
// CHECK-LABEL: func.func private @named
// CHECK-LABEL: func.func @kept
// CHECK: call @twice
// CHECK: call @twice
// CHECK: call @public_callee
// CHECK: call @named
// CHECK: constant @named
func.func private @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = loom.tanh %x : tensor<2xf32>
  return %t : tensor<2xf32>
}
func.func @public_callee(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func private @named(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @kept(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @twice(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = call @twice(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = call @public_callee(%1) : (tensor<2xf32>) -> tensor<2xf32>
  %3 = call @named(%2) : (tensor<2xf32>) -> tensor<2xf32>
  %f = func.constant @named : (tensor<2xf32>) -> tensor<2xf32>
  return %3 : tensor<2xf32>
}
