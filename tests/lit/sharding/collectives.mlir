// RUN: loom-opt %s -split-input-file | loom-opt -split-input-file | FileCheck %s

// Tests that the mesh, the sharding attribute, the constraint and every collective print and
// parse back unchanged.
// CHECK: loom.mesh @mesh axes = ["data", "model"] shape = [2, 4]
// CHECK-LABEL: func.func @roundtrip
// CHECK: loom.sharding_constraint %{{.*}} : tensor<8x16xf32> to #loom.sharding<@mesh, {{\[\[}}"data"], ["model"]]>
// CHECK: loom.all_gather %{{.*}}, @mesh, dim = 0, axes = ["data"] {bytes = 256 : i64, reason = "why"} : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK: loom.reduce_scatter %{{.*}}, @mesh, dim = 1, axes = ["model"] : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK: loom.all_reduce sum %{{.*}}, @mesh, axes = ["data", "model"] : tensor<8x16xf32>
// CHECK: loom.all_to_all %{{.*}}, @mesh, split_dim = 1, concat_dim = 0, axes = ["model"] : tensor<8x16xf32> -> tensor<32x4xf32>
// CHECK: loom.shard_slice %{{.*}}, @mesh, dim = 0, axes = ["data", "model"] : tensor<8x16xf32> -> tensor<1x16xf32>
// CHECK: loom.axis_index @mesh, axes = ["model"] : tensor<i32>
// CHECK: loom.collective_permute %{{.*}}, @mesh, axes = ["model"], pairs = [0, 1, 1, 2, 2, 3, 3, 0] : tensor<8x16xf32>
loom.mesh @mesh axes = ["data", "model"] shape = [2, 4]
func.func @roundtrip(%x: tensor<8x16xf32>, %h: tensor<4x16xf32>) {
  %0 = loom.sharding_constraint %x : tensor<8x16xf32> to #loom.sharding<@mesh, [["data"], ["model"]]>
  %1 = loom.all_gather %h, @mesh, dim = 0, axes = ["data"] {bytes = 256 : i64, reason = "why"} : tensor<4x16xf32> -> tensor<8x16xf32>
  %2 = loom.reduce_scatter %x, @mesh, dim = 1, axes = ["model"] : tensor<8x16xf32> -> tensor<8x4xf32>
  %3 = loom.all_reduce sum %x, @mesh, axes = ["data", "model"] : tensor<8x16xf32>
  %4 = loom.all_to_all %x, @mesh, split_dim = 1, concat_dim = 0, axes = ["model"] : tensor<8x16xf32> -> tensor<32x4xf32>
  %5 = loom.shard_slice %x, @mesh, dim = 0, axes = ["data", "model"] : tensor<8x16xf32> -> tensor<1x16xf32>
  %6 = loom.axis_index @mesh, axes = ["model"] : tensor<i32>
  %7 = loom.collective_permute %x, @mesh, axes = ["model"], pairs = [0, 1, 1, 2, 2, 3, 3, 0] : tensor<8x16xf32>
  return
}
