// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests the sharding rules of loom.dynamic_slice and loom.dynamic_update_slice
// (compiler/IR/ShardingRules.cpp): a dim the box takes whole keeps its split and costs no
// collective; a dim it takes part of (where, only the run time knows) must be whole first.

// CHECK-LABEL: func.func @rows_of_split_columns
// CHECK-SAME: tensor<8x4xf32>
// CHECK-NOT: loom.all_
// CHECK: loom.dynamic_slice {{.*}} -> tensor<2x4xf32>
// CHECK-NOT: loom.all_
// CHECK: return {{.*}} : tensor<2x4xf32>
loom.mesh @mesh axes = ["x"] shape = [4]
func.func @rows_of_split_columns(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["x"]]>},
                                 %i: tensor<i32>) -> tensor<2x16xf32> {
  %z = loom.constant dense<0> : tensor<i32>
  %0 = loom.dynamic_slice %x[%i, %z] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x16xf32>
  %1 = loom.exp %0 : tensor<2x16xf32>
  return %1 : tensor<2x16xf32>
}

// -----

// A decoding cache split by heads takes its new row in place on every device.
// CHECK-LABEL: func.func @cache_write
// CHECK-SAME: tensor<16x2x32xf32>
// CHECK-NOT: loom.all_
// CHECK: loom.dynamic_update_slice {{.*}} : (tensor<16x2x32xf32>, tensor<1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<16x2x32xf32>
// CHECK-NOT: loom.all_
loom.mesh @mesh axes = ["x"] shape = [4]
func.func @cache_write(%c: tensor<16x8x32xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["x"]]>},
                       %r: tensor<1x8x32xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["x"]]>},
                       %t: tensor<i32>)
    -> (tensor<16x8x32xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["x"]]>}) {
  %z = loom.constant dense<0> : tensor<i32>
  %0 = loom.dynamic_update_slice %c, %r[%t, %z, %z]
      : (tensor<16x8x32xf32>, tensor<1x8x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<16x8x32xf32>
  return %0 : tensor<16x8x32xf32>
}

// -----

// CHECK-LABEL: func.func @split_rows_gathered
// CHECK: %[[G:.*]] = loom.all_gather %arg0, @mesh, dim = 0, axes = ["x"] {{.*}} : tensor<2x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: loom.dynamic_slice %[[G]]
loom.mesh @mesh axes = ["x"] shape = [4]
func.func @split_rows_gathered(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["x"]]>},
                               %i: tensor<i32>) -> tensor<2x16xf32> {
  %z = loom.constant dense<0> : tensor<i32>
  %0 = loom.dynamic_slice %x[%i, %z] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
