// RUN: loom-opt %s -loom-autodiff -split-input-file -verify-diagnostics | FileCheck %s

// Tests of loom-autodiff (passes/Autodiff): the generated function, its seed and the VJP of
// each op family (passes/Autodiff/VjpRules.cpp), how cotangents accumulate, which arguments
// get zero gradients, and the callees it rejects.

// Tests that the caller's op becomes a call of the generated private function, that the callee is
// kept unchanged, and that the generated function runs the forward ops, seeds the value with 1
// and returns the value then the gradient (x * x gives g * x + g * x).
// CHECK-LABEL: func.func private @square(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.mul %[[X]], %[[X]] : tensor<f32>
// CHECK-NEXT: return %[[Y]] : tensor<f32>
// CHECK-LABEL: func.func private @square_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.mul %[[X]], %[[X]] : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[D0:[a-z0-9_]+]] = loom.mul %[[ONE]], %[[X]] : tensor<f32>
// CHECK-NEXT: %[[D1:[a-z0-9_]+]] = loom.mul %[[ONE]], %[[X]] : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.add %[[D0]], %[[D1]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] : tensor<f32>, tensor<f32>
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NOT: loom.value_and_grad
// CHECK: %[[R:[a-z0-9_]+]]:2 = call @square_value_and_grad_0(%[[A]]) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<f32>, tensor<f32>
func.func private @square(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.mul %x, %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @square(%a) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of add passes g to both operands and that of sub passes g and -g.
// CHECK-LABEL: func.func private @f_value_and_grad_0_1_2(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<f32>, %[[B:[a-z0-9_]+]]: tensor<f32>, %[[C:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = loom.add %[[A]], %[[B]] : tensor<f32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = loom.sub %[[S]], %[[C]] : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[NEG:[a-z0-9_]+]] = loom.neg %[[ONE]] : tensor<f32>
// CHECK-NEXT: return %[[D]], %[[ONE]], %[[ONE]], %[[NEG]] :
func.func private @f(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<f32> {
  %0 = loom.add %a, %b : tensor<f32>
  %1 = loom.sub %0, %c : tensor<f32>
  return %1 : tensor<f32>
}
func.func @main(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %r:4 = loom.value_and_grad @f(%a, %b, %c) wrt = [0, 1, 2]
      : (tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of mul is g * b for a and g * a for b.
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<3xf32>, %[[B:[a-z0-9_]+]]: tensor<3xf32>)
// CHECK: %[[SUM:[a-z0-9_]+]] = loom.reduce sum
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<3xf32>
// CHECK-NEXT: %[[DA:[a-z0-9_]+]] = loom.mul %[[G]], %[[B]] : tensor<3xf32>
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = loom.mul %[[G]], %[[A]] : tensor<3xf32>
// CHECK-NEXT: return %[[SUM]], %[[DA]], %[[DB]] :
func.func private @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = loom.mul %a, %b : tensor<3xf32>
  %1 = loom.reduce sum %0, dims = [0] : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
  %v, %ga, %gb = loom.value_and_grad @f(%a, %b) wrt = [0, 1]
      : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
  return %v, %ga, %gb : tensor<f32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Tests that the VJP of div y = a / b is g / b for a and -((g * y) / b) for b.
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<f32>, %[[B:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.div %[[A]], %[[B]] : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DA:[a-z0-9_]+]] = loom.div %[[ONE]], %[[B]] : tensor<f32>
// CHECK-NEXT: %[[GY:[a-z0-9_]+]] = loom.mul %[[ONE]], %[[Y]] : tensor<f32>
// CHECK-NEXT: %[[Q:[a-z0-9_]+]] = loom.div %[[GY]], %[[B]] : tensor<f32>
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = loom.neg %[[Q]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]] :
func.func private @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = loom.div %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %v, %ga, %gb = loom.value_and_grad @f(%a, %b) wrt = [0, 1]
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %v, %ga, %gb : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of neg is -g.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.neg %[[X]] : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.neg %[[ONE]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] :
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.neg %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of exp is g * y, reusing the forward result.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.exp %[[X]] : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.mul %[[ONE]], %[[Y]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] :
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.exp %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of log is g / x.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.log %[[X]] : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.div %[[ONE]], %[[X]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] :
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.log %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of tanh is g * (1 - y * y).
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.tanh %[[X]] : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[YY:[a-z0-9_]+]] = loom.mul %[[Y]], %[[Y]] : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = loom.sub %[[ONE]], %[[YY]] : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.mul %[[G]], %[[D]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] :
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.tanh %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of sqrt is g / (2 * y).
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.sqrt %[[X]] : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[TWO:[a-z0-9_]+]] = loom.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[TWOY:[a-z0-9_]+]] = loom.mul %[[TWO]], %[[Y]] : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.div %[[G]], %[[TWOY]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] :
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.sqrt %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of rsqrt is g * (-0.5 * y * y * y).
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.rsqrt %[[X]] : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[Y2:[a-z0-9_]+]] = loom.mul %[[Y]], %[[Y]] : tensor<f32>
// CHECK-NEXT: %[[Y3:[a-z0-9_]+]] = loom.mul %[[Y]], %[[Y2]] : tensor<f32>
// CHECK-NEXT: %[[HALF:[a-z0-9_]+]] = loom.constant dense<-5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = loom.mul %[[HALF]], %[[Y3]] : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.mul %[[G]], %[[D]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] :
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.rsqrt %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of abs is g where x >= 0 and -g elsewhere.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.abs %[[X]] : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[NG:[a-z0-9_]+]] = loom.neg %[[G]] : tensor<f32>
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[POS:[a-z0-9_]+]] = loom.compare ge, %[[X]], %[[ZERO]] : tensor<f32> -> tensor<i1>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.select %[[POS]], %[[G]], %[[NG]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] :
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.abs %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of logistic is g * (y * (1 - y)).
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.logistic %[[X]] : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = loom.sub %[[ONE]], %[[Y]] : tensor<f32>
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = loom.mul %[[Y]], %[[C]] : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.mul %[[G]], %[[D]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] :
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.logistic %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of max sends g to the lhs where lhs > rhs, to the rhs where rhs > lhs,
// and half of it to each at a tie (as PyTorch's maximum and JAX's max), through selects.
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<f32>, %[[B:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.max %[[A]], %[[B]] : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[LHS:[a-z0-9_]+]] = loom.compare gt, %[[A]], %[[B]] : tensor<f32> -> tensor<i1>
// CHECK-NEXT: %[[TIE:[a-z0-9_]+]] = loom.compare eq, %[[A]], %[[B]] : tensor<f32> -> tensor<i1>
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = loom.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[HALF:[a-z0-9_]+]] = loom.mul %[[G]], %[[C]] : tensor<f32>
// CHECK-NEXT: %[[TA:[a-z0-9_]+]] = loom.select %[[TIE]], %[[HALF]], %[[ZERO]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: %[[DA:[a-z0-9_]+]] = loom.select %[[LHS]], %[[G]], %[[TA]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: %[[TB:[a-z0-9_]+]] = loom.select %[[TIE]], %[[HALF]], %[[G]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = loom.select %[[LHS]], %[[ZERO]], %[[TB]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]] :
func.func private @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = loom.max %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %v, %ga, %gb = loom.value_and_grad @f(%a, %b) wrt = [0, 1]
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %v, %ga, %gb : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Tests that against a constant lhs (relu, max(0, x)) the VJP of max reads its result, not x:
// g goes to x where the result exceeds the constant, so x can die after the forward.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK: %[[ZERO:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ZERO]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.max %[[C]], %[[X]] : tensor<4xf32>
// CHECK-NOT: loom.compare {{.*}}%[[X]]
// CHECK: %[[TO_X:[a-z0-9_]+]] = loom.compare gt, %[[Y]], %[[C]] : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: %[[DX:[a-z0-9_]+]] = loom.select %[[TO_X]], %{{[a-z0-9_]+}}, %[[Z]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NOT: loom.compare {{.*}}%[[X]]
// CHECK: return %{{[a-z0-9_]+}}, %[[DX]] :
func.func private @f(%x: tensor<4xf32>) -> tensor<f32> {
  %zero = loom.constant dense<0.0> : tensor<f32>
  %c = loom.broadcast_in_dim %zero, dims = [] : tensor<f32> -> tensor<4xf32>
  %y = loom.max %c, %x : tensor<4xf32>
  %s = loom.reduce sum %y, dims = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %v, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Tests that the VJP of min sends g to the lhs where lhs < rhs, to the rhs where rhs < lhs,
// and half to each at a tie.
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<f32>, %[[B:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.min %[[A]], %[[B]] : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[LHS:[a-z0-9_]+]] = loom.compare lt, %[[A]], %[[B]] : tensor<f32> -> tensor<i1>
// CHECK-NEXT: %[[TIE:[a-z0-9_]+]] = loom.compare eq, %[[A]], %[[B]] : tensor<f32> -> tensor<i1>
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = loom.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[HALF:[a-z0-9_]+]] = loom.mul %[[G]], %[[C]] : tensor<f32>
// CHECK-NEXT: %[[TA:[a-z0-9_]+]] = loom.select %[[TIE]], %[[HALF]], %[[ZERO]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: %[[DA:[a-z0-9_]+]] = loom.select %[[LHS]], %[[G]], %[[TA]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: %[[TB:[a-z0-9_]+]] = loom.select %[[TIE]], %[[HALF]], %[[G]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = loom.select %[[LHS]], %[[ZERO]], %[[TB]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]] :
func.func private @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = loom.min %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %v, %ga, %gb = loom.value_and_grad @f(%a, %b) wrt = [0, 1]
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %v, %ga, %gb : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of pow y = a ^ b is g * (b * a ^ (b - 1)) for a, g * (log(a) * y) for b.
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<f32>, %[[B:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.pow %[[A]], %[[B]] : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[BM1:[a-z0-9_]+]] = loom.sub %[[B]], %[[ONE]] : tensor<f32>
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = loom.pow %[[A]], %[[BM1]] : tensor<f32>
// CHECK-NEXT: %[[BP:[a-z0-9_]+]] = loom.mul %[[B]], %[[P]] : tensor<f32>
// CHECK-NEXT: %[[DA:[a-z0-9_]+]] = loom.mul %[[G]], %[[BP]] : tensor<f32>
// CHECK-NEXT: %[[LOG:[a-z0-9_]+]] = loom.log %[[A]] : tensor<f32>
// CHECK-NEXT: %[[LY:[a-z0-9_]+]] = loom.mul %[[LOG]], %[[Y]] : tensor<f32>
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = loom.mul %[[G]], %[[LY]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]] :
func.func private @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = loom.pow %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %v, %ga, %gb = loom.value_and_grad @f(%a, %b) wrt = [0, 1]
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %v, %ga, %gb : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of select sends g to on_true where pred holds and to on_false elsewhere; the
// i1 predicate gets no gradient.
// CHECK-LABEL: func.func private @f_value_and_grad_1_2(
// CHECK-SAME: %[[P:[a-z0-9_]+]]: tensor<i1>, %[[A:[a-z0-9_]+]]: tensor<f32>, %[[B:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.select %[[P]], %[[A]], %[[B]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DA:[a-z0-9_]+]] = loom.select %[[P]], %[[G]], %[[ZERO]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = loom.select %[[P]], %[[ZERO]], %[[G]] : tensor<i1>, tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]] :
func.func private @f(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = loom.select %p, %a, %b : tensor<i1>, tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %v, %ga, %gb = loom.value_and_grad @f(%p, %a, %b) wrt = [1, 2]
      : (tensor<i1>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %v, %ga, %gb : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Tests that the VJP of a float-to-float convert converts the cotangent back (here f32 to f64 and
// back).
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[W:[a-z0-9_]+]] = loom.convert %[[X]] : tensor<f32> -> tensor<f64>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = loom.exp %[[W]] : tensor<f64>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.convert %[[E]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[G64:[a-z0-9_]+]] = loom.convert %[[G]] : tensor<f32> -> tensor<f64>
// CHECK-NEXT: %[[DE:[a-z0-9_]+]] = loom.mul %[[G64]], %[[E]] : tensor<f64>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.convert %[[DE]] : tensor<f64> -> tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] : tensor<f32>, tensor<f32>
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.convert %x : tensor<f32> -> tensor<f64>
  %1 = loom.exp %0 : tensor<f64>
  %2 = loom.convert %1 : tensor<f64> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that an integer-to-float convert passes no gradient to its operand: the float argument
// that only reaches the loss through an integer gets a zero gradient.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK: %[[SUM:[a-z0-9_]+]] = loom.reduce sum
// CHECK-NEXT: loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: loom.broadcast_in_dim
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[SUM]], %[[ZERO]] : tensor<f32>, tensor<4xf32>
func.func private @f(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = loom.convert %x : tensor<4xf32> -> tensor<4xi32>
  %1 = loom.convert %0 : tensor<4xi32> -> tensor<4xf32>
  %2 = loom.reduce sum %1, dims = [0] : tensor<4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %v, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Tests that the VJP of broadcast_in_dim sums the cotangent over the new dim (0) and the
// stretched size-1 dim (1), then reshaped to the operand's shape.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<1x3xf32>, %[[W:[a-z0-9_]+]]: tensor<2x4x3xf32>) -> (tensor<f32>, tensor<1x3xf32>)
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<2x4x3xf32>
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = loom.mul %[[G]], %[[W]] : tensor<2x4x3xf32>
// CHECK-NEXT: loom.mul
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = loom.reduce sum %[[DB]], dims = [0, 1] : tensor<2x4x3xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.reshape %[[S]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]] : tensor<f32>, tensor<1x3xf32>
func.func private @f(%x: tensor<1x3xf32>, %w: tensor<2x4x3xf32>) -> tensor<f32> {
  %0 = loom.broadcast_in_dim %x, dims = [1, 2] : tensor<1x3xf32> -> tensor<2x4x3xf32>
  %1 = loom.mul %0, %w : tensor<2x4x3xf32>
  %2 = loom.reduce sum %1, dims = [0, 1, 2] : tensor<2x4x3xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<1x3xf32>, %w: tensor<2x4x3xf32>) -> (tensor<f32>, tensor<1x3xf32>) {
  %v, %g = loom.value_and_grad @f(%x, %w) wrt = [0]
      : (tensor<1x3xf32>, tensor<2x4x3xf32>) -> (tensor<f32>, tensor<1x3xf32>)
  return %v, %g : tensor<f32>, tensor<1x3xf32>
}

// -----

// Tests that the VJP of reshape reshapes the cotangent back and that of transpose applies the
// inverse permutation ([1, 2, 0] is undone by [2, 0, 1]).
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3x4xf32>, %[[W:[a-z0-9_]+]]: tensor<24xf32>) -> (tensor<f32>, tensor<2x3x4xf32>)
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<24xf32>
// CHECK-NEXT: %[[DF:[a-z0-9_]+]] = loom.mul %[[G]], %[[W]] : tensor<24xf32>
// CHECK-NEXT: loom.mul
// CHECK-NEXT: %[[DT:[a-z0-9_]+]] = loom.reshape %[[DF]] : tensor<24xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.transpose %[[DT]], permutation = [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]] : tensor<f32>, tensor<2x3x4xf32>
func.func private @f(%x: tensor<2x3x4xf32>, %w: tensor<24xf32>) -> tensor<f32> {
  %0 = loom.transpose %x, permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = loom.reshape %0 : tensor<3x4x2xf32> -> tensor<24xf32>
  %2 = loom.mul %1, %w : tensor<24xf32>
  %3 = loom.reduce sum %2, dims = [0] : tensor<24xf32> -> tensor<f32>
  return %3 : tensor<f32>
}
func.func @main(%x: tensor<2x3x4xf32>, %w: tensor<24xf32>) -> (tensor<f32>, tensor<2x3x4xf32>) {
  %v, %g = loom.value_and_grad @f(%x, %w) wrt = [0]
      : (tensor<2x3x4xf32>, tensor<24xf32>) -> (tensor<f32>, tensor<2x3x4xf32>)
  return %v, %g : tensor<f32>, tensor<2x3x4xf32>
}

// -----

// Tests that the VJP of slice is a zero loom.pad with low = start, high = what follows the last
// element taken (dim 0: 5 - 3 - 1 = 1; dim 1: elements 2, 5, 8, so 10 - 8 - 1 = 1) and interior =
// stride - 1.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<5x10xf32>) -> (tensor<f32>, tensor<5x10xf32>)
// CHECK: %[[E:[a-z0-9_]+]] = loom.exp
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<3x3xf32>
// CHECK-NEXT: %[[DS:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<3x3xf32>
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.pad %[[DS]], %[[ZERO]], low = [1, 2], high = [1, 1], interior = [0, 2] : (tensor<3x3xf32>, tensor<f32>) -> tensor<5x10xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]] : tensor<f32>, tensor<5x10xf32>
func.func private @f(%x: tensor<5x10xf32>) -> tensor<f32> {
  %0 = loom.slice %x, start = [1, 2], limit = [4, 9], strides = [1, 3]
      : tensor<5x10xf32> -> tensor<3x3xf32>
  %1 = loom.exp %0 : tensor<3x3xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<3x3xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<5x10xf32>) -> (tensor<f32>, tensor<5x10xf32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<5x10xf32>) -> (tensor<f32>, tensor<5x10xf32>)
  return %v, %g : tensor<f32>, tensor<5x10xf32>
}

