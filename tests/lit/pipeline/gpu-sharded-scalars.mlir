// RUN: loom-opt %s -loom-spmd -loom-gpu-pipeline | FileCheck %s

// Tests that a sharded program whose blocks are single elements compiles for the GPU: on a
// 2x2 mesh each device holds one element of %a and of %b, which is split along the other
// axis, so %b's element comes by collective_permute; the add of single elements is a
// one-thread kernel, and its load of %a, scheduled before the collective's wait, reaches the
// kernel after it through a device buffer of its own (loom-gpu-host-to-device), not through
// the host, which cannot read it.
// CHECK-LABEL: llvm.func @main(
// CHECK: llvm.call @loom_rt_collective_start
// CHECK: gpu.launch_func
// CHECK: llvm.call @loom_rt_collective_wait
// CHECK: gpu.launch_func
// CHECK: gpu.binary @loom_kernels
module {
  loom.mesh @mesh axes = ["x", "y"] shape = [2, 2]
  func.func @main(%a: tensor<2xf32> {loom.sharding = #loom.sharding<@mesh, [["x"]]>},
                  %b: tensor<2xf32> {loom.sharding = #loom.sharding<@mesh, [["y"]]>})
      -> tensor<2xf32> {
    %0 = loom.add %a, %b : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
