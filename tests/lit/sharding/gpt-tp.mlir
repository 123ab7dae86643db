// RUN: gpt_sharded_ir --strategy tp --devices 2 | loom-opt --loom-autodiff --inline --symbol-dce --canonicalize --loom-propagate-sharding --loom-partition --mlir-print-debuginfo=false | FileCheck %s

// Tests tensor parallelism (head-sharded attention and the Megatron MLP, cookbook's TP tables)
// on the GPT train step: in the forward, the attention and the MLP each end in exactly one
// all_reduce over "tensor" (of their output projection's partial sum, at the residual
// stream's sharding constraint), and the heads stay split through the attention.
// CHECK-LABEL: func.func @main
// CHECK-NOT: loom.all_reduce
// CHECK: loom.dot_general {{.*}} -> tensor<8x16x3x2x8xf32>
// CHECK-NOT: loom.all_reduce
// CHECK: loom.all_reduce sum {{.*}}axes = ["tensor"] {{.*}}reason = "partial sum of loom.dot_general at Layers.cpp:{{[0-9]+}} (nn::causalSelfAttention) for sharding_constraint at Gpt.cpp:{{[0-9]+}}
// CHECK-NOT: loom.all_reduce
// CHECK: loom.dot_general {{.*}} -> tensor<8x16x64xf32>
// CHECK-NOT: loom.all_reduce
// CHECK: loom.all_reduce sum {{.*}}axes = ["tensor"] {{.*}}reason = "partial sum of loom.dot_general at Gpt.cpp:{{[0-9]+}} (nn::gptForward) for sharding_constraint at Gpt.cpp:{{[0-9]+}} (nn::gptForward)
// CHECK-NOT: loom.all_to_all
// CHECK: return
