// RUN: loom-opt %s | loom-opt | FileCheck %s

// Tests that loom.sin and loom.cos print and parse back for every float type.
// CHECK-LABEL: func.func @trig(
// CHECK-SAME: %[[F32:[a-z0-9_]+]]: tensor<2x3xf32>, %[[F64:[a-z0-9_]+]]: tensor<4xf64>, %[[BF16:[a-z0-9_]+]]: tensor<bf16>, %[[F16:[a-z0-9_]+]]: tensor<1x2xf16>
// CHECK: loom.sin %[[F32]] : tensor<2x3xf32>
// CHECK: loom.cos %[[F32]] : tensor<2x3xf32>
// CHECK: loom.sin %[[F64]] : tensor<4xf64>
// CHECK: loom.cos %[[BF16]] : tensor<bf16>
// CHECK: loom.sin %[[F16]] : tensor<1x2xf16>
func.func @trig(%a: tensor<2x3xf32>, %b: tensor<4xf64>, %c: tensor<bf16>, %d: tensor<1x2xf16>) {
  %0 = loom.sin %a : tensor<2x3xf32>
  %1 = loom.cos %a : tensor<2x3xf32>
  %2 = loom.sin %b : tensor<4xf64>
  %3 = loom.cos %c : tensor<bf16>
  %4 = loom.sin %d : tensor<1x2xf16>
  return
}
