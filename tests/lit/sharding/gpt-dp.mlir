// RUN: gpt_sharded_ir --strategy dp --devices 4 | loom-opt --loom-autodiff --inline --symbol-dce --canonicalize --loom-propagate-sharding --loom-partition --mlir-print-debuginfo=false | FileCheck %s

// Tests data parallelism on the GPT train step traced from the DSL (cookbook's DP tables, 4
// devices): nothing but all_reduces, none in the forward or backward proper: one per
// parameter gradient (14), met where the optimizer first reads it, and one for the loss.
// CHECK-LABEL: func.func @main
// CHECK-NOT: loom.all_gather
// CHECK-NOT: loom.reduce_scatter
// CHECK-NOT: loom.all_to_all
// CHECK-NOT: loom.shard_slice
// CHECK-COUNT-14: loom.all_reduce sum {{.*}}axes = ["data"] {{.*}}reason = "partial sum of {{.*}} for operand 0 of loom.mul at Optim.cpp
// CHECK: loom.all_reduce sum {{.*}}axes = ["data"] {{.*}}reason = "partial sum of {{.*}} for result {{[0-9]+}}
// CHECK-NOT: loom.all_
// CHECK: return
