// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests that swapping the operands of a commutative op gives the same collectives: of two
// equally large operands split on different dims, the one split on dim 1 is moved, whichever
// side of the add it is on (ties go by dims and sizes, never by operand order).
// CHECK-LABEL: func.func @add_split_rows_first
// CHECK: loom.all_to_all %arg1, @mesh, split_dim = 0, concat_dim = 1, axes = ["data"]
// CHECK-NOT: loom.all_
// CHECK-LABEL: func.func @add_split_rows_second
// CHECK: loom.all_to_all %arg0, @mesh, split_dim = 0, concat_dim = 1, axes = ["data"]
// CHECK-NOT: loom.all_
loom.mesh @mesh axes = ["data"] shape = [2]
func.func @add_split_rows_first(%big: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                         %small: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["data"]]>})
    -> tensor<64x64xf32> {
  %0 = loom.exp %big : tensor<64x64xf32>
  %1 = loom.add %0, %small : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
func.func @add_split_rows_second(%small: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["data"]]>},
                          %big: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> tensor<64x64xf32> {
  %0 = loom.exp %big : tensor<64x64xf32>
  %1 = loom.add %small, %0 : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// -----

// Tests a reshard on a 2-d mesh that needs several steps: [[x], [y]] to [[y], [x]] gathers x
// from dim 0, moves y from dim 1 to dim 0 and slices x into dim 1; the result is checked
// against the wanted sharding.
// CHECK-LABEL: func.func @swap_axes
// CHECK: %[[G:.*]] = loom.all_gather %arg0, @mesh, dim = 0, axes = ["x"] {{.*}} : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[A:.*]] = loom.all_to_all %[[G]], @mesh, split_dim = 0, concat_dim = 1, axes = ["y"] {{.*}} : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = loom.shard_slice %[[A]], @mesh, dim = 1, axes = ["x"] {{.*}} : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[S]]
loom.mesh @mesh axes = ["x", "y"] shape = [2, 2]
func.func @swap_axes(%a: tensor<8x8xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], ["y"]]>})
    -> (tensor<8x8xf32> {loom.sharding = #loom.sharding<@mesh, [["y"], ["x"]]>}) {
  return %a : tensor<8x8xf32>
}
