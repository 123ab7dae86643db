// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests that auto-sharded code composes with a shard_map: propagation takes its in sharding as
// what its operand should be (the exp runs split, on a free slice of the replicated argument),
// and the partitioner inlines the body, whose collectives stay as written.

// CHECK-LABEL: func.func @compose
// CHECK-SAME: (%arg0: tensor<8x4xf32>
// CHECK: %[[S:.*]] = loom.shard_slice %arg0, @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<8x4xf32> -> tensor<2x4xf32>
// CHECK: %[[E:.*]] = loom.exp %[[S]] : tensor<2x4xf32>
// CHECK-NOT: loom.all_gather
// CHECK: %[[L:.*]] = loom.reduce sum %[[E]], dims = [0] : tensor<2x4xf32> -> tensor<4xf32>
// CHECK: %[[T:.*]] = loom.all_reduce sum %[[L]], @mesh, axes = ["data"] : tensor<4xf32>
// CHECK: %[[Z:.*]] = loom.mul %[[T]], %[[T]] : tensor<4xf32>
// CHECK-NOT: loom.shard_map
// CHECK: return %[[Z]] : tensor<4xf32>
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @compose(%x: tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, []>}) -> tensor<4xf32> {
  %y = loom.exp %x : tensor<8x4xf32>
  %r = loom.shard_map @mesh (%y) in_shardings = [#loom.sharding<@mesh, [["data"], []]>]
      out_shardings = [#loom.sharding<@mesh, []>] : (tensor<8x4xf32>) -> tensor<4xf32> {
  ^bb0(%local: tensor<2x4xf32>):
    %s = loom.reduce sum %local, dims = [0] : tensor<2x4xf32> -> tensor<4xf32>
    %t = loom.all_reduce sum %s, @mesh, axes = ["data"] : tensor<4xf32>
    loom.yield %t : tensor<4xf32>
  }
  %z = loom.mul %r, %r : tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// Tests that an operand split otherwise is resharded to the in sharding (the split moves
// from dim 1 to dim 0: an all_to_all), and that a result split by its out sharding is gathered
// for a user that wants it whole.

// CHECK-LABEL: func.func @reshard
// CHECK: %[[A:.*]] = loom.all_to_all %arg0, @mesh, split_dim = 0, concat_dim = 1, axes = ["data"] {{.*}} : tensor<8x1xf32> -> tensor<2x4xf32>
// CHECK: %[[N:.*]] = loom.neg %[[A]] : tensor<2x4xf32>
// CHECK: %[[G:.*]] = loom.all_gather %[[N]], @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<2x4xf32> -> tensor<8x4xf32>
// CHECK: return %[[G]] : tensor<8x4xf32>
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @reshard(%x: tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["data"]]>})
    -> (tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, [["data"], []]>]
      out_shardings = [#loom.sharding<@mesh, [["data"], []]>] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%local: tensor<2x4xf32>):
    %n = loom.neg %local : tensor<2x4xf32>
    loom.yield %n : tensor<2x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

// Tests that an argument passed through to a result split otherwise keeps both meanings: the
// result is a value of its own, so the replicated operand is not taken for the split result.

// CHECK-LABEL: func.func @pass_through
// CHECK: %[[C:.*]] = loom.reshape %arg0 : tensor<2xf32> -> tensor<2xf32>
// CHECK: %[[G:.*]] = loom.all_gather %[[C]], @mesh, dim = 0, axes = ["data"] {{.*}} : tensor<2xf32> -> tensor<8xf32>
// CHECK: return %[[G]] : tensor<8xf32>
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @pass_through(%x: tensor<2xf32> {loom.sharding = #loom.sharding<@mesh, []>})
    -> (tensor<8xf32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, []>]
      out_shardings = [#loom.sharding<@mesh, [["data"]]>] : (tensor<2xf32>) -> tensor<8xf32> {
  ^bb0(%local: tensor<2xf32>):
    loom.yield %local : tensor<2xf32>
  }
  return %r : tensor<8xf32>
}
