// RUN: loom-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(loom-gpu-block-reductions))' | FileCheck %s

// Tests of loom-gpu-block-reductions (compiler/Lowering/GpuBlockReductions.cpp).

// Tests that a row max over [1024, 512] becomes a block per row (1024 blocks) of 128 threads
// (4 elements each), each thread walking its row from its own index in steps of 128 from
// -inf; all_reduce combines the partials, the result is combined with the loop's initial
// value and thread 0 stores it.
// CHECK-LABEL: func.func @row_max
// CHECK-DAG: %[[ROWS:.*]] = arith.constant 1024 : index
// CHECK-DAG: %[[T:.*]] = arith.constant 128 : index
// CHECK: gpu.launch blocks(%[[B:[a-z0-9_]+]], %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TID:[a-z0-9_]+]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[T]],
// CHECK: %[[INIT:.*]] = memref.load %arg1[
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[P:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[NEG]]) -> (f32) {
// CHECK:   memref.load %arg0[%{{.*}}, %[[J]]]
// CHECK:   arith.maximumf
// CHECK: %[[ALL:.*]] = gpu.all_reduce maximumf %[[P]] uniform
// CHECK: %[[M:.*]] = arith.maximumf %[[ALL]], %[[INIT]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]],
// CHECK: scf.if %[[FIRST]] {
// CHECK:   memref.store %[[M]], %arg1[
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
func.func @row_max(%in: memref<1024x512xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
    %init = memref.load %out[%i] : memref<1024xf32>
    %m = scf.for %j = %c0 to %c512 step %c1 iter_args(%a = %init) -> (f32) {
      %x = memref.load %in[%i, %j] : memref<1024x512xf32>
      %n = arith.maximumf %x, %a : f32
      scf.yield %n : f32
    }
    memref.store %m, %out[%i] : memref<1024xf32>
    scf.reduce
  }
  return
}

// -----

