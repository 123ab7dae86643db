// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Tests that the body's argument is the operand's local type.
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @wrong_local_type(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{operand 0: the body's type is 'tensor<8xf32>', but 'tensor<8xf32>' sharded as #loom.sharding<@mesh, [["data"]]> is 'tensor<2xf32>' on each device}}
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, [["data"]]>]
      out_shardings = [#loom.sharding<@mesh, []>] : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%l: tensor<8xf32>):
    loom.yield %l : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// Tests that there is one in sharding per operand.
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @missing_sharding(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has 1 operands but 0 in shardings}}
  %r = loom.shard_map @mesh (%x) in_shardings = [] out_shardings = [#loom.sharding<@mesh, []>]
      : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%l: tensor<8xf32>):
    loom.yield %l : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// Tests that a split must divide the dim.
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @indivisible(%x: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{operand 0: dim 0 of 'tensor<6xf32>' (size 6) does not divide by the 4 devices of mesh axes}}
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, [["data"]]>]
      out_shardings = [#loom.sharding<@mesh, []>] : (tensor<6xf32>) -> tensor<6xf32> {
  ^bb0(%l: tensor<1xf32>):
    loom.yield %l : tensor<1xf32>
  }
  return %r : tensor<6xf32>
}

// -----

// Tests that a value differing between devices cannot be returned as replicated.
loom.mesh @mesh axes = ["data", "model"] shape = [2, 2]
func.func @varying_result(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result 0 differs between devices along ["data"], but its out sharding #loom.sharding<@mesh, [["model"]]> does not split it over them}}
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, [["data", "model"]]>]
      out_shardings = [#loom.sharding<@mesh, [["model"]]>] : (tensor<8xf32>) -> tensor<2xf32> {
  ^bb0(%l: tensor<2xf32>):
    %s = loom.slice %l, start = [0], limit = [1], strides = [1] : tensor<2xf32> -> tensor<1xf32>
    loom.yield %s : tensor<1xf32>
  }
  return %r : tensor<2xf32>
}

// -----

// Tests that an all_reduce makes a value the same on every device of its axes.
loom.mesh @mesh axes = ["data", "model"] shape = [2, 2]
func.func @reduced_result(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result 0 differs between devices along ["model"]}}
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, [["data", "model"]]>]
      out_shardings = [#loom.sharding<@mesh, []>] : (tensor<8xf32>) -> tensor<2xf32> {
  ^bb0(%l: tensor<2xf32>):
    %s = loom.all_reduce sum %l, @mesh, axes = ["data"] : tensor<2xf32>
    loom.yield %s : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

// Tests that the body's values are per-device: no sharding constraint inside.
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @constraint_inside(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, []>]
      out_shardings = [#loom.sharding<@mesh, []>] : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%l: tensor<8xf32>):
    // expected-error @+1 {{cannot be inside loom.shard_map: the body's values are per-device shards}}
    %c = loom.sharding_constraint %l : tensor<8xf32> to #loom.sharding<@mesh, [["data"]]>
    loom.yield %c : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// Tests that the out shardings have no pending sums.
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @partial_out(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{result 0: sharding #loom.sharding<@mesh, [], partial = ["data"]> has partial axes}}
  %r = loom.shard_map @mesh (%x) in_shardings = [#loom.sharding<@mesh, []>]
      out_shardings = [#loom.sharding<@mesh, [], partial = ["data"]>] : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%l: tensor<8xf32>):
    loom.yield %l : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
