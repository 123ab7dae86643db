// RUN: loom-opt %s -loom-propagate-sharding=explain -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Tests that --explain says, for every value, its sharding and where it came from: the user's
// annotation (a constrained value is wanted as its constraint says), or each op that refined
// it, in order; and what the partitioner then does: the factors each op splits, the partial
// results, and every collective, with its bytes, at the op that needs it.
// CHECK: remark: argument 0 sharded {{\[\[}}data], []]: given for argument 0
// CHECK: remark: argument 1 sharded {{\[\[}}], [model]]: given for argument 1
// CHECK: explain.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: result 0 sharded {{\[\[}}data], [model]]: result of loom.dot_general at explain.mlir:{{[0-9]+}}
// CHECK: explain.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: result 0 sharded {{\[\[}}data], []] partial [model]: wanted by sharding_constraint at explain.mlir:{{[0-9]+}}, then result of loom.dot_general at explain.mlir:{{[0-9]+}}
// CHECK: explain.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: runs as [a,c], [c,b] -> [a,b] with a over [data], c over [model]; result 0 is computed {{\[\[}}data], []] partial [model], combined where it is used
// CHECK: explain.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: result 0 sharded {{\[\[}}data], []]: sharding_constraint at explain.mlir:{{[0-9]+}}
// CHECK: explain.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: the partitioner emits loom.all_reduce sum over [model] (64 bytes): partial sum of loom.dot_general at explain.mlir:{{[0-9]+}} for sharding_constraint
loom.mesh @mesh axes = ["data", "model"] shape = [2, 2]
func.func @main(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                %w: tensor<16x4xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["model"]]>},
                %v: tensor<4x4xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>})
    -> tensor<8x4xf32> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %1 = loom.dot_general %0, %v, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %2 = loom.sharding_constraint %1 : tensor<8x4xf32> to #loom.sharding<@mesh, [["data"], []]>
  return %2 : tensor<8x4xf32>
}

// An FSDP weight gradient: the dot contracts the split batch, so its result is partial and the
// collective is a reduce_scatter (the explanation says so, not just "split").
// CHECK: remark: runs as [c,a], [c,b] -> [a,b] with c over [data]; result 0 is computed {{\[\[}}], []] partial [data], combined where it is used
// CHECK: remark: the partitioner emits loom.reduce_scatter sum over [data] (32 bytes): partial sum of loom.dot_general at explain.mlir:{{[0-9]+}} for result 0
func.func @wgrad(%x: tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                 %dy: tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> (tensor<4x4xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %g = loom.dot_general %x, %dy, batching_dims = [] x [], contracting_dims = [0] x [0] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}

// A roll along a split dim: the explanation names the permute that moves the rows each device
// reads from its neighbour (loom-partition's window exchange), as it names every collective.
// CHECK: remark: the partitioner emits loom.collective_permute over [data] (8192 bytes): the parts of other devices' pieces that loom.concatenate at explain.mlir:{{[0-9]+}} reads (instead of gathering 2 values whole)
// CHECK-NOT: remark: the partitioner emits loom.all_gather
func.func @roll(%x: tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> (tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %0 = loom.slice %x, start = [16, 0], limit = [64, 128], strides = [1, 1] : tensor<64x128xf32> -> tensor<48x128xf32>
  %1 = loom.slice %x, start = [0, 0], limit = [16, 128], strides = [1, 1] : tensor<64x128xf32> -> tensor<16x128xf32>
  %2 = loom.concatenate(%0, %1) dim = 0 : (tensor<48x128xf32>, tensor<16x128xf32>) -> tensor<64x128xf32>
  return %2 : tensor<64x128xf32>
}
