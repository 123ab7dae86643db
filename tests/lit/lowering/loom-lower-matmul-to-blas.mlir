// RUN: loom-opt %s -loom-lower-matmul-to-blas -split-input-file | FileCheck %s

// Tests of loom-lower-matmul-to-blas: which matmuls on memrefs become loom_rt_gemm_{f32,f64}
// calls, and the 17 i64 arguments passed: batch, m, n, k, then (pointer, offset, leading
// dim, batch stride) for a, b and c, then beta (0 when a zero fill of c is folded, else 1).

// Tests that an f32 linalg.matmul becomes a call to a private @loom_rt_gemm_f32 declaration,
// with batch 1, m 4, n 16, k 8, zero offsets, row lengths as leading dims, zero batch
// strides, and beta 1 (accumulate) since no fill precedes it.
// CHECK: func.func private @loom_rt_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @matmul_f32
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<4x8xf32>, %[[B:[a-z0-9_]+]]: memref<8x16xf32>, %[[C:[a-z0-9_]+]]: memref<4x16xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[BATCH:[a-z0-9_]+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.constant 4 : i64
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = arith.constant 16 : i64
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = arith.constant 8 : i64
// CHECK-NEXT: %[[PA:[a-z0-9_]+]] = memref.extract_aligned_pointer_as_index %[[A]] : memref<4x8xf32> -> index
// CHECK-NEXT: %[[IA:[a-z0-9_]+]] = arith.index_cast %[[PA]] : index to i64
// CHECK-NEXT: %[[OA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[LDA:[a-z0-9_]+]] = arith.constant 8 : i64
// CHECK-NEXT: %[[SA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[PB:[a-z0-9_]+]] = memref.extract_aligned_pointer_as_index %[[B]] : memref<8x16xf32> -> index
// CHECK-NEXT: %[[IB:[a-z0-9_]+]] = arith.index_cast %[[PB]] : index to i64
// CHECK-NEXT: %[[OB:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[LDB:[a-z0-9_]+]] = arith.constant 16 : i64
// CHECK-NEXT: %[[SB:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[PC:[a-z0-9_]+]] = memref.extract_aligned_pointer_as_index %[[C]] : memref<4x16xf32> -> index
// CHECK-NEXT: %[[IC:[a-z0-9_]+]] = arith.index_cast %[[PC]] : index to i64
// CHECK-NEXT: %[[OC:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[LDC:[a-z0-9_]+]] = arith.constant 16 : i64
// CHECK-NEXT: %[[SC:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[BETA:[a-z0-9_]+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[TA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[TB:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK: call @loom_rt_gemm_f32(%[[BATCH]], %[[M]], %[[N]], %[[K]], %[[IA]], %[[OA]], %[[LDA]], %[[SA]], %[[IB]], %[[OB]], %[[LDB]], %[[SB]], %[[IC]], %[[OC]], %[[LDC]], %[[SC]], %[[BETA]], %[[TA]], %[[TB]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}})
// CHECK-NEXT: return
func.func @matmul_f32(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Tests that an f64 matmul calls @loom_rt_gemm_f64 (and declares no f32 variant).
// CHECK-NOT: @loom_rt_gemm_f32
// CHECK: func.func private @loom_rt_gemm_f64(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @matmul_f64
// CHECK-NOT: linalg.matmul
// CHECK: %[[BATCH:[a-z0-9_]+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.constant 3 : i64
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = arith.constant 5 : i64
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = arith.constant 7 : i64
// CHECK: call @loom_rt_gemm_f64(%[[BATCH]], %[[M]], %[[N]], %[[K]], {{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
func.func @matmul_f64(%a: memref<3x7xf64>, %b: memref<7x5xf64>, %c: memref<3x5xf64>) {
  linalg.matmul ins(%a, %b : memref<3x7xf64>, memref<7x5xf64>) outs(%c : memref<3x5xf64>)
  return
}

// -----

// Tests that linalg.batch_matmul passes the batch count and each operand's batch stride (the
// stride of its dim 0).
// CHECK-LABEL: func.func @batch_matmul
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[BATCH:[a-z0-9_]+]] = arith.constant 2 : i64
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.constant 4 : i64
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = arith.constant 16 : i64
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = arith.constant 8 : i64
// CHECK-NEXT: memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[IA:[a-z0-9_]+]] = arith.index_cast
// CHECK-NEXT: %[[OA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[LDA:[a-z0-9_]+]] = arith.constant 8 : i64
// CHECK-NEXT: %[[SA:[a-z0-9_]+]] = arith.constant 32 : i64
// CHECK-NEXT: memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[IB:[a-z0-9_]+]] = arith.index_cast
// CHECK-NEXT: %[[OB:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[LDB:[a-z0-9_]+]] = arith.constant 16 : i64
// CHECK-NEXT: %[[SB:[a-z0-9_]+]] = arith.constant 128 : i64
// CHECK-NEXT: memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[IC:[a-z0-9_]+]] = arith.index_cast
// CHECK-NEXT: %[[OC:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[LDC:[a-z0-9_]+]] = arith.constant 16 : i64
// CHECK-NEXT: %[[SC:[a-z0-9_]+]] = arith.constant 64 : i64
// CHECK-NEXT: %[[BETA:[a-z0-9_]+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[TA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[TB:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK: call @loom_rt_gemm_f32(%[[BATCH]], %[[M]], %[[N]], %[[K]], %[[IA]], %[[OA]], %[[LDA]], %[[SA]], %[[IB]], %[[OB]], %[[LDB]], %[[SB]], %[[IC]], %[[OC]], %[[LDC]], %[[SC]], %[[BETA]], %[[TA]], %[[TB]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}})
func.func @batch_matmul(%a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>)
                      outs(%c : memref<2x4x16xf32>)
  return
}

