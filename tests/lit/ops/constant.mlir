// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round-trip tests of loom.constant and loom.iota with each element type they accept.

// CHECK-LABEL: func.func @constant_splat(
func.func @constant_splat() {
  // CHECK: loom.constant dense<1.500000e+00> : tensor<2x3xf32>
  %0 = loom.constant dense<1.5> : tensor<2x3xf32>
  // CHECK: loom.constant dense<-2.500000e-01> : tensor<4xf64>
  %1 = loom.constant dense<-0.25> : tensor<4xf64>
  // CHECK: loom.constant dense<3.000000e+00> : tensor<2xbf16>
  %2 = loom.constant dense<3.0> : tensor<2xbf16>
  // CHECK: loom.constant dense<5.000000e-01> : tensor<2xf16>
  %3 = loom.constant dense<0.5> : tensor<2xf16>
  // CHECK: loom.constant dense<-7> : tensor<2x2xi32>
  %4 = loom.constant dense<-7> : tensor<2x2xi32>
  // CHECK: loom.constant dense<9223372036854775807> : tensor<3xi64>
  %5 = loom.constant dense<9223372036854775807> : tensor<3xi64>
  // CHECK: loom.constant dense<true> : tensor<5xi1>
  %6 = loom.constant dense<true> : tensor<5xi1>
  return
}

// CHECK-LABEL: func.func @constant_dense(
func.func @constant_dense() {
  // CHECK: loom.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %0 = loom.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // CHECK: loom.constant dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf64>
  %1 = loom.constant dense<[1.5, -2.0]> : tensor<2xf64>
  // CHECK: loom.constant dense<[1.500000e+00, -2.000000e+00]> : tensor<2xbf16>
  %2 = loom.constant dense<[1.5, -2.0]> : tensor<2xbf16>
  // CHECK: loom.constant dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf16>
  %3 = loom.constant dense<[1.5, -2.0]> : tensor<2xf16>
  // CHECK: loom.constant dense<[1, -2, 3]> : tensor<3xi32>
  %4 = loom.constant dense<[1, -2, 3]> : tensor<3xi32>
  // CHECK: loom.constant dense<[0, -9223372036854775808]> : tensor<2xi64>
  %5 = loom.constant dense<[0, -9223372036854775808]> : tensor<2xi64>
  // CHECK: loom.constant dense<[true, false]> : tensor<2xi1>
  %6 = loom.constant dense<[true, false]> : tensor<2xi1>
  return
}

// CHECK-LABEL: func.func @constant_special(
func.func @constant_special() -> tensor<f32> {
  // A rank-0 constant, a NaN, an infinity and an attribute dictionary.
  // CHECK: loom.constant dense<2.000000e+00> : tensor<f32>
  %0 = loom.constant dense<2.0> : tensor<f32>
  // CHECK: loom.constant dense<[0x7FC00000, 0xFF800000]> : tensor<2xf32>
  %1 = loom.constant dense<[0x7FC00000, 0xFF800000]> : tensor<2xf32>
  // CHECK: %[[C:.+]] = loom.constant {some.attr} dense<false> : tensor<i1>
  %2 = loom.constant {some.attr} dense<false> : tensor<i1>
  // CHECK: return %{{.+}} : tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @constant_resource(
func.func @constant_resource() -> tensor<2xi32> {
  // Any ElementsAttr is accepted, not only dense<...>.
  // CHECK: %[[C:.+]] = loom.constant dense_resource<blob1> : tensor<2xi32>
  // CHECK: return %[[C]] : tensor<2xi32>
  %0 = loom.constant dense_resource<blob1> : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// CHECK-LABEL: func.func @iota(
func.func @iota() {
  // CHECK: loom.iota dim = 0 : tensor<4xf32>
  %0 = loom.iota dim = 0 : tensor<4xf32>
  // CHECK: loom.iota dim = 1 : tensor<2x3xf64>
  %1 = loom.iota dim = 1 : tensor<2x3xf64>
  // CHECK: loom.iota dim = 2 : tensor<2x3x4xbf16>
  %2 = loom.iota dim = 2 : tensor<2x3x4xbf16>
  // CHECK: loom.iota dim = 0 : tensor<8x2xf16>
  %3 = loom.iota dim = 0 : tensor<8x2xf16>
  // CHECK: loom.iota dim = 1 : tensor<2x3xi32>
  %4 = loom.iota dim = 1 : tensor<2x3xi32>
  // CHECK: loom.iota dim = 0 : tensor<5xi64>
  %5 = loom.iota dim = 0 : tensor<5xi64>
  // CHECK: loom.iota dim = 0 {some.attr = "x"} : tensor<0xi32>
  %6 = loom.iota dim = 0 {some.attr = "x"} : tensor<0xi32>
  return
}

// The resource is printed back after the module.
// CHECK: dialect_resources
// CHECK: blob1: "0x040000000100000002000000"

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
