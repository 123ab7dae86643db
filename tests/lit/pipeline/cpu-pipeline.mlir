// RUN: loom-opt %s -split-input-file -loom-cpu-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: loom-opt %s -split-input-file -loom-cpu-to-linalg -loom-cpu-bufferize | FileCheck %s --check-prefix=BUF
// RUN: loom-opt %s -split-input-file -loom-cpu-pipeline | FileCheck %s --check-prefix=LLVM --implicit-check-not="{{[^.a-z_](arith|func|memref|scf|cf|math|linalg|tensor|bufferization|vector|affine|builtin|loom)\.}}"

// Tests of the CPU pipeline stages (compiler/Pipeline/CpuPipeline.cpp) on small programs:
// what elementwise fusion merges (loom-cpu-to-linalg), that bufferization writes results in
// place into out-params with GEMMs as BLAS calls (loom-cpu-bufferize), and that the whole
// pipeline leaves only LLVM dialect ops with the loom_entry ABI (loom-cpu-pipeline).

// Tests that a dense layer tanh(x * w + b) becomes one linalg.matmul followed by ONE
// linalg.generic (broadcast, add and tanh fused) that reads the bias through a broadcast map;
// that after bufferization the result is an out-param written by one BLAS call (its zero
// fill folded into beta 0) and one loop nest, with no copy or allocation; and that the whole
// pipeline gives LLVM functions only, tanh approximated (no libm call).
// LINALG-DAG: #[[ID:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d0, d1)>
// LINALG-DAG: #[[ROW:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d1)>
// LINALG-LABEL: func.func @main
// LINALG-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x32xf32>, %[[W:[a-z0-9_]+]]: tensor<32x16xf32>, %[[B:[a-z0-9_]+]]: tensor<16xf32>) -> tensor<4x16xf32>
// LINALG-NOT: linalg.generic
// LINALG: %[[MM:[a-z0-9_]+]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<4x32xf32>, tensor<32x16xf32>)
// LINALG-NEXT: %[[R:[a-z0-9_]+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[MM]], %[[B]] : tensor<4x16xf32>, tensor<16xf32>)
// LINALG-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[BIAS:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// LINALG-NEXT: %[[SUM:[a-z0-9_]+]] = arith.addf %[[A]], %[[BIAS]] : f32
// LINALG-NEXT: %[[T:[a-z0-9_]+]] = math.tanh %[[SUM]] : f32
// LINALG-NEXT: linalg.yield %[[T]] : f32
// LINALG-NOT: linalg.generic
// LINALG: return %[[R]] : tensor<4x16xf32>

// BUF: func.func private @loom_rt_gemm_f32(
// BUF-LABEL: func.func @main
// BUF-SAME: (%[[X:[a-z0-9_]+]]: memref<4x32xf32>, %[[W:[a-z0-9_]+]]: memref<32x16xf32>, %[[B:[a-z0-9_]+]]: memref<16xf32>, %[[OUT:[a-z0-9_]+]]: memref<4x16xf32>) {
// BUF-NOT: memref.copy
// BUF-NOT: memref.alloc
// BUF-NOT: linalg
// BUF-DAG: %[[ZERO:[a-z0-9_]+]] = arith.constant 0 : i64
// BUF-DAG: %[[PX:[a-z0-9_]+]] = memref.extract_aligned_pointer_as_index %[[X]]
// BUF-DAG: %[[PW:[a-z0-9_]+]] = memref.extract_aligned_pointer_as_index %[[W]]
// BUF-DAG: %[[PO:[a-z0-9_]+]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// BUF: call @loom_rt_gemm_f32({{.*}}, %[[ZERO]]) :
// BUF-NOT: call
// BUF: scf.parallel (%[[I:[a-z0-9_]+]], %[[J:[a-z0-9_]+]]) =
// BUF-NEXT: %[[V:[a-z0-9_]+]] = memref.load %[[OUT]][%[[I]], %[[J]]] : memref<4x16xf32>
// BUF-NEXT: %[[BV:[a-z0-9_]+]] = memref.load %[[B]][%[[J]]] : memref<16xf32>
// BUF-NEXT: %[[S:[a-z0-9_]+]] = arith.addf %[[V]], %[[BV]] : f32
// BUF-NEXT: %[[T:[a-z0-9_]+]] = math.tanh %[[S]] : f32
// BUF-NEXT: memref.store %[[T]], %[[OUT]][%[[I]], %[[J]]] : memref<4x16xf32>
// BUF-NOT: memref.copy
// BUF-NOT: scf.parallel
// BUF: return{{$}}

// LLVM: llvm.func @loom_rt_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// LLVM: llvm.func @main(
// LLVM-SAME: attributes {passthrough = ["optnone", "noinline"], sym_visibility = "private"}
// LLVM-NOT: tanhf
// LLVM: llvm.call @loom_rt_gemm_f32(
// LLVM: llvm.intr.fma
// LLVM: llvm.func @loom_entry(%[[BUFS:[a-z0-9_]+]]: !llvm.ptr) {
// LLVM-DAG: llvm.load %[[BUFS]] : !llvm.ptr -> !llvm.ptr
// LLVM-DAG: llvm.getelementptr %[[BUFS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// LLVM-DAG: llvm.getelementptr %[[BUFS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// LLVM-DAG: llvm.getelementptr %[[BUFS]][3] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// LLVM: llvm.call @main(
// LLVM-NEXT: llvm.return
// LLVM-NOT: tanhf
func.func @main(%x: tensor<4x32xf32>, %w: tensor<32x16xf32>, %b: tensor<16xf32>)
    -> tensor<4x16xf32> {
  %0 = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  %1 = loom.broadcast_in_dim %b, dims = [1] : tensor<16xf32> -> tensor<4x16xf32>
  %2 = loom.add %0, %1 : tensor<4x16xf32>
  %3 = loom.tanh %2 : tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}

