// RUN: loom-opt %s -loom-approximate-math -split-input-file | FileCheck %s

// Tests of loom-approximate-math: f32 (and f16/bf16, through f32) transcendental math ops
// become polynomial arith/math.fma code that LLVM can vectorize, with no libm call left.

// Tests that f32 math.tanh becomes a rational approximation: the input clamped to
// [-7.99881172, 7.99881172], odd numerator and even denominator polynomials in x^2 evaluated
// with math.fma, their quotient, and x itself for |x| < 4e-4.
// CHECK-LABEL: func.func @tanh_f32
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: f32) -> f32
// CHECK-NOT: math.tanh
// CHECK-DAG: %[[SMALL:[a-z0-9_]+]] = arith.constant 4.000000e-04 : f32
// CHECK-DAG: %[[LO:[a-z0-9_]+]] = arith.constant -7.99881172 : f32
// CHECK-DAG: %[[HI:[a-z0-9_]+]] = arith.constant 7.99881172 : f32
// CHECK: %[[C1:[a-z0-9_]+]] = arith.cmpf ult, %[[X]], %[[HI]] : f32
// CHECK-NEXT: %[[X1:[a-z0-9_]+]] = arith.select %[[C1]], %[[X]], %[[HI]] : f32
// CHECK-NEXT: %[[C2:[a-z0-9_]+]] = arith.cmpf ugt, %[[X1]], %[[LO]] : f32
// CHECK-NEXT: %[[XC:[a-z0-9_]+]] = arith.select %[[C2]], %[[X1]], %[[LO]] : f32
// CHECK-NEXT: %[[ABS:[a-z0-9_]+]] = math.absf %[[X]] : f32
// CHECK-NEXT: %[[ISSMALL:[a-z0-9_]+]] = arith.cmpf olt, %[[ABS]], %[[SMALL]] : f32
// CHECK-NEXT: %[[X2:[a-z0-9_]+]] = arith.mulf %[[XC]], %[[XC]] : f32
// CHECK-COUNT-6: math.fma %[[X2]], %{{.*}} : f32
// CHECK-NEXT: %[[NUM:[a-z0-9_]+]] = arith.mulf %[[XC]], %{{[a-z0-9_]+}} : f32
// CHECK-COUNT-3: math.fma %[[X2]], %{{.*}} : f32
// CHECK-NEXT: %[[Q:[a-z0-9_]+]] = arith.divf %[[NUM]], %{{[a-z0-9_]+}} : f32
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = arith.select %[[ISSMALL]], %[[XC]], %[[Q]] : f32
// CHECK-NEXT: return %[[R]] : f32
// CHECK-NOT: math.tanh
func.func @tanh_f32(%x: f32) -> f32 {
  %0 = math.tanh %x : f32
  return %0 : f32
}

// -----

// Tests that f32 math.exp becomes a range reduction (x clamped to [-87.8, 88.8],
// n = floor(x * log2(e) + 0.5)), a polynomial in the remainder, and a scaling by 2^n built
// from the exponent bits ((n + 127) << 23, bitcast to f32).
// CHECK-LABEL: func.func @exp_f32
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: f32) -> f32
// CHECK-NOT: math.exp
// CHECK-DAG: %[[BIAS:[a-z0-9_]+]] = arith.constant 127 : i32
// CHECK-DAG: %[[SHIFT:[a-z0-9_]+]] = arith.constant 23 : i32
// CHECK-DAG: %[[LOG2E:[a-z0-9_]+]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[MIN:[a-z0-9_]+]] = arith.constant -8.780000e+01 : f32
// CHECK-DAG: %[[MAX:[a-z0-9_]+]] = arith.constant 8.880000e+01 : f32
// CHECK: arith.cmpf uge, %[[X]], %[[MIN]] : f32
// CHECK: arith.cmpf ule, %{{[a-z0-9_]+}}, %[[MAX]] : f32
// CHECK: %[[XC:[a-z0-9_]+]] = arith.select
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = math.fma %[[XC]], %[[LOG2E]], %{{[a-z0-9_]+}} : f32
// CHECK-NEXT: math.floor %[[T]] : f32
// CHECK: math.fma
// CHECK: %[[P:[a-z0-9_]+]] = arith.addf %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : f32
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = arith.fptosi %{{[a-z0-9_]+}} : f32 to i32
// CHECK-NEXT: %[[NB:[a-z0-9_]+]] = arith.addi %[[N]], %[[BIAS]] : i32
// CHECK-NEXT: %[[BITS:[a-z0-9_]+]] = arith.shli %[[NB]], %[[SHIFT]] : i32
// CHECK-NEXT: %[[SCALE:[a-z0-9_]+]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = arith.mulf %[[P]], %[[SCALE]] : f32
// CHECK-NEXT: return %[[R]] : f32
func.func @exp_f32(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  return %0 : f32
}

