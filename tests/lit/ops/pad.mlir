// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round-trip tests of loom.pad: edge padding, interior padding, rank 0 and zero-size dims.

// Low and high padding only, on a rank-2 tensor.
// CHECK-LABEL: func.func @pad_edges
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[P:[a-z0-9_]+]]: tensor<f32>) -> tensor<5x4xf32>
// CHECK: %[[R:[a-z0-9_]+]] = loom.pad %[[X]], %[[P]], low = [1, 0], high = [2, 1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x4xf32>
// CHECK: return %[[R]] : tensor<5x4xf32>
func.func @pad_edges(%x: tensor<2x3xf32>, %p: tensor<f32>) -> tensor<5x4xf32> {
  %0 = loom.pad %x, %p, low = [1, 0], high = [2, 1], interior = [0, 0]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// Interior padding puts elements between each two: 1 + 3 + 2 * 1 + 0 = 6.
// CHECK-LABEL: func.func @pad_interior
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<3xf32>, %[[P:[a-z0-9_]+]]: tensor<f32>) -> tensor<6xf32>
// CHECK: %[[R:[a-z0-9_]+]] = loom.pad %[[X]], %[[P]], low = [1], high = [0], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK: return %[[R]] : tensor<6xf32>
func.func @pad_interior(%x: tensor<3xf32>, %p: tensor<f32>) -> tensor<6xf32> {
  %0 = loom.pad %x, %p, low = [1], high = [0], interior = [1]
      : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// Interior and edge padding on every dim, on integers: 2 + 0 + 4 + 3 * 2 = 12 and
// 0 + 1 + 2 + 1 * 3 = 6.
// CHECK-LABEL: func.func @pad_interior_2d
// CHECK: loom.pad %{{.*}}, %{{.*}}, low = [2, 0], high = [0, 1], interior = [2, 3] : (tensor<4x2xi32>, tensor<i32>) -> tensor<12x6xi32>
func.func @pad_interior_2d(%x: tensor<4x2xi32>, %p: tensor<i32>) -> tensor<12x6xi32> {
  %0 = loom.pad %x, %p, low = [2, 0], high = [0, 1], interior = [2, 3]
      : (tensor<4x2xi32>, tensor<i32>) -> tensor<12x6xi32>
  return %0 : tensor<12x6xi32>
}

// A rank-0 operand takes empty lists and keeps its type.
// CHECK-LABEL: func.func @pad_rank0
// CHECK: loom.pad %{{.*}}, %{{.*}}, low = [], high = [], interior = [] : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
func.func @pad_rank0(%x: tensor<bf16>, %p: tensor<bf16>) -> tensor<bf16> {
  %0 = loom.pad %x, %p, low = [], high = [], interior = [] : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
  return %0 : tensor<bf16>
}

// A zero-size dim takes no interior padding: dim 0 is 1 + 2 + 0 = 3 whatever interior is.
// CHECK-LABEL: func.func @pad_zero_size
// CHECK: loom.pad %{{.*}}, %{{.*}}, low = [1, 0], high = [2, 0], interior = [5, 1] : (tensor<0x2xi64>, tensor<i64>) -> tensor<3x3xi64>
func.func @pad_zero_size(%x: tensor<0x2xi64>, %p: tensor<i64>) -> tensor<3x3xi64> {
  %0 = loom.pad %x, %p, low = [1, 0], high = [2, 0], interior = [5, 1]
      : (tensor<0x2xi64>, tensor<i64>) -> tensor<3x3xi64>
  return %0 : tensor<3x3xi64>
}

// A pad to a zero-size result (no padding on an empty dim).
// CHECK-LABEL: func.func @pad_to_empty
// CHECK: loom.pad %{{.*}}, %{{.*}}, low = [0, 1], high = [0, 1], interior = [0, 0] : (tensor<0x3xf16>, tensor<f16>) -> tensor<0x5xf16>
func.func @pad_to_empty(%x: tensor<0x3xf16>, %p: tensor<f16>) -> tensor<0x5xf16> {
  %0 = loom.pad %x, %p, low = [0, 1], high = [0, 1], interior = [0, 0]
      : (tensor<0x3xf16>, tensor<f16>) -> tensor<0x5xf16>
  return %0 : tensor<0x5xf16>
}
