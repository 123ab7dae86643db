// RUN: loom-opt %s -split-input-file -loom-cpu-to-linalg -loom-gpu-bufferize -loom-gpu-kernels | FileCheck %s --check-prefix=KERNELS
// RUN: loom-opt %s -split-input-file -loom-gpu-pipeline | FileCheck %s --check-prefix=BINARY
// RUN: loom-opt %s -split-input-file -loom-gpu-pipeline=chip=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: loom-opt %s -split-input-file -loom-gpu-pipeline --mlir-print-ir-after=arith-unsigned-when-equivalent 2>&1 >/dev/null | FileCheck %s --check-prefix=INDEX

// Tests of the GPU pipeline (compiler/Pipeline/GpuPipeline.cpp) on a fused elementwise chain
// and a row softmax: after loom-gpu-kernels the host function only launches kernels, each
// loop nest an outlined gpu.func whose outer parallel dim is split into blocks of 256
// threads; the whole pipeline ends in one cubin per kernel module, assembled by ptxas for the
// chip asked for.

// Tests that x * y + tanh(x) is one kernel launched on ceil(4096 / 256) = 16 blocks of 256
// threads, reading the block and thread ids, with no loop left on the host.
// KERNELS-LABEL: func.func @main
// KERNELS-NOT: scf.parallel
// KERNELS: gpu.launch_func @[[MOD:[a-z0-9_]+]]::@{{[a-z0-9_]+}} blocks in (%[[B:[a-z0-9_]+]], %{{.*}}, %{{.*}}) threads in (%[[T:[a-z0-9_]+]], %{{.*}}, %{{.*}})
// KERNELS-NOT: gpu.launch_func
// KERNELS: gpu.module @[[MOD]]
// KERNELS: gpu.func @{{[a-z0-9_]+}}({{.*}}) kernel
// KERNELS-DAG: gpu.block_id x
// KERNELS-DAG: gpu.thread_id x
// KERNELS-DAG: math.tanh
// KERNELS-DAG: arith.mulf
// KERNELS-DAG: arith.addf
// KERNELS: gpu.return

// BINARY: gpu.binary @{{[a-z0-9_]+}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, {{.*}}bin = "\7FELF
// BINARY-NOT: gpu.module
// SM80: #nvvm.target<O = 3, chip = "sm_80">
func.func @main(%x: tensor<4096xf32>, %y: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = loom.mul %x, %y : tensor<4096xf32>
  %1 = loom.tanh %x : tensor<4096xf32>
  %2 = loom.add %0, %1 : tensor<4096xf32>
  return %2 : tensor<4096xf32>
}

// -----

// Tests that a row softmax's max and sum run a block of 128 threads per row (1024 blocks),
// each thread looping over its share of the 512 columns and the block combining with
// all_reduce; that launches pass only buffers (index constants stay in the kernels, which
// know their grid and block sizes); and that the elementwise kernels, a thread per element
// of [1024, 512], recover row and column with 32-bit unsigned division by constants.
// KERNELS-LABEL: func.func @main
// KERNELS-NOT: scf.parallel
// KERNELS: gpu.launch_func @{{[a-z0-9_]+}}::@{{[a-z0-9_]+}} blocks in (%c1024, %c1, %c1) threads in (%c128, %c1, %c1)  args(%{{[a-z0-9_]+}} : memref<1024xf32>, %arg0 : memref<1024x512xf32>)
// KERNELS: gpu.module
// KERNELS: gpu.func @{{[a-z0-9_]+}}({{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1024, 1, 1>}
// KERNELS: scf.for
// KERNELS: arith.maximumf
// KERNELS: gpu.all_reduce maximumf
// INDEX: gpu.func @{{[a-z0-9_]+}}({{.*}}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 2048, 1, 1>}
// INDEX: arith.remui %{{.*}}, %c512_i32 : i32
// INDEX: arith.divui %{{.*}}, %c512_i32 : i32
// BINARY: gpu.binary
// BINARY-SAME: bin = "\7FELF
func.func @main(%x: tensor<1024x512xf32>) -> tensor<1024x512xf32> {
  %max = loom.reduce max %x, dims = [1] : tensor<1024x512xf32> -> tensor<1024xf32>
  %maxb = loom.broadcast_in_dim %max, dims = [0] : tensor<1024xf32> -> tensor<1024x512xf32>
  %shifted = loom.sub %x, %maxb : tensor<1024x512xf32>
  %exp = loom.exp %shifted : tensor<1024x512xf32>
  %sum = loom.reduce sum %exp, dims = [1] : tensor<1024x512xf32> -> tensor<1024xf32>
  %sumb = loom.broadcast_in_dim %sum, dims = [0] : tensor<1024xf32> -> tensor<1024x512xf32>
  %r = loom.div %exp, %sumb : tensor<1024x512xf32>
  return %r : tensor<1024x512xf32>
}
