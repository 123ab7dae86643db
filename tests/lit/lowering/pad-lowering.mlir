// RUN: loom-opt %s -loom-lower-to-linalg -split-input-file | FileCheck %s

// Tests of the loom-lower-to-linalg patterns for the ops that loom-autodiff adds: loom.pad
// (compiler/Lowering/LowerShape.cpp) and loom.stop_gradient.

// Tests that loom.pad fills a tensor.empty of the result shape with the extracted padding value,
// then inserts the operand with offsets = low, sizes = the operand's shape and
// strides = interior + 1.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[P:[a-z0-9_]+]]: tensor<f32>) -> tensor<5x10xf32>
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = tensor.extract %[[P]][] : tensor<f32>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = tensor.empty() : tensor<5x10xf32>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<5x10xf32>) -> tensor<5x10xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = tensor.insert_slice %[[X]] into %[[F]][1, 0] [2, 3] [1, 4] : tensor<2x3xf32> into tensor<5x10xf32>
// CHECK-NEXT: return %[[R]] : tensor<5x10xf32>
func.func @pad(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<5x10xf32> {
  %0 = loom.pad %x, %p, low = [1, 0], high = [2, 1], interior = [0, 3]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x10xf32>
  return %0 : tensor<5x10xf32>
}

// -----

// Tests that a pad of an operand with no elements (here on integers) is only the fill: there is
// nothing to insert.
// CHECK-LABEL: func.func @pad_empty_operand
// CHECK-SAME: (%{{[a-z0-9_]+}}: tensor<0x3xi32>, %[[P:[a-z0-9_]+]]: tensor<i32>) -> tensor<2x3xi32>
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = tensor.extract %[[P]][] : tensor<i32>
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = tensor.empty() : tensor<2x3xi32>
// CHECK-NEXT: %[[F:[a-z0-9_]+]] = linalg.fill ins(%[[V]] : i32) outs(%[[E]] : tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT: return %[[F]] : tensor<2x3xi32>
func.func @pad_empty_operand(%x: tensor<0x3xi32>, %p: tensor<i32>) -> tensor<2x3xi32> {
  %0 = loom.pad %x, %p, low = [1, 0], high = [1, 0], interior = [4, 0]
      : (tensor<0x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Tests that the pad loom-autodiff emits for a strided slice (a zero constant padding value,
// interior padding on one dim) lowers the same way, the constant extracted like any operand.
// CHECK-LABEL: func.func @pad_constant_value
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<3x3xf32>) -> tensor<5x10xf32>
// CHECK-DAG: %[[ZERO:[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[V:[a-z0-9_]+]] = tensor.extract %[[ZERO]][] : tensor<f32>
// CHECK: %[[F:[a-z0-9_]+]] = linalg.fill ins(%[[V]] : f32) outs(%{{[a-z0-9_]+}} : tensor<5x10xf32>) -> tensor<5x10xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = tensor.insert_slice %[[X]] into %[[F]][1, 2] [3, 3] [1, 3] : tensor<3x3xf32> into tensor<5x10xf32>
// CHECK-NEXT: return %[[R]] : tensor<5x10xf32>
func.func @pad_constant_value(%x: tensor<3x3xf32>) -> tensor<5x10xf32> {
  %zero = loom.constant dense<0.0> : tensor<f32>
  %0 = loom.pad %x, %zero, low = [1, 2], high = [1, 1], interior = [0, 2]
      : (tensor<3x3xf32>, tensor<f32>) -> tensor<5x10xf32>
  return %0 : tensor<5x10xf32>
}

// -----

// Tests that loom.stop_gradient lowers to nothing: its user reads the operand directly.
// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: stop_gradient
// CHECK: %[[R:[a-z0-9_]+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>)
// CHECK: math.exp
// CHECK: return %[[R]] : tensor<4xf32>
func.func @stop_gradient(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.stop_gradient %x : tensor<4xf32>
  %1 = loom.exp %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Tests that a stop_gradient whose result is returned lowers to the operand itself.
// CHECK-LABEL: func.func @stop_gradient_returned
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT: return %[[X]] : tensor<2x3xi32>
func.func @stop_gradient_returned(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = loom.stop_gradient %x : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
