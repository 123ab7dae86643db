// RUN: loom-opt %s -loom-spmd | FileCheck %s

// Tests a differentiated shard_map through the whole of loom-spmd: after partitioning, the
// forward values the backward reads (the device's shard %x and the replicated %w) stay on
// their device, so no collective moves them; the only collectives are the program's own (the
// loss's all_reduce) and the transpose of using %w on every device's shard (an all_reduce of
// its gradient).

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<2xf32> {{.*}}, %arg1: tensor<2xf32> {{.*}})
// CHECK-NOT: loom.shard_map
// CHECK-NOT: loom.all_gather
// CHECK-NOT: loom.all_to_all
// CHECK: %[[P:.*]] = loom.mul %arg0, %arg1 : tensor<2xf32>
// CHECK: loom.all_reduce sum %{{.*}}, @mesh, axes = ["data"] : tensor<f32>
// CHECK: %[[DW:.*]] = loom.all_reduce sum %{{.*}}, @mesh, axes = ["data"] : tensor<2xf32>
// CHECK-NOT: loom.all_gather
// CHECK: return %{{.*}}, %{{.*}}, %[[DW]] : tensor<f32>, tensor<2xf32>, tensor<2xf32>
loom.mesh @mesh axes = ["data"] shape = [4]
func.func private @loss(%x: tensor<8xf32>, %w: tensor<2xf32>) -> tensor<f32> {
  %r = loom.shard_map @mesh (%x, %w)
      in_shardings = [#loom.sharding<@mesh, [["data"]]>, #loom.sharding<@mesh, []>]
      out_shardings = [#loom.sharding<@mesh, []>] : (tensor<8xf32>, tensor<2xf32>) -> tensor<f32> {
  ^bb0(%lx: tensor<2xf32>, %lw: tensor<2xf32>):
    %p = loom.mul %lx, %lw : tensor<2xf32>
    %s = loom.reduce sum %p, dims = [0] : tensor<2xf32> -> tensor<f32>
    %t = loom.all_reduce sum %s, @mesh, axes = ["data"] : tensor<f32>
    loom.yield %t : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @main(%x: tensor<8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"]]>},
                %w: tensor<2xf32> {loom.sharding = #loom.sharding<@mesh, []>})
    -> (tensor<f32>, tensor<8xf32>, tensor<2xf32>) {
  %v, %dx, %dw = loom.value_and_grad @loss(%x, %w) wrt = [0, 1]
      : (tensor<8xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<2xf32>)
  return %v, %dx, %dw : tensor<f32>, tensor<8xf32>, tensor<2xf32>
}
