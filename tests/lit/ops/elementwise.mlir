// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round-trip tests of the elementwise ops: every op is printed and re-parsed with each
// element type it accepts.

// CHECK-LABEL: func.func @neg(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
func.func @neg(%f32_0: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>) {
  // CHECK: %{{.+}} = loom.neg %[[F32_0]] : tensor<2x3xf32>
  %r_f32 = loom.neg %f32_0 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.neg %[[F64_0]] : tensor<2x3xf64>
  %r_f64 = loom.neg %f64_0 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.neg %[[BF16_0]] : tensor<2x3xbf16>
  %r_bf16 = loom.neg %bf16_0 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.neg %[[F16_0]] : tensor<2x3xf16>
  %r_f16 = loom.neg %f16_0 : tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.neg %[[I32_0]] : tensor<2x3xi32>
  %r_i32 = loom.neg %i32_0 : tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.neg %[[I64_0]] : tensor<2x3xi64>
  %r_i64 = loom.neg %i64_0 : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @abs(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
func.func @abs(%f32_0: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>) {
  // CHECK: %{{.+}} = loom.abs %[[F32_0]] : tensor<2x3xf32>
  %r_f32 = loom.abs %f32_0 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.abs %[[F64_0]] : tensor<2x3xf64>
  %r_f64 = loom.abs %f64_0 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.abs %[[BF16_0]] : tensor<2x3xbf16>
  %r_bf16 = loom.abs %bf16_0 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.abs %[[F16_0]] : tensor<2x3xf16>
  %r_f16 = loom.abs %f16_0 : tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.abs %[[I32_0]] : tensor<2x3xi32>
  %r_i32 = loom.abs %i32_0 : tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.abs %[[I64_0]] : tensor<2x3xi64>
  %r_i64 = loom.abs %i64_0 : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @exp(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
func.func @exp(%f32_0: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>) {
  // CHECK: %{{.+}} = loom.exp %[[F32_0]] : tensor<2x3xf32>
  %r_f32 = loom.exp %f32_0 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.exp %[[F64_0]] : tensor<2x3xf64>
  %r_f64 = loom.exp %f64_0 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.exp %[[BF16_0]] : tensor<2x3xbf16>
  %r_bf16 = loom.exp %bf16_0 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.exp %[[F16_0]] : tensor<2x3xf16>
  %r_f16 = loom.exp %f16_0 : tensor<2x3xf16>
  return
}

// CHECK-LABEL: func.func @log(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
func.func @log(%f32_0: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>) {
  // CHECK: %{{.+}} = loom.log %[[F32_0]] : tensor<2x3xf32>
  %r_f32 = loom.log %f32_0 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.log %[[F64_0]] : tensor<2x3xf64>
  %r_f64 = loom.log %f64_0 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.log %[[BF16_0]] : tensor<2x3xbf16>
  %r_bf16 = loom.log %bf16_0 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.log %[[F16_0]] : tensor<2x3xf16>
  %r_f16 = loom.log %f16_0 : tensor<2x3xf16>
  return
}

// CHECK-LABEL: func.func @tanh(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
func.func @tanh(%f32_0: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>) {
  // CHECK: %{{.+}} = loom.tanh %[[F32_0]] : tensor<2x3xf32>
  %r_f32 = loom.tanh %f32_0 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.tanh %[[F64_0]] : tensor<2x3xf64>
  %r_f64 = loom.tanh %f64_0 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.tanh %[[BF16_0]] : tensor<2x3xbf16>
  %r_bf16 = loom.tanh %bf16_0 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.tanh %[[F16_0]] : tensor<2x3xf16>
  %r_f16 = loom.tanh %f16_0 : tensor<2x3xf16>
  return
}

// CHECK-LABEL: func.func @sqrt(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
func.func @sqrt(%f32_0: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>) {
  // CHECK: %{{.+}} = loom.sqrt %[[F32_0]] : tensor<2x3xf32>
  %r_f32 = loom.sqrt %f32_0 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.sqrt %[[F64_0]] : tensor<2x3xf64>
  %r_f64 = loom.sqrt %f64_0 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.sqrt %[[BF16_0]] : tensor<2x3xbf16>
  %r_bf16 = loom.sqrt %bf16_0 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.sqrt %[[F16_0]] : tensor<2x3xf16>
  %r_f16 = loom.sqrt %f16_0 : tensor<2x3xf16>
  return
}

// CHECK-LABEL: func.func @rsqrt(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
func.func @rsqrt(%f32_0: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>) {
  // CHECK: %{{.+}} = loom.rsqrt %[[F32_0]] : tensor<2x3xf32>
  %r_f32 = loom.rsqrt %f32_0 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.rsqrt %[[F64_0]] : tensor<2x3xf64>
  %r_f64 = loom.rsqrt %f64_0 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.rsqrt %[[BF16_0]] : tensor<2x3xbf16>
  %r_bf16 = loom.rsqrt %bf16_0 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.rsqrt %[[F16_0]] : tensor<2x3xf16>
  %r_f16 = loom.rsqrt %f16_0 : tensor<2x3xf16>
  return
}

// CHECK-LABEL: func.func @logistic(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
func.func @logistic(%f32_0: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>) {
  // CHECK: %{{.+}} = loom.logistic %[[F32_0]] : tensor<2x3xf32>
  %r_f32 = loom.logistic %f32_0 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.logistic %[[F64_0]] : tensor<2x3xf64>
  %r_f64 = loom.logistic %f64_0 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.logistic %[[BF16_0]] : tensor<2x3xbf16>
  %r_bf16 = loom.logistic %bf16_0 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.logistic %[[F16_0]] : tensor<2x3xf16>
  %r_f16 = loom.logistic %f16_0 : tensor<2x3xf16>
  return
}

// CHECK-LABEL: func.func @unary_shapes(
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<f32>, %[[V:[a-z0-9]+]]: tensor<7xf32>, %[[M:[a-z0-9]+]]: tensor<1x2x3x4xf32>
func.func @unary_shapes(%s: tensor<f32>, %v: tensor<7xf32>, %m: tensor<1x2x3x4xf32>) {
  // CHECK: loom.exp %[[S]] : tensor<f32>
  %0 = loom.exp %s : tensor<f32>
  // CHECK: loom.neg %[[V]] : tensor<7xf32>
  %1 = loom.neg %v : tensor<7xf32>
  // CHECK: loom.tanh %[[M]] {some.attr = 1 : i64} : tensor<1x2x3x4xf32>
  %2 = loom.tanh %m {some.attr = 1} : tensor<1x2x3x4xf32>
  return
}

// CHECK-LABEL: func.func @add(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F32_1:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[F64_1:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[BF16_1:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F16_1:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I32_1:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I64_1:[a-z0-9]+]]: tensor<2x3xi64>
func.func @add(%f32_0: tensor<2x3xf32>, %f32_1: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %f64_1: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %bf16_1: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f16_1: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i32_1: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>, %i64_1: tensor<2x3xi64>) {
  // CHECK: %{{.+}} = loom.add %[[F32_0]], %[[F32_1]] : tensor<2x3xf32>
  %r_f32 = loom.add %f32_0, %f32_1 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.add %[[F64_0]], %[[F64_1]] : tensor<2x3xf64>
  %r_f64 = loom.add %f64_0, %f64_1 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.add %[[BF16_0]], %[[BF16_1]] : tensor<2x3xbf16>
  %r_bf16 = loom.add %bf16_0, %bf16_1 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.add %[[F16_0]], %[[F16_1]] : tensor<2x3xf16>
  %r_f16 = loom.add %f16_0, %f16_1 : tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.add %[[I32_0]], %[[I32_1]] : tensor<2x3xi32>
  %r_i32 = loom.add %i32_0, %i32_1 : tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.add %[[I64_0]], %[[I64_1]] : tensor<2x3xi64>
  %r_i64 = loom.add %i64_0, %i64_1 : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @sub(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F32_1:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[F64_1:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[BF16_1:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F16_1:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I32_1:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I64_1:[a-z0-9]+]]: tensor<2x3xi64>
func.func @sub(%f32_0: tensor<2x3xf32>, %f32_1: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %f64_1: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %bf16_1: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f16_1: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i32_1: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>, %i64_1: tensor<2x3xi64>) {
  // CHECK: %{{.+}} = loom.sub %[[F32_0]], %[[F32_1]] : tensor<2x3xf32>
  %r_f32 = loom.sub %f32_0, %f32_1 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.sub %[[F64_0]], %[[F64_1]] : tensor<2x3xf64>
  %r_f64 = loom.sub %f64_0, %f64_1 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.sub %[[BF16_0]], %[[BF16_1]] : tensor<2x3xbf16>
  %r_bf16 = loom.sub %bf16_0, %bf16_1 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.sub %[[F16_0]], %[[F16_1]] : tensor<2x3xf16>
  %r_f16 = loom.sub %f16_0, %f16_1 : tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.sub %[[I32_0]], %[[I32_1]] : tensor<2x3xi32>
  %r_i32 = loom.sub %i32_0, %i32_1 : tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.sub %[[I64_0]], %[[I64_1]] : tensor<2x3xi64>
  %r_i64 = loom.sub %i64_0, %i64_1 : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @mul(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F32_1:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[F64_1:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[BF16_1:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F16_1:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I32_1:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I64_1:[a-z0-9]+]]: tensor<2x3xi64>
func.func @mul(%f32_0: tensor<2x3xf32>, %f32_1: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %f64_1: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %bf16_1: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f16_1: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i32_1: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>, %i64_1: tensor<2x3xi64>) {
  // CHECK: %{{.+}} = loom.mul %[[F32_0]], %[[F32_1]] : tensor<2x3xf32>
  %r_f32 = loom.mul %f32_0, %f32_1 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.mul %[[F64_0]], %[[F64_1]] : tensor<2x3xf64>
  %r_f64 = loom.mul %f64_0, %f64_1 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.mul %[[BF16_0]], %[[BF16_1]] : tensor<2x3xbf16>
  %r_bf16 = loom.mul %bf16_0, %bf16_1 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.mul %[[F16_0]], %[[F16_1]] : tensor<2x3xf16>
  %r_f16 = loom.mul %f16_0, %f16_1 : tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.mul %[[I32_0]], %[[I32_1]] : tensor<2x3xi32>
  %r_i32 = loom.mul %i32_0, %i32_1 : tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.mul %[[I64_0]], %[[I64_1]] : tensor<2x3xi64>
  %r_i64 = loom.mul %i64_0, %i64_1 : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @div(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F32_1:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[F64_1:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[BF16_1:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F16_1:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I32_1:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I64_1:[a-z0-9]+]]: tensor<2x3xi64>
func.func @div(%f32_0: tensor<2x3xf32>, %f32_1: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %f64_1: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %bf16_1: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f16_1: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i32_1: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>, %i64_1: tensor<2x3xi64>) {
  // CHECK: %{{.+}} = loom.div %[[F32_0]], %[[F32_1]] : tensor<2x3xf32>
  %r_f32 = loom.div %f32_0, %f32_1 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.div %[[F64_0]], %[[F64_1]] : tensor<2x3xf64>
  %r_f64 = loom.div %f64_0, %f64_1 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.div %[[BF16_0]], %[[BF16_1]] : tensor<2x3xbf16>
  %r_bf16 = loom.div %bf16_0, %bf16_1 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.div %[[F16_0]], %[[F16_1]] : tensor<2x3xf16>
  %r_f16 = loom.div %f16_0, %f16_1 : tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.div %[[I32_0]], %[[I32_1]] : tensor<2x3xi32>
  %r_i32 = loom.div %i32_0, %i32_1 : tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.div %[[I64_0]], %[[I64_1]] : tensor<2x3xi64>
  %r_i64 = loom.div %i64_0, %i64_1 : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @max(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F32_1:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[F64_1:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[BF16_1:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F16_1:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I32_1:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I64_1:[a-z0-9]+]]: tensor<2x3xi64>
func.func @max(%f32_0: tensor<2x3xf32>, %f32_1: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %f64_1: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %bf16_1: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f16_1: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i32_1: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>, %i64_1: tensor<2x3xi64>) {
  // CHECK: %{{.+}} = loom.max %[[F32_0]], %[[F32_1]] : tensor<2x3xf32>
  %r_f32 = loom.max %f32_0, %f32_1 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.max %[[F64_0]], %[[F64_1]] : tensor<2x3xf64>
  %r_f64 = loom.max %f64_0, %f64_1 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.max %[[BF16_0]], %[[BF16_1]] : tensor<2x3xbf16>
  %r_bf16 = loom.max %bf16_0, %bf16_1 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.max %[[F16_0]], %[[F16_1]] : tensor<2x3xf16>
  %r_f16 = loom.max %f16_0, %f16_1 : tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.max %[[I32_0]], %[[I32_1]] : tensor<2x3xi32>
  %r_i32 = loom.max %i32_0, %i32_1 : tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.max %[[I64_0]], %[[I64_1]] : tensor<2x3xi64>
  %r_i64 = loom.max %i64_0, %i64_1 : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @min(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F32_1:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[F64_1:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[BF16_1:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F16_1:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I32_1:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I64_1:[a-z0-9]+]]: tensor<2x3xi64>
func.func @min(%f32_0: tensor<2x3xf32>, %f32_1: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %f64_1: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %bf16_1: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f16_1: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i32_1: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>, %i64_1: tensor<2x3xi64>) {
  // CHECK: %{{.+}} = loom.min %[[F32_0]], %[[F32_1]] : tensor<2x3xf32>
  %r_f32 = loom.min %f32_0, %f32_1 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.min %[[F64_0]], %[[F64_1]] : tensor<2x3xf64>
  %r_f64 = loom.min %f64_0, %f64_1 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.min %[[BF16_0]], %[[BF16_1]] : tensor<2x3xbf16>
  %r_bf16 = loom.min %bf16_0, %bf16_1 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.min %[[F16_0]], %[[F16_1]] : tensor<2x3xf16>
  %r_f16 = loom.min %f16_0, %f16_1 : tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.min %[[I32_0]], %[[I32_1]] : tensor<2x3xi32>
  %r_i32 = loom.min %i32_0, %i32_1 : tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.min %[[I64_0]], %[[I64_1]] : tensor<2x3xi64>
  %r_i64 = loom.min %i64_0, %i64_1 : tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @pow(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F32_1:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[F64_1:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[BF16_1:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F16_1:[a-z0-9]+]]: tensor<2x3xf16>
func.func @pow(%f32_0: tensor<2x3xf32>, %f32_1: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %f64_1: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %bf16_1: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f16_1: tensor<2x3xf16>) {
  // CHECK: %{{.+}} = loom.pow %[[F32_0]], %[[F32_1]] : tensor<2x3xf32>
  %r_f32 = loom.pow %f32_0, %f32_1 : tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.pow %[[F64_0]], %[[F64_1]] : tensor<2x3xf64>
  %r_f64 = loom.pow %f64_0, %f64_1 : tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.pow %[[BF16_0]], %[[BF16_1]] : tensor<2x3xbf16>
  %r_bf16 = loom.pow %bf16_0, %bf16_1 : tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.pow %[[F16_0]], %[[F16_1]] : tensor<2x3xf16>
  %r_f16 = loom.pow %f16_0, %f16_1 : tensor<2x3xf16>
  return
}

// CHECK-LABEL: func.func @binary_shapes(
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<i32>, %[[V:[a-z0-9]+]]: tensor<7xf64>
func.func @binary_shapes(%s: tensor<i32>, %v: tensor<7xf64>) {
  // CHECK: loom.add %[[S]], %[[S]] : tensor<i32>
  %0 = loom.add %s, %s : tensor<i32>
  // CHECK: loom.pow %[[V]], %[[V]] : tensor<7xf64>
  %1 = loom.pow %v, %v : tensor<7xf64>
  return
}

// CHECK-LABEL: func.func @compare_types(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F32_1:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[F64_1:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[BF16_1:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F16_1:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I32_1:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I64_1:[a-z0-9]+]]: tensor<2x3xi64>
func.func @compare_types(%f32_0: tensor<2x3xf32>, %f32_1: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %f64_1: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %bf16_1: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f16_1: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i32_1: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>, %i64_1: tensor<2x3xi64>) {
  // CHECK: %{{.+}} = loom.compare eq, %[[F32_0]], %[[F32_1]] : tensor<2x3xf32> -> tensor<2x3xi1>
  %r_f32 = loom.compare eq, %f32_0, %f32_1 : tensor<2x3xf32> -> tensor<2x3xi1>
  // CHECK: %{{.+}} = loom.compare ne, %[[F64_0]], %[[F64_1]] : tensor<2x3xf64> -> tensor<2x3xi1>
  %r_f64 = loom.compare ne, %f64_0, %f64_1 : tensor<2x3xf64> -> tensor<2x3xi1>
  // CHECK: %{{.+}} = loom.compare lt, %[[BF16_0]], %[[BF16_1]] : tensor<2x3xbf16> -> tensor<2x3xi1>
  %r_bf16 = loom.compare lt, %bf16_0, %bf16_1 : tensor<2x3xbf16> -> tensor<2x3xi1>
  // CHECK: %{{.+}} = loom.compare le, %[[F16_0]], %[[F16_1]] : tensor<2x3xf16> -> tensor<2x3xi1>
  %r_f16 = loom.compare le, %f16_0, %f16_1 : tensor<2x3xf16> -> tensor<2x3xi1>
  // CHECK: %{{.+}} = loom.compare gt, %[[I32_0]], %[[I32_1]] : tensor<2x3xi32> -> tensor<2x3xi1>
  %r_i32 = loom.compare gt, %i32_0, %i32_1 : tensor<2x3xi32> -> tensor<2x3xi1>
  // CHECK: %{{.+}} = loom.compare ge, %[[I64_0]], %[[I64_1]] : tensor<2x3xi64> -> tensor<2x3xi1>
  %r_i64 = loom.compare ge, %i64_0, %i64_1 : tensor<2x3xi64> -> tensor<2x3xi1>
  return
}

// CHECK-LABEL: func.func @compare_directions(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4xf32>, %[[S:[a-z0-9]+]]: tensor<i64>
func.func @compare_directions(%a: tensor<4xf32>, %b: tensor<4xf32>, %s: tensor<i64>) {
  // CHECK: loom.compare eq, %[[A]], %[[B]] : tensor<4xf32> -> tensor<4xi1>
  %eq = loom.compare eq, %a, %b : tensor<4xf32> -> tensor<4xi1>
  // CHECK: loom.compare ne, %[[A]], %[[B]] : tensor<4xf32> -> tensor<4xi1>
  %ne = loom.compare ne, %a, %b : tensor<4xf32> -> tensor<4xi1>
  // CHECK: loom.compare lt, %[[A]], %[[B]] : tensor<4xf32> -> tensor<4xi1>
  %lt = loom.compare lt, %a, %b : tensor<4xf32> -> tensor<4xi1>
  // CHECK: loom.compare le, %[[A]], %[[B]] : tensor<4xf32> -> tensor<4xi1>
  %le = loom.compare le, %a, %b : tensor<4xf32> -> tensor<4xi1>
  // CHECK: loom.compare gt, %[[A]], %[[B]] : tensor<4xf32> -> tensor<4xi1>
  %gt = loom.compare gt, %a, %b : tensor<4xf32> -> tensor<4xi1>
  // CHECK: loom.compare ge, %[[A]], %[[B]] : tensor<4xf32> -> tensor<4xi1>
  %ge = loom.compare ge, %a, %b : tensor<4xf32> -> tensor<4xi1>
  // CHECK: loom.compare ge, %[[S]], %[[S]] : tensor<i64> -> tensor<i1>
  %s_ge = loom.compare ge, %s, %s : tensor<i64> -> tensor<i1>
  return
}

// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<2x3xi1>
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F32_1:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[F64_1:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[BF16_1:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F16_1:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I32_1:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I64_1:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I1_0:[a-z0-9]+]]: tensor<2x3xi1>
// CHECK-SAME: %[[I1_1:[a-z0-9]+]]: tensor<2x3xi1>
func.func @select(%p: tensor<2x3xi1>, %f32_0: tensor<2x3xf32>, %f32_1: tensor<2x3xf32>, %f64_0: tensor<2x3xf64>, %f64_1: tensor<2x3xf64>, %bf16_0: tensor<2x3xbf16>, %bf16_1: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f16_1: tensor<2x3xf16>, %i32_0: tensor<2x3xi32>, %i32_1: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>, %i64_1: tensor<2x3xi64>, %i1_0: tensor<2x3xi1>, %i1_1: tensor<2x3xi1>) {
  // CHECK: %{{.+}} = loom.select %[[P]], %[[F32_0]], %[[F32_1]] : tensor<2x3xi1>, tensor<2x3xf32>
  %r_f32 = loom.select %p, %f32_0, %f32_1 : tensor<2x3xi1>, tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.select %[[P]], %[[F64_0]], %[[F64_1]] : tensor<2x3xi1>, tensor<2x3xf64>
  %r_f64 = loom.select %p, %f64_0, %f64_1 : tensor<2x3xi1>, tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.select %[[P]], %[[BF16_0]], %[[BF16_1]] : tensor<2x3xi1>, tensor<2x3xbf16>
  %r_bf16 = loom.select %p, %bf16_0, %bf16_1 : tensor<2x3xi1>, tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.select %[[P]], %[[F16_0]], %[[F16_1]] : tensor<2x3xi1>, tensor<2x3xf16>
  %r_f16 = loom.select %p, %f16_0, %f16_1 : tensor<2x3xi1>, tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.select %[[P]], %[[I32_0]], %[[I32_1]] : tensor<2x3xi1>, tensor<2x3xi32>
  %r_i32 = loom.select %p, %i32_0, %i32_1 : tensor<2x3xi1>, tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.select %[[P]], %[[I64_0]], %[[I64_1]] : tensor<2x3xi1>, tensor<2x3xi64>
  %r_i64 = loom.select %p, %i64_0, %i64_1 : tensor<2x3xi1>, tensor<2x3xi64>
  // CHECK: %{{.+}} = loom.select %[[P]], %[[I1_0]], %[[I1_1]] : tensor<2x3xi1>, tensor<2x3xi1>
  %r_i1 = loom.select %p, %i1_0, %i1_1 : tensor<2x3xi1>, tensor<2x3xi1>
  return
}

// CHECK-LABEL: func.func @select_rank0(
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<i1>, %[[A:[a-z0-9]+]]: tensor<f32>
func.func @select_rank0(%p: tensor<i1>, %a: tensor<f32>) {
  // CHECK: loom.select %[[P]], %[[A]], %[[A]] : tensor<i1>, tensor<f32>
  %0 = loom.select %p, %a, %a : tensor<i1>, tensor<f32>
  return
}

// CHECK-LABEL: func.func @convert(
// CHECK-SAME: %[[F32_0:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME: %[[BF16_0:[a-z0-9]+]]: tensor<2x3xbf16>
// CHECK-SAME: %[[F16_0:[a-z0-9]+]]: tensor<2x3xf16>
// CHECK-SAME: %[[F64_0:[a-z0-9]+]]: tensor<2x3xf64>
// CHECK-SAME: %[[I32_0:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK-SAME: %[[I64_0:[a-z0-9]+]]: tensor<2x3xi64>
// CHECK-SAME: %[[I1_0:[a-z0-9]+]]: tensor<2x3xi1>
func.func @convert(%f32_0: tensor<2x3xf32>, %bf16_0: tensor<2x3xbf16>, %f16_0: tensor<2x3xf16>, %f64_0: tensor<2x3xf64>, %i32_0: tensor<2x3xi32>, %i64_0: tensor<2x3xi64>, %i1_0: tensor<2x3xi1>) {
  // CHECK: %{{.+}} = loom.convert %[[F32_0]] : tensor<2x3xf32> -> tensor<2x3xbf16>
  %f32_to_bf16 = loom.convert %f32_0 : tensor<2x3xf32> -> tensor<2x3xbf16>
  // CHECK: %{{.+}} = loom.convert %[[BF16_0]] : tensor<2x3xbf16> -> tensor<2x3xf32>
  %bf16_to_f32 = loom.convert %bf16_0 : tensor<2x3xbf16> -> tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.convert %[[F32_0]] : tensor<2x3xf32> -> tensor<2x3xf16>
  %f32_to_f16 = loom.convert %f32_0 : tensor<2x3xf32> -> tensor<2x3xf16>
  // CHECK: %{{.+}} = loom.convert %[[F16_0]] : tensor<2x3xf16> -> tensor<2x3xf64>
  %f16_to_f64 = loom.convert %f16_0 : tensor<2x3xf16> -> tensor<2x3xf64>
  // CHECK: %{{.+}} = loom.convert %[[F64_0]] : tensor<2x3xf64> -> tensor<2x3xf32>
  %f64_to_f32 = loom.convert %f64_0 : tensor<2x3xf64> -> tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.convert %[[F32_0]] : tensor<2x3xf32> -> tensor<2x3xi32>
  %f32_to_i32 = loom.convert %f32_0 : tensor<2x3xf32> -> tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.convert %[[I32_0]] : tensor<2x3xi32> -> tensor<2x3xf32>
  %i32_to_f32 = loom.convert %i32_0 : tensor<2x3xi32> -> tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.convert %[[BF16_0]] : tensor<2x3xbf16> -> tensor<2x3xi64>
  %bf16_to_i64 = loom.convert %bf16_0 : tensor<2x3xbf16> -> tensor<2x3xi64>
  // CHECK: %{{.+}} = loom.convert %[[I64_0]] : tensor<2x3xi64> -> tensor<2x3xi32>
  %i64_to_i32 = loom.convert %i64_0 : tensor<2x3xi64> -> tensor<2x3xi32>
  // CHECK: %{{.+}} = loom.convert %[[I32_0]] : tensor<2x3xi32> -> tensor<2x3xi64>
  %i32_to_i64 = loom.convert %i32_0 : tensor<2x3xi32> -> tensor<2x3xi64>
  // CHECK: %{{.+}} = loom.convert %[[I32_0]] : tensor<2x3xi32> -> tensor<2x3xi1>
  %i32_to_i1 = loom.convert %i32_0 : tensor<2x3xi32> -> tensor<2x3xi1>
  // CHECK: %{{.+}} = loom.convert %[[F32_0]] : tensor<2x3xf32> -> tensor<2x3xi1>
  %f32_to_i1 = loom.convert %f32_0 : tensor<2x3xf32> -> tensor<2x3xi1>
  // CHECK: %{{.+}} = loom.convert %[[I1_0]] : tensor<2x3xi1> -> tensor<2x3xf32>
  %i1_to_f32 = loom.convert %i1_0 : tensor<2x3xi1> -> tensor<2x3xf32>
  // CHECK: %{{.+}} = loom.convert %[[I1_0]] : tensor<2x3xi1> -> tensor<2x3xi64>
  %i1_to_i64 = loom.convert %i1_0 : tensor<2x3xi1> -> tensor<2x3xi64>
  // CHECK: %{{.+}} = loom.convert %[[F32_0]] : tensor<2x3xf32> -> tensor<2x3xf32>
  %f32_to_f32 = loom.convert %f32_0 : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @convert_rank0(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<f64>
func.func @convert_rank0(%a: tensor<f64>) -> tensor<bf16> {
  // CHECK: %[[R:.+]] = loom.convert %[[A]] : tensor<f64> -> tensor<bf16>
  // CHECK: return %[[R]] : tensor<bf16>
  %0 = loom.convert %a : tensor<f64> -> tensor<bf16>
  return %0 : tensor<bf16>
}
