// RUN: not loom-opt %s 2>&1 | FileCheck %s --check-prefix=FIRST --implicit-check-not="Stack dump"
// RUN: not loom-opt %s -split-input-file -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="Stack dump"

// Malformed IR gives a located diagnostic (file:line:col: error:) and a non-zero exit, never a
// crash. Without -split-input-file parsing stops at the first error (FIRST); with it every
// case below reports its own error.

// Tests that an unknown op of the loom dialect is a located parse error.
func.func @unknown_op(%x: tensor<4xf32>) {
  // FIRST: {{.*}}malformed.mlir:[[@LINE+3]]:8: error: custom op 'loom.bogus' is unknown
  // FIRST-NOT: error:
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:8: error: custom op 'loom.bogus' is unknown
  %0 = loom.bogus %x : tensor<4xf32>
  return
}

// -----

// Tests that a missing type list is a located parse error.
func.func @missing_type(%x: tensor<4xf32>) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:23: error: expected ':'
  %0 = loom.add %x, %x
  return
}

// -----

// Tests that an undefined operand is a located parse error.
func.func @undefined_value(%x: tensor<4xf32>) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:21: error: use of undeclared SSA value name
  %0 = loom.add %x, %y : tensor<4xf32>
  return
}

// -----

// Tests that a truncated type is a located parse error.
func.func @truncated_type(%x: tensor<4xf32>) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:34: error: expected '>' in tensor type
  %0 = loom.exp %x : tensor<4xf32
  return
}

// -----

// Tests that a malformed dense literal is a located parse error.
func.func @bad_dense() {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:37: error: expected ']'
  %0 = loom.constant dense<[1.0, 2.0> : tensor<2xf32>
  return
}

// -----

// Tests that a missing attribute value is a located parse error.
func.func @missing_dim() {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:23: error: expected attribute value
  %0 = loom.iota dim = : tensor<4xi32>
  return
}

// -----

// Tests that a compare without its result type is a located parse error.
func.func @compare_no_result_type(%x: tensor<4xf32>) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:47: error: expected '->'
  %0 = loom.compare lt, %x, %x : tensor<4xf32>
  return
}

// -----

// Tests that a select with one type instead of two is a located parse error.
func.func @select_one_type(%p: tensor<4xi1>, %x: tensor<4xf32>) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:45: error: expected ','
  %0 = loom.select %p, %x, %x : tensor<4xi1>
  return
}

// -----

// Tests that a result type whose element type is not a type is a located parse error.
func.func @bad_element_type(%x: tensor<4xf32>) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:31: error: expected non-function type
  %0 = loom.neg %x : tensor<4xfoo>
  return
}

// -----

// Tests that a function cut off at the end of the file is a located parse error.
func.func @unterminated(%x: tensor<4xf32>) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected operation name in quotes
  %0 = loom.add %x, %x : tensor<4xf32>
