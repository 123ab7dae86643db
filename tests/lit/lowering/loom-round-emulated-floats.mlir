// RUN: loom-opt %s -arith-emulate-unsupported-floats="source-types=bf16 target-type=f32" -loom-round-emulated-floats -canonicalize -split-input-file | FileCheck %s

// Tests that a bf16 product added to a bf16 value is rounded to bf16 before the add, as
// each 16-bit op rounds its result: without the pass, canonicalize folds the emulation's
// extf(truncf(product)) to the f32 product.
// CHECK-LABEL: func.func @product_then_add
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: %[[R:.*]] = arith.truncf %[[P]] : f32 to bf16
// CHECK: %[[W:.*]] = arith.extf %[[R]] : bf16 to f32
// CHECK: arith.addf %[[W]], %{{.*}} : f32
func.func @product_then_add(%a: bf16, %b: bf16) -> bf16 {
  %p = arith.mulf %a, %b : bf16
  %s = arith.addf %p, %a : bf16
  return %s : bf16
}

// -----

// Tests that other conversions keep their flags.
// CHECK-LABEL: func.func @f64_to_f32
// CHECK: arith.truncf %{{.*}} fastmath<contract> : f64 to f32
func.func @f64_to_f32(%a: f64) -> f32 {
  %t = arith.truncf %a fastmath<contract> : f64 to f32
  return %t : f32
}
