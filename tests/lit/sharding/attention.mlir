// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests that attention split over batch and heads (data and tensor parallelism) runs on each
// device's part with no collective: each (batch, head) is its own problem.
// CHECK-LABEL: func.func @heads
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<2x8x2x16xf32>
// CHECK-NOT: loom.all_gather
// CHECK: %[[OUT:[a-z0-9_]+]], %{{.*}} = loom.attention %[[Q]], %{{.*}}, %{{.*}}, scale = 2.500000e-01 causal : (tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>) -> (tensor<2x8x2x16xf32>, tensor<2x2x8xf32>)
// CHECK-NEXT: return %[[OUT]] : tensor<2x8x2x16xf32>
loom.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]
func.func @heads(%q: tensor<4x8x4x16xf32> {loom.sharding = #loom.sharding<@mesh, [["dp"], [], ["tp"], []]>},
                 %k: tensor<4x8x4x16xf32> {loom.sharding = #loom.sharding<@mesh, [["dp"], [], ["tp"], []]>},
                 %v: tensor<4x8x4x16xf32> {loom.sharding = #loom.sharding<@mesh, [["dp"], [], ["tp"], []]>})
    -> tensor<4x8x4x16xf32> {
  %out, %lse = loom.attention %q, %k, %v, scale = 0.25 causal
      : (tensor<4x8x4x16xf32>, tensor<4x8x4x16xf32>, tensor<4x8x4x16xf32>)
      -> (tensor<4x8x4x16xf32>, tensor<4x4x8xf32>)
  return %out : tensor<4x8x4x16xf32>
}

// -----

// Tests that a split sequence is gathered first (a query reads every key before it), and the
// result split again as asked.
// CHECK-LABEL: func.func @sequence
// CHECK: %[[G:.*]] = loom.all_gather %arg0, @mesh, dim = 1, axes = ["tp"] {{.*}}for operand 0 of loom.attention
// CHECK: loom.attention %[[G]], {{.*}} -> (tensor<4x8x4x16xf32>, tensor<4x4x8xf32>)
// CHECK: loom.shard_slice %{{.*}}, @mesh, dim = 1, axes = ["tp"]
loom.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]
func.func @sequence(%q: tensor<4x8x4x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["tp"], [], []]>})
    -> (tensor<4x8x4x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["tp"], [], []]>}) {
  %out, %lse = loom.attention %q, %q, %q, scale = 0.25 causal
      : (tensor<4x8x4x16xf32>, tensor<4x8x4x16xf32>, tensor<4x8x4x16xf32>)
      -> (tensor<4x8x4x16xf32>, tensor<4x4x8xf32>)
  return %out : tensor<4x8x4x16xf32>
}

// -----

// Tests that the dropout's seeds [B, H] follow the batch and heads: each device reads its own
// (batch, head) pairs' seeds, with no collective.
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<2x8x2x16xf32>
// CHECK-SAME: %[[SEEDS:[a-z0-9]+]]: tensor<2x2xi32>
// CHECK-NOT: loom.all_gather
// CHECK: loom.attention %[[Q]], %[[Q]], %[[Q]] seeds %[[SEEDS]], scale = 2.500000e-01 dropout = 1.000000e-01 causal : (tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>, tensor<2x2xi32>)
loom.mesh @mesh axes = ["dp", "tp"] shape = [2, 2]
func.func @dropout(%q: tensor<4x8x4x16xf32> {loom.sharding = #loom.sharding<@mesh, [["dp"], [], ["tp"], []]>},
                   %seeds: tensor<4x4xi32>)
    -> tensor<4x8x4x16xf32> {
  %out, %lse = loom.attention %q, %q, %q seeds %seeds, scale = 0.25 dropout = 0.1 causal
      : (tensor<4x8x4x16xf32>, tensor<4x8x4x16xf32>, tensor<4x8x4x16xf32>, tensor<4x4xi32>)
      -> (tensor<4x8x4x16xf32>, tensor<4x4x8xf32>)
  return %out : tensor<4x8x4x16xf32>
}
