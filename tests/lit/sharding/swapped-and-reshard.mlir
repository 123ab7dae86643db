// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests that swapping the operands of a commutative op gives the same collectives: of two
// equally large operands split on different dims, the one split on dim 1 is moved, whichever
// side of the add it is on (ties go by dims and sizes, never by operand order).
// CHECK-LABEL: func.func @add_split_rows_first
// CHECK: loom.all_to_all %arg1, @mesh, split_dim = 0, concat_dim = 1, axes = ["data"]
// CHECK-NOT: loom.all_
// CHECK-LABEL: func.func @add_split_rows_second
// CHECK: loom.all_to_all %arg0, @mesh, split_dim = 0, concat_dim = 1, axes = ["data"]
// CHECK-NOT: loom.all_
loom.mesh @mesh axes = ["data"] shape = [2]
func.func @add_split_rows_first(%big: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                         %small: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["data"]]>})
    -> tensor<64x64xf32> {
  %0 = loom.exp %big : tensor<64x64xf32>
  %1 = loom.add %0, %small : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
func.func @add_split_rows_second(%small: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["data"]]>},
                          %big: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> tensor<64x64xf32> {
  %0 = loom.exp %big : tensor<64x64xf32>
  %1 = loom.add %small, %0 : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// -----

// Tests a reshard on a 2-d mesh where only which device holds which piece changes:
// [[x], [y]] to [[y], [x]] is one collective_permute over both axes (positions x * 2 + y):
// devices (0, 1) and (1, 0) swap their 4x4 pieces (64 bytes each), the other two keep theirs.
// Gathering x, moving y to dim 0 and slicing would send twice as much.
// CHECK-LABEL: func.func @swap_axes
// CHECK-NEXT: %[[P:.*]] = loom.collective_permute %arg0, @mesh, axes = ["x", "y"], pairs = [0, 0, 1, 2, 2, 1, 3, 3] {bytes = 64 : i64{{.*}} : tensor<4x4xf32>
// CHECK-NEXT: return %[[P]]
loom.mesh @mesh axes = ["x", "y"] shape = [2, 2]
func.func @swap_axes(%a: tensor<8x8xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], ["y"]]>})
    -> (tensor<8x8xf32> {loom.sharding = #loom.sharding<@mesh, [["y"], ["x"]]>}) {
  return %a : tensor<8x8xf32>
}

// -----

// The axes of a dim in the other order on a 2x4 mesh: positions a * 4 + b hold piece a * 4 + b
// of dim 0 and need piece b * 2 + a; the 2048-byte pieces go round in cycles (1 -> 4 -> 2 -> 1,
// ...), one collective_permute, where gathering both axes and slicing sent 14336 bytes.
// CHECK-LABEL: func.func @axes_reordered
// CHECK-NEXT: loom.collective_permute %arg0, @mesh, axes = ["a", "b"], pairs = [0, 0, 1, 4, 2, 1, 3, 5, 4, 2, 5, 6, 6, 3, 7, 7] {bytes = 2048 : i64{{.*}} : tensor<8x64xf32>
// CHECK-NEXT: return
loom.mesh @mesh axes = ["a", "b"] shape = [2, 4]
func.func @axes_reordered(%x: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["a", "b"], []]>})
    -> (tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["b", "a"], []]>}) {
  return %x : tensor<64x64xf32>
}

// -----

// A dim split over x wanted split over y (both of size 2): device (x, y) needs piece y, which
// it holds where x = y; (0, 1) and (1, 0) exchange theirs (pairs 1 -> 2 and 2 -> 1, positions
// x * 2 + y), 512 bytes, where gathering x sent as much from every device and held twice the
// piece.
// CHECK-LABEL: func.func @other_axis
// CHECK-NEXT: loom.collective_permute %arg0, @mesh, axes = ["x", "y"], pairs = [0, 0, 1, 2, 3, 3, 2, 1] {bytes = 512 : i64{{.*}} : tensor<4x32xf32>
// CHECK-NEXT: return
loom.mesh @mesh axes = ["x", "y"] shape = [2, 2]
func.func @other_axis(%x: tensor<8x32xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], []]>})
    -> (tensor<8x32xf32> {loom.sharding = #loom.sharding<@mesh, [["y"], []]>}) {
  return %x : tensor<8x32xf32>
}

// -----

// Where the pieces differ in number per dim (x has 2 devices, y 4), no device's piece is
// another's: the reshard gathers x, moves y to dim 0 and slices x into dim 1.
// CHECK-LABEL: func.func @unequal_axes
// CHECK-NEXT: loom.all_gather %arg0, @mesh, dim = 0, axes = ["x"]
// CHECK-NEXT: loom.all_to_all {{.*}} axes = ["y"]
// CHECK-NEXT: loom.shard_slice {{.*}} dim = 1, axes = ["x"]
// CHECK-NEXT: return
loom.mesh @mesh axes = ["x", "y"] shape = [2, 4]
func.func @unequal_axes(%x: tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], ["y"]]>})
    -> (tensor<64x64xf32> {loom.sharding = #loom.sharding<@mesh, [["y"], ["x"]]>}) {
  return %x : tensor<64x64xf32>
}
