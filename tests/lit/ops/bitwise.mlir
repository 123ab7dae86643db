// RUN: loom-opt %s | loom-opt | FileCheck %s

// CHECK-LABEL: func.func @bitwise
// CHECK: loom.and %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK: loom.or %{{.*}}, %{{.*}} : tensor<4xi1>
// CHECK: loom.xor %{{.*}}, %{{.*}} : tensor<4xi64>
// CHECK: loom.shift_left %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK: loom.shift_right_logical %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK: loom.bitcast_convert %{{.*}} : tensor<4xi32> -> tensor<4xf32>
func.func @bitwise(%a: tensor<4xi32>, %p: tensor<4xi1>, %w: tensor<4xi64>) -> tensor<4xf32> {
  %0 = loom.and %a, %a : tensor<4xi32>
  %1 = loom.or %p, %p : tensor<4xi1>
  %2 = loom.xor %w, %w : tensor<4xi64>
  %3 = loom.shift_left %a, %a : tensor<4xi32>
  %4 = loom.shift_right_logical %3, %a : tensor<4xi32>
  %5 = loom.bitcast_convert %4 : tensor<4xi32> -> tensor<4xf32>
  return %5 : tensor<4xf32>
}