// -----

// Tests that the VJP of pad gives the operand the strided slice of g at its positions (1, 3, 5)
// and the padding value sum(g) - sum(that slice).
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[P:[a-z0-9_]+]]: tensor<f32>)
// CHECK: %[[E:[a-z0-9_]+]] = loom.exp
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<8xf32>
// CHECK-NEXT: %[[DPAD:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<8xf32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.slice %[[DPAD]], start = [1], limit = [6], strides = [2] : tensor<8xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[INNER:[a-z0-9_]+]] = loom.reduce sum %[[DX]], dims = [0] : tensor<3xf32> -> tensor<f32>
// CHECK-NEXT: %[[ALL:[a-z0-9_]+]] = loom.reduce sum %[[DPAD]], dims = [0] : tensor<8xf32> -> tensor<f32>
// CHECK-NEXT: %[[DP:[a-z0-9_]+]] = loom.sub %[[ALL]], %[[INNER]] : tensor<f32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DP]] : tensor<f32>, tensor<3xf32>, tensor<f32>
func.func private @f(%x: tensor<3xf32>, %p: tensor<f32>) -> tensor<f32> {
  %0 = loom.pad %x, %p, low = [1], high = [2], interior = [1]
      : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = loom.exp %0 : tensor<8xf32>
  %2 = loom.reduce sum %1, dims = [0] : tensor<8xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<3xf32>, %p: tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>) {
  %v, %gx, %gp = loom.value_and_grad @f(%x, %p) wrt = [0, 1]
      : (tensor<3xf32>, tensor<f32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>)
  return %v, %gx, %gp : tensor<f32>, tensor<3xf32>, tensor<f32>
}

