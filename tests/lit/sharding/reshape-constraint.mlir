// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests that heads split from channels keep the channel split: q = x @ wq is split on its
// channels over "model"; reshaping [B, T, C] to [B, T, H, Dh] puts the split on the heads (the
// major factor), the transpose and the batched attention product follow it, and no collective
// is needed until the output projection's partial sum.
// CHECK-LABEL: func.func @heads
// CHECK: loom.dot_general {{.*}} -> tensor<4x8x8xf32>
// CHECK-NEXT: loom.reshape {{.*}} : tensor<4x8x8xf32> -> tensor<4x8x2x4xf32>
// CHECK-NEXT: loom.transpose {{.*}} -> tensor<4x2x8x4xf32>
// CHECK-NEXT: loom.dot_general {{.*}} -> tensor<4x2x8x8xf32>
// CHECK-NEXT: loom.dot_general {{.*}} -> tensor<4x2x8x4xf32>
// CHECK-NEXT: loom.transpose
// CHECK-NEXT: loom.reshape {{.*}} -> tensor<4x8x8xf32>
// CHECK-NEXT: loom.dot_general {{.*}} -> tensor<4x8x16xf32>
// CHECK-NEXT: loom.all_reduce sum {{.*}} axes = ["model"]
// CHECK-NOT: loom.all_
// CHECK: return
loom.mesh @mesh axes = ["model"] shape = [2]
func.func @heads(%x: tensor<4x8x16xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                 %wq: tensor<16x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>},
                 %wo: tensor<16x16xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>})
    -> (tensor<4x8x16xf32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %q = loom.dot_general %x, %wq, batching_dims = [] x [], contracting_dims = [2] x [0] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
  %h = loom.reshape %q : tensor<4x8x16xf32> -> tensor<4x8x4x4xf32>
  %t = loom.transpose %h, permutation = [0, 2, 1, 3] : tensor<4x8x4x4xf32> -> tensor<4x4x8x4xf32>
  %s = loom.dot_general %t, %t, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<4x4x8x4xf32>, tensor<4x4x8x4xf32>) -> tensor<4x4x8x8xf32>
  %o = loom.dot_general %s, %t, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<4x4x8x8xf32>, tensor<4x4x8x4xf32>) -> tensor<4x4x8x4xf32>
  %b = loom.transpose %o, permutation = [0, 2, 1, 3] : tensor<4x4x8x4xf32> -> tensor<4x8x4x4xf32>
  %m = loom.reshape %b : tensor<4x8x4x4xf32> -> tensor<4x8x16xf32>
  %y = loom.dot_general %m, %wo, batching_dims = [] x [], contracting_dims = [2] x [0] : (tensor<4x8x16xf32>, tensor<16x16xf32>) -> tensor<4x8x16xf32>
  %z = loom.tanh %y : tensor<4x8x16xf32>
  return %z : tensor<4x8x16xf32>
}

// -----

