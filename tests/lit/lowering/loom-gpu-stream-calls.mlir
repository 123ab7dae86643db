// RUN: loom-opt %s -split-input-file -pass-pipeline='builtin.module(loom-gpu-stream-calls)' | FileCheck %s

// Tests of loom-gpu-stream-calls (compiler/Lowering/GpuStreamCalls.cpp).

// Tests that a call of the runtime's GPU entry points loses the host's wait before it and the
// new stream after it: the work after the call depends on the stream before it.
// CHECK-LABEL: func.func @gemm_joins_the_stream
// CHECK: %[[S:.*]] = gpu.wait async
// CHECK: %[[M:.*]], %[[T:.*]] = gpu.alloc async [%[[S]]] ()
// CHECK-NOT: gpu.wait
// CHECK: call @loom_rt_gpu_gemm_f32
// CHECK-NEXT: %[[D:.*]] = gpu.dealloc async [%[[T]]] %[[M]]
// CHECK-NEXT: gpu.wait [%[[D]]]
// CHECK-NEXT: return
func.func private @loom_rt_gpu_gemm_f32(i64)
func.func @gemm_joins_the_stream(%n: i64) {
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  call @loom_rt_gpu_gemm_f32(%n) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}

// -----

// Tests that a call of another function keeps both waits (the host may need the stream
// drained), as does a runtime call whose wait joins two streams.
// CHECK-LABEL: func.func @others_keep_their_waits
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NEXT: call @host_work
// CHECK-NEXT: gpu.wait async
// CHECK: gpu.wait [%{{.*}}, %{{.*}}]
// CHECK-NEXT: call @loom_rt_gpu_gemm_f32
// CHECK-NEXT: gpu.wait async
func.func private @loom_rt_gpu_gemm_f32(i64)
func.func private @host_work(i64)
func.func @others_keep_their_waits(%n: i64) {
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  call @host_work(%n) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.wait async
  gpu.wait [%1, %2]
  call @loom_rt_gpu_gemm_f32(%n) : (i64) -> ()
  %3 = gpu.wait async
  %4 = gpu.dealloc async [%3] %m : memref<4xf32>
  gpu.wait [%4]
  return
}

// -----

// Tests that a run of such calls (a collective's start, a GEMM, the collective's wait) loses
// the waits around it as one call does, and that a run with another call among them keeps
// them.
// CHECK-LABEL: func.func @a_run_of_calls_joins_the_stream
// CHECK-NOT: gpu.wait [
// CHECK: %[[H:.*]] = call @loom_rt_collective_start
// CHECK-NEXT: call @loom_rt_gpu_gemm_f32
// CHECK-NEXT: call @loom_rt_collective_wait(%[[H]])
// CHECK-NEXT: gpu.dealloc async
// CHECK-LABEL: func.func @a_mixed_run_keeps_its_waits
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NEXT: call @loom_rt_collective_start
// CHECK-NEXT: call @host_work
// CHECK-NEXT: call @loom_rt_collective_wait
// CHECK-NEXT: gpu.wait async
func.func private @loom_rt_gpu_gemm_f32(i64)
func.func private @loom_rt_collective_start(i64) -> i64
func.func private @loom_rt_collective_wait(i64)
func.func private @host_work(i64)
func.func @a_run_of_calls_joins_the_stream(%n: i64) {
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  %h = call @loom_rt_collective_start(%n) : (i64) -> i64
  call @loom_rt_gpu_gemm_f32(%n) : (i64) -> ()
  call @loom_rt_collective_wait(%h) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}
func.func @a_mixed_run_keeps_its_waits(%n: i64) {
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  %h = call @loom_rt_collective_start(%n) : (i64) -> i64
  call @host_work(%n) : (i64) -> ()
  call @loom_rt_collective_wait(%h) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}

// -----

// Tests that a repeated layer's function joins the stream as a runtime call does, and no
// longer drains the stream before it returns; another function keeps its waits.
// CHECK-LABEL: func.func private @layer
// CHECK: gpu.dealloc async
// CHECK-NEXT: return
// CHECK-LABEL: func.func @calls_a_layer
// CHECK-NOT: gpu.wait [
// CHECK: call @layer
// CHECK-NEXT: call @layer
// CHECK-NEXT: gpu.dealloc async
// CHECK-LABEL: func.func @not_a_layer
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NEXT: return
func.func private @layer(%m: memref<4xf32>) attributes {loom.block} {
  %0 = gpu.wait async
  %n, %t = gpu.alloc async [%0] () : memref<4xf32>
  %1 = gpu.dealloc async [%t] %n : memref<4xf32>
  gpu.wait [%1]
  return
}
func.func @calls_a_layer() {
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  call @layer(%m) : (memref<4xf32>) -> ()
  call @layer(%m) : (memref<4xf32>) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}
func.func @not_a_layer() {
  %0 = gpu.wait async
  %n, %t = gpu.alloc async [%0] () : memref<4xf32>
  %1 = gpu.dealloc async [%t] %n : memref<4xf32>
  gpu.wait [%1]
  return
}

// -----

// Tests that a collective_permute's start, whose pairs the host stores into a stack array
// just before the call (the call copies them), joins the stream too; a store into an array
// that the host also reads keeps the waits.
// CHECK-LABEL: func.func @permute_pairs_stay_in_the_run
// CHECK: %[[S:.*]] = gpu.wait async
// CHECK-NOT: gpu.wait
// CHECK: memref.store
// CHECK: call @loom_rt_collective_start
// CHECK-NEXT: call @loom_rt_collective_wait
// CHECK-NEXT: %[[D:.*]] = gpu.dealloc async
// CHECK-LABEL: func.func @other_stores_keep_the_waits
// CHECK: gpu.wait [%{{.*}}]
// CHECK: memref.store
// CHECK: call @loom_rt_collective_start
// CHECK: call @loom_rt_collective_wait
// CHECK-NEXT: gpu.wait async
func.func private @loom_rt_collective_start(i64, i64) -> i64
func.func private @loom_rt_collective_wait(i64)
func.func private @host_work(i64)
func.func @permute_pairs_stay_in_the_run(%n: i64, %v: i64) {
  %pairs = memref.alloca() : memref<2xi64>
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  %c0 = arith.constant 0 : index
  memref.store %v, %pairs[%c0] : memref<2xi64>
  %p = memref.extract_aligned_pointer_as_index %pairs : memref<2xi64> -> index
  %a = arith.index_cast %p : index to i64
  %h = call @loom_rt_collective_start(%n, %a) : (i64, i64) -> i64
  call @loom_rt_collective_wait(%h) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  return
}
func.func @other_stores_keep_the_waits(%n: i64, %v: i64) {
  %words = memref.alloca() : memref<2xi64>
  %0 = gpu.wait async
  %m, %t = gpu.alloc async [%0] () : memref<4xf32>
  gpu.wait [%t]
  %c0 = arith.constant 0 : index
  memref.store %v, %words[%c0] : memref<2xi64>
  %p = memref.extract_aligned_pointer_as_index %words : memref<2xi64> -> index
  %a = arith.index_cast %p : index to i64
  %h = call @loom_rt_collective_start(%n, %a) : (i64, i64) -> i64
  call @loom_rt_collective_wait(%h) : (i64) -> ()
  %1 = gpu.wait async
  %2 = gpu.dealloc async [%1] %m : memref<4xf32>
  gpu.wait [%2]
  %read = memref.load %words[%c0] : memref<2xi64>
  call @host_work(%read) : (i64) -> ()
  return
}
