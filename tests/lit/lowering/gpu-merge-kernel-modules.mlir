// RUN: loom-opt %s -loom-gpu-merge-kernel-modules | FileCheck %s
// RUN: loom-opt %s -loom-gpu-merge-kernel-modules -loom-gpu-to-binary | FileCheck %s --check-prefix=BINARY
// RUN: loom-opt %s -loom-gpu-merge-kernel-modules=kernels-per-module=1 | FileCheck %s --check-prefix=SHARDS
// RUN: loom-opt %s -loom-gpu-merge-kernel-modules=kernels-per-module=1 -loom-gpu-to-binary | FileCheck %s --check-prefix=SHARD-BINARIES

// Tests that kernels outlined into a module each (all named after their function) end up in
// one module, each named after the module it came from, with the launches following; a
// helper whose name another module also uses is renamed in its module, its calls too.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func @loom_kernels::@main_kernel blocks
// CHECK: gpu.launch_func @loom_kernels::@main_kernel_0 blocks
// CHECK-NOT: gpu.module @main_kernel
// CHECK: gpu.module @loom_kernels {
// CHECK: gpu.func @main_kernel(%{{.*}}: memref<256xf32>) kernel
// CHECK: func.call @helper(
// CHECK: func.func @helper(
// CHECK: gpu.func @main_kernel_0(%{{.*}}: memref<256xf32>) kernel
// CHECK: func.call @helper_m0(
// CHECK: func.func @helper_m0(
// CHECK-NOT: gpu.module
// BINARY-COUNT-1: gpu.binary @loom_kernels
// BINARY-NOT: gpu.binary

// Tests that with one kernel per module the kernels are sharded in order, each module keeping
// the helper its kernel calls (both still named @helper, in separate modules), and that the
// modules, serialized side by side, become binaries in the same order.
// SHARDS: gpu.launch_func @loom_kernels::@main_kernel blocks
// SHARDS: gpu.launch_func @loom_kernels_1::@main_kernel_0 blocks
// SHARDS: gpu.module @loom_kernels {
// SHARDS: gpu.func @main_kernel(
// SHARDS: func.func @helper(
// SHARDS: arith.addf
// SHARDS: gpu.module @loom_kernels_1 {
// SHARDS: gpu.func @main_kernel_0(
// SHARDS: func.func @helper(
// SHARDS: arith.mulf
// SHARD-BINARIES: gpu.binary @loom_kernels [
// SHARD-BINARIES: gpu.binary @loom_kernels_1 [
// SHARD-BINARIES-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @main(%a: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @main_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<256xf32>)
    gpu.launch_func @main_kernel_0::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<256xf32>)
    return
  }
  gpu.module @main_kernel {
    gpu.func @main_kernel(%a: memref<256xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<256xf32>
      %y = func.call @helper(%x) : (f32) -> f32
      memref.store %y, %a[%i] : memref<256xf32>
      gpu.return
    }
    func.func @helper(%x: f32) -> f32 {
      %y = arith.addf %x, %x : f32
      return %y : f32
    }
  }
  gpu.module @main_kernel_0 {
    gpu.func @main_kernel(%a: memref<256xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<256xf32>
      %y = func.call @helper(%x) : (f32) -> f32
      memref.store %y, %a[%i] : memref<256xf32>
      gpu.return
    }
    func.func @helper(%x: f32) -> f32 {
      %y = arith.mulf %x, %x : f32
      return %y : f32
    }
  }
}

