// RUN: loom-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(loom-gpu-host-to-device))' | FileCheck %s

// Tests of loom-gpu-host-to-device (compiler/Lowering/GpuHostToDevice.cpp): the GPU program's
// host side keeps only allocations, copies and launches.

// Tests that allocations become the GPU's, a contiguous copy a gpu.memcpy, a constant a device
// copy freed at the return, and the scalar code of a full reduction (load, arithmetic, store)
// one kernel of one thread, while the launch's index math stays on the host.
// CHECK-LABEL: func.func @host_side
// CHECK: %[[T:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[G:.*]] = memref.get_global @table
// CHECK: %[[C:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.memcpy %[[C]], %[[G]]
// CHECK: gpu.memcpy %[[T]], %[[C]]
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:.*]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[T]]
// CHECK: memref.store
// CHECK: memref.load %arg1[]
// CHECK-NEXT: arith.negf
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.terminator
// CHECK: gpu.dealloc %[[T]]
// CHECK: gpu.dealloc %[[C]]
// CHECK-NEXT: return
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @host_side(%out: memref<f32>, %acc: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %g = memref.get_global @table : memref<4xf32>
  memref.copy %g, %t : memref<4xf32> to memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %t[%i] : memref<4xf32>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.addf %a, %x : f32
    memref.store %s, %acc[] : memref<f32>
  }
  %v = memref.load %acc[] : memref<f32>
  %n = arith.negf %v : f32
  memref.store %n, %out[] : memref<f32>
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// Tests that a call of a function the GPU's host side cannot run (here the CPU's GEMM) is an
// error naming it.
func.func private @loom_rt_gemm_f32(memref<4xf32>)
func.func @call(%x: memref<4xf32>) {
  // expected-error @+1 {{calls 'loom_rt_gemm_f32' on the host, which the GPU pipeline cannot run}}
  func.call @loom_rt_gemm_f32(%x) : (memref<4xf32>) -> ()
  return
}

// -----

// Tests that a collective's calls stay on the host (the runtime enqueues NCCL's work on the
// device's stream), and so does the stack array of a collective_permute's pairs: its stores
// are not moved into a kernel, and the pointer the call takes is the host's.
// CHECK-LABEL: func.func @permute
// CHECK: %[[PAIRS:.*]] = memref.alloca() : memref<2xi64>
// CHECK-NEXT: memref.store %{{.*}}, %[[PAIRS]][%{{.*}}]
// CHECK-NEXT: memref.store %{{.*}}, %[[PAIRS]][%{{.*}}]
// CHECK-NEXT: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[PAIRS]]
// CHECK-NEXT: %[[PI:.*]] = arith.index_cast %[[P]]
// CHECK-NEXT: %[[H:.*]] = call @loom_rt_collective_start(%[[PI]])
// CHECK-NEXT: call @loom_rt_collective_wait(%[[H]])
// CHECK-NOT: gpu.launch
func.func private @loom_rt_collective_start(i64) -> i64
func.func private @loom_rt_collective_wait(i64)
func.func @permute() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = arith.constant 0 : i64
  %t = arith.constant 1 : i64
  %pairs = memref.alloca() : memref<2xi64>
  memref.store %s, %pairs[%c0] : memref<2xi64>
  memref.store %t, %pairs[%c1] : memref<2xi64>
  %p = memref.extract_aligned_pointer_as_index %pairs : memref<2xi64> -> index
  %pi = arith.index_cast %p : index to i64
  %h = func.call @loom_rt_collective_start(%pi) : (i64) -> i64
  func.call @loom_rt_collective_wait(%h) : (i64) -> ()
  return
}

// -----

// Tests that a value loaded on the device that the host needs (here a launch's size) is an
// error naming the op.
func.func @escapes(%n: memref<index>, %out: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{computes a value the GPU program's host side uses}}
  %v = memref.load %n[] : memref<index>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %v, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// Tests that a value a run computes for a later run (a load before a collective's wait, used
// after it: a one-element add scheduled around the wait on a mesh) goes through a device
// buffer of its own: the first kernel stores it, the second loads it, and it is freed at the
// return. So does one used inside a later kernel.
// CHECK-LABEL: func.func @across_wait
// CHECK: %[[SLOT:.*]] = gpu.alloc () : memref<f32>
// CHECK: gpu.launch
// CHECK:   %[[X:.*]] = memref.load %arg0[]
// CHECK:   memref.store %[[X]], %[[SLOT]][]
// CHECK: call @loom_rt_collective_wait
// CHECK: gpu.launch
// CHECK-DAG:   %[[Y:.*]] = memref.load %arg1[]
// CHECK-DAG:   %[[X2:.*]] = memref.load %[[SLOT]][]
// CHECK:   arith.addf %[[X2]], %[[Y]]
// CHECK: gpu.launch
// CHECK:   %[[X3:.*]] = memref.load %[[SLOT]][]
// CHECK:   memref.store %[[X3]], %arg3[]
// CHECK: gpu.dealloc %[[SLOT]]
// CHECK-NEXT: return
func.func @across_wait(%a: memref<f32>, %b: memref<f32>, %out: memref<f32>, %out2: memref<f32>,
                       %h: i64) {
  %c1 = arith.constant 1 : index
  %x = memref.load %a[] : memref<f32>
  func.call @loom_rt_collective_wait(%h) : (i64) -> ()
  %y = memref.load %b[] : memref<f32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %out[] : memref<f32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %x, %out2[] : memref<f32>
    gpu.terminator
  }
  return
}
func.func private @loom_rt_collective_wait(i64)

// -----

// Tests that a value loaded on the device that a host call takes is an error naming the op.
func.func @to_a_call(%n: memref<i64>) {
  // expected-error @+1 {{computes a value the GPU program's host side uses}}
  %v = memref.load %n[] : memref<i64>
  func.call @loom_rt_collective_wait(%v) : (i64) -> ()
  return
}
func.func private @loom_rt_collective_wait(i64)

// -----

// Tests that a constant read inside a host loop around kernels is copied to the device in
// each iteration and freed at its end (its copy does not outlive the iteration).
// CHECK-LABEL: func.func @constant_in_loop
// CHECK: scf.for
// CHECK: %[[G:.*]] = memref.get_global @row
// CHECK: %[[C:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.memcpy %[[C]], %[[G]]
// CHECK: gpu.launch
// CHECK: gpu.dealloc %[[C]]
// CHECK-NEXT: }
// CHECK-NEXT: return
memref.global "private" constant @row : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @constant_in_loop(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %g = memref.get_global @row : memref<4xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %g[%c0] : memref<4xf32>
      memref.store %v, %out[%c0] : memref<4xf32>
      gpu.terminator
    }
  }
  return
}