// -----

// Tests that the VJP of concatenate takes one slice of g per input, at the input's offset along
// dim 1.
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK: %[[E:[a-z0-9_]+]] = loom.exp
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<2x7xf32>
// CHECK-NEXT: %[[DC:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<2x7xf32>
// CHECK-NEXT: %[[DA:[a-z0-9_]+]] = loom.slice %[[DC]], start = [0, 0], limit = [2, 3], strides = [1, 1] : tensor<2x7xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[DB:[a-z0-9_]+]] = loom.slice %[[DC]], start = [0, 3], limit = [2, 7], strides = [1, 1] : tensor<2x7xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]] : tensor<f32>, tensor<2x3xf32>, tensor<2x4xf32>
func.func private @f(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<f32> {
  %0 = loom.concatenate(%a, %b) dim = 1 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
  %1 = loom.exp %0 : tensor<2x7xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<2x7xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>)
    -> (tensor<f32>, tensor<2x3xf32>, tensor<2x4xf32>) {
  %v, %ga, %gb = loom.value_and_grad @f(%a, %b) wrt = [0, 1]
      : (tensor<2x3xf32>, tensor<2x4xf32>) -> (tensor<f32>, tensor<2x3xf32>, tensor<2x4xf32>)
  return %v, %ga, %gb : tensor<f32>, tensor<2x3xf32>, tensor<2x4xf32>
}

// -----

// Tests that the VJP of a matmul x[8x4] w[4x2] is dx = g w^T (contracting g's dim 1 with w's dim
// 1, already in x's order) and dw = x^T g (contracting x's dim 0 with g's dim 0, already in w's
// order [4, 2]: no transpose).
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x4xf32>, %[[W:[a-z0-9_]+]]: tensor<4x2xf32>)
// CHECK: %[[E:[a-z0-9_]+]] = loom.exp
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<8x2xf32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<8x2xf32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.dot_general %[[G]], %[[W]], batching_dims = [] x [], contracting_dims = [1] x [1] : (tensor<8x2xf32>, tensor<4x2xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = loom.dot_general %[[X]], %[[G]], batching_dims = [] x [], contracting_dims = [0] x [0] : (tensor<8x4xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]] : tensor<f32>, tensor<8x4xf32>, tensor<4x2xf32>
func.func private @f(%x: tensor<8x4xf32>, %w: tensor<4x2xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %1 = loom.exp %0 : tensor<8x2xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<8x4xf32>, %w: tensor<4x2xf32>)
    -> (tensor<f32>, tensor<8x4xf32>, tensor<4x2xf32>) {
  %v, %gx, %gw = loom.value_and_grad @f(%x, %w) wrt = [0, 1]
      : (tensor<8x4xf32>, tensor<4x2xf32>) -> (tensor<f32>, tensor<8x4xf32>, tensor<4x2xf32>)
  return %v, %gx, %gw : tensor<f32>, tensor<8x4xf32>, tensor<4x2xf32>
}

