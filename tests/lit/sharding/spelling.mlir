// RUN: loom-opt %s -loom-propagate-sharding -loom-partition -split-input-file | FileCheck %s

// Tests that equal math gets an equal plan however it is spelled: a transposed operand against
// contracting dim 0, a reshape that only relabels, and swapped operands.

// h split on its rows, dy replicated, the product wanted split on its rows: h's split moves
// to its columns (one all_to_all of 96 bytes) in both spellings. (The plan used to depend on
// the spelling here: 768 bytes of reduce_scatter for the direct one.)
// CHECK-LABEL: func.func @direct_rows_wanted(
// CHECK-NEXT: loom.all_to_all %arg0, {{.*}} {bytes = 96 : i64
// CHECK-NEXT: = loom.dot_general
// CHECK-NEXT: return
// CHECK-LABEL: func.func @transposed_rows_wanted(
// CHECK-NEXT: loom.transpose
// CHECK-NEXT: loom.all_to_all {{.*}} {bytes = 96 : i64
// CHECK-NEXT: = loom.dot_general
// CHECK-NEXT: return
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @direct_rows_wanted(%h: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                              %dy: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, []>})
    -> (tensor<8x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %g = loom.dot_general %h, %dy, batching_dims = [] x [], contracting_dims = [0] x [0] : (tensor<16x8xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}
func.func @transposed_rows_wanted(%h: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                                  %dy: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, []>})
    -> (tensor<8x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %t = loom.transpose %h, permutation = [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %g = loom.dot_general %t, %dy, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}

// -----

// A weight gradient from batch-split activations: one all_reduce of the same bytes.
// CHECK-LABEL: func.func @contract_rows(
// CHECK: loom.dot_general
// CHECK-NEXT: loom.all_reduce sum {{.*}} axes = ["data"] {bytes = 1536 : i64
// CHECK-NOT: loom.all_
// CHECK-LABEL: func.func @transpose_then_contract(
// CHECK: loom.dot_general
// CHECK-NEXT: loom.all_reduce sum {{.*}} axes = ["data"] {bytes = 1536 : i64
// CHECK-NOT: loom.all_
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @contract_rows(%h: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                         %dy: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> tensor<8x32xf32> {
  %g = loom.dot_general %h, %dy, batching_dims = [] x [], contracting_dims = [0] x [0] : (tensor<16x8xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}
func.func @transpose_then_contract(%h: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                                   %dy: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> tensor<8x32xf32> {
  %t = loom.transpose %h, permutation = [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %g = loom.dot_general %t, %dy, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}

// -----

// The same with the weight gradient wanted split on its columns: dy's split moves to its
// columns (one all_to_all of 384 bytes) in both spellings.
// CHECK-LABEL: func.func @contract_rows_split
// CHECK-NEXT: loom.all_to_all %arg1, {{.*}} {bytes = 384 : i64
// CHECK-NEXT: = loom.dot_general
// CHECK-NEXT: return
// CHECK-LABEL: func.func @transpose_then_contract_split
// CHECK: loom.all_to_all %arg1, {{.*}} {bytes = 384 : i64
// CHECK-NEXT: = loom.dot_general
// CHECK-NEXT: return
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @contract_rows_split(%h: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                               %dy: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> (tensor<8x32xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["data"]]>}) {
  %g = loom.dot_general %h, %dy, batching_dims = [] x [], contracting_dims = [0] x [0] : (tensor<16x8xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}
func.func @transpose_then_contract_split(%h: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, []>},
                                         %dy: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> (tensor<8x32xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["data"]]>}) {
  %t = loom.transpose %h, permutation = [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %g = loom.dot_general %t, %dy, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}

// -----

// A reshape that only relabels ([B*T, C] -> [B, T, C] with B split) changes nothing: the
// contraction over the model-split channels is one all_reduce of the same bytes.
// CHECK-LABEL: func.func @flat
// CHECK: loom.dot_general {{.*}} -> tensor<4x16xf32>
// CHECK-NEXT: loom.all_reduce sum {{.*}} axes = ["model"] {bytes = 256 : i64
// CHECK-NEXT: return
// CHECK-LABEL: func.func @relabelled
// CHECK: loom.dot_general {{.*}} -> tensor<1x4x16xf32>
// CHECK-NEXT: loom.reshape
// CHECK-NEXT: loom.all_reduce sum {{.*}} axes = ["model"] {bytes = 256 : i64
// CHECK-NEXT: return
loom.mesh @mesh axes = ["data", "model"] shape = [4, 2]
func.func @flat(%x: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], ["model"]]>},
                %w: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>})
    -> (tensor<16x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
func.func @relabelled(%x: tensor<16x8xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], ["model"]]>},
                      %w: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["model"], []]>})
    -> (tensor<16x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>}) {
  %b = loom.reshape %x : tensor<16x8xf32> -> tensor<4x4x8xf32>
  %y = loom.dot_general %b, %w, batching_dims = [] x [], contracting_dims = [2] x [0] : (tensor<4x4x8xf32>, tensor<8x16xf32>) -> tensor<4x4x16xf32>
  %f = loom.reshape %y : tensor<4x4x16xf32> -> tensor<16x16xf32>
  return %f : tensor<16x16xf32>
}

// -----

// Swapped operands: the same collectives on the same argument.
// CHECK-LABEL: func.func @x_times_w
// CHECK-NEXT: loom.all_gather %arg1, @mesh, dim = 0, axes = ["data"] {bytes = 1536 : i64
// CHECK-LABEL: func.func @w_times_x
// CHECK-NEXT: loom.all_gather %arg0, @mesh, dim = 0, axes = ["data"] {bytes = 1536 : i64
loom.mesh @mesh axes = ["data"] shape = [4]
func.func @x_times_w(%x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                     %w: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> tensor<8x32xf32> {
  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
func.func @w_times_x(%w: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>},
                     %x: tensor<8x16xf32> {loom.sharding = #loom.sharding<@mesh, [["data"], []]>})
    -> tensor<32x8xf32> {
  %y = loom.dot_general %w, %x, batching_dims = [] x [], contracting_dims = [0] x [1] : (tensor<16x32xf32>, tensor<8x16xf32>) -> tensor<32x8xf32>
  return %y : tensor<32x8xf32>
}
