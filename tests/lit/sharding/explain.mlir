// RUN: loom-opt %s -loom-propagate-sharding=explain -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Tests that --explain says, for every value, its sharding and where it came from: the user's
// annotation (a constrained value is wanted as its constraint says), or each op that refined
// it, in order.
// CHECK: remark: argument 0 sharded {{\[\[}}data], []]: given for argument 0
// CHECK: remark: argument 1 sharded {{\[\[}}], [model]]: given for argument 1
// CHECK: explain.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: result 0 sharded {{\[\[}}data], [model]]: result of loom.dot_general at explain.mlir:{{[0-9]+}}
// CHECK: explain.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: result 0 sharded {{\[\[}}data], []] partial [model]: wanted by sharding_constraint at explain.mlir:{{[0-9]+}}, then result of loom.dot_general at explain.mlir:{{[0-9]+}}
// CHECK: explain.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: result 0 sharded {{\[\[}}data], []]: sharding_constraint at explain.mlir:{{[0-9]+}}
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
