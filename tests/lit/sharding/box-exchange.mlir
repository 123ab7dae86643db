// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s
// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file \
// RUN:   | FileCheck %s --check-prefix=NOSELF
// No permute sends only to the devices that hold the box (it would move no byte).
// NOSELF-NOT: loom.collective_permute {{.*}}{bytes = 0 : i64

// Tests a reshard between shardings with different numbers of pieces per dim as an exchange
// of boxes (BoxExchange.h): [[x], [y]] to [[y], [x]] of a 512x512 f32 value on a 2x4 mesh.
// Each device's target piece (128x256) meets two source pieces (256x128) in 128x128 boxes;
// permutes of like boxes bring each from its holder (device 0 keeps its own, pairs 0 -> 0),
// and the boxes of each half are summed (the devices a permute does not target get zeros)
// and put side by side. The busiest device receives 128 KB, the least it must; gathering and
// all_to_alls of named axes moved 2.25x that.
// CHECK-LABEL: func.func @swap_unequal_splits
// CHECK-NOT: loom.all_
// CHECK: %[[P0:.*]] = loom.collective_permute %{{.*}}, @mesh, axes = ["x", "y"], pairs = [0, 0, 4, 2, 2, 4, 6, 6] {bytes = 65536 : i64, reason = "boxes of argument 0 for result 0 ({{\[\[}}x], [y]] to {{\[\[}}y], [x]])"} : tensor<128x128xf32>
// CHECK: %[[P1:.*]] = loom.collective_permute %{{.*}}, pairs = [1, 0, 5, 2, 3, 4, 7, 6]
// CHECK: %[[P2:.*]] = loom.collective_permute %{{.*}}, pairs = [0, 1, 4, 3, 2, 5, 6, 7]
// CHECK: %[[LEFT:.*]] = loom.add %[[P0]], %[[P2]] : tensor<128x128xf32>
// CHECK: %[[P3:.*]] = loom.collective_permute %{{.*}}, pairs = [1, 1, 5, 3, 3, 5, 7, 7]
// CHECK: %[[RIGHT:.*]] = loom.add %[[P1]], %[[P3]] : tensor<128x128xf32>
// CHECK: %[[R:.*]] = loom.concatenate(%[[LEFT]], %[[RIGHT]]) dim = 1 : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x256xf32>
// CHECK-NOT: loom.all_
// CHECK: return %[[R]]
loom.mesh @mesh axes = ["x", "y"] shape = [2, 4]
func.func @swap_unequal_splits(%a: tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], ["y"]]>})
    -> (tensor<512x512xf32> {loom.sharding = #loom.sharding<@mesh, [["y"], ["x"]]>}) {
  return %a : tensor<512x512xf32>
}

// -----

// Tests that a small value keeps the planned steps (an all_gather and an all_to_all, 1280
// bytes): four permutes' start-ups (16 KB each in the cost model) outweigh the 768 bytes the
// exchange would save on a 32x32 value.
// CHECK-LABEL: func.func @small_value
// CHECK-NOT: boxes of
// CHECK: return
loom.mesh @mesh axes = ["x", "y"] shape = [2, 4]
func.func @small_value(%a: tensor<32x32xf32> {loom.sharding = #loom.sharding<@mesh, [["x"], ["y"]]>})
    -> (tensor<32x32xf32> {loom.sharding = #loom.sharding<@mesh, [["y"], ["x"]]>}) {
  return %a : tensor<32x32xf32>
}

// -----

// Tests an exchange whose devices cut their pieces into different boxes: [[a], [b]] to
// [[b], []] of a 1440x1440 f32 value on a 3x2 mesh. A target piece is 720 rows; the source
// pieces are 480, so devices 0-1 take rows 0-480 and 480-720 of theirs, devices 2-3 rows 0-240
// and 240-720. The piece is built on the grid of every device's cuts (rows 0, 240, 480, 720;
// columns 0, 720): each of its boxes sums the parts of the cells that cover it (zeros on the
// devices they do not belong to), and the boxes go side by side, with no piece-sized zero
// padding per cell.
// CHECK-LABEL: func.func @uneven_boxes
// CHECK-NOT: loom.pad
// Device 0 keeps its own rows 0-480, where the others receive theirs: not a permute of device
// 0 to itself but a select on the device's index (zeros elsewhere).
// CHECK: %[[HERE:.*]] = loom.axis_index @mesh, axes = ["a", "b"] : tensor<i32>
// CHECK: %[[IS0:.*]] = loom.compare eq, %[[HERE]], %{{.*}} : tensor<i32> -> tensor<i1>
// CHECK: %[[MASK:.*]] = loom.broadcast_in_dim %[[IS0]]
// CHECK: loom.select %[[MASK]], %arg0, %{{.*}} : tensor<480x720xi1>, tensor<480x720xf32>
// Rows 0-240: the first 240 of the 480-row cell at row 0, plus the 240-row cell at row 0.
// CHECK: %[[TOP:.*]] = loom.slice %[[CELL0:[0-9]+]], start = [0, 0], limit = [240, 720], strides = [1, 1] : tensor<480x720xf32> -> tensor<240x720xf32>
// CHECK: loom.add %{{.*}}, %[[TOP]] : tensor<240x720xf32>
// CHECK: %[[ROW0:.*]] = loom.concatenate(%{{.*}}, %{{.*}}) dim = 1 : (tensor<240x720xf32>, tensor<240x720xf32>) -> tensor<240x1440xf32>
// Rows 240-480: the rest of that cell, plus the first 240 of the 480-row cell at row 240.
// CHECK: %[[LOW:.*]] = loom.slice %[[CELL0]], start = [240, 0], limit = [480, 720]
// CHECK: %[[HIGH:.*]] = loom.slice %[[CELL240:[0-9]+]], start = [0, 0], limit = [240, 720]
// CHECK: loom.add %[[LOW]], %[[HIGH]] : tensor<240x720xf32>
// CHECK: %[[ROW1:.*]] = loom.concatenate(%{{.*}}, %{{.*}}) dim = 1
// Rows 480-720: the rest of that one, plus the 240-row cell at row 480.
// CHECK: loom.slice %[[CELL240]], start = [240, 0], limit = [480, 720]
// CHECK: %[[ROW2:.*]] = loom.concatenate(%{{.*}}, %{{.*}}) dim = 1
// CHECK: %[[R:.*]] = loom.concatenate(%[[ROW0]], %[[ROW1]], %[[ROW2]]) dim = 0 : (tensor<240x1440xf32>, tensor<240x1440xf32>, tensor<240x1440xf32>) -> tensor<720x1440xf32>
// CHECK-NOT: loom.pad
// CHECK: return %[[R]]
loom.mesh @mesh axes = ["a", "b"] shape = [3, 2]
func.func @uneven_boxes(%a: tensor<1440x1440xf32> {loom.sharding = #loom.sharding<@mesh, [["a"], ["b"]]>})
    -> (tensor<1440x1440xf32> {loom.sharding = #loom.sharding<@mesh, [["b"], []]>}) {
  return %a : tensor<1440x1440xf32>
}
