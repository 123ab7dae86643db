// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests FSDP on one linear layer: the weight is split on its rows like the batch. Its
// all_gather sits right before the matmul that reads it; the weight gradient (a matmul that
// contracts the split batch) is a partial sum that leaves as one reduce_scatter.
// CHECK-LABEL: func.func @fsdp
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x16xf32>
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x4xf32>
// CHECK-SAME: %[[DY:[a-z0-9]+]]: tensor<2x4xf32>
// CHECK-NEXT: %[[WG:.*]] = loom.all_gather %[[W]], @mesh, dim = 0, axes = ["fsdp"] {bytes = 192 : i64, reason = "split dim of argument 1 for operand 1 of loom.dot_general at fsdp-matmul.mlir:{{[0-9]+}}
// CHECK-NEXT: %[[Y:.*]] = loom.dot_general %[[X]], %[[WG]]{{.*}} -> tensor<2x4xf32>
// CHECK-NEXT: %[[DW:.*]] = loom.dot_general %[[X]], %[[DY]], batching_dims = [] x [], contracting_dims = [0] x [0]{{.*}} -> tensor<16x4xf32>
// CHECK-NEXT: %[[RS:.*]] = loom.reduce_scatter %[[DW]], @mesh, dim = 0, axes = ["fsdp"] {{.*}}reason = "partial sum of loom.dot_general at fsdp-matmul.mlir:{{[0-9]+}} for result 1
// CHECK-SAME: -> tensor<4x4xf32>
// CHECK-NEXT: return %[[Y]], %[[RS]] : tensor<2x4xf32>, tensor<4x4xf32>
loom.mesh @mesh axes = ["fsdp"] shape = [4]
func.func @fsdp(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
                %w: tensor<16x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
                %dy: tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>})
    -> (tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
        tensor<16x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>}) {
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %dw = loom.dot_general %x, %dy, batching_dims = [] x [], contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %y, %dw : tensor<8x4xf32>, tensor<16x4xf32>
}
