// RUN: loom-opt %s -loom-spmd -loom-gpu-pipeline | FileCheck %s

// Tests that a slice along a split dim, partitioned into a permute of what each device reads
// and a selection by a table row picked by the device's position (WindowExchange.h), compiles
// through the GPU pipeline to a cubin: the permute is a collective started and awaited on the
// device's stream, the position a runtime call, the selection a kernel.
// CHECK-DAG: llvm.call @loom_rt_axis_index(
// CHECK-DAG: llvm.call @loom_rt_collective_start(
// CHECK-DAG: llvm.call @loom_rt_collective_wait(
// CHECK: gpu.binary @{{[a-z0-9_]+}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, {{.*}}bin = "\7FELF
loom.mesh @mesh axes = ["t"] shape = [4]
func.func @main(%x: tensor<64x384xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["t"]]>})
    -> (tensor<64x128xf32> {loom.sharding = #loom.sharding<@mesh, [[], ["t"]]>}) {
  %0 = loom.slice %x, start = [0, 128], limit = [64, 256], strides = [1, 1] : tensor<64x384xf32> -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}
