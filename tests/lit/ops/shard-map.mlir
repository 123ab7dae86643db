// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round trip of loom.shard_map: global operands and results, a body on local shards with
// collectives, ended by loom.yield.

// CHECK-LABEL: func.func @mean
// CHECK: %[[R:.*]] = loom.shard_map @mesh(%arg0) in_shardings = [#loom.sharding<@mesh, {{\[\["data"\], \[\]\]}}>] out_shardings = [#loom.sharding<@mesh, []>] : (tensor<8x4xf32>) -> tensor<4xf32> {
// CHECK: ^bb0(%[[X:.*]]: tensor<2x4xf32>):
// CHECK: %[[S:.*]] = loom.reduce sum %[[X]], dims = [0]
// CHECK: %[[T:.*]] = loom.all_reduce sum %[[S]], @mesh, axes = ["data"] : tensor<4xf32>
// CHECK: loom.yield %[[T]] : tensor<4xf32>
// CHECK: return %[[R]]
loom.mesh @mesh axes = ["data", "model"] shape = [4, 2]
func.func @mean(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, [["data"], []]>]
      out_shardings = [#loom.sharding<@mesh, []>] : (tensor<8x4xf32>) -> tensor<4xf32> {
  ^bb0(%local: tensor<2x4xf32>):
    %s = loom.reduce sum %local, dims = [0] : tensor<2x4xf32> -> tensor<4xf32>
    %t = loom.all_reduce sum %s, @mesh, axes = ["data"] : tensor<4xf32>
    loom.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// A ring shift: the result differs along "data" and is returned split over it.
// CHECK-LABEL: func.func @shift
// CHECK: loom.collective_permute %{{.*}}, @mesh, axes = ["data"], pairs = [0, 1, 1, 2, 2, 3, 3, 0]
func.func @shift(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, [["data"], []]>]
      out_shardings = [#loom.sharding<@mesh, [["data"], []]>] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%local: tensor<2x4xf32>):
    %s = loom.collective_permute %local, @mesh, axes = ["data"], pairs = [0, 1, 1, 2, 2, 3, 3, 0] : tensor<2x4xf32>
    loom.yield %s : tensor<2x4xf32>
  }
  return %r : tensor<8x4xf32>
}
