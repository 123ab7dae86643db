// RUN: loom-opt %s -loom-propagate-sharding -loom-partition --mlir-print-debuginfo=false | FileCheck %s --check-prefix=AGAIN
// RUN: loom-opt %s -loom-propagate-sharding -loom-partition=keep-gathered=true --mlir-print-debuginfo=false | FileCheck %s --check-prefix=KEPT
// RUN: gpt_sharded_ir --strategy fsdp --devices 4 | loom-opt --loom-autodiff --inline --symbol-dce --canonicalize --loom-propagate-sharding --loom-partition=keep-gathered=true --mlir-print-debuginfo=false | FileCheck %s --check-prefix=GPT
// RUN: loom-opt %s -loom-propagate-sharding=explain -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN-AGAIN
// RUN: loom-opt %s "-loom-propagate-sharding=explain keep-gathered" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN-KEPT

// Tests loom-partition's keep-gathered on an FSDP weight read by a forward product and by its
// backward's (dx = dy w^T). By default each product gathers the weight right before it, so
// the whole copy dies after each use; with keep-gathered the backward reuses the forward's.
// AGAIN-LABEL: func.func @fsdp
// AGAIN: %[[W1:.*]] = loom.all_gather %arg1, @mesh, dim = 0, axes = ["fsdp"]
// AGAIN-NEXT: loom.dot_general %arg0, %[[W1]],
// AGAIN-NEXT: %[[W2:.*]] = loom.all_gather %arg1, @mesh, dim = 0, axes = ["fsdp"]
// AGAIN-NEXT: loom.dot_general %arg2, %[[W2]],
// KEPT-LABEL: func.func @fsdp
// KEPT: %[[W:.*]] = loom.all_gather %arg1, @mesh, dim = 0, axes = ["fsdp"]
// KEPT-NEXT: loom.dot_general %arg0, %[[W]],
// KEPT-NEXT: loom.dot_general %arg2, %[[W]],
// KEPT-NOT: loom.all_gather
// --explain lists the collectives of the partition it is given: two gathers of w by default,
// one with keep-gathered (at the forward product, which needs it first).
// EXPLAIN-AGAIN-COUNT-2: remark: the partitioner emits loom.all_gather over [fsdp] (192 bytes)
// EXPLAIN-AGAIN-NOT: the partitioner emits loom.all_gather
// EXPLAIN-KEPT: keep-gathered.mlir:[[#@LINE+8]]:{{[0-9]+}}: remark: the partitioner emits loom.all_gather over [fsdp] (192 bytes)
// EXPLAIN-KEPT-NOT: the partitioner emits loom.all_gather
loom.mesh @mesh axes = ["fsdp"] shape = [4]
func.func @fsdp(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
                %w: tensor<16x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
                %dy: tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>})
    -> (tensor<8x4xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>},
        tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["fsdp"], []]>}) {
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %dx = loom.dot_general %dy, %w, batching_dims = [] x [], contracting_dims = [1] x [1] : (tensor<8x4xf32>, tensor<16x4xf32>) -> tensor<8x16xf32>
  return %y, %dx : tensor<8x4xf32>, tensor<8x16xf32>
}

// The GPT train step under FSDP (see gpt-fsdp.mlir, where the five split weights are gathered
// in the forward and again in the backward): each of the six split parameters is gathered once.
// GPT-LABEL: func.func @main
// GPT-COUNT-6: loom.all_gather
// GPT-NOT: loom.all_gather
