// RUN: loom-opt --pass-pipeline='builtin.module(func.func(loom-overlap-collectives))' %s | FileCheck %s

// Tests the scheduling of collectives' start and wait calls on buffers.
func.func private @loom_rt_collective_start(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
func.func private @loom_rt_collective_wait(i64)
func.func private @loom_rt_gemm_f32(i64, i64)

// The wait moves down past work on other buffers to the first reader of the output; the
// start moves up past that work to the last writer of its input, carrying the output's
// allocation and the pointers with it.
// CHECK-LABEL: func.func @overlap
// CHECK: memref.store %{{.*}}, %arg0[%c0]
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[H:.*]] = call @loom_rt_collective_start
// CHECK-NEXT: memref.store %{{.*}}, %arg1[%c0]
// CHECK-NEXT: memref.load %arg1[%c0]
// CHECK-NEXT: call @loom_rt_collective_wait(%[[H]])
// CHECK-NEXT: memref.load %[[OUT]][%c0]
func.func @overlap(%in: memref<4xf32>, %other: memref<4xf32>, %c: i64, %f: f32) -> f32 {
  %c0 = arith.constant 0 : index
  memref.store %f, %in[%c0] : memref<4xf32>
  memref.store %f, %other[%c0] : memref<4xf32>
  %x = memref.load %other[%c0] : memref<4xf32>
  %out = memref.alloc() : memref<8xf32>
  %pin = memref.extract_aligned_pointer_as_index %in : memref<4xf32> -> index
  %iin = arith.index_cast %pin : index to i64
  %pout = memref.extract_aligned_pointer_as_index %out : memref<8xf32> -> index
  %iout = arith.index_cast %pout : index to i64
  %h = call @loom_rt_collective_start(%c, %c, %c, %iin, %iout, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
  call @loom_rt_collective_wait(%h) : (i64) -> ()
  %y = memref.load %out[%c0] : memref<8xf32>
  %z = arith.addf %x, %y : f32
  memref.dealloc %out : memref<8xf32>
  return %z : f32
}

// Peers read the input until the wait: it stays before a write to a view of the input, and
// before an opaque call that gets the input's pointer.
// CHECK-LABEL: func.func @input_overwritten
// CHECK: %[[H1:.*]] = call @loom_rt_collective_start
// CHECK: memref.subview
// CHECK-NEXT: call @loom_rt_collective_wait(%[[H1]])
// CHECK-NEXT: memref.store
// CHECK: %[[H2:.*]] = call @loom_rt_collective_start
// CHECK-NEXT: call @loom_rt_collective_wait(%[[H2]])
// CHECK-NEXT: call @loom_rt_gemm_f32
func.func @input_overwritten(%in: memref<4xf32>, %c: i64, %f: f32) {
  %c0 = arith.constant 0 : index
  %out = memref.alloc() : memref<8xf32>
  %pin = memref.extract_aligned_pointer_as_index %in : memref<4xf32> -> index
  %iin = arith.index_cast %pin : index to i64
  %pout = memref.extract_aligned_pointer_as_index %out : memref<8xf32> -> index
  %iout = arith.index_cast %pout : index to i64
  %h = call @loom_rt_collective_start(%c, %c, %c, %iin, %iout, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
  call @loom_rt_collective_wait(%h) : (i64) -> ()
  %view = memref.subview %in[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  memref.store %f, %view[%c0] : memref<2xf32, strided<[1], offset: 1>>
  %out2 = memref.alloc() : memref<8xf32>
  %pout2 = memref.extract_aligned_pointer_as_index %out2 : memref<8xf32> -> index
  %iout2 = arith.index_cast %pout2 : index to i64
  %h2 = call @loom_rt_collective_start(%c, %c, %c, %iin, %iout2, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
  call @loom_rt_collective_wait(%h2) : (i64) -> ()
  call @loom_rt_gemm_f32(%iin, %c) : (i64, i64) -> ()
  memref.dealloc %out : memref<8xf32>
  memref.dealloc %out2 : memref<8xf32>
  return
}

// Starts keep their order and rise no further than the previous collective's wait: the
// second all_gather is prefetched across the work that reads the first one's output.
// CHECK-LABEL: func.func @one_ahead
// CHECK: %[[A:.*]] = call @loom_rt_collective_start
// CHECK: call @loom_rt_collective_wait(%[[A]])
// CHECK: %[[B:.*]] = call @loom_rt_collective_start
// CHECK-NEXT: memref.load
// CHECK-NEXT: call @loom_rt_collective_wait(%[[B]])
func.func @one_ahead(%w1: memref<4xf32>, %w2: memref<4xf32>, %c: i64) -> f32 {
  %c0 = arith.constant 0 : index
  %o1 = memref.alloc() : memref<8xf32>
  %p1 = memref.extract_aligned_pointer_as_index %w1 : memref<4xf32> -> index
  %i1 = arith.index_cast %p1 : index to i64
  %q1 = memref.extract_aligned_pointer_as_index %o1 : memref<8xf32> -> index
  %j1 = arith.index_cast %q1 : index to i64
  %a = call @loom_rt_collective_start(%c, %c, %c, %i1, %j1, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
  call @loom_rt_collective_wait(%a) : (i64) -> ()
  %x = memref.load %o1[%c0] : memref<8xf32>
  %o2 = memref.alloc() : memref<8xf32>
  %p2 = memref.extract_aligned_pointer_as_index %w2 : memref<4xf32> -> index
  %i2 = arith.index_cast %p2 : index to i64
  %q2 = memref.extract_aligned_pointer_as_index %o2 : memref<8xf32> -> index
  %j2 = arith.index_cast %q2 : index to i64
  %b = call @loom_rt_collective_start(%c, %c, %c, %i2, %j2, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c, %c) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
  call @loom_rt_collective_wait(%b) : (i64) -> ()
  %y = memref.load %o2[%c0] : memref<8xf32>
  %z = arith.addf %x, %y : f32
  memref.dealloc %o1 : memref<8xf32>
  memref.dealloc %o2 : memref<8xf32>
  return %z : f32
}
