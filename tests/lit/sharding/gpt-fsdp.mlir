// RUN: gpt_sharded_ir --strategy fsdp --devices 4 | loom-opt --loom-autodiff --inline --symbol-dce --canonicalize --loom-propagate-sharding --loom-partition --mlir-print-debuginfo=false | FileCheck %s

// Tests FSDP on the GPT train step (forward, backward and AdamW) traced from the DSL with the
// cookbook's FSDP tables, on 4 devices (plus the embedding table split along the vocabulary,
// see GptSharding.cpp). The five sharded matmul weights (att_qkv, att_out, mlp_in, mlp_out,
// out_kernel) are each gathered right before the matmul that reads them, in the forward and
// again in the backward; the embedding table is gathered once, before the lookup (its backward,
// a scatter_add, does not read it); no activation is ever gathered or moved; each of the six
// gradients leaves the backward as one reduce_scatter of the local partial result; the eight
// replicated parameters' gradients and the loss get one all_reduce each.
// CHECK-LABEL: func.func @main
// CHECK-SAME: tensor<3x8x4x8xf32>
// CHECK-NOT: loom.all_to_all
// CHECK-NOT: loom.shard_slice
// CHECK: %[[EMB:.*]] = loom.all_gather %arg0, @mesh, dim = 0, axes = ["fsdp"] {{.*}}reason = "split dim of argument 0 for operand 0 of loom.gather at Gpt.cpp:{{[0-9]+}}
// CHECK-NEXT: loom.gather %[[EMB]][
// CHECK: %[[QKV:.*]] = loom.all_gather %arg2, @mesh, dim = 1, axes = ["fsdp"] {{.*}}reason = "split dim of argument 2 for operand 1 of loom.dot_general at Layers.cpp:{{[0-9]+}}
// CHECK-NEXT: loom.dot_general %{{.*}}, %[[QKV]],
// CHECK: %[[OUT:.*]] = loom.all_gather %arg1, @mesh, dim = 0, axes = ["fsdp"]
// CHECK-NEXT: loom.dot_general %{{.*}}, %[[OUT]],
// CHECK: %[[IN:.*]] = loom.all_gather %arg7, @mesh, dim = 0, axes = ["fsdp"]
// CHECK-NEXT: loom.dot_general %{{.*}}, %[[IN]],
// CHECK: %[[MLPOUT:.*]] = loom.all_gather %arg8, @mesh, dim = 1, axes = ["fsdp"]
// CHECK-NEXT: loom.dot_general %{{.*}}, %[[MLPOUT]],
// CHECK: %[[HEAD:.*]] = loom.all_gather %arg12, @mesh, dim = 0, axes = ["fsdp"]
// CHECK-NEXT: loom.dot_general %{{.*}}, %[[HEAD]],
// CHECK-COUNT-5: loom.all_gather %arg{{[0-9]+}}, @mesh
// CHECK-NOT: loom.all_gather
// CHECK-NOT: loom.all_to_all
// CHECK-NOT: loom.shard_slice
// CHECK: return

// RUN: gpt_sharded_ir --strategy fsdp --devices 4 | loom-opt --loom-autodiff --inline --symbol-dce --canonicalize --loom-propagate-sharding --loom-partition --mlir-print-debuginfo=false | FileCheck %s --check-prefix=COUNT
// COUNT: loom.reduce_scatter {{.*}}axes = ["fsdp"] {{.*}}reason = "partial sum of loom.scatter_add at Gpt.cpp
// COUNT-COUNT-5: loom.reduce_scatter {{.*}}axes = ["fsdp"] {{.*}}reason = "partial sum of loom.{{dot_general|transpose}} at {{.*}} for operand 0 of loom.mul at Optim.cpp
// COUNT-NOT: loom.reduce_scatter

// RUN: gpt_sharded_ir --strategy fsdp --devices 4 | loom-opt --loom-autodiff --inline --symbol-dce --canonicalize --loom-propagate-sharding --loom-partition --mlir-print-debuginfo=false | FileCheck %s --check-prefix=REDUCE
// REDUCE-COUNT-9: loom.all_reduce sum
// REDUCE-NOT: loom.all_reduce
