// RUN: gpt_sharded_ir --strategy fsdp --devices 4 --init | loom-opt --loom-spmd --mlir-print-debuginfo=false | FileCheck %s

// Tests that parameters are created directly with their shardings (the cookbook: "initialize
// each shard of each parameter directly on the correct device"): the partitioned GPT
// initialisation returns each FSDP-split parameter at its local size, draws it from global
// counters offset by the device's index (one loom.axis_index per split parameter), and
// neither computes a whole parameter nor moves any data.
// CHECK-LABEL: func.func @main
// CHECK-SAME: tensor<16x32xf32> {loom.sharding = #loom.sharding<@mesh, {{\[\[}}"fsdp"], []]>}
// CHECK-SAME: tensor<1x8x32xf32> {loom.sharding = #loom.sharding<@mesh, {{\[\[}}"fsdp"], [], []]>}
// CHECK-SAME: tensor<3x8x4x8xf32> {loom.sharding = #loom.sharding<@mesh, {{\[\[}}], ["fsdp"], [], []]>}
// CHECK-SAME: tensor<8x128xf32> {loom.sharding = #loom.sharding<@mesh, {{\[\[}}"fsdp"], []]>}
// CHECK-SAME: tensor<128x8xf32> {loom.sharding = #loom.sharding<@mesh, {{\[\[}}], ["fsdp"]]>}
// CHECK-NOT: loom.shard_slice
// CHECK-NOT: loom.all_
// CHECK-COUNT-6: loom.axis_index @mesh, axes = ["fsdp"] : tensor<i32>
// CHECK-NOT: loom.axis_index
// CHECK-NOT: loom.shard_slice
// CHECK-NOT: loom.all_
// CHECK: return
