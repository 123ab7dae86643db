// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests a scale vector split over "a" broadcast onto activations whose rows are split over
// "a" (a layer norm's gain under FSDP, the activations split by batch). The broadcast's result
// would be split by columns; moving it to rows took an all_to_all of the activations' size
// (192 KB a device). The partitioner gathers the vector instead (768 bytes) and broadcasts it
// again on each device, at the rows' split; the broadcast made by columns is erased.
// CHECK-LABEL: func.func @scale_split_the_other_way
// CHECK-SAME: %[[X:.*]]: tensor<256x256xf32>
// CHECK-SAME: %[[G:.*]]: tensor<64xf32>
// CHECK-NOT: loom.all_to_all
// CHECK: %[[W:.*]] = loom.all_gather %[[G]], @mesh, dim = 0, axes = ["a"] {bytes = 768 : i64, reason = "split dim of argument 1 for loom.broadcast_in_dim at rebroadcast.mlir:{{[0-9]+}} made again for operand 1 of loom.mul at {{.*}}"} : tensor<64xf32> -> tensor<256xf32>
// CHECK: %[[B:.*]] = loom.broadcast_in_dim %[[W]], dims = [1] : tensor<256xf32> -> tensor<256x256xf32>
// CHECK: loom.mul %[[X]], %[[B]] : tensor<256x256xf32>
// CHECK-NOT: loom.all_
// CHECK-NOT: loom.broadcast_in_dim
// CHECK: return
loom.mesh @mesh axes = ["a"] shape = [4]
func.func @scale_split_the_other_way(
    %x: tensor<1024x256xf32> {loom.sharding = #loom.sharding<@mesh, [["a"], []]>},
    %g: tensor<256xf32> {loom.sharding = #loom.sharding<@mesh, [["a"]]>})
    -> tensor<1024x256xf32> {
  %gb = loom.broadcast_in_dim %g, dims = [1] : tensor<256xf32> -> tensor<1024x256xf32>
  %z = loom.mul %x, %gb : tensor<1024x256xf32>
  return %z : tensor<1024x256xf32>
}

// -----

// Tests a bias split over "a" added to an FSDP product whose rows end split over "a": the
// bias is gathered (768 bytes) and broadcast at the rows' split, not moved as a [64, 256]
// block from columns to rows (12 KB).
// CHECK-LABEL: func.func @bias_after_fsdp_product
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<64xf32>
// CHECK: loom.dot_general
// CHECK: %[[P:.*]] = loom.reduce_scatter
// CHECK: %[[W:.*]] = loom.all_gather %[[B]], @mesh, dim = 0, axes = ["a"] {bytes = 768 : i64
// CHECK: %[[E:.*]] = loom.broadcast_in_dim %[[W]], dims = [1] : tensor<256xf32> -> tensor<16x256xf32>
// CHECK: loom.add %[[P]], %[[E]] : tensor<16x256xf32>
// CHECK-NOT: loom.all_
// CHECK: return
loom.mesh @mesh axes = ["a"] shape = [4]
func.func @bias_after_fsdp_product(
    %x: tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [["a"], []]>},
    %w: tensor<128x256xf32> {loom.sharding = #loom.sharding<@mesh, [["a"], []]>},
    %b: tensor<256xf32> {loom.sharding = #loom.sharding<@mesh, [["a"]]>})
    -> (tensor<64x256xf32> {loom.sharding = #loom.sharding<@mesh, [["a"], []]>}) {
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  %bb = loom.broadcast_in_dim %b, dims = [1] : tensor<256xf32> -> tensor<64x256xf32>
  %z = loom.add %y, %bb : tensor<64x256xf32>
  return %z : tensor<64x256xf32>
}

// -----

// Tests a broadcast with two users wanting it split differently: the user whose split it has
// (columns, as the vector is split) takes it as it is; for the other (rows) the vector is
// gathered and broadcast again, so no block of the broadcast moves between devices.
// CHECK-LABEL: func.func @two_users
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<128x512xf32>
// CHECK-SAME: %[[Y:[a-z0-9]+]]: tensor<512x128xf32>
// CHECK-SAME: %[[V:[a-z0-9]+]]: tensor<128xf32>
// CHECK: %[[COLS:.*]] = loom.broadcast_in_dim %[[V]], dims = [1] : tensor<128xf32> -> tensor<512x128xf32>
// CHECK: %[[W:.*]] = loom.all_gather %[[V]], @mesh, dim = 0, axes = ["a"] {bytes = 1536 : i64
// CHECK: %[[ROWS:.*]] = loom.broadcast_in_dim %[[W]], dims = [1] : tensor<512xf32> -> tensor<128x512xf32>
// CHECK: loom.add %[[X]], %[[ROWS]]
// CHECK: loom.add %[[Y]], %[[COLS]]
// CHECK-NOT: loom.all_
// CHECK: return
loom.mesh @mesh axes = ["a"] shape = [4]
func.func @two_users(
    %x: tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [["a"], []]>},
    %y: tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["a"]]>},
    %v: tensor<512xf32> {loom.sharding = #loom.sharding<@mesh, [["a"]]>})
    -> (tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [["a"], []]>},
        tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["a"]]>}) {
  %bb = loom.broadcast_in_dim %v, dims = [1] : tensor<512xf32> -> tensor<512x512xf32>
  %s = loom.add %x, %bb : tensor<512x512xf32>
  %t = loom.add %y, %bb : tensor<512x512xf32>
  return %s, %t : tensor<512x512xf32>, tensor<512x512xf32>
}
