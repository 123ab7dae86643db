// RUN: loom-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds of loom.constant and loom.iota: a constant folds to its own value, so canonicalization
// keeps used constants unchanged, merges identical ones and erases unused ones.

// A used constant is kept with its value and type unchanged.
// CHECK-LABEL: func.func @constant_kept(
// CHECK: %[[C:.+]] = loom.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[C]] : tensor<2xf32>
func.func @constant_kept() -> tensor<2xf32> {
  %0 = loom.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Unused constants and iotas are erased (they are pure).
// CHECK-LABEL: func.func @unused_erased(
// CHECK-NOT: loom.constant
// CHECK-NOT: loom.iota
// CHECK: return
func.func @unused_erased() {
  %0 = loom.constant dense<1.0> : tensor<2xf32>
  %1 = loom.constant dense<[true, false]> : tensor<2xi1>
  %2 = loom.iota dim = 0 : tensor<4xi32>
  return
}

// -----

// Identical constants are merged into one.
// CHECK-LABEL: func.func @constants_merged(
// CHECK: %[[C:.+]] = loom.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK-NOT: loom.constant
// CHECK: return %[[C]], %[[C]] : tensor<3xi32>, tensor<3xi32>
func.func @constants_merged() -> (tensor<3xi32>, tensor<3xi32>) {
  %0 = loom.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = loom.constant dense<[1, 2, 3]> : tensor<3xi32>
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}

// -----

// Constants of the same values but different types are not merged.
// CHECK-LABEL: func.func @constants_of_other_types_kept(
// CHECK-DAG: %[[F32:.+]] = loom.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[F64:.+]] = loom.constant dense<1.000000e+00> : tensor<2xf64>
// CHECK-DAG: %[[S:.+]] = loom.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK: return %[[F32]], %[[F64]], %[[S]] :
func.func @constants_of_other_types_kept() -> (tensor<2xf32>, tensor<2xf64>, tensor<3xf32>) {
  %0 = loom.constant dense<1.0> : tensor<2xf32>
  %1 = loom.constant dense<1.0> : tensor<2xf64>
  %2 = loom.constant dense<1.0> : tensor<3xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf64>, tensor<3xf32>
}

// -----

// Special float values (NaN, -0, infinity) survive canonicalization bit for bit.
// CHECK-LABEL: func.func @special_values_kept(
// CHECK: %[[C:.+]] = loom.constant dense<[0x7FC00000, -0.000000e+00, 0xFF800000]> : tensor<3xf32>
// CHECK: return %[[C]] : tensor<3xf32>
func.func @special_values_kept() -> tensor<3xf32> {
  %0 = loom.constant dense<[0x7FC00000, -0.0, 0xFF800000]> : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A constant whose value is a dense_resource (not a DenseElementsAttr) is kept.
// CHECK-LABEL: func.func @resource_kept(
// CHECK: %[[C:.+]] = loom.constant dense_resource<blob1> : tensor<2xi32>
// CHECK: return %[[C]] : tensor<2xi32>
func.func @resource_kept() -> tensor<2xi32> {
  %0 = loom.constant dense_resource<blob1> : tensor<2xi32>
  return %0 : tensor<2xi32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}

// -----

// A used iota is not folded to a constant.
// CHECK-LABEL: func.func @iota_kept(
// CHECK: %[[I:.+]] = loom.iota dim = 1 : tensor<2x3xi32>
// CHECK: return %[[I]] : tensor<2x3xi32>
func.func @iota_kept() -> tensor<2x3xi32> {
  %0 = loom.iota dim = 1 : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// A folded result is materialized as a loom.constant and merged with an equal constant.
// CHECK-LABEL: func.func @folded_result_merged(
// CHECK: %[[C:.+]] = loom.constant dense<3> : tensor<2xi64>
// CHECK-NOT: loom.constant
// CHECK-NOT: loom.add
// CHECK: return %[[C]], %[[C]] : tensor<2xi64>, tensor<2xi64>
func.func @folded_result_merged() -> (tensor<2xi64>, tensor<2xi64>) {
  %1 = loom.constant dense<1> : tensor<2xi64>
  %2 = loom.constant dense<2> : tensor<2xi64>
  %3 = loom.constant dense<3> : tensor<2xi64>
  %sum = loom.add %1, %2 : tensor<2xi64>
  return %sum, %3 : tensor<2xi64>, tensor<2xi64>
}
