// RUN: loom-opt %s -loom-inline-shard-maps -split-input-file -verify-diagnostics | FileCheck %s

// Tests that on a one-device mesh a shard_map is replaced by its body, and its collectives by
// what they are on one device: the operand, zeros for a device no pair targets, index 0.

// CHECK-LABEL: func.func @one_device
// CHECK-NOT: loom.shard_map
// CHECK-NOT: loom.all_reduce
// CHECK-NOT: loom.collective_permute
// CHECK-NOT: loom.axis_index
// CHECK: %[[ZERO:.*]] = loom.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: %[[SUM:.*]] = loom.add %arg0, %[[ZERO]] : tensor<4xf32>
// CHECK: %[[INDEX:.*]] = loom.constant dense<0> : tensor<i32>
// CHECK: %[[ONE:.*]] = loom.reshape %[[INDEX]] : tensor<i32> -> tensor<1xi32>
// CHECK: return %[[SUM]], %[[ONE]] : tensor<4xf32>, tensor<1xi32>
loom.mesh @mesh axes = ["x"] shape = [1]
func.func @one_device(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<1xi32>) {
  %r:2 = loom.shard_map @mesh (%a) in_shardings = [#loom.sharding<@mesh, [["x"]]>]
      out_shardings = [#loom.sharding<@mesh, [["x"]]>, #loom.sharding<@mesh, [["x"]]>]
      : (tensor<4xf32>) -> (tensor<4xf32>, tensor<1xi32>) {
  ^bb0(%l: tensor<4xf32>):
    %s = loom.all_reduce sum %l, @mesh, axes = ["x"] : tensor<4xf32>
    %z = loom.collective_permute %l, @mesh, axes = ["x"], pairs = [] : tensor<4xf32>
    %t = loom.add %s, %z : tensor<4xf32>
    %i = loom.axis_index @mesh, axes = ["x"] : tensor<i32>
    %j = loom.reshape %i : tensor<i32> -> tensor<1xi32>
    loom.yield %t, %j : tensor<4xf32>, tensor<1xi32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<1xi32>
}

// -----

// Tests that a shard_map over several devices is not run whole.
loom.mesh @mesh axes = ["x"] shape = [4]
func.func @four_devices(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{runs per-device code over mesh @mesh of 4 devices, which needs the program partitioned over the mesh (loom-partition): run it with at least 4 devices}}
  %r = loom.shard_map @mesh (%a) in_shardings = [#loom.sharding<@mesh, [["x"]]>]
      out_shardings = [#loom.sharding<@mesh, [["x"]]>] : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%l: tensor<2xf32>):
    loom.yield %l : tensor<2xf32>
  }
  return %r : tensor<8xf32>
}