// -----

// Tests that the VJP of a batched dot_general whose contracting dims are paired out of order (lhs
// [3, 2] with rhs [0, 1]) and whose rhs batch dim is last. dlhs = g . rhs over the batch dim and
// the rhs free dim gives [b, m, 7, 3], transposed by [0, 1, 3, 2]; drhs = lhs . g over the batch
// dim and the lhs free dim gives [b, 3, 7, n], transposed by [2, 1, 3, 0].
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<5x2x3x7xf32>, %[[W:[a-z0-9_]+]]: tensor<7x3x6x5xf32>)
// CHECK: %[[E:[a-z0-9_]+]] = loom.exp
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<5x2x6xf32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<5x2x6xf32>
// CHECK-NEXT: %[[DXP:[a-z0-9_]+]] = loom.dot_general %[[G]], %[[W]], batching_dims = [0] x [3], contracting_dims = [2] x [2] : (tensor<5x2x6xf32>, tensor<7x3x6x5xf32>) -> tensor<5x2x7x3xf32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.transpose %[[DXP]], permutation = [0, 1, 3, 2] : tensor<5x2x7x3xf32> -> tensor<5x2x3x7xf32>
// CHECK-NEXT: %[[DWP:[a-z0-9_]+]] = loom.dot_general %[[X]], %[[G]], batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<5x2x3x7xf32>, tensor<5x2x6xf32>) -> tensor<5x3x7x6xf32>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = loom.transpose %[[DWP]], permutation = [2, 1, 3, 0] : tensor<5x3x7x6xf32> -> tensor<7x3x6x5xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]] :
func.func private @f(%x: tensor<5x2x3x7xf32>, %w: tensor<7x3x6x5xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %w, batching_dims = [0] x [3], contracting_dims = [3, 2] x [0, 1]
      : (tensor<5x2x3x7xf32>, tensor<7x3x6x5xf32>) -> tensor<5x2x6xf32>
  %1 = loom.exp %0 : tensor<5x2x6xf32>
  %2 = loom.reduce sum %1, dims = [0, 1, 2] : tensor<5x2x6xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<5x2x3x7xf32>, %w: tensor<7x3x6x5xf32>)
    -> (tensor<f32>, tensor<5x2x3x7xf32>, tensor<7x3x6x5xf32>) {
  %v, %gx, %gw = loom.value_and_grad @f(%x, %w) wrt = [0, 1]
      : (tensor<5x2x3x7xf32>, tensor<7x3x6x5xf32>) -> (tensor<f32>, tensor<5x2x3x7xf32>, tensor<7x3x6x5xf32>)
  return %v, %gx, %gw : tensor<f32>, tensor<5x2x3x7xf32>, tensor<7x3x6x5xf32>
}

