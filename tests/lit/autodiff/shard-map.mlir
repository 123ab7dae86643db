// RUN: loom-opt %s -loom-autodiff=rematerialize=false -split-input-file | FileCheck %s

// Tests the VJP of loom.shard_map (passes/Autodiff/ShardMapVjp.cpp): the backward is a second
// shard_map over the body's backward sweep; the forward values it reads leave the forward
// shard_map as extra results, split over the axes they vary over (the data shard %x) or
// replicated (the weight %w). The weight is the same on every device but multiplies each
// device's shard, so its cotangent is summed over "data" (the transpose of that broadcast).

// CHECK-LABEL: func.func private @loss_value_and_grad_0_1
// CHECK: %[[F:.*]]:3 = loom.shard_map @mesh(%arg0, %arg1) {{.*}} : (tensor<8xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<{{8|2}}xf32>, tensor<{{8|2}}xf32>)
// CHECK: loom.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<2xf32>, tensor<2xf32>
// CHECK: %[[B:.*]]:2 = loom.shard_map @mesh(%{{.*}}, %[[F]]#1, %[[F]]#2) {{.*}} out_shardings = [#loom.sharding<@mesh, {{\[\["data"\]\]}}>, #loom.sharding<@mesh, []>] : (tensor<f32>, {{.*}}) -> (tensor<8xf32>, tensor<2xf32>)
// CHECK: loom.broadcast_in_dim
// CHECK: %[[DW:.*]] = loom.all_reduce sum %{{.*}}, @mesh, axes = ["data"] : tensor<2xf32>
// CHECK: loom.yield %{{.*}}, %[[DW]] : tensor<2xf32>, tensor<2xf32>
// CHECK: return %[[F]]#0, %[[B]]#0, %[[B]]#1 : tensor<f32>, tensor<8xf32>, tensor<2xf32>
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
func.func @main(%x: tensor<8xf32>, %w: tensor<2xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<2xf32>) {
  %v, %dx, %dw = loom.value_and_grad @loss(%x, %w) wrt = [0, 1]
      : (tensor<8xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<8xf32>, tensor<2xf32>)
  return %v, %dx, %dw : tensor<f32>, tensor<8xf32>, tensor<2xf32>
}

// -----

// Tests the transposes of the collectives, last first: a collective_permute goes back by the
// inverse pairs, an all_gather becomes a reduce_scatter of the same dim, an all_to_all the
// reverse exchange (split and concat dims swapped). The all_reduce of the loss passes its
// cotangent through.

// CHECK-LABEL: func.func private @chain_value_and_grad_0
// CHECK: loom.shard_map
// CHECK: loom.all_to_all %{{.*}}, split_dim = 1, concat_dim = 0
// CHECK: loom.all_gather %{{.*}}, dim = 1
// CHECK: loom.collective_permute %{{.*}}, pairs = [0, 1, 1, 2, 2, 3, 3, 0]
// CHECK: loom.shard_map
// CHECK-NOT: loom.all_reduce
// CHECK: loom.collective_permute %{{.*}}, @mesh, axes = ["data"], pairs = [1, 0, 2, 1, 3, 2, 0, 3] : tensor<8x4xf32>
// CHECK: loom.reduce_scatter %{{.*}}, @mesh, dim = 1, axes = ["data"] : tensor<8x4xf32> -> tensor<8x1xf32>
// CHECK: loom.all_to_all %{{.*}}, @mesh, split_dim = 0, concat_dim = 1, axes = ["data"] : tensor<8x1xf32> -> tensor<2x4xf32>
// CHECK: loom.yield
loom.mesh @mesh axes = ["data"] shape = [4]
func.func private @chain(%x: tensor<8x4xf32>) -> tensor<f32> {
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, [["data"], []]>]
      out_shardings = [#loom.sharding<@mesh, []>] : (tensor<8x4xf32>) -> tensor<f32> {
  ^bb0(%l: tensor<2x4xf32>):
    %a = loom.all_to_all %l, @mesh, split_dim = 1, concat_dim = 0, axes = ["data"] : tensor<2x4xf32> -> tensor<8x1xf32>
    %g = loom.all_gather %a, @mesh, dim = 1, axes = ["data"] : tensor<8x1xf32> -> tensor<8x4xf32>
    %p = loom.collective_permute %g, @mesh, axes = ["data"], pairs = [0, 1, 1, 2, 2, 3, 3, 0] : tensor<8x4xf32>
    %q = loom.mul %p, %p : tensor<8x4xf32>
    %s = loom.reduce sum %q, dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
    %t = loom.all_reduce sum %s, @mesh, axes = ["data"] : tensor<f32>
    loom.yield %t : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @main(%x: tensor<8x4xf32>) -> (tensor<f32>, tensor<8x4xf32>) {
  %v, %dx = loom.value_and_grad @chain(%x) wrt = [0] : (tensor<8x4xf32>) -> (tensor<f32>, tensor<8x4xf32>)
  return %v, %dx : tensor<f32>, tensor<8x4xf32>
}
