// RUN: loom-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds of the elementwise ops (LoomFolds.cpp), and what must not fold.

// x + 0 -> x for floats.
// CHECK-LABEL: func.func @add_zero_rhs_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.add
// CHECK: return %[[X]] : tensor<4xf32>
func.func @add_zero_rhs_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = loom.constant dense<0.0> : tensor<4xf32>
  %0 = loom.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 0 + x -> x for floats.
// CHECK-LABEL: func.func @add_zero_lhs_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.add
// CHECK: return %[[X]] : tensor<4xf32>
func.func @add_zero_lhs_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = loom.constant dense<0.0> : tensor<4xf32>
  %0 = loom.add %c, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x + (-0) -> x for floats (exact in IEEE too).
// CHECK-LABEL: func.func @add_neg_zero_rhs_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.add
// CHECK: return %[[X]] : tensor<4xf32>
func.func @add_neg_zero_rhs_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = loom.constant dense<-0.0> : tensor<4xf32>
  %0 = loom.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x + 0 -> x for integers.
// CHECK-LABEL: func.func @add_zero_rhs_i32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-NOT: loom.add
// CHECK: return %[[X]] : tensor<2x3xi32>
func.func @add_zero_rhs_i32(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %c = loom.constant dense<0> : tensor<2x3xi32>
  %0 = loom.add %x, %c : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// 0 + x -> x for integers.
// CHECK-LABEL: func.func @add_zero_lhs_i64(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<3xi64>
// CHECK-NOT: loom.add
// CHECK: return %[[X]] : tensor<3xi64>
func.func @add_zero_lhs_i64(%x: tensor<3xi64>) -> tensor<3xi64> {
  %c = loom.constant dense<0> : tensor<3xi64>
  %0 = loom.add %c, %x : tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// x - 0 -> x for floats.
// CHECK-LABEL: func.func @sub_zero_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.sub
// CHECK: return %[[X]] : tensor<4xf32>
func.func @sub_zero_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = loom.constant dense<0.0> : tensor<4xf32>
  %0 = loom.sub %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x - 0 -> x for integers.
// CHECK-LABEL: func.func @sub_zero_i32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi32>
// CHECK-NOT: loom.sub
// CHECK: return %[[X]] : tensor<4xi32>
func.func @sub_zero_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = loom.constant dense<0> : tensor<4xi32>
  %0 = loom.sub %x, %c : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// x * 1 -> x for floats.
// CHECK-LABEL: func.func @mul_one_rhs_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.mul
// CHECK: return %[[X]] : tensor<4xf32>
func.func @mul_one_rhs_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = loom.constant dense<1.0> : tensor<4xf32>
  %0 = loom.mul %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 1 * x -> x for floats.
// CHECK-LABEL: func.func @mul_one_lhs_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.mul
// CHECK: return %[[X]] : tensor<4xf32>
func.func @mul_one_lhs_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = loom.constant dense<1.0> : tensor<4xf32>
  %0 = loom.mul %c, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x * 1 -> x for integers.
// CHECK-LABEL: func.func @mul_one_rhs_i32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi32>
// CHECK-NOT: loom.mul
// CHECK: return %[[X]] : tensor<4xi32>
func.func @mul_one_rhs_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = loom.constant dense<1> : tensor<4xi32>
  %0 = loom.mul %x, %c : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// 1 * x -> x for integers.
// CHECK-LABEL: func.func @mul_one_lhs_i64(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi64>
// CHECK-NOT: loom.mul
// CHECK: return %[[X]] : tensor<4xi64>
func.func @mul_one_lhs_i64(%x: tensor<4xi64>) -> tensor<4xi64> {
  %c = loom.constant dense<1> : tensor<4xi64>
  %0 = loom.mul %c, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// x * 1 -> x for bf16.
// CHECK-LABEL: func.func @mul_one_rhs_bf16(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xbf16>
// CHECK-NOT: loom.mul
// CHECK: return %[[X]] : tensor<4xbf16>
func.func @mul_one_rhs_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %c = loom.constant dense<1.0> : tensor<4xbf16>
  %0 = loom.mul %x, %c : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// x / 1 -> x for floats.
// CHECK-LABEL: func.func @div_one_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.div
// CHECK: return %[[X]] : tensor<4xf32>
func.func @div_one_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = loom.constant dense<1.0> : tensor<4xf32>
  %0 = loom.div %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x / 1 -> x for integers.
// CHECK-LABEL: func.func @div_one_i32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi32>
// CHECK-NOT: loom.div
// CHECK: return %[[X]] : tensor<4xi32>
func.func @div_one_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = loom.constant dense<1> : tensor<4xi32>
  %0 = loom.div %x, %c : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// pow(x, 1) -> x.
// CHECK-LABEL: func.func @pow_one_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.pow
// CHECK: return %[[X]] : tensor<4xf32>
func.func @pow_one_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = loom.constant dense<1.0> : tensor<4xf32>
  %0 = loom.pow %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// pow(x, 1) -> x for f16.
// CHECK-LABEL: func.func @pow_one_f16(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf16>
// CHECK-NOT: loom.pow
// CHECK: return %[[X]] : tensor<4xf16>
func.func @pow_one_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %c = loom.constant dense<1.0> : tensor<4xf16>
  %0 = loom.pow %x, %c : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// max(x, x) -> x.
// CHECK-LABEL: func.func @max_self_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.max
// CHECK: return %[[X]] : tensor<4xf32>
func.func @max_self_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.max %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// max(x, x) -> x for integers.
// CHECK-LABEL: func.func @max_self_i32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi32>
// CHECK-NOT: loom.max
// CHECK: return %[[X]] : tensor<4xi32>
func.func @max_self_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = loom.max %x, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// min(x, x) -> x.
// CHECK-LABEL: func.func @min_self_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.min
// CHECK: return %[[X]] : tensor<4xf32>
func.func @min_self_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.min %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// min(x, x) -> x for integers.
// CHECK-LABEL: func.func @min_self_i64(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi64>
// CHECK-NOT: loom.min
// CHECK: return %[[X]] : tensor<4xi64>
func.func @min_self_i64(%x: tensor<4xi64>) -> tensor<4xi64> {
  %0 = loom.min %x, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// neg(neg(x)) -> x.
// CHECK-LABEL: func.func @neg_neg_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.neg
// CHECK: return %[[X]] : tensor<4xf32>
func.func @neg_neg_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.neg %x : tensor<4xf32>
  %1 = loom.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// abs(abs(x)) -> abs(x): one abs stays.
// CHECK-LABEL: func.func @abs_abs_f32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[A:.+]] = loom.abs %[[X]] : tensor<4xf32>
// CHECK-NOT: loom.abs
// CHECK: return %[[A]], %[[A]] : tensor<4xf32>, tensor<4xf32>
func.func @abs_abs_f32(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = loom.abs %x : tensor<4xf32>
  %1 = loom.abs %0 : tensor<4xf32>
  %2 = loom.abs %1 : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// neg(neg(x)) -> x.
// CHECK-LABEL: func.func @neg_neg_i32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi32>
// CHECK-NOT: loom.neg
// CHECK: return %[[X]] : tensor<4xi32>
func.func @neg_neg_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = loom.neg %x : tensor<4xi32>
  %1 = loom.neg %0 : tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// abs(abs(x)) -> abs(x): one abs stays.
// CHECK-LABEL: func.func @abs_abs_i32(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi32>
// CHECK: %[[A:.+]] = loom.abs %[[X]] : tensor<4xi32>
// CHECK-NOT: loom.abs
// CHECK: return %[[A]], %[[A]] : tensor<4xi32>, tensor<4xi32>
func.func @abs_abs_i32(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = loom.abs %x : tensor<4xi32>
  %1 = loom.abs %0 : tensor<4xi32>
  %2 = loom.abs %1 : tensor<4xi32>
  return %1, %2 : tensor<4xi32>, tensor<4xi32>
}

// -----

// neg(neg(neg(x))) -> neg(x).
// CHECK-LABEL: func.func @neg_neg_neg(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[N:.+]] = loom.neg %[[X]] : tensor<4xf32>
// CHECK-NOT: loom.neg
// CHECK: return %[[N]] : tensor<4xf32>
func.func @neg_neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.neg %x : tensor<4xf32>
  %1 = loom.neg %0 : tensor<4xf32>
  %2 = loom.neg %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Constant folding of loom.add on splat and non-splat f32 and i32 constants.
// CHECK-LABEL: func.func @fold_add(
// CHECK-DAG: %[[SF:.+]] = loom.constant dense<3.750000e+00> : tensor<2xf32>
// CHECK-DAG: %[[SI:.+]] = loom.constant dense<4> : tensor<2xi32>
// CHECK-DAG: %[[DF:.+]] = loom.constant dense<[1.500000e+00, -2.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[DI:.+]] = loom.constant dense<[11, -18, -2147483648]> : tensor<3xi32>
// CHECK-NOT: loom.add
// CHECK: return %[[SF]], %[[SI]], %[[DF]], %[[DI]] :
func.func @fold_add() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>) {
  %sfa = loom.constant dense<1.5> : tensor<2xf32>
  %sfb = loom.constant dense<2.25> : tensor<2xf32>
  %sf = loom.add %sfa, %sfb : tensor<2xf32>
  %sia = loom.constant dense<7> : tensor<2xi32>
  %sib = loom.constant dense<-3> : tensor<2xi32>
  %si = loom.add %sia, %sib : tensor<2xi32>
  %dfa = loom.constant dense<[1.0, 2.0, -3.0]> : tensor<3xf32>
  %dfb = loom.constant dense<[0.5, -4.0, 3.0]> : tensor<3xf32>
  %df = loom.add %dfa, %dfb : tensor<3xf32>
  %dia = loom.constant dense<[1, 2, 2147483647]> : tensor<3xi32>
  %dib = loom.constant dense<[10, -20, 1]> : tensor<3xi32>
  %di = loom.add %dia, %dib : tensor<3xi32>
  return %sf, %si, %df, %di : tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// Constant folding of loom.sub on splat and non-splat f32 and i32 constants.
// CHECK-LABEL: func.func @fold_sub(
// CHECK-DAG: %[[SF:.+]] = loom.constant dense<-7.500000e-01> : tensor<2xf32>
// CHECK-DAG: %[[SI:.+]] = loom.constant dense<10> : tensor<2xi32>
// CHECK-DAG: %[[DF:.+]] = loom.constant dense<[5.000000e-01, 6.000000e+00, -6.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[DI:.+]] = loom.constant dense<[-9, 22, 2147483647]> : tensor<3xi32>
// CHECK-NOT: loom.sub
// CHECK: return %[[SF]], %[[SI]], %[[DF]], %[[DI]] :
func.func @fold_sub() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>) {
  %sfa = loom.constant dense<1.5> : tensor<2xf32>
  %sfb = loom.constant dense<2.25> : tensor<2xf32>
  %sf = loom.sub %sfa, %sfb : tensor<2xf32>
  %sia = loom.constant dense<7> : tensor<2xi32>
  %sib = loom.constant dense<-3> : tensor<2xi32>
  %si = loom.sub %sia, %sib : tensor<2xi32>
  %dfa = loom.constant dense<[1.0, 2.0, -3.0]> : tensor<3xf32>
  %dfb = loom.constant dense<[0.5, -4.0, 3.0]> : tensor<3xf32>
  %df = loom.sub %dfa, %dfb : tensor<3xf32>
  %dia = loom.constant dense<[1, 2, -2147483648]> : tensor<3xi32>
  %dib = loom.constant dense<[10, -20, 1]> : tensor<3xi32>
  %di = loom.sub %dia, %dib : tensor<3xi32>
  return %sf, %si, %df, %di : tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// Constant folding of loom.mul on splat and non-splat f32 and i32 constants.
// CHECK-LABEL: func.func @fold_mul(
// CHECK-DAG: %[[SF:.+]] = loom.constant dense<3.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[SI:.+]] = loom.constant dense<-21> : tensor<2xi32>
// CHECK-DAG: %[[DF:.+]] = loom.constant dense<[5.000000e-01, -8.000000e+00, -9.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[DI:.+]] = loom.constant dense<[10, -40, 0]> : tensor<3xi32>
// CHECK-NOT: loom.mul
// CHECK: return %[[SF]], %[[SI]], %[[DF]], %[[DI]] :
func.func @fold_mul() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>) {
  %sfa = loom.constant dense<1.5> : tensor<2xf32>
  %sfb = loom.constant dense<2.0> : tensor<2xf32>
  %sf = loom.mul %sfa, %sfb : tensor<2xf32>
  %sia = loom.constant dense<7> : tensor<2xi32>
  %sib = loom.constant dense<-3> : tensor<2xi32>
  %si = loom.mul %sia, %sib : tensor<2xi32>
  %dfa = loom.constant dense<[1.0, 2.0, -3.0]> : tensor<3xf32>
  %dfb = loom.constant dense<[0.5, -4.0, 3.0]> : tensor<3xf32>
  %df = loom.mul %dfa, %dfb : tensor<3xf32>
  %dia = loom.constant dense<[1, 2, 65536]> : tensor<3xi32>
  %dib = loom.constant dense<[10, -20, 65536]> : tensor<3xi32>
  %di = loom.mul %dia, %dib : tensor<3xi32>
  return %sf, %si, %df, %di : tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// Constant folding of loom.div on splat and non-splat f32 and i32 constants.
// CHECK-LABEL: func.func @fold_div(
// CHECK-DAG: %[[SF:.+]] = loom.constant dense<1.500000e+00> : tensor<2xf32>
// CHECK-DAG: %[[SI:.+]] = loom.constant dense<-3> : tensor<2xi32>
// CHECK-DAG: %[[DF:.+]] = loom.constant dense<[2.000000e+00, -5.000000e-01, 0xFF800000]> : tensor<3xf32>
// CHECK-DAG: %[[DI:.+]] = loom.constant dense<[3, -3, -10]> : tensor<3xi32>
// CHECK-NOT: loom.div
// CHECK: return %[[SF]], %[[SI]], %[[DF]], %[[DI]] :
func.func @fold_div() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>) {
  %sfa = loom.constant dense<3.0> : tensor<2xf32>
  %sfb = loom.constant dense<2.0> : tensor<2xf32>
  %sf = loom.div %sfa, %sfb : tensor<2xf32>
  %sia = loom.constant dense<7> : tensor<2xi32>
  %sib = loom.constant dense<-2> : tensor<2xi32>
  %si = loom.div %sia, %sib : tensor<2xi32>
  %dfa = loom.constant dense<[1.0, 2.0, -3.0]> : tensor<3xf32>
  %dfb = loom.constant dense<[0.5, -4.0, 0.0]> : tensor<3xf32>
  %df = loom.div %dfa, %dfb : tensor<3xf32>
  %dia = loom.constant dense<[7, -7, 100]> : tensor<3xi32>
  %dib = loom.constant dense<[2, 2, -10]> : tensor<3xi32>
  %di = loom.div %dia, %dib : tensor<3xi32>
  return %sf, %si, %df, %di : tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// Constant folding of loom.max on splat and non-splat f32 and i32 constants.
// CHECK-LABEL: func.func @fold_max(
// CHECK-DAG: %[[SF:.+]] = loom.constant dense<1.500000e+00> : tensor<2xf32>
// CHECK-DAG: %[[SI:.+]] = loom.constant dense<7> : tensor<2xi32>
// CHECK-DAG: %[[DF:.+]] = loom.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[DI:.+]] = loom.constant dense<[10, -2, 5]> : tensor<3xi32>
// CHECK-NOT: loom.max
// CHECK: return %[[SF]], %[[SI]], %[[DF]], %[[DI]] :
func.func @fold_max() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>) {
  %sfa = loom.constant dense<1.5> : tensor<2xf32>
  %sfb = loom.constant dense<-2.0> : tensor<2xf32>
  %sf = loom.max %sfa, %sfb : tensor<2xf32>
  %sia = loom.constant dense<7> : tensor<2xi32>
  %sib = loom.constant dense<-3> : tensor<2xi32>
  %si = loom.max %sia, %sib : tensor<2xi32>
  %dfa = loom.constant dense<[1.0, 2.0, -3.0]> : tensor<3xf32>
  %dfb = loom.constant dense<[0.5, -4.0, 3.0]> : tensor<3xf32>
  %df = loom.max %dfa, %dfb : tensor<3xf32>
  %dia = loom.constant dense<[1, -2, 5]> : tensor<3xi32>
  %dib = loom.constant dense<[10, -20, 5]> : tensor<3xi32>
  %di = loom.max %dia, %dib : tensor<3xi32>
  return %sf, %si, %df, %di : tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// Constant folding of loom.min on splat and non-splat f32 and i32 constants.
// CHECK-LABEL: func.func @fold_min(
// CHECK-DAG: %[[SF:.+]] = loom.constant dense<-2.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[SI:.+]] = loom.constant dense<-3> : tensor<2xi32>
// CHECK-DAG: %[[DF:.+]] = loom.constant dense<[5.000000e-01, -4.000000e+00, -3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[DI:.+]] = loom.constant dense<[1, -20, 5]> : tensor<3xi32>
// CHECK-NOT: loom.min
// CHECK: return %[[SF]], %[[SI]], %[[DF]], %[[DI]] :
func.func @fold_min() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>) {
  %sfa = loom.constant dense<1.5> : tensor<2xf32>
  %sfb = loom.constant dense<-2.0> : tensor<2xf32>
  %sf = loom.min %sfa, %sfb : tensor<2xf32>
  %sia = loom.constant dense<7> : tensor<2xi32>
  %sib = loom.constant dense<-3> : tensor<2xi32>
  %si = loom.min %sia, %sib : tensor<2xi32>
  %dfa = loom.constant dense<[1.0, 2.0, -3.0]> : tensor<3xf32>
  %dfb = loom.constant dense<[0.5, -4.0, 3.0]> : tensor<3xf32>
  %df = loom.min %dfa, %dfb : tensor<3xf32>
  %dia = loom.constant dense<[1, -2, 5]> : tensor<3xi32>
  %dib = loom.constant dense<[10, -20, 5]> : tensor<3xi32>
  %di = loom.min %dia, %dib : tensor<3xi32>
  return %sf, %si, %df, %di : tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// max and min of constants propagate NaN and order -0 below +0.
// CHECK-LABEL: func.func @fold_max_min_nan(
// CHECK-DAG: %[[MAX:.+]] = loom.constant dense<[0x7FC00000, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[MIN:.+]] = loom.constant dense<[0x7FC00000, -0.000000e+00]> : tensor<2xf32>
// CHECK-NOT: loom.max
// CHECK-NOT: loom.min
// CHECK: return %[[MAX]], %[[MIN]] :
func.func @fold_max_min_nan() -> (tensor<2xf32>, tensor<2xf32>) {
  %a = loom.constant dense<[0x7FC00000, -0.0]> : tensor<2xf32>
  %b = loom.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %0 = loom.max %a, %b : tensor<2xf32>
  %1 = loom.min %b, %a : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Constant folding of loom.neg on f32 and i32, splat and non-splat.
// CHECK-LABEL: func.func @fold_neg(
// CHECK-DAG: %[[SF:.+]] = loom.constant dense<-1.500000e+00> : tensor<2xf32>
// CHECK-DAG: %[[SI:.+]] = loom.constant dense<7> : tensor<2xi32>
// CHECK-DAG: %[[DF:.+]] = loom.constant dense<[-1.000000e+00, 2.000000e+00, -0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[DI:.+]] = loom.constant dense<[-1, 2, -2147483648]> : tensor<3xi32>
// CHECK-NOT: loom.neg
// CHECK: return %[[SF]], %[[SI]], %[[DF]], %[[DI]] :
func.func @fold_neg() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>) {
  %sf = loom.constant dense<1.5> : tensor<2xf32>
  %si = loom.constant dense<-7> : tensor<2xi32>
  %df = loom.constant dense<[1.0, -2.0, 0.0]> : tensor<3xf32>
  %di = loom.constant dense<[1, -2, -2147483648]> : tensor<3xi32>
  %0 = loom.neg %sf : tensor<2xf32>
  %1 = loom.neg %si : tensor<2xi32>
  %2 = loom.neg %df : tensor<3xf32>
  %3 = loom.neg %di : tensor<3xi32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// Constant folding of loom.abs on f32 and i32, splat and non-splat.
// CHECK-LABEL: func.func @fold_abs(
// CHECK-DAG: %[[SF:.+]] = loom.constant dense<1.500000e+00> : tensor<2xf32>
// CHECK-DAG: %[[SI:.+]] = loom.constant dense<7> : tensor<2xi32>
// CHECK-DAG: %[[DF:.+]] = loom.constant dense<[1.000000e+00, 2.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[DI:.+]] = loom.constant dense<[1, 2, 0]> : tensor<3xi32>
// CHECK-NOT: loom.abs
// CHECK: return %[[SF]], %[[SI]], %[[DF]], %[[DI]] :
func.func @fold_abs() -> (tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>) {
  %sf = loom.constant dense<-1.5> : tensor<2xf32>
  %si = loom.constant dense<-7> : tensor<2xi32>
  %df = loom.constant dense<[1.0, -2.0, -0.0]> : tensor<3xf32>
  %di = loom.constant dense<[1, -2, 0]> : tensor<3xi32>
  %0 = loom.abs %sf : tensor<2xf32>
  %1 = loom.abs %si : tensor<2xi32>
  %2 = loom.abs %df : tensor<3xf32>
  %3 = loom.abs %di : tensor<3xi32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xi32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// Constant folding of loom.compare on i32 in every direction.
// CHECK-LABEL: func.func @fold_compare_i32(
// CHECK-DAG: %[[EQ:.+]] = loom.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[NE:.+]] = loom.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[LT:.+]] = loom.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[LE:.+]] = loom.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[GT:.+]] = loom.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[GE:.+]] = loom.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-NOT: loom.compare
// CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]] :
func.func @fold_compare_i32() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = loom.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = loom.constant dense<2> : tensor<3xi32>
  %eq = loom.compare eq, %a, %b : tensor<3xi32> -> tensor<3xi1>
  %ne = loom.compare ne, %a, %b : tensor<3xi32> -> tensor<3xi1>
  %lt = loom.compare lt, %a, %b : tensor<3xi32> -> tensor<3xi1>
  %le = loom.compare le, %a, %b : tensor<3xi32> -> tensor<3xi1>
  %gt = loom.compare gt, %a, %b : tensor<3xi32> -> tensor<3xi1>
  %ge = loom.compare ge, %a, %b : tensor<3xi32> -> tensor<3xi1>
  return %eq, %ne, %lt, %le, %gt, %ge : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// Constant folding of loom.compare on f32 in every direction: ordered comparisons
// give false on NaN, ne gives true.
// CHECK-LABEL: func.func @fold_compare_f32_nan(
// CHECK-DAG: %[[EQ:.+]] = loom.constant dense<[false, true, false, false]> : tensor<4xi1>
// CHECK-DAG: %[[NE:.+]] = loom.constant dense<[true, false, true, true]> : tensor<4xi1>
// CHECK-DAG: %[[LT:.+]] = loom.constant dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-DAG: %[[LE:.+]] = loom.constant dense<[true, true, false, false]> : tensor<4xi1>
// CHECK-DAG: %[[GT:.+]] = loom.constant dense<[false, false, true, false]> : tensor<4xi1>
// CHECK-DAG: %[[GE:.+]] = loom.constant dense<[false, true, true, false]> : tensor<4xi1>
// CHECK-NOT: loom.compare
// CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]] :
func.func @fold_compare_f32_nan() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %a = loom.constant dense<[1.0, 2.0, 3.0, 0x7FC00000]> : tensor<4xf32>
  %b = loom.constant dense<2.0> : tensor<4xf32>
  %eq = loom.compare eq, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %ne = loom.compare ne, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %lt = loom.compare lt, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %le = loom.compare le, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %gt = loom.compare gt, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %ge = loom.compare ge, %a, %b : tensor<4xf32> -> tensor<4xi1>
  return %eq, %ne, %lt, %le, %gt, %ge : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// NaN compared with itself: every direction but ne is false.
// CHECK-LABEL: func.func @fold_compare_nan_splat(
// CHECK-DAG: %[[F:.+]] = loom.constant dense<false> : tensor<2xi1>
// CHECK-DAG: %[[T:.+]] = loom.constant dense<true> : tensor<2xi1>
// CHECK-NOT: loom.compare
// CHECK: return %[[F]], %[[T]], %[[F]], %[[F]], %[[F]], %[[F]] :
func.func @fold_compare_nan_splat() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %nan = loom.constant dense<0x7FC00000> : tensor<2xf32>
  %eq = loom.compare eq, %nan, %nan : tensor<2xf32> -> tensor<2xi1>
  %ne = loom.compare ne, %nan, %nan : tensor<2xf32> -> tensor<2xi1>
  %lt = loom.compare lt, %nan, %nan : tensor<2xf32> -> tensor<2xi1>
  %le = loom.compare le, %nan, %nan : tensor<2xf32> -> tensor<2xi1>
  %gt = loom.compare gt, %nan, %nan : tensor<2xf32> -> tensor<2xi1>
  %ge = loom.compare ge, %nan, %nan : tensor<2xf32> -> tensor<2xi1>
  return %eq, %ne, %lt, %le, %gt, %ge : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// Integer comparison is signed: -1 < 1, and i64 splats fold to splats.
// CHECK-LABEL: func.func @fold_compare_signed(
// CHECK-DAG: %[[T:.+]] = loom.constant dense<true> : tensor<2xi1>
// CHECK-DAG: %[[F:.+]] = loom.constant dense<false> : tensor<2xi1>
// CHECK-NOT: loom.compare
// CHECK: return %[[T]], %[[F]] :
func.func @fold_compare_signed() -> (tensor<2xi1>, tensor<2xi1>) {
  %m = loom.constant dense<-1> : tensor<2xi64>
  %p = loom.constant dense<1> : tensor<2xi64>
  %0 = loom.compare lt, %m, %p : tensor<2xi64> -> tensor<2xi1>
  %1 = loom.compare gt, %m, %p : tensor<2xi64> -> tensor<2xi1>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
}

// -----

// select with a constant all-true pred is on_true.
// CHECK-LABEL: func.func @select_true(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>, %[[Y:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: loom.select
// CHECK: return %[[X]] : tensor<4xf32>
func.func @select_true(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %p = loom.constant dense<true> : tensor<4xi1>
  %0 = loom.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// select with a constant all-false pred is on_false.
// CHECK-LABEL: func.func @select_false(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi32>, %[[Y:[a-z0-9]+]]: tensor<4xi32>
// CHECK-NOT: loom.select
// CHECK: return %[[Y]] : tensor<4xi32>
func.func @select_false(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %p = loom.constant dense<false> : tensor<4xi1>
  %0 = loom.select %p, %x, %y : tensor<4xi1>, tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// select(p, x, x) is x whatever p is.
// CHECK-LABEL: func.func @select_same(
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<4xi1>, %[[X:[a-z0-9]+]]: tensor<4xbf16>
// CHECK-NOT: loom.select
// CHECK: return %[[X]] : tensor<4xbf16>
func.func @select_same(%p: tensor<4xi1>, %x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = loom.select %p, %x, %x : tensor<4xi1>, tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// select with a pred that is not constant and distinct branches stays.
// CHECK-LABEL: func.func @select_stays(
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<4xi1>, %[[X:[a-z0-9]+]]: tensor<4xf32>, %[[Y:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[S:.+]] = loom.select %[[P]], %[[X]], %[[Y]] : tensor<4xi1>, tensor<4xf32>
// CHECK: return %[[S]] : tensor<4xf32>
func.func @select_stays(%p: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// convert to the operand's own type is the operand.
// CHECK-LABEL: func.func @convert_same(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>, %[[I:[a-z0-9]+]]: tensor<2xi1>
// CHECK-NOT: loom.convert
// CHECK: return %[[X]], %[[I]] : tensor<4xf32>, tensor<2xi1>
func.func @convert_same(%x: tensor<4xf32>, %i: tensor<2xi1>) -> (tensor<4xf32>, tensor<2xi1>) {
  %0 = loom.convert %x : tensor<4xf32> -> tensor<4xf32>
  %1 = loom.convert %i : tensor<2xi1> -> tensor<2xi1>
  return %0, %1 : tensor<4xf32>, tensor<2xi1>
}

// -----

// convert to another element type stays.
// CHECK-LABEL: func.func @convert_other(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[C:.+]] = loom.convert %[[X]] : tensor<4xf32> -> tensor<4xbf16>
// CHECK: return %[[C]] : tensor<4xbf16>
func.func @convert_other(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = loom.convert %x : tensor<4xf32> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// x * 0 stays a mul for floats (NaN * 0 and inf * 0 are NaN, -x * 0 is -0).
// CHECK-LABEL: func.func @mul_zero_f32_stays(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[Z:.+]] = loom.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: %[[M:.+]] = loom.mul %[[X]], %[[Z]] : tensor<4xf32>
// CHECK: return %[[M]] : tensor<4xf32>
func.func @mul_zero_f32_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = loom.constant dense<0.0> : tensor<4xf32>
  %0 = loom.mul %x, %z : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// i32 division by a zero constant is left for run time.
// CHECK-LABEL: func.func @div_by_zero_i32_stays(
// CHECK-DAG: %[[A:.+]] = loom.constant dense<[7, -7]> : tensor<2xi32>
// CHECK-DAG: %[[Z:.+]] = loom.constant dense<0> : tensor<2xi32>
// CHECK: %[[D:.+]] = loom.div %[[A]], %[[Z]] : tensor<2xi32>
// CHECK: return %[[D]] : tensor<2xi32>
func.func @div_by_zero_i32_stays() -> tensor<2xi32> {
  %a = loom.constant dense<[7, -7]> : tensor<2xi32>
  %z = loom.constant dense<0> : tensor<2xi32>
  %0 = loom.div %a, %z : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// A non-splat i32 divisor with one zero element also blocks the fold.
// CHECK-LABEL: func.func @div_by_partial_zero_i32_stays(
// CHECK: %[[D:.+]] = loom.div
// CHECK: return %[[D]] : tensor<2xi32>
func.func @div_by_partial_zero_i32_stays() -> tensor<2xi32> {
  %a = loom.constant dense<[7, -7]> : tensor<2xi32>
  %z = loom.constant dense<[1, 0]> : tensor<2xi32>
  %0 = loom.div %a, %z : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// INT_MIN / -1 overflows and is left for run time.
// CHECK-LABEL: func.func @div_overflow_i32_stays(
// CHECK-DAG: %[[A:.+]] = loom.constant dense<-2147483648> : tensor<2xi32>
// CHECK-DAG: %[[M:.+]] = loom.constant dense<-1> : tensor<2xi32>
// CHECK: %[[D:.+]] = loom.div %[[A]], %[[M]] : tensor<2xi32>
// CHECK: return %[[D]] : tensor<2xi32>
func.func @div_overflow_i32_stays() -> tensor<2xi32> {
  %a = loom.constant dense<-2147483648> : tensor<2xi32>
  %m = loom.constant dense<-1> : tensor<2xi32>
  %0 = loom.div %a, %m : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// x - x stays (it is NaN for x = NaN or inf).
// CHECK-LABEL: func.func @sub_self_stays(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[S:.+]] = loom.sub %[[X]], %[[X]] : tensor<4xf32>
// CHECK: return %[[S]] : tensor<4xf32>
func.func @sub_self_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.sub %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 0 - x stays (it is neg(x), not x).
// CHECK-LABEL: func.func @zero_sub_stays(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xi32>
// CHECK: %[[Z:.+]] = loom.constant dense<0> : tensor<4xi32>
// CHECK: %[[S:.+]] = loom.sub %[[Z]], %[[X]] : tensor<4xi32>
// CHECK: return %[[S]] : tensor<4xi32>
func.func @zero_sub_stays(%x: tensor<4xi32>) -> tensor<4xi32> {
  %z = loom.constant dense<0> : tensor<4xi32>
  %0 = loom.sub %z, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// x / x and compare eq x, x stay (NaN).
// CHECK-LABEL: func.func @self_div_compare_stay(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[D:.+]] = loom.div %[[X]], %[[X]] : tensor<4xf32>
// CHECK: %[[C:.+]] = loom.compare eq, %[[X]], %[[X]] : tensor<4xf32> -> tensor<4xi1>
// CHECK: return %[[D]], %[[C]] :
func.func @self_div_compare_stay(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>) {
  %0 = loom.div %x, %x : tensor<4xf32>
  %1 = loom.compare eq, %x, %x : tensor<4xf32> -> tensor<4xi1>
  return %0, %1 : tensor<4xf32>, tensor<4xi1>
}

// -----

// A constant that is not 1 (or not 0) does not trigger the identities.
// CHECK-LABEL: func.func @near_identities_stay(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4xf32>
// CHECK-DAG: %[[TWO:.+]] = loom.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[EPS:.+]] = loom.constant dense<1.000000e-30> : tensor<4xf32>
// CHECK-DAG: %[[A:.+]] = loom.add %[[X]], %[[EPS]] : tensor<4xf32>
// CHECK-DAG: %[[M:.+]] = loom.mul %[[X]], %[[TWO]] : tensor<4xf32>
// CHECK-DAG: %[[P:.+]] = loom.pow %[[X]], %[[TWO]] : tensor<4xf32>
// CHECK: return %[[A]], %[[M]], %[[P]] :
func.func @near_identities_stay(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %two = loom.constant dense<2.0> : tensor<4xf32>
  %eps = loom.constant dense<1.0e-30> : tensor<4xf32>
  %0 = loom.add %x, %eps : tensor<4xf32>
  %1 = loom.mul %x, %two : tensor<4xf32>
  %2 = loom.pow %x, %two : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A non-splat pred, even if constant, is not one of the select identities.
// CHECK-LABEL: func.func @select_mixed_pred_stays(
// CHECK: loom.select
func.func @select_mixed_pred_stays(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %p = loom.constant dense<[true, false]> : tensor<2xi1>
  %0 = loom.select %p, %x, %y : tensor<2xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}