// -----

// Tests that the VJP of a dot_general with two batch dims listed in a different order on each
// side (lhs [1, 0] with rhs [0, 1]): g's batch dims follow lhs's batch order, so dlhs needs the
// transpose [1, 0, 2] and drhs none.
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3x4xf32>, %[[W:[a-z0-9_]+]]: tensor<3x2x4xf32>)
// CHECK: %[[E:[a-z0-9_]+]] = loom.exp
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<3x2xf32>
// CHECK-NEXT: %[[DXP:[a-z0-9_]+]] = loom.dot_general %[[G]], %[[W]], batching_dims = [0, 1] x [0, 1], contracting_dims = [] x [] : (tensor<3x2xf32>, tensor<3x2x4xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.transpose %[[DXP]], permutation = [1, 0, 2] : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[DW:[a-z0-9_]+]] = loom.dot_general %[[X]], %[[G]], batching_dims = [1, 0] x [0, 1], contracting_dims = [] x [] : (tensor<2x3x4xf32>, tensor<3x2xf32>) -> tensor<3x2x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]] :
func.func private @f(%x: tensor<2x3x4xf32>, %w: tensor<3x2x4xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %w, batching_dims = [1, 0] x [0, 1], contracting_dims = [2] x [2]
      : (tensor<2x3x4xf32>, tensor<3x2x4xf32>) -> tensor<3x2xf32>
  %1 = loom.exp %0 : tensor<3x2xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<3x2xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<2x3x4xf32>, %w: tensor<3x2x4xf32>)
    -> (tensor<f32>, tensor<2x3x4xf32>, tensor<3x2x4xf32>) {
  %v, %gx, %gw = loom.value_and_grad @f(%x, %w) wrt = [0, 1]
      : (tensor<2x3x4xf32>, tensor<3x2x4xf32>) -> (tensor<f32>, tensor<2x3x4xf32>, tensor<3x2x4xf32>)
  return %v, %gx, %gw : tensor<f32>, tensor<2x3x4xf32>, tensor<3x2x4xf32>
}