// Tests that a merged dim cannot show a split of its minor part: flattening [8, 6] split on
// dim 1 needs dim 1 gathered first.
// CHECK-LABEL: func.func @flatten_minor
// CHECK: %[[G:.*]] = loom.all_gather %{{.*}}, @mesh, dim = 1, axes = ["model"] {{.*}} : tensor<8x3xf32> -> tensor<8x6xf32>
// CHECK-NEXT: loom.reshape %[[G]] : tensor<8x6xf32> -> tensor<48xf32>
loom.mesh @mesh axes = ["model"] shape = [2]
func.func @flatten_minor(%x: tensor<8x6xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>})
    -> (tensor<48xf32> {loom.sharding = #loom.sharding<@mesh, []>}) {
  %0 = loom.reshape %x : tensor<8x6xf32> -> tensor<48xf32>
  return %0 : tensor<48xf32>
}

// -----

// Tests that a sharding constraint forces a reshard: the split moves from dim 0 to dim 1 with
// one all_to_all, named after the constraint.
// CHECK-LABEL: func.func @constraint
// CHECK: %[[T:.*]] = loom.tanh %{{.*}} : tensor<4x16xf32>
// CHECK-NEXT: %[[A:.*]] = loom.all_to_all %[[T]], @mesh, split_dim = 1, concat_dim = 0, axes = ["data"] {{.*}}reason = "moving a split between dims of loom.tanh at reshape-constraint.mlir:{{[0-9]+}} for sharding_constraint at reshape-constraint.mlir:{{[0-9]+}}
// CHECK-SAME: : tensor<4x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: loom.exp %[[A]] : tensor<8x8xf32>
loom.mesh @mesh axes = ["data"] shape = [2]
func.func @constraint(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> (tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["data"]]>}) {
  %0 = loom.tanh %x : tensor<8x16xf32>
  %1 = loom.sharding_constraint %0 : tensor<8x16xf32> to #loom.sharding<@mesh, [[], ["data"]]>
  %2 = loom.exp %1 : tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// -----

// Tests a 2-d mesh: FSDP over "fsdp" and Megatron over "tensor", with a batch much larger
// than the weights (as in training). The weights are split on both axes; each is gathered
// over "fsdp" only, right before its matmul, and the tensor-split contraction ends in one
// all_reduce over "tensor".
// CHECK-LABEL: func.func @fsdp_tp
// CHECK-SAME: tensor<64x16xf32>
// CHECK-SAME: tensor<8x16xf32>
// CHECK-SAME: tensor<16x8xf32>
// CHECK: loom.all_gather %{{.*}}, @mesh, dim = 0, axes = ["fsdp"] {{.*}} : tensor<8x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: loom.dot_general {{.*}} -> tensor<64x16xf32>
// CHECK-NEXT: loom.tanh
// CHECK-NEXT: loom.all_gather %{{.*}}, @mesh, dim = 1, axes = ["fsdp"] {{.*}} : tensor<16x8xf32> -> tensor<16x16xf32>
// CHECK-NEXT: loom.dot_general {{.*}} -> tensor<64x16xf32>
// CHECK-NEXT: loom.all_reduce sum %{{.*}}, @mesh, axes = ["tensor"]
// CHECK-NOT: loom.all_
// CHECK: return
loom.mesh @mesh axes = ["fsdp", "tensor"] shape = [2, 2]
func.func @fsdp_tp(%x: tensor<128x16xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
                   %w1: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], ["tensor"]]>},
                   %w2: tensor<32x16xf32> {loom.sharding = #loom.sharding<@mesh, [["tensor"], ["fsdp"]]>})
    -> (tensor<128x16xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>}) {
  %h = loom.dot_general %x, %w1, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<128x16xf32>, tensor<16x32xf32>) -> tensor<128x32xf32>
  %a = loom.tanh %h : tensor<128x32xf32>
  %y = loom.dot_general %a, %w2, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<128x32xf32>, tensor<32x16xf32>) -> tensor<128x16xf32>
  %z = loom.tanh %y : tensor<128x16xf32>
  return %z : tensor<128x16xf32>
}

// -----

// Tests a reshape merging a split dim under an unsplit one: [8, 64, 32] split over "a" on its
// 64 (sequence parallelism) to [512, 32]. The merged dim can show the split only on its major
// part, so the split moves to the 8 by one all_to_all (12 KB a device) and the result stays
// split, where gathering the 64 received 48 KB and left the result whole on every device.
// CHECK-LABEL: func.func @minor_split_moved_to_the_major_dim
// CHECK: loom.all_to_all %arg0, @mesh, split_dim = 0, concat_dim = 1, axes = ["a"] {bytes = 12288 : i64, {{.*}}} : tensor<8x16x32xf32> -> tensor<2x64x32xf32>
// CHECK-NEXT: loom.reshape {{.*}} : tensor<2x64x32xf32> -> tensor<128x32xf32>
// CHECK-NOT: loom.all_
// CHECK: return {{.*}} : tensor<128x32xf32>
loom.mesh @mesh axes = ["a"] shape = [4]
func.func @minor_split_moved_to_the_major_dim(
    %x: tensor<8x64x32xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["a"], []]>})
    -> tensor<512x32xf32> {
  %r = loom.reshape %x : tensor<8x64x32xf32> -> tensor<512x32xf32>
  %e = loom.exp %r : tensor<512x32xf32>
  return %e : tensor<512x32xf32>
}