// -----

// Tests that fusion in a softmax (max-reduce, sub, exp, sum-reduce, div) merges the
// broadcasts into their consumers and sub+exp into one loop, but stops at exp, which has two
// users (the sum and the div): four linalg.generic ops remain.
// After bufferization the row max and row sum share one 4-element buffer, exp(x - max) is
// written into the out-param, and the div updates it in place; nothing is copied. The whole
// pipeline approximates exp (no libm call).
// LINALG-LABEL: func.func @main
// LINALG-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// LINALG: %[[NEGINF:[a-z0-9_]+]] = arith.constant 0xFF800000 : f32
// LINALG: %[[MAXINIT:[a-z0-9_]+]] = linalg.fill ins(%[[NEGINF]] : f32)
// LINALG-NEXT: %[[MAX:[a-z0-9_]+]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf32>) outs(%[[MAXINIT]] : tensor<4xf32>)
// LINALG-NEXT: ^bb0
// LINALG-NEXT: arith.maximumf
// LINALG-NEXT: linalg.yield
// LINALG-NOT: linalg.generic
// LINALG: %[[EXP:[a-z0-9_]+]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<4x8xf32>, tensor<4xf32>)
// LINALG-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[M:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// LINALG-NEXT: %[[D:[a-z0-9_]+]] = arith.subf %[[A]], %[[M]] : f32
// LINALG-NEXT: %[[E:[a-z0-9_]+]] = math.exp %[[D]] : f32
// LINALG-NEXT: linalg.yield %[[E]] : f32
// LINALG-NOT: linalg.generic
// LINALG: %[[SUMINIT:[a-z0-9_]+]] = linalg.fill
// LINALG-NEXT: %[[SUM:[a-z0-9_]+]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<4x8xf32>) outs(%[[SUMINIT]] : tensor<4xf32>)
// LINALG-NEXT: ^bb0
// LINALG-NEXT: arith.addf
// LINALG-NEXT: linalg.yield
// LINALG-NEXT: }
// LINALG-NEXT: %[[R:[a-z0-9_]+]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[EXP]], %[[SUM]] : tensor<4x8xf32>, tensor<4xf32>)
// LINALG-NEXT: ^bb0(%[[N:[a-z0-9_]+]]: f32, %[[S:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// LINALG-NEXT: %[[Q:[a-z0-9_]+]] = arith.divf %[[N]], %[[S]] : f32
// LINALG-NEXT: linalg.yield %[[Q]] : f32
// LINALG-NOT: linalg.generic
// LINALG: return %[[R]]

// BUF-LABEL: func.func @main
// BUF-SAME: (%[[X:[a-z0-9_]+]]: memref<4x8xf32>, %[[OUT:[a-z0-9_]+]]: memref<4x8xf32>) {
// BUF-NOT: memref.copy
// BUF: %[[ROW:[a-z0-9_]+]] = memref.alloc() {{.*}} : memref<4xf32>
// BUF-NOT: memref.alloc
// The row max and sum keep their accumulator in a register (loom-promote-accumulators).
// BUF: %[[M0:[a-z0-9_]+]] = memref.load %[[ROW]]
// BUF-NEXT: %[[M:[a-z0-9_]+]] = scf.for {{.*}} iter_args(%[[MACC:[a-z0-9_]+]] = %[[M0]]) -> (f32) {
// BUF-NEXT: memref.load
// BUF-NEXT: %[[MNEXT:[a-z0-9_]+]] = arith.maximumf %{{.*}}, %[[MACC]] : f32
// BUF-NEXT: scf.yield %[[MNEXT]]
// BUF-NEXT: }
// BUF-NEXT: memref.store %[[M]], %[[ROW]]
// BUF: arith.subf
// BUF-NEXT: math.exp
// BUF-NEXT: memref.store %{{.*}}, %[[OUT]]
// BUF: scf.for {{.*}} iter_args(%[[SACC:[a-z0-9_]+]] = %{{.*}}) -> (f32) {
// BUF-NEXT: memref.load
// BUF-NEXT: %[[SNEXT:[a-z0-9_]+]] = arith.addf %{{.*}}, %[[SACC]] fastmath<reassoc,nsz> : f32
// BUF-NEXT: scf.yield %[[SNEXT]]
// BUF-NEXT: }
// BUF-NEXT: memref.store %{{.*}}, %[[ROW]]
// BUF: memref.load %[[OUT]]
// BUF-NEXT: memref.load %[[ROW]]
// BUF-NEXT: arith.divf
// BUF-NEXT: memref.store %{{.*}}, %[[OUT]]
// BUF-NOT: memref.copy
// BUF: memref.dealloc %[[ROW]] : memref<4xf32>
// BUF-NEXT: return

// LLVM-NOT: expf
// LLVM: llvm.func @main(
// LLVM-SAME: attributes {passthrough = ["optnone", "noinline"], sym_visibility = "private"}
// LLVM: llvm.func @loom_entry(%{{[a-z0-9_]+}}: !llvm.ptr) {
// LLVM: llvm.call @main(
// LLVM-NOT: expf
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %max = loom.reduce max %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %maxb = loom.broadcast_in_dim %max, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %shifted = loom.sub %x, %maxb : tensor<4x8xf32>
  %exp = loom.exp %shifted : tensor<4x8xf32>
  %sum = loom.reduce sum %exp, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sumb = loom.broadcast_in_dim %sum, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %r = loom.div %exp, %sumb : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
