// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests the Megatron MLP: x replicated, w1 split on columns and w2 on rows over "model". The
// hidden layer stays split, the second matmul contracts the split dim into a partial sum, and
// exactly one all_reduce restores it before the nonlinear use.
// CHECK-LABEL: func.func @megatron
// CHECK-SAME: %[[X:.*]]: tensor<8x16xf32>
// CHECK-SAME: %[[W1:.*]]: tensor<16x32xf32>
// CHECK-SAME: %[[W2:.*]]: tensor<32x16xf32>
// CHECK-NOT: loom.all_gather
// CHECK: %[[H:.*]] = loom.dot_general %[[X]], %[[W1]]{{.*}} -> tensor<8x32xf32>
// CHECK: %[[G:.*]] = loom.tanh %[[H]] : tensor<8x32xf32>
// CHECK: %[[Y:.*]] = loom.dot_general %[[G]], %[[W2]]{{.*}} -> tensor<8x16xf32>
// CHECK: %[[R:.*]] = loom.all_reduce sum %[[Y]], @mesh, axes = ["model"] {bytes = 512 : i64, reason = "partial sum of loom.dot_general at tp-mlp.mlir:{{[0-9]+}} for operand 0 of loom.tanh at tp-mlp.mlir:{{[0-9]+}} ({{.*}} partial [model] to {{.*}})"}
// CHECK: loom.tanh %[[R]]
// CHECK-NOT: loom.all_
// CHECK: return
loom.mesh @mesh axes = ["model"] shape = [2]
func.func @megatron(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                    %w1: tensor<16x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>},
                    %w2: tensor<64x16xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>})
    -> (tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %h = loom.dot_general %x, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  %g = loom.tanh %h : tensor<8x64xf32>
  %y = loom.dot_general %g, %w2, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  %z = loom.tanh %y : tensor<8x16xf32>
  return %z : tensor<8x16xf32>
}

// -----

// Tests that the transposed form (w2 stored [16, 64], contracted on its dim 1, operands
// swapped) gives the same single all_reduce.
// CHECK-LABEL: func.func @megatron_swapped
// CHECK-NOT: loom.all_gather
// CHECK: loom.dot_general
// CHECK: loom.dot_general %{{.*}}, %{{.*}}, batching_dims = [] x [], contracting_dims = [1] x [1]{{.*}} -> tensor<16x8xf32>
// CHECK: loom.all_reduce sum %{{.*}}, @mesh, axes = ["model"]
// CHECK-NOT: loom.all_
// CHECK: return
loom.mesh @mesh axes = ["model"] shape = [2]
func.func @megatron_swapped(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                    %w1: tensor<16x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>},
                    %w2: tensor<16x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>})
    -> (tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %h = loom.dot_general %x, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  %g = loom.tanh %h : tensor<8x64xf32>
  %y = loom.dot_general %w2, %g, batching_dims = [] x [], contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<8x64xf32>) -> tensor<16x8xf32>
  %z = loom.tanh %y : tensor<16x8xf32>
  return %z : tensor<16x8xf32>
}