// -----

// Tests that bf16 math is computed in f32: extended first, truncated at the end.
// CHECK-LABEL: func.func @tanh_bf16
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: bf16) -> bf16
// CHECK-NOT: math.tanh
// CHECK: %[[W:[a-z0-9_]+]] = arith.extf %[[X]] : bf16 to f32
// CHECK: math.fma %{{.*}} : f32
// CHECK: arith.divf %{{.*}} : f32
// CHECK: %[[R:[a-z0-9_]+]] = arith.truncf %{{[a-z0-9_]+}} : f32 to bf16
// CHECK-NEXT: return %[[R]] : bf16
func.func @tanh_bf16(%x: bf16) -> bf16 {
  %0 = math.tanh %x : bf16
  return %0 : bf16
}

// -----

// Tests that vectors are approximated elementwise with vector constants (here math.log: the
// exponent read from the float bits, times ln 2, plus a polynomial in the mantissa).
// CHECK-LABEL: func.func @log_vector
// CHECK-NOT: math.log
// CHECK-DAG: arith.constant dense<0.693147182> : vector<8xf32>
// CHECK: arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: math.fma %{{.*}} : vector<8xf32>
// CHECK-NOT: math.log
func.func @log_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.log %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// -----

// Tests that a math op inside a linalg.generic body is rewritten in place.
// CHECK-LABEL: func.func @in_generic
// CHECK: linalg.generic
// CHECK-NOT: math.tanh
// CHECK: arith.divf
// CHECK: linalg.yield
func.func @in_generic(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that ops without an f32 polynomial are left alone: f64 math.tanh, math.sqrt (an
// instruction, not a libm call) and math.powf.
// CHECK-LABEL: func.func @left_alone
// CHECK: math.tanh %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f32
// CHECK: math.powf %{{.*}} : f32
func.func @left_alone(%d: f64, %x: f32, %y: f32) -> (f64, f32, f32) {
  %0 = math.tanh %d : f64
  %1 = math.sqrt %x : f32
  %2 = math.powf %x, %y : f32
  return %0, %1, %2 : f64, f32, f32
}

// -----

// Tests that f32/f64 max and min become LLVM's intrinsics of the same semantics (LLVM
// vectorizes them as reductions, unlike the compares and selects arith-expand would make),
// and that bf16 max is left for the f32 emulation.
// CHECK-LABEL: func.func @max_min
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %[[C:[a-z0-9_]+]]: f64, %[[C2:[a-z0-9_]+]]: f64, %[[D:[a-z0-9_]+]]: vector<4xf32>, %[[D2:[a-z0-9_]+]]: vector<4xf32>, %[[E:[a-z0-9_]+]]: bf16, %[[E2:[a-z0-9_]+]]: bf16)
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = llvm.intr.maximum(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[N:[a-z0-9_]+]] = llvm.intr.minimum(%[[C]], %[[C2]]) : (f64, f64) -> f64
// CHECK-NEXT: %[[P:[a-z0-9_]+]] = llvm.intr.maxnum(%[[A]], %[[M]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[Q:[a-z0-9_]+]] = llvm.intr.minnum(%[[D]], %[[D2]]) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = arith.maximumf %[[E]], %[[E2]] : bf16
// CHECK-NEXT: return %[[P]], %[[N]], %[[Q]], %[[R]]
func.func @max_min(%a: f32, %b: f32, %c: f64, %c2: f64, %d: vector<4xf32>, %d2: vector<4xf32>, %e: bf16, %e2: bf16) -> (f32, f64, vector<4xf32>, bf16) {
  %m = arith.maximumf %a, %b : f32
  %n = arith.minimumf %c, %c2 : f64
  %p = arith.maxnumf %a, %m : f32
  %q = arith.minnumf %d, %d2 : vector<4xf32>
  %r = arith.maximumf %e, %e2 : bf16
  return %p, %n, %q, %r : f32, f64, vector<4xf32>, bf16
}