// -----

// Tests that a strided subview operand passes the aligned pointer of its base with the
// element offset and leading dim of its layout: rows 2.. and cols 3.. of a 10x20 buffer give
// offset 2 * 20 + 3 = 43 and leading dim 20.
// CHECK-LABEL: func.func @subview_operand
// CHECK: %[[SUB:[a-z0-9_]+]] = memref.subview
// CHECK: %[[PA:[a-z0-9_]+]] = memref.extract_aligned_pointer_as_index %[[SUB]] : memref<4x8xf32, strided<[20, 1], offset: 43>> -> index
// CHECK-NEXT: %[[IA:[a-z0-9_]+]] = arith.index_cast %[[PA]] : index to i64
// CHECK-NEXT: %[[OA:[a-z0-9_]+]] = arith.constant 43 : i64
// CHECK-NEXT: %[[LDA:[a-z0-9_]+]] = arith.constant 20 : i64
// CHECK-NEXT: %[[SA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK: call @loom_rt_gemm_f32(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[IA]], %[[OA]], %[[LDA]], %[[SA]],
func.func @subview_operand(%big: memref<10x20xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %a = memref.subview %big[2, 3] [4, 8] [1, 1]
      : memref<10x20xf32> to memref<4x8xf32, strided<[20, 1], offset: 43>>
  linalg.matmul ins(%a, %b : memref<4x8xf32, strided<[20, 1], offset: 43>>, memref<8x16xf32>)
                outs(%c : memref<4x16xf32>)
  return
}

// -----

// Tests that a zero linalg.fill of the output just before the matmul (only memory-effect
// free ops between) is folded into the call as beta 0 and erased.
// CHECK-LABEL: func.func @zero_fill_folded
// CHECK-SAME: (%{{[a-z0-9_]+}}: memref<4x8xf32>, %{{[a-z0-9_]+}}: memref<8x16xf32>, %[[C:[a-z0-9_]+]]: memref<4x16xf32>)
// CHECK-NOT: linalg.fill
// CHECK: memref.extract_aligned_pointer_as_index %[[C]] : memref<4x16xf32> -> index
// CHECK-NEXT: %[[IC:[a-z0-9_]+]] = arith.index_cast
// CHECK-NEXT: %[[OC:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[LDC:[a-z0-9_]+]] = arith.constant 16 : i64
// CHECK-NEXT: %[[SC:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[BETA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[TA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[TB:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK: call @loom_rt_gemm_f32({{.*}}, %[[IC]], %[[OC]], %[[LDC]], %[[SC]], %[[BETA]], %[[TA]], %[[TB]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}})
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @zero_fill_folded(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  %v = memref.subview %a[0, 0] [4, 8] [1, 1]
      : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  linalg.matmul ins(%v, %b : memref<4x8xf32, strided<[8, 1]>>, memref<8x16xf32>)
                outs(%c : memref<4x16xf32>)
  return
}