// -----

// Tests that the VJP of reduce sum broadcasts g back along the kept dims (here dim 1 of 2).
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK: %[[E:[a-z0-9_]+]] = loom.exp
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<6xf32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<6xf32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.broadcast_in_dim %[[G]], dims = [1] : tensor<6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]] : tensor<f32>, tensor<4x6xf32>
func.func private @f(%x: tensor<4x6xf32>) -> tensor<f32> {
  %0 = loom.reduce sum %x, dims = [0] : tensor<4x6xf32> -> tensor<6xf32>
  %1 = loom.exp %0 : tensor<6xf32>
  %2 = loom.reduce sum %1, dims = [0] : tensor<6xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<4x6xf32>) -> (tensor<f32>, tensor<4x6xf32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<4x6xf32>) -> (tensor<f32>, tensor<4x6xf32>)
  return %v, %g : tensor<f32>, tensor<4x6xf32>
}

// -----

// Tests that the VJP of reduce max shares g equally (g / count) among the elements equal to the
// broadcast maximum, through their mask converted to f32.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x6xf32>)
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = loom.reduce max %[[X]], dims = [1] : tensor<4x6xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = loom.exp %[[M]]
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<4xf32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<4xf32>
// CHECK-NEXT: %[[MB:[a-z0-9_]+]] = loom.broadcast_in_dim %[[M]], dims = [0] : tensor<4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[IS:[a-z0-9_]+]] = loom.compare eq, %[[X]], %[[MB]] : tensor<4x6xf32> -> tensor<4x6xi1>
// CHECK-NEXT: %[[MASK:[a-z0-9_]+]] = loom.convert %[[IS]] : tensor<4x6xi1> -> tensor<4x6xf32>
// CHECK-NEXT: %[[COUNT:[a-z0-9_]+]] = loom.reduce sum %[[MASK]], dims = [1] : tensor<4x6xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[SHARE:[a-z0-9_]+]] = loom.div %[[G]], %[[COUNT]] : tensor<4xf32>
// CHECK-NEXT: %[[SB:[a-z0-9_]+]] = loom.broadcast_in_dim %[[SHARE]], dims = [0] : tensor<4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.mul %[[SB]], %[[MASK]] : tensor<4x6xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]] : tensor<f32>, tensor<4x6xf32>
func.func private @f(%x: tensor<4x6xf32>) -> tensor<f32> {
  %0 = loom.reduce max %x, dims = [1] : tensor<4x6xf32> -> tensor<4xf32>
  %1 = loom.exp %0 : tensor<4xf32>
  %2 = loom.reduce sum %1, dims = [0] : tensor<4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<4x6xf32>) -> (tensor<f32>, tensor<4x6xf32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<4x6xf32>) -> (tensor<f32>, tensor<4x6xf32>)
  return %v, %g : tensor<f32>, tensor<4x6xf32>
}

