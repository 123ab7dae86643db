// RUN: loom-opt %s -loom-lower-strided-copies | FileCheck %s

// Tests of loom-lower-strided-copies: a copy into (or out of) a strided view becomes
// linalg.copy, so it is lowered to a loop nest like other ops instead of MLIR's
// element-at-a-time memrefCopy; a copy between contiguous buffers stays a memref.copy (a
// memcpy), as does one with dynamic shapes.

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<8x64xf32>, %[[B:[a-z0-9_]+]]: memref<8x64xf32>, %[[OUT:[a-z0-9_]+]]: memref<8x128xf32>)
// CHECK: %[[LEFT:[a-z0-9_]+]] = memref.subview %[[OUT]][0, 0]
// CHECK-NEXT: linalg.copy ins(%[[A]] : memref<8x64xf32>) outs(%[[LEFT]] : memref<8x64xf32, strided<[128, 1]>>)
// CHECK-NEXT: %[[RIGHT:[a-z0-9_]+]] = memref.subview %[[OUT]][0, 64]
// CHECK-NEXT: linalg.copy ins(%[[B]] : memref<8x64xf32>) outs(%[[RIGHT]] : memref<8x64xf32, strided<[128, 1], offset: 64>>)
// CHECK-NOT: memref.copy
func.func @concat(%a: memref<8x64xf32>, %b: memref<8x64xf32>, %out: memref<8x128xf32>) {
  %left = memref.subview %out[0, 0] [8, 64] [1, 1] : memref<8x128xf32> to memref<8x64xf32, strided<[128, 1]>>
  memref.copy %a, %left : memref<8x64xf32> to memref<8x64xf32, strided<[128, 1]>>
  %right = memref.subview %out[0, 64] [8, 64] [1, 1] : memref<8x128xf32> to memref<8x64xf32, strided<[128, 1], offset: 64>>
  memref.copy %b, %right : memref<8x64xf32> to memref<8x64xf32, strided<[128, 1], offset: 64>>
  return
}

// CHECK-LABEL: func.func @contiguous
// CHECK-NEXT: memref.copy
// CHECK-NEXT: %[[ROWS:[a-z0-9_]+]] = memref.subview
// CHECK-NEXT: memref.copy
// CHECK-NEXT: memref.copy
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<8x64xf32>, %b: memref<8x64xf32>, %big: memref<16x64xf32>, %d: memref<?xf32>, %e: memref<?xf32, strided<[2]>>) {
  memref.copy %a, %b : memref<8x64xf32> to memref<8x64xf32>
  %rows = memref.subview %big[8, 0] [8, 64] [1, 1] : memref<16x64xf32> to memref<8x64xf32, strided<[64, 1], offset: 512>>
  memref.copy %a, %rows : memref<8x64xf32> to memref<8x64xf32, strided<[64, 1], offset: 512>>
  memref.copy %d, %e : memref<?xf32> to memref<?xf32, strided<[2]>>
  return
}

// Tests that a copy of a view onto an identical view of the same buffer (what remains where a
// producer already wrote its result into the slice it is inserted into) and a copy of a
// buffer onto itself are erased, while a copy between different slices stays.
// CHECK-LABEL: func.func @self_copies
// CHECK-SAME: (%[[BUF:[a-z0-9_]+]]: memref<8x128xf32>)
// CHECK: %[[LEFT:[a-z0-9_]+]] = memref.subview %[[BUF]][0, 0]
// CHECK: %[[RIGHT:[a-z0-9_]+]] = memref.subview %[[BUF]][0, 64]
// CHECK-NEXT: linalg.copy ins(%[[LEFT]] : {{.*}}) outs(%[[RIGHT]] : {{.*}})
// CHECK-NEXT: return
func.func @self_copies(%buf: memref<8x128xf32>) {
  %a = memref.subview %buf[0, 0] [8, 64] [1, 1] : memref<8x128xf32> to memref<8x64xf32, strided<[128, 1]>>
  %b = memref.subview %buf[0, 0] [8, 64] [1, 1] : memref<8x128xf32> to memref<8x64xf32, strided<[128, 1]>>
  memref.copy %a, %b : memref<8x64xf32, strided<[128, 1]>> to memref<8x64xf32, strided<[128, 1]>>
  memref.copy %buf, %buf : memref<8x128xf32> to memref<8x128xf32>
  %c = memref.subview %buf[0, 64] [8, 64] [1, 1] : memref<8x128xf32> to memref<8x64xf32, strided<[128, 1], offset: 64>>
  memref.copy %a, %c : memref<8x64xf32, strided<[128, 1]>> to memref<8x64xf32, strided<[128, 1], offset: 64>>
  return
}