// -----

// Tests that a fill of a non-zero value stays and the call accumulates (beta 1).
// CHECK-LABEL: func.func @nonzero_fill_kept
// CHECK-SAME: %[[C:[a-z0-9_]+]]: memref<3x5xf64>)
// CHECK: linalg.fill ins(%{{.*}} : f64) outs(%[[C]] : memref<3x5xf64>)
// CHECK: memref.extract_aligned_pointer_as_index %[[C]]
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: arith.constant {{[0-9]+}} : i64
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: %[[BETA:[a-z0-9_]+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[TA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[TB:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK: call @loom_rt_gemm_{{f32|f64}}({{.*}}, %[[BETA]], %[[TA]], %[[TB]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}})
func.func @nonzero_fill_kept(%a: memref<3x7xf64>, %b: memref<7x5xf64>, %c: memref<3x5xf64>) {
  %one = arith.constant 1.0 : f64
  linalg.fill ins(%one : f64) outs(%c : memref<3x5xf64>)
  linalg.matmul ins(%a, %b : memref<3x7xf64>, memref<7x5xf64>) outs(%c : memref<3x5xf64>)
  return
}

// -----

// Tests that a zero fill separated from the matmul by a write to memory stays, with beta 1.
// CHECK-LABEL: func.func @fill_before_store_kept
// CHECK-SAME: %[[C:[a-z0-9_]+]]: memref<4x16xf32>, %{{[a-z0-9_]+}}: f32)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : memref<4x16xf32>)
// CHECK-NEXT: memref.store
// CHECK: memref.extract_aligned_pointer_as_index %[[C]]
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: arith.constant {{[0-9]+}} : i64
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: %[[BETA:[a-z0-9_]+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[TA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[TB:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK: call @loom_rt_gemm_{{f32|f64}}({{.*}}, %[[BETA]], %[[TA]], %[[TB]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}})
func.func @fill_before_store_kept(%a: memref<4x8xf32>, %b: memref<8x16xf32>,
                                  %c: memref<4x16xf32>, %x: f32) {
  %zero = arith.constant 0.0 : f32
  %i = arith.constant 0 : index
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  memref.store %x, %c[%i, %i] : memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Tests that a zero fill of another buffer than the matmul's output stays, with beta 1.
// CHECK-LABEL: func.func @fill_of_other_buffer_kept
// CHECK-SAME: %[[C:[a-z0-9_]+]]: memref<4x16xf32>, %[[D:[a-z0-9_]+]]: memref<4x16xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[D]] : memref<4x16xf32>)
// CHECK: memref.extract_aligned_pointer_as_index %[[C]]
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: arith.constant {{[0-9]+}} : i64
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: %[[BETA:[a-z0-9_]+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[TA:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[TB:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK: call @loom_rt_gemm_{{f32|f64}}({{.*}}, %[[BETA]], %[[TA]], %[[TB]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}})
func.func @fill_of_other_buffer_kept(%a: memref<4x8xf32>, %b: memref<8x16xf32>,
                                     %c: memref<4x16xf32>, %d: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%d : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Tests that a single-row operand whose row stride is shorter than its row passes the row
// length as leading dim (BLAS requires ld >= the row length).
// CHECK-LABEL: func.func @single_row
// CHECK: memref.extract_aligned_pointer_as_index %{{.*}} : memref<1x8xf32, strided<[4, 1]>> -> index
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK: call @loom_rt_gemm_f32
func.func @single_row(%a: memref<1x8xf32, strided<[4, 1]>>, %b: memref<8x16xf32>,
                      %c: memref<1x16xf32>) {
  linalg.matmul ins(%a, %b : memref<1x8xf32, strided<[4, 1]>>, memref<8x16xf32>)
                outs(%c : memref<1x16xf32>)
  return
}

// -----

// Tests that an i32 matmul has no BLAS routine: it stays a linalg.matmul and nothing is
// declared.
// CHECK-NOT: loom_rt_gemm
// CHECK-LABEL: func.func @matmul_i32
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xi32>, memref<8x16xi32>) outs(%{{.*}} : memref<4x16xi32>)
// CHECK-NOT: call
func.func @matmul_i32(%a: memref<4x8xi32>, %b: memref<8x16xi32>, %c: memref<4x16xi32>) {
  linalg.matmul ins(%a, %b : memref<4x8xi32>, memref<8x16xi32>) outs(%c : memref<4x16xi32>)
  return
}

// -----

// Tests that a matmul with an operand whose inner stride is not 1 (a column-major lhs) stays
// a linalg.matmul.
// CHECK-NOT: loom_rt_gemm
// CHECK-LABEL: func.func @column_major_operand
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf32, strided<[1, 4]>>, memref<8x16xf32>)
// CHECK-NOT: call
func.func @column_major_operand(%a: memref<4x8xf32, strided<[1, 4]>>, %b: memref<8x16xf32>,
                                %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32, strided<[1, 4]>>, memref<8x16xf32>)
                outs(%c : memref<4x16xf32>)
  return
}

// -----

// Tests that a matmul whose B is stored transposed ([N, K]) becomes a GEMM call with
// k = 8 and the transB flag (the last argument) set.
// CHECK-LABEL: func.func @transposed_b
// (batch 1, m 4, n 16, k 8, ldb 8, transA 0, transB 1, then no outer batch: 1, 0, 0, 0)
// CHECK: call @loom_rt_gemm_f32(%c1_i64, %c4_i64, %c16_i64, %c8_i64, %{{[0-9]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[0-9]+}}, %{{[a-z0-9_]+}}, %c8_i64{{[_0-9]*}}, {{.*}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}}) :
func.func @transposed_b(%a: memref<4x8xf32>, %bt: memref<16x8xf32>, %c: memref<4x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                 affine_map<(d0, d1, d2) -> (d1, d2)>,
                                 affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %bt : memref<4x8xf32>, memref<16x8xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Tests that a matmul whose maps are no plain or transposed product (here C is written
// transposed), one with mixed element types and one on tensors all stay linalg.matmul.
// CHECK-NOT: loom_rt_gemm
// CHECK-LABEL: func.func @not_plain
// CHECK: linalg.matmul indexing_maps = [{{.*}}] ins(%{{.*}}, %{{.*}} : memref<8x4xf32>, memref<16x8xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf16>, memref<8x16xf16>) outs(%{{.*}} : memref<4x16xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>)
// CHECK-NOT: call
func.func @not_plain(%at: memref<8x4xf32>, %bt: memref<16x8xf32>, %c: memref<16x4xf32>,
                     %c2: memref<4x16xf32>, %ah: memref<4x8xf16>, %bh: memref<8x16xf16>,
                     %ta: tensor<4x8xf32>, %tb: tensor<8x16xf32>, %tc: tensor<4x16xf32>)
    -> tensor<4x16xf32> {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                                 affine_map<(d0, d1, d2) -> (d1, d2)>,
                                 affine_map<(d0, d1, d2) -> (d1, d0)>]
      ins(%at, %bt : memref<8x4xf32>, memref<16x8xf32>) outs(%c : memref<16x4xf32>)
  linalg.matmul ins(%ah, %bh : memref<4x8xf16>, memref<8x16xf16>) outs(%c2 : memref<4x16xf32>)
  %0 = linalg.matmul ins(%ta, %tb : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%tc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that matmuls BLAS cannot take stay linalg: dynamic sizes, and an output that
// aliases an input (the zero fill before it must then stay too).
// CHECK-LABEL: func.func @not_for_blas
// CHECK-NOT: loom_rt_gemm
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<?x8xf32>, memref<8x16xf32>)
// CHECK: linalg.fill
// CHECK: linalg.matmul ins(%[[C:.*]], %{{.*}} : memref<4x4xf32>, memref<4x4xf32>) outs(%[[C]] : memref<4x4xf32>)
func.func @not_for_blas(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>,
                        %sq: memref<4x4xf32>, %other: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%sq : memref<4x4xf32>)
  linalg.matmul ins(%sq, %other : memref<4x4xf32>, memref<4x4xf32>) outs(%sq : memref<4x4xf32>)
  return
}