// -----

// Tests that the VJP of gather is a scatter_add of g into the table's shape at the same indices.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[T:[a-z0-9_]+]]: tensor<10x4xf32>, %[[I:[a-z0-9_]+]]: tensor<3xi32>) -> (tensor<f32>, tensor<10x4xf32>)
// CHECK: %[[E:[a-z0-9_]+]] = loom.exp
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<3x4xf32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<3x4xf32>
// CHECK-NEXT: %[[DT:[a-z0-9_]+]] = loom.scatter_add %[[G]][%[[I]]] : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<10x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DT]] : tensor<f32>, tensor<10x4xf32>
func.func private @f(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<f32> {
  %0 = loom.gather %t[%i] : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  %1 = loom.exp %0 : tensor<3x4xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> (tensor<f32>, tensor<10x4xf32>) {
  %v, %g = loom.value_and_grad @f(%t, %i) wrt = [0]
      : (tensor<10x4xf32>, tensor<3xi32>) -> (tensor<f32>, tensor<10x4xf32>)
  return %v, %g : tensor<f32>, tensor<10x4xf32>
}

// -----

// Tests that the VJP of scatter_add is a gather of g at the same indices.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[U:[a-z0-9_]+]]: tensor<3x4xf32>, %[[I:[a-z0-9_]+]]: tensor<3xi32>) -> (tensor<f32>, tensor<3x4xf32>)
// CHECK: %[[E:[a-z0-9_]+]] = loom.exp
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SEED:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<10x4xf32>
// CHECK-NEXT: %[[G:[a-z0-9_]+]] = loom.mul %[[SEED]], %[[E]] : tensor<10x4xf32>
// CHECK-NEXT: %[[DU:[a-z0-9_]+]] = loom.gather %[[G]][%[[I]]] : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DU]] : tensor<f32>, tensor<3x4xf32>
func.func private @f(%u: tensor<3x4xf32>, %i: tensor<3xi32>) -> tensor<f32> {
  %0 = loom.scatter_add %u[%i] : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<10x4xf32>
  %1 = loom.exp %0 : tensor<10x4xf32>
  %2 = loom.reduce sum %1, dims = [0, 1] : tensor<10x4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%u: tensor<3x4xf32>, %i: tensor<3xi32>) -> (tensor<f32>, tensor<3x4xf32>) {
  %v, %g = loom.value_and_grad @f(%u, %i) wrt = [0]
      : (tensor<3x4xf32>, tensor<3xi32>) -> (tensor<f32>, tensor<3x4xf32>)
  return %v, %g : tensor<f32>, tensor<3x4xf32>
}

// -----

// Tests that no gradient flows through stop_gradient: x's only path to the loss goes through it,
// so its gradient is a zero constant; y's is g * stop_gradient(x) = g * x; and the generated
// function holds no stop_gradient (it is the identity once differentiated).
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>, %[[Y:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = loom.mul %[[X]], %[[Y]] : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: loom.mul %[[ONE]], %[[Y]] : tensor<f32>
// CHECK-NEXT: %[[DY:[a-z0-9_]+]] = loom.mul %[[ONE]], %[[X]] : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: return %[[V]], %[[DX]], %[[DY]] : tensor<f32>, tensor<f32>, tensor<f32>
// CHECK-NOT: loom.stop_gradient
func.func private @f(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %0 = loom.stop_gradient %x : tensor<f32>
  %1 = loom.mul %0, %y : tensor<f32>
  return %1 : tensor<f32>
}
func.func @main(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %v, %gx, %gy = loom.value_and_grad @f(%x, %y) wrt = [0, 1]
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %v, %gx, %gy : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Tests that a value reaching the loss along two paths (exp and log of x) gets the sum of both
// cotangents, accumulated with loom.add.
// CHECK-LABEL: func.func private @f_value_and_grad_0(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = loom.exp %[[X]] : tensor<f32>
// CHECK-NEXT: %[[L:[a-z0-9_]+]] = loom.log %[[X]] : tensor<f32>
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = loom.add %[[E]], %[[L]] : tensor<f32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DL:[a-z0-9_]+]] = loom.div %[[ONE]], %[[X]] : tensor<f32>
// CHECK-NEXT: %[[DE:[a-z0-9_]+]] = loom.mul %[[ONE]], %[[E]] : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.add %[[DL]], %[[DE]] : tensor<f32>
// CHECK-NEXT: return %[[Y]], %[[DX]] : tensor<f32>, tensor<f32>
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.exp %x : tensor<f32>
  %1 = loom.log %x : tensor<f32>
  %2 = loom.add %0, %1 : tensor<f32>
  return %2 : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that an argument not reaching the loss (y only feeds the auxiliary result) gets a zero
// gradient of its type, and that auxiliary results are returned as they are, between the value
// and the gradients.
// CHECK-LABEL: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2xf32>, %[[Y:[a-z0-9_]+]]: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>)
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = loom.reduce sum %[[X]], dims = [0] : tensor<2xf32> -> tensor<f32>
// CHECK-NEXT: %[[AUX:[a-z0-9_]+]] = loom.exp %[[Y]] : tensor<3xf32>
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.broadcast_in_dim %[[ONE]], dims = [] : tensor<f32> -> tensor<2xf32>
// CHECK-NEXT: %[[DY:[a-z0-9_]+]] = loom.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT: return %[[V]], %[[AUX]], %[[DX]], %[[DY]] : tensor<f32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>
// CHECK-LABEL: func.func @main(
// CHECK: %[[R:[a-z0-9_]+]]:4 = call @f_value_and_grad_0_1(
func.func private @f(%x: tensor<2xf32>, %y: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %0 = loom.reduce sum %x, dims = [0] : tensor<2xf32> -> tensor<f32>
  %1 = loom.exp %y : tensor<3xf32>
  return %0, %1 : tensor<f32>, tensor<3xf32>
}
func.func @main(%x: tensor<2xf32>, %y: tensor<3xf32>)
    -> (tensor<f32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) {
  %r:4 = loom.value_and_grad @f(%x, %y) wrt = [0, 1]
      : (tensor<2xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<f32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>
}

// -----

// Tests that the same callee with the same wrt generates one function, called from both sites,
// and that another wrt generates another function.
// CHECK-NOT: func.func private @f_value_and_grad
// CHECK: func.func private @f_value_and_grad_1(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>, %[[Y:[a-z0-9_]+]]: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[DY:[a-z0-9_]+]] = loom.mul %[[ONE]], %[[X]] : tensor<f32>
// CHECK-NEXT: return %{{.*}}, %[[DY]] : tensor<f32>, tensor<f32>
// CHECK-NOT: func.func private @f_value_and_grad
// CHECK: func.func private @f_value_and_grad_0_1(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>, %[[Y:[a-z0-9_]+]]: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK: %[[ONE:[a-z0-9_]+]] = loom.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:[a-z0-9_]+]] = loom.mul %[[ONE]], %[[Y]] : tensor<f32>
// CHECK-NEXT: %[[DY:[a-z0-9_]+]] = loom.mul %[[ONE]], %[[X]] : tensor<f32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DY]] : tensor<f32>, tensor<f32>, tensor<f32>
// CHECK-NOT: func.func private @f_value_and_grad
// CHECK-LABEL: func.func @first(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>, %[[Y:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: call @f_value_and_grad_0_1(%[[X]], %[[Y]])
// CHECK-LABEL: func.func @second(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<f32>, %[[Y:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: call @f_value_and_grad_0_1(%[[Y]], %[[X]])
// CHECK-NEXT: call @f_value_and_grad_1(%[[X]], %[[Y]])
func.func private @f(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %0 = loom.mul %x, %y : tensor<f32>
  return %0 : tensor<f32>
}
func.func @first(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %v, %gx, %gy = loom.value_and_grad @f(%x, %y) wrt = [0, 1]
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %v, %gx, %gy : tensor<f32>, tensor<f32>, tensor<f32>
}
func.func @second(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %v, %gx, %gy = loom.value_and_grad @f(%y, %x) wrt = [0, 1]
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  %w, %gy2 = loom.value_and_grad @f(%x, %y) wrt = [1]
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %gx, %gy2 : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Tests that a callee calling another function cannot be differentiated.
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op cannot be differentiated by loom-autodiff (only Loom ops can; nested value_and_grad is not supported)}}
  %0 = func.call @square(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @square(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.mul %x, %x : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that a callee holding a value_and_grad (nested differentiation) cannot be differentiated.
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @outer(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}
func.func private @outer(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'loom.value_and_grad' op cannot be differentiated by loom-autodiff (only Loom ops can; nested value_and_grad is not supported)}}
  %v, %g = loom.value_and_grad @inner(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %g : tensor<f32>
}
func.func private @inner(%x: tensor<f32>) -> tensor<f32> {
  %0 = loom.mul %x, %x : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Tests that a callee with more than one block cannot be differentiated (the error names the
// generated copy).
// expected-error @+1 {{loom-autodiff: @f_value_and_grad_0 must have one block}}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %v, %g = loom.value_and_grad @f(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}
