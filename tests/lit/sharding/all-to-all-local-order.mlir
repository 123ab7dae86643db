// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests one all_to_all over two axes whose order differs between the dims (ReshardStep's
// concatOrder): [[a, b], []] to [[], [b, a]] of a 512x512 f32 value on a 2x4 mesh. The
// group runs in the target's order [b, a], so each device gets its columns; the rows it
// receives come in that order too and are put back in [a, b] order locally. Each device
// sends 7/8 of its 128 KB piece, the least it must receive (two all_to_alls sent 160 KB).
// CHECK-LABEL: func.func @blocks_put_in_order
// CHECK: %[[A:.*]] = loom.all_to_all %arg0, @mesh, split_dim = 1, concat_dim = 0, axes = ["b", "a"] {bytes = 114688 : i64, {{.*}}} : tensor<64x512xf32> -> tensor<512x64xf32>
// CHECK: %[[B:.*]] = loom.reshape %[[A]] : tensor<512x64xf32> -> tensor<4x2x64x64xf32>
// CHECK: %[[T:.*]] = loom.transpose %[[B]], permutation = [1, 0, 2, 3] : tensor<4x2x64x64xf32> -> tensor<2x4x64x64xf32>
// CHECK: %[[R:.*]] = loom.reshape %[[T]] : tensor<2x4x64x64xf32> -> tensor<512x64xf32>
// CHECK-NOT: loom.all_
// CHECK: return %[[R]]
loom.mesh @mesh axes = ["a", "b"] shape = [2, 4]
func.func @blocks_put_in_order(%x: tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [["a", "b"], []]>})
    -> (tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["b", "a"]]>}) {
  return %x : tensor<512x512xf32>
}

// -----

// Tests an all_to_all that slices a free axis first (ReshardStep's presliced): [[b], []] to
// [[], [b, a]]. a splits the columns under b, so each device keeps the 64-column blocks of
// its a (every other one) and sends its peers over b only those: 96 KB, the least it must
// receive (the all_to_all over b, then the slice of a, sent 192 KB).
// CHECK-LABEL: func.func @free_axis_sliced_first
// CHECK: %[[B:.*]] = loom.reshape %arg0 : tensor<128x512xf32> -> tensor<128x4x2x64xf32>
// CHECK: %[[S:.*]] = loom.shard_slice %[[B]], @mesh, dim = 2, axes = ["a"] : tensor<128x4x2x64xf32> -> tensor<128x4x1x64xf32>
// CHECK: %[[F:.*]] = loom.reshape %[[S]] : tensor<128x4x1x64xf32> -> tensor<128x256xf32>
// CHECK: %[[R:.*]] = loom.all_to_all %[[F]], @mesh, split_dim = 1, concat_dim = 0, axes = ["b"] {bytes = 98304 : i64, {{.*}}} : tensor<128x256xf32> -> tensor<512x64xf32>
// CHECK-NOT: loom.all_
// CHECK: return %[[R]]
loom.mesh @mesh axes = ["a", "b"] shape = [2, 4]
func.func @free_axis_sliced_first(%x: tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [["b"], []]>})
    -> (tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["b", "a"]]>}) {
  return %x : tensor<512x512xf32>
}

// -----

// Tests an all_to_all of a dim's major axis with the rest gathered after it: [[b, a], []] to
// [[], [b]] on 2x4. The all_to_all over b first leaves each device every b-block of rows of
// its a (96 KB received), the gather over a then brings the other a's (128 KB), and the rows,
// arrived in [a, b] order, are put back in [b, a]: 224 KB, the least a device must receive
// (gathering a first, then the all_to_all, received 320 KB).
// CHECK-LABEL: func.func @major_axis_moved
// CHECK: %[[A:.*]] = loom.all_to_all %arg0, @mesh, split_dim = 1, concat_dim = 0, axes = ["b"] {bytes = 98304 : i64, {{.*}}} : tensor<64x512xf32> -> tensor<256x128xf32>
// CHECK: %[[G:.*]] = loom.all_gather %[[A]], @mesh, dim = 0, axes = ["a"] {bytes = 131072 : i64, {{.*}}} : tensor<256x128xf32> -> tensor<512x128xf32>
// CHECK: %[[B:.*]] = loom.reshape %[[G]] : tensor<512x128xf32> -> tensor<2x4x64x128xf32>
// CHECK: %[[T:.*]] = loom.transpose %[[B]], permutation = [1, 0, 2, 3] : tensor<2x4x64x128xf32> -> tensor<4x2x64x128xf32>
// CHECK: %[[R:.*]] = loom.reshape %[[T]] : tensor<4x2x64x128xf32> -> tensor<512x128xf32>
// CHECK-NOT: loom.all_
// CHECK: return %[[R]]
loom.mesh @mesh axes = ["a", "b"] shape = [2, 4]
func.func @major_axis_moved(%x: tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [["b", "a"], []]>})
    -> (tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["b"]]>}) {
  return %x : tensor<512x512xf32>
}

// -----

// Tests a free axis sliced first between the moved ones: [[y, z], []] to [[], [y, x, z]] on a
// 2x2x2 mesh. Each device keeps the column blocks of its x and sends its peers over [y, z]
// only those: 96 KB, the least it must receive.
// CHECK-LABEL: func.func @free_axis_between
// CHECK: %[[B:.*]] = loom.reshape %arg0 : tensor<128x512xf32> -> tensor<128x2x2x2x64xf32>
// CHECK: %[[S:.*]] = loom.shard_slice %[[B]], @cube, dim = 2, axes = ["x"] : tensor<128x2x2x2x64xf32> -> tensor<128x2x1x2x64xf32>
// CHECK: %[[F:.*]] = loom.reshape %[[S]] : tensor<128x2x1x2x64xf32> -> tensor<128x256xf32>
// CHECK: %[[R:.*]] = loom.all_to_all %[[F]], @cube, split_dim = 1, concat_dim = 0, axes = ["y", "z"] {bytes = 98304 : i64, {{.*}}} : tensor<128x256xf32> -> tensor<512x64xf32>
// CHECK-NOT: loom.all_
// CHECK: return %[[R]]
loom.mesh @cube axes = ["x", "y", "z"] shape = [2, 2, 2]
func.func @free_axis_between(%x: tensor<512x512xf32> {loom.sharding = #loom.sharding<@cube, [["y", "z"], []]>})
    -> (tensor<512x512xf32> {loom.sharding = #loom.sharding<@cube, [[], ["y", "x", "z"]]>}) {
  return %x : tensor<512x512xf32>
}
