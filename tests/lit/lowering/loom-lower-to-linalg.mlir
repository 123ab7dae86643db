// RUN: loom-opt %s -loom-lower-to-linalg -split-input-file | FileCheck %s

// Tests of loom-lower-to-linalg, one case per op family and per variant that takes another
// path in the lowering (float or integer, element type conversions, rank 0, transposes).

// Tests that loom.neg becomes arith.negf on floats and `0 - x` on integers, each in an
// elementwise linalg.generic over a tensor.empty init.
// CHECK: #[[ID:[a-z0-9_]+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @neg
// CHECK-SAME: (%[[F:[a-z0-9_]+]]: tensor<4xf32>, %[[I:[a-z0-9_]+]]: tensor<4xi32>)
// CHECK: %[[FE:[a-z0-9_]+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[FR:[a-z0-9_]+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[F]] : tensor<4xf32>) outs(%[[FE]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = arith.negf %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[N]] : f32
// CHECK: %[[IE:[a-z0-9_]+]] = tensor.empty() : tensor<4xi32>
// CHECK: %[[IR:[a-z0-9_]+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[I]] : tensor<4xi32>) outs(%[[IE]] : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[Y:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.subi %[[ZERO]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[M]] : i32
// CHECK: return %[[FR]], %[[IR]]
func.func @neg(%f: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = loom.neg %f : tensor<4xf32>
  %1 = loom.neg %i : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// Tests that loom.abs becomes math.absf on floats and math.absi on integers.
// CHECK-LABEL: func.func @abs
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: f64, %{{[a-z0-9_]+}}: f64):
// CHECK-NEXT: %[[A:[a-z0-9_]+]] = math.absf %[[X]] : f64
// CHECK-NEXT: linalg.yield %[[A]] : f64
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[Y:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: i64):
// CHECK-NEXT: %[[B:[a-z0-9_]+]] = math.absi %[[Y]] : i64
// CHECK-NEXT: linalg.yield %[[B]] : i64
func.func @abs(%f: tensor<2x3xf64>, %i: tensor<2x3xi64>) -> (tensor<2x3xf64>, tensor<2x3xi64>) {
  %0 = loom.abs %f : tensor<2x3xf64>
  %1 = loom.abs %i : tensor<2x3xi64>
  return %0, %1 : tensor<2x3xf64>, tensor<2x3xi64>
}

// -----

