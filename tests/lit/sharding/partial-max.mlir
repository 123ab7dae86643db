// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests that a max over a split dim is a partial max: every device's local max is combined
// with an all_reduce max (never left as each device's own max), or a reduce_scatter max where
// the result is wanted split; a max of partial maxes stays pending until one all_reduce.

// CHECK-LABEL: func.func @max_all
// CHECK-NEXT: %[[M:.*]] = loom.reduce max %arg0, dims = [0] : tensor<2xf32> -> tensor<f32>
// CHECK-NEXT: %[[R:.*]] = loom.all_reduce max %[[M]], @mesh, axes = ["g"] {{.*}}reason = "partial max of loom.reduce
// CHECK-NEXT: return %[[R]]
loom.mesh @mesh axes = ["g"] shape = [4]
func.func @max_all(%x: tensor<8xf32> {loom.sharding = #loom.sharding<@mesh, [["g"]]>})
    -> (tensor<f32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %m = loom.reduce max %x, dims = [0] : tensor<8xf32> -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// A vocabulary-parallel softmax: the stabilising max and the normaliser are each combined
// once, on the [8] row values, and the [8, 64] probabilities stay split.
// CHECK-LABEL: func.func @softmax_vocab
// CHECK-SAME: tensor<8x16xf32>
// CHECK: loom.reduce max {{.*}} -> tensor<8xf32>
// CHECK-NEXT: loom.all_reduce max {{.*}} axes = ["model"] {bytes = 48 : i64
// CHECK: loom.reduce sum {{.*}} -> tensor<8xf32>
// CHECK-NEXT: loom.all_reduce sum {{.*}} axes = ["model"] {bytes = 48 : i64
// CHECK-NOT: loom.all_
// CHECK: return {{.*}} : tensor<8x16xf32>
loom.mesh @mesh axes = ["model"] shape = [4]
func.func @softmax_vocab(%logits: tensor<8x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>})
    -> tensor<8x64xf32> {
  %m = loom.reduce max %logits, dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  %mb = loom.broadcast_in_dim %m, dims = [0] : tensor<8xf32> -> tensor<8x64xf32>
  %z = loom.sub %logits, %mb : tensor<8x64xf32>
  %e = loom.exp %z : tensor<8x64xf32>
  %s = loom.reduce sum %e, dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  %sb = loom.broadcast_in_dim %s, dims = [0] : tensor<8xf32> -> tensor<8x64xf32>
  %p = loom.div %e, %sb : tensor<8x64xf32>
  return %p : tensor<8x64xf32>
}

// -----

// An LM head whose vocabulary split comes from propagation (the weight's columns).
// CHECK-LABEL: func.func @lm_head
// CHECK: loom.dot_general {{.*}} -> tensor<8x16xf32>
// CHECK-NEXT: loom.reduce max {{.*}} -> tensor<8xf32>
// CHECK-NEXT: loom.all_reduce max {{.*}} axes = ["model"]
loom.mesh @mesh axes = ["model"] shape = [4]
func.func @lm_head(%h: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                   %w: tensor<16x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>})
    -> tensor<8xf32> {
  %logits = loom.dot_general %h, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
  %m = loom.reduce max %logits, dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @max_scattered
// CHECK: loom.reduce_scatter {{.*}} dim = 0, axes = ["model"], combiner = max {bytes = 24 : i64
// CHECK-SAME: -> tensor<2xf32>
loom.mesh @mesh axes = ["model"] shape = [4]
func.func @max_scattered(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>})
    -> (tensor<8xf32> {loom.sharding = #loom.sharding<@mesh, [["model"]]>}) {
  %m = loom.reduce max %x, dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @max_of_maxes
// CHECK-NOT: loom.all_reduce
// CHECK: loom.max
// CHECK: loom.reduce max {{.*}} -> tensor<f32>
// CHECK-NEXT: loom.all_reduce max {{.*}} {bytes = 6 : i64
// CHECK-NOT: loom.all_
loom.mesh @mesh axes = ["model"] shape = [4]
func.func @max_of_maxes(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>},
                        %y: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>})
    -> tensor<8xf32> {
  %a = loom.reduce max %x, dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %b = loom.reduce max %y, dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %c = loom.max %a, %b : tensor<8xf32>
  %d = loom.reduce max %c, dims = [0] : tensor<8xf32> -> tensor<f32>
  %e = loom.broadcast_in_dim %d, dims = [] : tensor<f32> -> tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

// A pending sum never passes through a max, nor a pending max through a sum.
// CHECK-LABEL: func.func @sum_of_max
// CHECK: loom.reduce max
// CHECK-NEXT: loom.all_reduce max
// CHECK-NEXT: loom.reduce sum
loom.mesh @mesh axes = ["model"] shape = [4]
func.func @sum_of_max(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>})
    -> tensor<f32> {
  %a = loom.reduce max %x, dims = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %b = loom.reduce sum %a, dims = [0] : tensor<8xf32> -> tensor<f32>
  return %b : tensor<f32>
}
