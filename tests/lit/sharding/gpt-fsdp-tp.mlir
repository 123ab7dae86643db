// RUN: gpt_sharded_ir --strategy fsdp_tp --mesh 2x2 | loom-opt --loom-autodiff --inline --symbol-dce --canonicalize --loom-propagate-sharding --loom-partition --mlir-print-debuginfo=false | FileCheck %s

// Tests the 2-d mesh combining FSDP ("fsdp") and tensor parallelism ("tensor") with the
// cookbook's tables: parameters are gathered over "fsdp" only (their "tensor" split stays),
// the attention and the MLP each end in one all_reduce over "tensor", and parameter gradients
// are reduce-scattered over "fsdp".
// CHECK-LABEL: func.func @main
// CHECK: loom.all_gather %arg2, @mesh, dim = 1, axes = ["fsdp"] {{.*}} : tensor<3x16x2x8xf32> -> tensor<3x32x2x8xf32>
// CHECK: loom.all_reduce sum {{.*}}axes = ["tensor"] {{.*}}for sharding_constraint at Gpt.cpp
// CHECK: loom.all_gather %arg7, @mesh, dim = 0, axes = ["fsdp"] {{.*}} : tensor<16x64xf32> -> tensor<32x64xf32>
// CHECK: loom.all_reduce sum {{.*}}axes = ["tensor"] {{.*}}for sharding_constraint at Gpt.cpp
// CHECK: loom.reduce_scatter {{.*}}axes = ["fsdp"]
// CHECK: return