// Tests that the transcendental unary ops become one math op each, over a rank-2 identity
// map with two parallel iterators.
// CHECK: #[[ID:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transcendental
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[RA:[a-z0-9_]+]] = math.exp %[[A]] : f32
// CHECK-NEXT: linalg.yield %[[RA]] : f32
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[RB:[a-z0-9_]+]] = math.log %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[RB]] : f32
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[C:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[RC:[a-z0-9_]+]] = math.tanh %[[C]] : f32
// CHECK-NEXT: linalg.yield %[[RC]] : f32
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[D:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[RD:[a-z0-9_]+]] = math.sqrt %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[RD]] : f32
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[E:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[RE:[a-z0-9_]+]] = math.rsqrt %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[RE]] : f32
func.func @transcendental(%x: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = loom.exp %x : tensor<2x3xf32>
  %1 = loom.log %x : tensor<2x3xf32>
  %2 = loom.tanh %x : tensor<2x3xf32>
  %3 = loom.sqrt %x : tensor<2x3xf32>
  %4 = loom.rsqrt %x : tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
      tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Tests that loom.logistic expands to 1 / (1 + exp(-x)) in the generic's body.
// CHECK-LABEL: func.func @logistic
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = arith.constant 1.000000e+00 : bf16
// CHECK-NEXT: %[[NEG:[a-z0-9_]+]] = arith.negf %[[X]] : bf16
// CHECK-NEXT: %[[EXP:[a-z0-9_]+]] = math.exp %[[NEG]] : bf16
// CHECK-NEXT: %[[DEN:[a-z0-9_]+]] = arith.addf %[[ONE]], %[[EXP]] : bf16
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = arith.divf %[[ONE]], %[[DEN]] : bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @logistic(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = loom.logistic %x : tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

// Tests that the binary ops on floats become arith.addf/subf/mulf/divf/maximumf/minimumf and
// math.powf, with the operands passed in order (lhs first).
// CHECK-LABEL: func.func @binary_float
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<4xf32>, %[[R:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.divf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.maximumf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.minimumf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = math.powf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @binary_float(%l: tensor<4xf32>, %r: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>) {
  %0 = loom.add %l, %r : tensor<4xf32>
  %1 = loom.sub %l, %r : tensor<4xf32>
  %2 = loom.mul %l, %r : tensor<4xf32>
  %3 = loom.div %l, %r : tensor<4xf32>
  %4 = loom.max %l, %r : tensor<4xf32>
  %5 = loom.min %l, %r : tensor<4xf32>
  %6 = loom.pow %l, %r : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that the binary ops on integers become arith.addi/subi/muli, signed division and
// signed max/min.
// CHECK-LABEL: func.func @binary_int
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<4xi32>, %[[R:[a-z0-9_]+]]: tensor<4xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: i32, %[[B:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: i32, %[[B:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.subi %[[A]], %[[B]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: i32, %[[B:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.muli %[[A]], %[[B]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: i32, %[[B:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.divsi %[[A]], %[[B]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: i32, %[[B:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.maxsi %[[A]], %[[B]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[L]], %[[R]] : tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: i32, %[[B:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.minsi %[[A]], %[[B]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @binary_int(%l: tensor<4xi32>, %r: tensor<4xi32>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
        tensor<4xi32>) {
  %0 = loom.add %l, %r : tensor<4xi32>
  %1 = loom.sub %l, %r : tensor<4xi32>
  %2 = loom.mul %l, %r : tensor<4xi32>
  %3 = loom.div %l, %r : tensor<4xi32>
  %4 = loom.max %l, %r : tensor<4xi32>
  %5 = loom.min %l, %r : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
      tensor<4xi32>, tensor<4xi32>
}

// -----

// Tests that float comparisons are ordered (oeq, olt, ole, ogt, oge) except ne, which is
// unordered (une), and that the generic yields i1 into an i1 init.
// CHECK-LABEL: func.func @compare_float
// CHECK: %[[E:[a-z0-9_]+]] = tensor.empty() : tensor<4xi1>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<4xi1>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: i1):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.cmpf oeq, %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : i1
// CHECK: arith.cmpf une, %{{.*}} : f32
// CHECK: arith.cmpf olt, %{{.*}} : f32
// CHECK: arith.cmpf ole, %{{.*}} : f32
// CHECK: arith.cmpf ogt, %{{.*}} : f32
// CHECK: arith.cmpf oge, %{{.*}} : f32
func.func @compare_float(%l: tensor<4xf32>, %r: tensor<4xf32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = loom.compare eq, %l, %r : tensor<4xf32> -> tensor<4xi1>
  %1 = loom.compare ne, %l, %r : tensor<4xf32> -> tensor<4xi1>
  %2 = loom.compare lt, %l, %r : tensor<4xf32> -> tensor<4xi1>
  %3 = loom.compare le, %l, %r : tensor<4xf32> -> tensor<4xi1>
  %4 = loom.compare gt, %l, %r : tensor<4xf32> -> tensor<4xi1>
  %5 = loom.compare ge, %l, %r : tensor<4xf32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
      tensor<4xi1>, tensor<4xi1>
}

// -----

// Tests that integer comparisons use the signed predicates.
// CHECK-LABEL: func.func @compare_int
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: i64, %[[B:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: i1):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.cmpi eq, %[[A]], %[[B]] : i64
// CHECK-NEXT: linalg.yield %[[V]] : i1
// CHECK: arith.cmpi ne, %{{.*}} : i64
// CHECK: arith.cmpi slt, %{{.*}} : i64
// CHECK: arith.cmpi sle, %{{.*}} : i64
// CHECK: arith.cmpi sgt, %{{.*}} : i64
// CHECK: arith.cmpi sge, %{{.*}} : i64
func.func @compare_int(%l: tensor<4xi64>, %r: tensor<4xi64>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = loom.compare eq, %l, %r : tensor<4xi64> -> tensor<4xi1>
  %1 = loom.compare ne, %l, %r : tensor<4xi64> -> tensor<4xi1>
  %2 = loom.compare lt, %l, %r : tensor<4xi64> -> tensor<4xi1>
  %3 = loom.compare le, %l, %r : tensor<4xi64> -> tensor<4xi1>
  %4 = loom.compare gt, %l, %r : tensor<4xi64> -> tensor<4xi1>
  %5 = loom.compare ge, %l, %r : tensor<4xi64> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
      tensor<4xi1>, tensor<4xi1>
}

// -----

// Tests that loom.select becomes arith.select over three identity-mapped inputs.
// CHECK: #[[ID:[a-z0-9_]+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<4xi1>, %[[T:[a-z0-9_]+]]: tensor<4xf32>, %[[F:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[P]], %[[T]], %[[F]] : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[C:[a-z0-9_]+]]: i1, %[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.select %[[C]], %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @select(%p: tensor<4xi1>, %t: tensor<4xf32>, %f: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.select %p, %t, %f : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that float-to-float conversions widen with arith.extf, narrow with arith.truncf, and
// go through f32 between the two 16-bit types.
// CHECK-LABEL: func.func @convert_float_float
// CHECK: ^bb0(%[[A:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f64):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.extf %[[A]] : f32 to f64
// CHECK-NEXT: linalg.yield %[[V]] : f64
// CHECK: ^bb0(%[[B:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: bf16):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.truncf %[[B]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[V]] : bf16
// CHECK: ^bb0(%[[C:[a-z0-9_]+]]: bf16, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[W:[a-z0-9_]+]] = arith.extf %[[C]] : bf16 to f32
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.truncf %[[W]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[V]] : f16
func.func @convert_float_float(%x: tensor<4xf32>, %b: tensor<4xbf16>)
    -> (tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>) {
  %0 = loom.convert %x : tensor<4xf32> -> tensor<4xf64>
  %1 = loom.convert %x : tensor<4xf32> -> tensor<4xbf16>
  %2 = loom.convert %b : tensor<4xbf16> -> tensor<4xf16>
  return %0, %1, %2 : tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>
}

// -----

// Tests that float-to-int conversions use arith.fptosi and int-to-float arith.sitofp.
// CHECK-LABEL: func.func @convert_float_int
// CHECK: ^bb0(%[[A:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.fptosi %[[A]] : f32 to i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: ^bb0(%[[B:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: f16):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.sitofp %[[B]] : i64 to f16
// CHECK-NEXT: linalg.yield %[[V]] : f16
func.func @convert_float_int(%x: tensor<4xf32>, %i: tensor<4xi64>)
    -> (tensor<4xi32>, tensor<4xf16>) {
  %0 = loom.convert %x : tensor<4xf32> -> tensor<4xi32>
  %1 = loom.convert %i : tensor<4xi64> -> tensor<4xf16>
  return %0, %1 : tensor<4xi32>, tensor<4xf16>
}

// -----

// Tests that conversions to i1 compare with zero (arith.cmpf une for floats, so NaN is true;
// arith.cmpi ne for integers) and conversions from i1 are unsigned (0 or 1).
// CHECK-LABEL: func.func @convert_pred
// CHECK: ^bb0(%[[A:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: i1):
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.cmpf une, %[[A]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : i1
// CHECK: ^bb0(%[[B:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: i1):
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.cmpi ne, %[[B]], %[[Z]] : i64
// CHECK-NEXT: linalg.yield %[[V]] : i1
// CHECK: ^bb0(%[[C:[a-z0-9_]+]]: i1, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.uitofp %[[C]] : i1 to f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: ^bb0(%[[D:[a-z0-9_]+]]: i1, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.extui %[[D]] : i1 to i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @convert_pred(%x: tensor<4xf32>, %i: tensor<4xi64>, %p: tensor<4xi1>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) {
  %0 = loom.convert %x : tensor<4xf32> -> tensor<4xi1>
  %1 = loom.convert %i : tensor<4xi64> -> tensor<4xi1>
  %2 = loom.convert %p : tensor<4xi1> -> tensor<4xf32>
  %3 = loom.convert %p : tensor<4xi1> -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi32>
}

// -----

// Tests that int-to-int conversions sign-extend (arith.extsi) or truncate (arith.trunci).
// CHECK-LABEL: func.func @convert_int_int
// CHECK: ^bb0(%[[A:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: i64):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.extsi %[[A]] : i32 to i64
// CHECK-NEXT: linalg.yield %[[V]] : i64
// CHECK: ^bb0(%[[B:[a-z0-9_]+]]: i64, %{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.trunci %[[B]] : i64 to i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @convert_int_int(%a: tensor<4xi32>, %b: tensor<4xi64>)
    -> (tensor<4xi64>, tensor<4xi32>) {
  %0 = loom.convert %a : tensor<4xi32> -> tensor<4xi64>
  %1 = loom.convert %b : tensor<4xi64> -> tensor<4xi32>
  return %0, %1 : tensor<4xi64>, tensor<4xi32>
}

// -----

// Tests that loom.constant becomes an arith.constant with the same dense value.
// CHECK-LABEL: func.func @constant
// CHECK-NOT: loom.constant
// CHECK: %[[C:[a-z0-9_]+]] = arith.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK: return %[[C]] : tensor<2x3xi32>
func.func @constant() -> tensor<2x3xi32> {
  %0 = loom.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Tests that an integer loom.iota is a generic with no inputs yielding the index of its dim
// cast to the element type.
// CHECK: #[[ID:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @iota_int
// CHECK: %[[E:[a-z0-9_]+]] = tensor.empty() : tensor<2x3xi32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<2x3xi32>)
// CHECK-NEXT: ^bb0(%{{[a-z0-9_]+}}: i32):
// CHECK-NEXT: %[[I:[a-z0-9_]+]] = linalg.index 1 : index
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @iota_int() -> tensor<2x3xi32> {
  %0 = loom.iota dim = 1 : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Tests that a float loom.iota casts the index to i64, then converts it with arith.sitofp.
// CHECK-LABEL: func.func @iota_float
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[I:[a-z0-9_]+]] = linalg.index 0 : index
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.sitofp %[[N]] : i64 to f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @iota_float() -> tensor<5x2xf32> {
  %0 = loom.iota dim = 0 : tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

// Tests that loom.broadcast_in_dim reads the operand through a projected map: operand dim i
// is read at result dim dims[i].
// CHECK-DAG: #[[IN:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[OUT:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast_row
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8xf32>)
// CHECK: %[[E:[a-z0-9_]+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[R:[a-z0-9_]+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: linalg.yield %[[A]] : f32
// CHECK: return %[[R]]
func.func @broadcast_row(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = loom.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that a size-1 operand dim stretched to a larger result dim is read at constant 0,
// while a size-1 dim mapped to a size-1 result dim keeps its dim expression.
// CHECK-DAG: #[[STRETCH:[a-z0-9_]+]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-DAG: #[[KEEP:[a-z0-9_]+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[OUT:[a-z0-9_]+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_size_one
// CHECK: linalg.generic {indexing_maps = [#[[STRETCH]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<1x5xbf16>) outs(%{{.*}} : tensor<3x7x5xbf16>)
// CHECK: linalg.generic {indexing_maps = [#[[KEEP]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<1x5xbf16>) outs(%{{.*}} : tensor<1x7x5xbf16>)
func.func @broadcast_size_one(%x: tensor<1x5xbf16>)
    -> (tensor<3x7x5xbf16>, tensor<1x7x5xbf16>) {
  %0 = loom.broadcast_in_dim %x, dims = [0, 2] : tensor<1x5xbf16> -> tensor<3x7x5xbf16>
  %1 = loom.broadcast_in_dim %x, dims = [0, 2] : tensor<1x5xbf16> -> tensor<1x7x5xbf16>
  return %0, %1 : tensor<3x7x5xbf16>, tensor<1x7x5xbf16>
}

// -----

// Tests that a rank-0 operand is broadcast through a map with no results.
// CHECK-DAG: #[[IN:[a-z0-9_]+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[OUT:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast_scalar
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<i32>) outs(%{{.*}} : tensor<2x3xi32>)
func.func @broadcast_scalar(%x: tensor<i32>) -> tensor<2x3xi32> {
  %0 = loom.broadcast_in_dim %x, dims = [] : tensor<i32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// Tests that a loom.reshape that splits each dim into a group is one expand (a row-major
// view, which keeps a strided operand a view), and that a reshape to rank 1 is one collapse.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<6x4xf16>)
// CHECK: %[[R:[a-z0-9_]+]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2, 3]] output_shape [2, 3, 1, 4] : tensor<6x4xf16> into tensor<2x3x1x4xf16>
// CHECK: %[[F:[a-z0-9_]+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<6x4xf16> into tensor<24xf16>
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[R]], %[[F]]
func.func @reshape(%x: tensor<6x4xf16>) -> (tensor<2x3x1x4xf16>, tensor<24xf16>) {
  %0 = loom.reshape %x : tensor<6x4xf16> -> tensor<2x3x1x4xf16>
  %1 = loom.reshape %x : tensor<6x4xf16> -> tensor<24xf16>
  return %0, %1 : tensor<2x3x1x4xf16>, tensor<24xf16>
}

// -----

// Tests that reshapes to rank 0 collapse with an empty reassociation, and reshapes from rank 0
// expand with an empty reassociation.
// CHECK-LABEL: func.func @reshape_rank0
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<1x1xi64>, %[[S:[a-z0-9_]+]]: tensor<i64>)
// CHECK: %[[C1:[a-z0-9_]+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<1x1xi64> into tensor<1xi64>
// CHECK: %[[TO0:[a-z0-9_]+]] = tensor.collapse_shape %[[C1]] [] : tensor<1xi64> into tensor<i64>
// CHECK: %[[E1:[a-z0-9_]+]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<i64> into tensor<1xi64>
// CHECK: %[[FROM0:[a-z0-9_]+]] = tensor.expand_shape %[[E1]] {{\[}}[0, 1, 2]] output_shape [1, 1, 1] : tensor<1xi64> into tensor<1x1x1xi64>
// CHECK: return %[[TO0]], %[[FROM0]]
func.func @reshape_rank0(%x: tensor<1x1xi64>, %s: tensor<i64>)
    -> (tensor<i64>, tensor<1x1x1xi64>) {
  %0 = loom.reshape %x : tensor<1x1xi64> -> tensor<i64>
  %1 = loom.reshape %s : tensor<i64> -> tensor<1x1x1xi64>
  return %0, %1 : tensor<i64>, tensor<1x1x1xi64>
}

// -----

// Tests that loom.transpose becomes linalg.transpose with the same permutation into an
// init of the permuted shape.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x1x5xi32>)
// CHECK: %[[E:[a-z0-9_]+]] = tensor.empty() : tensor<5x2x1xi32>
// CHECK: %[[T:[a-z0-9_]+]] = linalg.transpose ins(%[[X]] : tensor<2x1x5xi32>) outs(%[[E]] : tensor<5x2x1xi32>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<2x1x5xi32>) -> tensor<5x2x1xi32> {
  %0 = loom.transpose %x, permutation = [2, 0, 1] : tensor<2x1x5xi32> -> tensor<5x2x1xi32>
  return %0 : tensor<5x2x1xi32>
}

// -----

// Tests that loom.slice becomes tensor.extract_slice with offsets = start, sizes = the
// result shape and the same strides.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4x10xf32>)
// CHECK: %[[S:[a-z0-9_]+]] = tensor.extract_slice %[[X]][1, 2] [3, 3] [1, 3] : tensor<4x10xf32> to tensor<3x3xf32>
// CHECK: return %[[S]]
func.func @slice(%x: tensor<4x10xf32>) -> tensor<3x3xf32> {
  %0 = loom.slice %x, start = [1, 2], limit = [4, 10], strides = [1, 3]
      : tensor<4x10xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// Tests that loom.concatenate inserts each input into one tensor.empty, the offset along the
// concatenated dim advancing by each input's size.
// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<2x1xi32>, %[[B:[a-z0-9_]+]]: tensor<2x4xi32>, %[[C:[a-z0-9_]+]]: tensor<2x2xi32>)
// CHECK: %[[E:[a-z0-9_]+]] = tensor.empty() : tensor<2x7xi32>
// CHECK: %[[R0:[a-z0-9_]+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 1] [1, 1] : tensor<2x1xi32> into tensor<2x7xi32>
// CHECK: %[[R1:[a-z0-9_]+]] = tensor.insert_slice %[[B]] into %[[R0]][0, 1] [2, 4] [1, 1] : tensor<2x4xi32> into tensor<2x7xi32>
// CHECK: %[[R2:[a-z0-9_]+]] = tensor.insert_slice %[[C]] into %[[R1]][0, 5] [2, 2] [1, 1] : tensor<2x2xi32> into tensor<2x7xi32>
// CHECK: return %[[R2]]
func.func @concatenate(%a: tensor<2x1xi32>, %b: tensor<2x4xi32>, %c: tensor<2x2xi32>)
    -> tensor<2x7xi32> {
  %0 = loom.concatenate(%a, %b, %c) dim = 1
      : (tensor<2x1xi32>, tensor<2x4xi32>, tensor<2x2xi32>) -> tensor<2x7xi32>
  return %0 : tensor<2x7xi32>
}

// -----

// Tests that a plain matmul becomes linalg.matmul into a zero-filled init, with no transpose
// or reshape.
// CHECK-LABEL: func.func @dot_matmul
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<4x32xf32>, %[[R:[a-z0-9_]+]]: tensor<32x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:[a-z0-9_]+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[INIT:[a-z0-9_]+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[P:[a-z0-9_]+]] = linalg.matmul ins(%[[L]], %[[R]] : tensor<4x32xf32>, tensor<32x16xf32>) outs(%[[INIT]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[P]]
func.func @dot_matmul(%l: tensor<4x32xf32>, %r: tensor<32x16xf32>) -> tensor<4x16xf32> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [0]
      : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that a leading batch dim gives linalg.batch_matmul on the operands as they are.
// CHECK-LABEL: func.func @dot_batched
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<2x4x8xf32>, %[[R:[a-z0-9_]+]]: tensor<2x8x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[INIT:[a-z0-9_]+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x16xf32>)
// CHECK: %[[P:[a-z0-9_]+]] = linalg.batch_matmul ins(%[[L]], %[[R]] : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%[[INIT]] : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: return %[[P]]
func.func @dot_batched(%l: tensor<2x4x8xf32>, %r: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = loom.dot_general %l, %r, batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Tests that an rhs contracted on its last dim ([M, K] x [N, K]) is used as it lies, as the
// transposed B of a linalg.matmul (no transpose copy), whose init is filled with integer zero.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dot_rhs_transposed
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<4x8xi32>, %[[R:[a-z0-9_]+]]: tensor<16x8xi32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[ZERO:[a-z0-9_]+]] = arith.constant 0 : i32
// CHECK: %[[INIT:[a-z0-9_]+]] = linalg.fill ins(%[[ZERO]] : i32)
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[B]], #[[C]]] ins(%[[L]], %[[R]] : tensor<4x8xi32>, tensor<16x8xi32>) outs(%[[INIT]] : tensor<4x16xi32>)
func.func @dot_rhs_transposed(%l: tensor<4x8xi32>, %r: tensor<16x8xi32>) -> tensor<4x16xi32> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [1] x [1]
      : (tensor<4x8xi32>, tensor<16x8xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// Tests that an inner batch dim and two contracting dims listed in different orders give
// transposes to [batch, free, contracting] and [batch, contracting, free] (contracting dims in
// lhs order on both sides), reshapes to rank 3, and a linalg.batch_matmul:
// lhs [K1=3, M=6, B=4, K2=5], rhs [K2=5, B=4, N=7, K1=3] -> [B, M, N].
// CHECK-LABEL: func.func @dot_transposes
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<3x6x4x5xf32>, %[[R:[a-z0-9_]+]]: tensor<5x4x7x3xf32>)
// CHECK: %[[LT:[a-z0-9_]+]] = linalg.transpose ins(%[[L]] : tensor<3x6x4x5xf32>) outs(%{{.*}} : tensor<4x6x3x5xf32>) permutation = [2, 1, 0, 3]
// CHECK: %[[RT:[a-z0-9_]+]] = linalg.transpose ins(%[[R]] : tensor<5x4x7x3xf32>) outs(%{{.*}} : tensor<4x3x5x7xf32>) permutation = [1, 3, 0, 2]
// CHECK: %[[L3:[a-z0-9_]+]] = tensor.collapse_shape %[[LT]] {{\[}}[0], [1], [2, 3]] : tensor<4x6x3x5xf32> into tensor<4x6x15xf32>
// CHECK: %[[R3:[a-z0-9_]+]] = tensor.collapse_shape %[[RT]] {{\[}}[0], [1, 2], [3]] : tensor<4x3x5x7xf32> into tensor<4x15x7xf32>
// CHECK: %[[P:[a-z0-9_]+]] = linalg.batch_matmul ins(%[[L3]], %[[R3]] : tensor<4x6x15xf32>, tensor<4x15x7xf32>) outs(%{{.*}} : tensor<4x6x7xf32>)
// CHECK-NEXT: return %[[P]] : tensor<4x6x7xf32>
func.func @dot_transposes(%l: tensor<3x6x4x5xf32>, %r: tensor<5x4x7x3xf32>)
    -> tensor<4x6x7xf32> {
  %0 = loom.dot_general %l, %r, batching_dims = [2] x [1], contracting_dims = [0, 3] x [3, 0]
      : (tensor<3x6x4x5xf32>, tensor<5x4x7x3xf32>) -> tensor<4x6x7xf32>
  return %0 : tensor<4x6x7xf32>
}

// -----

// Tests that two batch dims are flattened into one (in lhs batch order, transposing the lhs)
// and that the [batch, M, N] product is reshaped back to the result shape.
// CHECK-LABEL: func.func @dot_reshape_back
// CHECK-SAME: (%[[L:[a-z0-9_]+]]: tensor<2x3x8xf64>, %[[R:[a-z0-9_]+]]: tensor<3x2x8x9xf64>)
// CHECK: linalg.transpose ins(%[[L]] : tensor<2x3x8xf64>) outs(%{{.*}} : tensor<3x2x8xf64>) permutation = [1, 0, 2]
// CHECK-NOT: linalg.transpose
// CHECK: tensor.expand_shape %{{.*}} output_shape [6, 1, 8] : tensor<48xf64> into tensor<6x1x8xf64>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<3x2x8x9xf64> into tensor<6x8x9xf64>
// CHECK: %[[P:[a-z0-9_]+]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<6x1x8xf64>, tensor<6x8x9xf64>) outs(%{{.*}} : tensor<6x1x9xf64>)
// CHECK: %[[PF:[a-z0-9_]+]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2]] : tensor<6x1x9xf64> into tensor<54xf64>
// CHECK: %[[OUT:[a-z0-9_]+]] = tensor.expand_shape %[[PF]] {{\[}}[0, 1, 2]] output_shape [3, 2, 9] : tensor<54xf64> into tensor<3x2x9xf64>
// CHECK: return %[[OUT]]
func.func @dot_reshape_back(%l: tensor<2x3x8xf64>, %r: tensor<3x2x8x9xf64>)
    -> tensor<3x2x9xf64> {
  %0 = loom.dot_general %l, %r, batching_dims = [1, 0] x [0, 1], contracting_dims = [2] x [2]
      : (tensor<2x3x8xf64>, tensor<3x2x8x9xf64>) -> tensor<3x2x9xf64>
  return %0 : tensor<3x2x9xf64>
}

// -----

// Tests that a full contraction is a [1, K] x [K, 1] matmul whose product is reshaped to
// rank 0.
// CHECK-LABEL: func.func @dot_full_contraction
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 32] : tensor<32xf16> into tensor<1x32xf16>
// CHECK: tensor.expand_shape %{{.*}} output_shape [32, 1] : tensor<32xf16> into tensor<32x1xf16>
// CHECK: %[[P:[a-z0-9_]+]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x32xf16>, tensor<32x1xf16>) outs(%{{.*}} : tensor<1x1xf16>)
// CHECK: %[[P1:[a-z0-9_]+]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1]] : tensor<1x1xf16> into tensor<1xf16>
// CHECK: %[[P0:[a-z0-9_]+]] = tensor.collapse_shape %[[P1]] [] : tensor<1xf16> into tensor<f16>
// CHECK: return %[[P0]] : tensor<f16>
func.func @dot_full_contraction(%l: tensor<4x8xf16>, %r: tensor<4x8xf16>) -> tensor<f16> {
  %0 = loom.dot_general %l, %r, batching_dims = [] x [], contracting_dims = [0, 1] x [0, 1]
      : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<f16>
  return %0 : tensor<f16>
}

// -----

// Tests that a sum reduction is a generic over the operand's dims with reduction iterators on
// the reduced dims, an output map keeping the others, and an init filled with 0.
// CHECK-DAG: #[[IN:[a-z0-9_]+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:[a-z0-9_]+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3x5xf32>)
// CHECK: %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:[a-z0-9_]+]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[INIT:[a-z0-9_]+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x5xf32>) outs(%[[INIT]] : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.addf %[[A]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @reduce_sum(%x: tensor<2x3x5xf32>) -> tensor<3xf32> {
  %0 = loom.reduce sum %x, dims = [0, 2] : tensor<2x3x5xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that a float max reduction starts from -inf and combines with arith.maximumf.
// CHECK-DAG: #[[IN:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[OUT:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_max_float
// CHECK: %[[NEGINF:[a-z0-9_]+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:[a-z0-9_]+]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x8xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[ACC:[a-z0-9_]+]]: f32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.maximumf %[[A]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @reduce_max_float(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = loom.reduce max %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that an integer max reduction starts from INT_MIN and combines with arith.maxsi.
// CHECK-DAG: #[[OUT:[a-z0-9_]+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reduce_max_int
// CHECK: %[[MIN:[a-z0-9_-]+]] = arith.constant -2147483648 : i32
// CHECK: %[[INIT:[a-z0-9_]+]] = linalg.fill ins(%[[MIN]] : i32)
// CHECK: linalg.generic {indexing_maps = [#{{[a-z0-9_]+}}, #[[OUT]]], iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<4x8xi32>) outs(%[[INIT]] : tensor<8xi32>)
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: i32, %[[ACC:[a-z0-9_]+]]: i32):
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = arith.maxsi %[[A]], %[[ACC]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @reduce_max_int(%x: tensor<4x8xi32>) -> tensor<8xi32> {
  %0 = loom.reduce max %x, dims = [0] : tensor<4x8xi32> -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// Tests that an integer sum over every dim gives a rank-0 init and an output map with no
// results.
// CHECK-DAG: #[[OUT:[a-z0-9_]+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @reduce_sum_all
// CHECK: %[[ZERO:[a-z0-9_]+]] = arith.constant 0 : i64
// CHECK: %[[INIT:[a-z0-9_]+]] = linalg.fill ins(%[[ZERO]] : i64) outs(%{{.*}} : tensor<i64>)
// CHECK: linalg.generic {indexing_maps = [#{{[a-z0-9_]+}}, #[[OUT]]], iterator_types = ["reduction"]} ins(%{{.*}} : tensor<16xi64>) outs(%[[INIT]] : tensor<i64>)
// CHECK: arith.addi
func.func @reduce_sum_all(%x: tensor<16xi64>) -> tensor<i64> {
  %0 = loom.reduce sum %x, dims = [0] : tensor<16xi64> -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Tests that loom.gather reads the indices through a map over the leading result dims and
// extracts from the table at the index clamped into [0, rows - 1], the row dims following.
// CHECK-DAG: #[[IDX:[a-z0-9_]+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OUT:[a-z0-9_]+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:[a-z0-9_]+]]: tensor<100x16xf32>, %[[I:[a-z0-9_]+]]: tensor<4x8xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<4x8xi32>) outs(%{{.*}} : tensor<4x8x16xf32>)
// CHECK-NEXT: ^bb0(%[[ID:[a-z0-9_]+]]: i32, %{{[a-z0-9_]+}}: f32):
// CHECK-NEXT: %[[AS:[a-z0-9_]+]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT: %[[C0:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[C99:[a-z0-9_]+]] = arith.constant 99 : index
// CHECK-NEXT: %[[LO:[a-z0-9_]+]] = arith.maxsi %[[AS]], %[[C0]] : index
// CHECK-NEXT: %[[ROW:[a-z0-9_]+]] = arith.minsi %[[LO]], %[[C99]] : index
// CHECK-NEXT: %[[COL:[a-z0-9_]+]] = linalg.index 2 : index
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<100x16xf32>
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @gather(%t: tensor<100x16xf32>, %i: tensor<4x8xi32>) -> tensor<4x8x16xf32> {
  %0 = loom.gather %t[%i] : (tensor<100x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}

// -----

// Tests that loom.scatter_add works on 2-d views ([count, row] updates, [rows, row] result
// filled with 0) and loops over the indices with scf.for, adding each update row into the
// clamped result row with extract_slice / generic / insert_slice. The row is the generic's
// output, which its body adds to, so bufferization updates the result in place.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[U:[a-z0-9_]+]]: tensor<4x8x16xf32>, %[[I:[a-z0-9_]+]]: tensor<4x8xi32>)
// CHECK: %[[U2:[a-z0-9_]+]] = tensor.collapse_shape %[[U]] {{\[}}[0, 1], [2]] : tensor<4x8x16xf32> into tensor<32x16xf32>
// CHECK: %[[I1:[a-z0-9_]+]] = tensor.collapse_shape %[[I]] {{\[}}[0, 1]] : tensor<4x8xi32> into tensor<32xi32>
// CHECK: %[[ZERO:[a-z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:[a-z0-9_]+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<100x16xf32>)
// CHECK: %[[LB:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK: %[[UB:[a-z0-9_]+]] = arith.constant 32 : index
// CHECK: %[[STEP:[a-z0-9_]+]] = arith.constant 1 : index
// CHECK: %[[LOOP:[a-z0-9_]+]] = scf.for %[[IV:[a-z0-9_]+]] = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[ACC:[a-z0-9_]+]] = %[[INIT]]) -> (tensor<100x16xf32>)
// CHECK: %[[IDX:[a-z0-9_]+]] = tensor.extract %[[I1]][%[[IV]]] : tensor<32xi32>
// CHECK: %[[AS:[a-z0-9_]+]] = arith.index_cast %[[IDX]] : i32 to index
// CHECK: %[[C99:[a-z0-9_]+]] = arith.constant 99 : index
// CHECK: %[[LO:[a-z0-9_]+]] = arith.maxsi %[[AS]], %{{[a-z0-9_]+}} : index
// CHECK: %[[ROW:[a-z0-9_]+]] = arith.minsi %[[LO]], %[[C99]] : index
// CHECK: %[[UPD:[a-z0-9_]+]] = tensor.extract_slice %[[U2]][%[[IV]], 0] [1, 16] [1, 1] : tensor<32x16xf32> to tensor<1x16xf32>
// CHECK: %[[CUR:[a-z0-9_]+]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [1, 16] [1, 1] : tensor<100x16xf32> to tensor<1x16xf32>
// CHECK: %[[SUM:[a-z0-9_]+]] = linalg.generic {{.*}} ins(%[[UPD]] : tensor<1x16xf32>) outs(%[[CUR]] : tensor<1x16xf32>)
// CHECK-NEXT: ^bb0(%[[IN:[a-z0-9_]+]]: f32, %[[OUT:[a-z0-9_]+]]: f32):
// CHECK-NEXT: arith.addf %[[OUT]], %[[IN]] : f32
// CHECK: %[[NEXT:[a-z0-9_]+]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[ROW]], 0] [1, 16] [1, 1] : tensor<1x16xf32> into tensor<100x16xf32>
// CHECK: scf.yield %[[NEXT]] : tensor<100x16xf32>
// CHECK: return %[[LOOP]] : tensor<100x16xf32>
func.func @scatter_add(%u: tensor<4x8x16xf32>, %i: tensor<4x8xi32>) -> tensor<100x16xf32> {
  %0 = loom.scatter_add %u[%i] : (tensor<4x8x16xf32>, tensor<4x8xi32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

// Tests that a scatter_add of one row (a gather's gradient at a scalar index) is one parallel
// pass over the result, writing the update (added to zero, as the loop adds it) on the
// clamped row and zero elsewhere: no loop of one iteration, which would fold into a slice at
// a start the GPU's host side cannot read.
// CHECK-LABEL: func.func @scatter_add_one_row
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<8x4xf32>)
// CHECK-NEXT: ^bb0(%[[U:[a-z0-9_]+]]: f32, %[[I:[a-z0-9_]+]]: i32, %{{.*}}: f32):
// CHECK: %[[LO:[a-z0-9_]+]] = arith.maxsi
// CHECK: %[[ROW:[a-z0-9_]+]] = arith.minsi %[[LO]], %{{[a-z0-9_]+}} : index
// CHECK: %[[R:[a-z0-9_]+]] = linalg.index 0 : index
// CHECK: %[[HERE:[a-z0-9_]+]] = arith.cmpi eq, %[[R]], %[[ROW]] : index
// CHECK: %[[ADDED:[a-z0-9_]+]] = arith.addf %[[ZERO:[a-z0-9_]+]], %[[U]] : f32
// CHECK: %[[V:[a-z0-9_]+]] = arith.select %[[HERE]], %[[ADDED]], %[[ZERO]] : f32
// CHECK: linalg.yield %[[V]] : f32
// CHECK-NOT: scf.for
func.func @scatter_add_one_row(%u: tensor<4xf32>, %i: tensor<i32>) -> tensor<8x4xf32> {
  %0 = loom.scatter_add %u[%i] : (tensor<4xf32>, tensor<i32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Tests that a rank-1 scatter_add result works on a [rows, 1] view, adds with arith.addi on
// integers, and is collapsed back to rank 1.
// CHECK-LABEL: func.func @scatter_add_rank1
// CHECK: %[[INIT:[a-z0-9_]+]] = linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<9x1xi32>)
// CHECK: %[[LOOP:[a-z0-9_]+]] = scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (tensor<9x1xi32>)
// CHECK: arith.index_cast %{{.*}} : i64 to index
// CHECK: arith.constant 8 : index
// CHECK: arith.addi
// CHECK: %[[R:[a-z0-9_]+]] = tensor.collapse_shape %[[LOOP]] {{\[}}[0, 1]] : tensor<9x1xi32> into tensor<9xi32>
// CHECK: return %[[R]] : tensor<9xi32>
func.func @scatter_add_rank1(%u: tensor<2x3xi32>, %i: tensor<2x3xi64>) -> tensor<9xi32> {
  %0 = loom.scatter_add %u[%i] : (tensor<2x3xi32>, tensor<2x3xi64>) -> tensor<9xi32>
  return %0 : tensor<9xi32>
}

// -----

// Tests that scatter_add into a table with no rows is just an empty (zero) tensor.
// CHECK-LABEL: func.func @scatter_add_no_rows
// CHECK-NOT: scf.for
// CHECK: linalg.fill
// CHECK-SAME: tensor<0x16xf32>
func.func @scatter_add_no_rows(%u: tensor<3x16xf32>, %i: tensor<3xi32>) -> tensor<0x16xf32> {
  %0 = loom.scatter_add %u[%i] : (tensor<3x16xf32>, tensor<3xi32>) -> tensor<0x16xf32>
  return %0 : tensor<0x16xf32>
}

// -----

// Tests that shifts give 0 for amounts outside [0, 32) (arith's shifts would give poison)
// and that bitcast_convert is arith.bitcast.
// CHECK-LABEL: func.func @shift_and_bitcast
// CHECK: linalg.generic
// CHECK: %[[W:.*]] = arith.constant 32 : i32
// CHECK: %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %[[W]] : i32
// CHECK: %[[S:.*]] = arith.shrui
// CHECK: arith.select %[[OK]], %[[S]], %{{.*}} : i32
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : i32 to f32
func.func @shift_and_bitcast(%a: tensor<4xi32>) -> tensor<4xf32> {
  %0 = loom.shift_right_logical %a, %a : tensor<4xi32>
  %1 = loom.bitcast_convert %0 : tensor<4xi32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