// Tests that a layer norm's two sums in one row (of 50304: 256 threads) become two
// all_reduce adds, each added to its initial value, and that the fused math in the row's
// body (the square) comes along.
// CHECK-LABEL: func.func @two_sums
// CHECK-DAG: %[[T:.*]] = arith.constant 256 : index
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[T]],
// CHECK: %[[P:.*]]:2 = scf.for {{.*}} -> (f32, f32) {
// CHECK:   arith.mulf
// CHECK: %[[S:.*]] = gpu.all_reduce add %[[P]]#0 uniform
// CHECK: arith.addf %[[S]], %{{.*}} fastmath<reassoc,nsz>
// CHECK: %[[Q:.*]] = gpu.all_reduce add %[[P]]#1 uniform
// CHECK: arith.addf %[[Q]], %{{.*}} fastmath<reassoc,nsz>
// CHECK: scf.if
// CHECK-COUNT-2: memref.store
func.func @two_sums(%in: memref<64x50304xf32>, %sum: memref<64xf32>, %sq: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = arith.constant 50304 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %r:2 = scf.for %j = %c0 to %n step %c1 iter_args(%a = %zero, %b = %zero) -> (f32, f32) {
      %x = memref.load %in[%i, %j] : memref<64x50304xf32>
      %x2 = arith.mulf %x, %x : f32
      %a2 = arith.addf %x, %a fastmath<reassoc,nsz> : f32
      %b2 = arith.addf %x2, %b fastmath<reassoc,nsz> : f32
      scf.yield %a2, %b2 : f32, f32
    }
    memref.store %r#0, %sum[%i] : memref<64xf32>
    memref.store %r#1, %sq[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// Tests what stays a thread per row: a sum whose fastmath does not allow reassociation, a
// row shorter than 64, a walk along a column (not the contiguous dim), an argmax-like
// value that the loop uses twice, and a row whose body stores.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: gpu.launch
// CHECK-COUNT-5: scf.parallel
// CHECK-NOT: gpu.all_reduce
func.func @left_alone(%in: memref<256x512xf32>, %short: memref<256x32xf32>,
                      %out: memref<256xf32>, %copy: memref<256x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    %s = scf.for %j = %c0 to %c512 step %c1 iter_args(%a = %zero) -> (f32) {
      %x = memref.load %in[%i, %j] : memref<256x512xf32>
      %n = arith.addf %x, %a : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<256xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    %s = scf.for %j = %c0 to %c32 step %c1 iter_args(%a = %zero) -> (f32) {
      %x = memref.load %short[%i, %j] : memref<256x32xf32>
      %n = arith.maximumf %x, %a : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<256xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    %s = scf.for %j = %c0 to %c256 step %c1 iter_args(%a = %zero) -> (f32) {
      %x = memref.load %in[%j, %i] : memref<256x512xf32>
      %n = arith.maximumf %x, %a : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<256xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    %s = scf.for %j = %c0 to %c512 step %c1 iter_args(%a = %zero) -> (f32) {
      %x = memref.load %in[%i, %j] : memref<256x512xf32>
      %gt = arith.cmpf ogt, %x, %a : f32
      %n = arith.select %gt, %x, %a : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<256xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    %s = scf.for %j = %c0 to %c512 step %c1 iter_args(%a = %zero) -> (f32) {
      %x = memref.load %in[%i, %j] : memref<256x512xf32>
      memref.store %x, %copy[%i, %j] : memref<256x512xf32>
      %n = arith.maximumf %x, %a : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<256xf32>
    scf.reduce
  }
  return
}

// -----

// Tests that a bf16 row max (a bf16 softmax's) is widened to f32 for all_reduce, whose warp
// shuffles move 32 bits (NVVM's shfl.sync takes an i32), and narrowed back before it is
// combined with the initial value.
// CHECK-LABEL: func.func @row_max_bf16
// CHECK: %[[P:.*]] = scf.for {{.*}} -> (bf16) {
// CHECK: %[[WIDE:.*]] = arith.extf %[[P]] : bf16 to f32
// CHECK: %[[ALL:.*]] = gpu.all_reduce maximumf %[[WIDE]] uniform
// CHECK: %[[NARROW:.*]] = arith.truncf %[[ALL]] : f32 to bf16
// CHECK: arith.maximumf %[[NARROW]], %{{.*}} : bf16
func.func @row_max_bf16(%in: memref<16x512xbf16>, %out: memref<16xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %init = memref.load %out[%i] : memref<16xbf16>
    %m = scf.for %j = %c0 to %c512 step %c1 iter_args(%a = %init) -> (bf16) {
      %x = memref.load %in[%i, %j] : memref<16x512xbf16>
      %n = arith.maximumf %x, %a : bf16
      scf.yield %n : bf16
    }
    memref.store %m, %out[%i] : memref<16xbf16>
    scf.reduce
  }
  return
}

// -----

// Tests that an i8 row minimum is sign-extended to i32 for all_reduce (a signed minimum of
// the extended values is that of the i8 ones) and truncated back; an unsigned maximum is
// zero-extended.
// CHECK-LABEL: func.func @row_min_i8
// CHECK: %[[P:.*]]:2 = scf.for {{.*}} -> (i8, i8) {
// CHECK: %[[S:.*]] = arith.extsi %[[P]]#0 : i8 to i32
// CHECK: %[[MIN:.*]] = gpu.all_reduce minsi %[[S]] uniform
// CHECK: arith.trunci %[[MIN]] : i32 to i8
// CHECK: %[[U:.*]] = arith.extui %[[P]]#1 : i8 to i32
// CHECK: %[[MAX:.*]] = gpu.all_reduce maxui %[[U]] uniform
// CHECK: arith.trunci %[[MAX]] : i32 to i8
func.func @row_min_i8(%in: memref<16x512xi8>, %lo: memref<16xi8>, %hi: memref<16xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %l0 = memref.load %lo[%i] : memref<16xi8>
    %h0 = memref.load %hi[%i] : memref<16xi8>
    %m:2 = scf.for %j = %c0 to %c512 step %c1 iter_args(%a = %l0, %b = %h0) -> (i8, i8) {
      %x = memref.load %in[%i, %j] : memref<16x512xi8>
      %n = arith.minsi %x, %a : i8
      %u = arith.maxui %x, %b : i8
      scf.yield %n, %u : i8, i8
    }
    memref.store %m#0, %lo[%i] : memref<16xi8>
    memref.store %m#1, %hi[%i] : memref<16xi8>
    scf.reduce
  }
  return
}
