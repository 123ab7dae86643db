// RUN: loom-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// stop_gradient
//===----------------------------------------------------------------------===//

// Tests that stop_gradient's operand and result have the same type.
func.func @stop_gradient_type_change(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'loom.stop_gradient' op requires the same type for all operands and results}}
  %0 = "loom.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

//===----------------------------------------------------------------------===//
// value_and_grad
//===----------------------------------------------------------------------===//

// Tests that the callee must exist in the module.
func.func @unknown_callee(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  // expected-error @+1 {{'loom.value_and_grad' op callee @missing is not a func.func in this module}}
  %v, %g = loom.value_and_grad @missing(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the callee must be a func.func (here it names an llvm.func).
llvm.func @not_a_func(f32) -> f32

func.func @callee_not_func(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  // expected-error @+1 {{'loom.value_and_grad' op callee @not_a_func is not a func.func in this module}}
  %v, %g = loom.value_and_grad @not_a_func(%x) wrt = [0] : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %v, %g : tensor<f32>, tensor<f32>
}

// -----

// Tests that the operand types must match the callee's argument types.
func.func private @square(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = loom.mul %x, %x : tensor<4xf32>
  %1 = loom.reduce sum %0, dims = [0] : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

func.func @operand_type_mismatch(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op operand types do not match the arguments of @square}}
  %v, %g = loom.value_and_grad @square(%x) wrt = [0] : (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)
  return %v, %g : tensor<f32>, tensor<3xf32>
}

// -----

// Tests that the operands must match the callee's arguments in number.
func.func private @square(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = loom.mul %x, %x : tensor<4xf32>
  %1 = loom.reduce sum %0, dims = [0] : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

func.func @operand_count_mismatch(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op operand types do not match the arguments of @square}}
  %v, %g = loom.value_and_grad @square(%x, %x) wrt = [0]
      : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %v, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Tests that the callee's first result must be rank 0.
func.func private @not_scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = loom.mul %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @value_not_rank0(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op the first result of @not_scalar must be a rank-0 float tensor (the value differentiated)}}
  %v, %g = loom.value_and_grad @not_scalar(%x) wrt = [0]
      : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %v, %g : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that the callee's first result must be a float tensor.
func.func private @count(%x: tensor<4xf32>) -> tensor<i32> {
  %0 = loom.convert %x : tensor<4xf32> -> tensor<4xi32>
  %1 = loom.reduce sum %0, dims = [0] : tensor<4xi32> -> tensor<i32>
  return %1 : tensor<i32>
}

func.func @value_not_float(%x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op the first result of @count must be a rank-0 float tensor (the value differentiated)}}
  %v, %g = loom.value_and_grad @count(%x) wrt = [0] : (tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  return %v, %g : tensor<i32>, tensor<4xf32>
}

// -----

// Tests that the callee must have a first result.
func.func private @no_results(%x: tensor<4xf32>) {
  return
}

func.func @value_missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'loom.value_and_grad' op the first result of @no_results must be a rank-0 float tensor (the value differentiated)}}
  %g = loom.value_and_grad @no_results(%x) wrt = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// Tests that wrt must be strictly increasing (here decreasing).
func.func private @dot(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %y, batching_dims = [] x [], contracting_dims = [0] x [0]
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @wrt_decreasing(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op wrt must be strictly increasing}}
  %v, %g1, %g0 = loom.value_and_grad @dot(%x, %y) wrt = [1, 0]
      : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>)
  return %v, %g1, %g0 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that wrt must be strictly increasing (here a repeated entry).
func.func private @dot(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %y, batching_dims = [] x [], contracting_dims = [0] x [0]
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @wrt_repeated(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op wrt must be strictly increasing}}
  %v, %g0, %g1 = loom.value_and_grad @dot(%x, %y) wrt = [0, 0]
      : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>)
  return %v, %g0, %g1 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that each wrt entry is an argument of the callee (here one past the last).
func.func private @dot(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %y, batching_dims = [] x [], contracting_dims = [0] x [0]
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @wrt_out_of_range(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op wrt[1] = 2 is not an argument of @dot}}
  %v, %g0, %g2 = loom.value_and_grad @dot(%x, %y) wrt = [0, 2]
      : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>)
  return %v, %g0, %g2 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that each wrt entry is an argument of the callee (here negative).
func.func private @dot(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %y, batching_dims = [] x [], contracting_dims = [0] x [0]
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @wrt_negative(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op wrt[0] = -1 is not an argument of @dot}}
  %v, %g = loom.value_and_grad @dot(%x, %y) wrt = [-1]
      : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %v, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Tests that each wrt entry is a float argument (here the integer indices).
func.func private @lookup(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<f32> {
  %0 = loom.gather %t[%i] : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  %1 = loom.reduce sum %0, dims = [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

func.func @wrt_integer_argument(%t: tensor<10x4xf32>, %i: tensor<3xi32>)
    -> (tensor<f32>, tensor<3xi32>) {
  // expected-error @+1 {{'loom.value_and_grad' op argument 1 of type 'tensor<3xi32>' cannot be differentiated (not a float tensor)}}
  %v, %g = loom.value_and_grad @lookup(%t, %i) wrt = [1]
      : (tensor<10x4xf32>, tensor<3xi32>) -> (tensor<f32>, tensor<3xi32>)
  return %v, %g : tensor<f32>, tensor<3xi32>
}

// -----

// Tests that the results are the callee's results then the gradients (here a gradient's type
// is wrong).
func.func private @dot(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %y, batching_dims = [] x [], contracting_dims = [0] x [0]
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @wrong_gradient_type(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<f32>, tensor<4xf64>) {
  // expected-error @+1 {{'loom.value_and_grad' op results must be the callee's results followed by the gradients' types}}
  %v, %g = loom.value_and_grad @dot(%x, %y) wrt = [0]
      : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf64>)
  return %v, %g : tensor<f32>, tensor<4xf64>
}

// -----

// Tests that the results are the callee's results then the gradients (here a gradient is
// missing).
func.func private @dot(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %0 = loom.dot_general %x, %y, batching_dims = [] x [], contracting_dims = [0] x [0]
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @missing_gradient(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op results must be the callee's results followed by the gradients' types}}
  %v, %g = loom.value_and_grad @dot(%x, %y) wrt = [0, 1]
      : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %v, %g : tensor<f32>, tensor<4xf32>
}

// -----

// Tests that the results include the callee's auxiliary results before the gradients (here
// the auxiliary result is left out).
func.func private @with_aux(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = loom.mul %x, %x : tensor<4xf32>
  %1 = loom.reduce sum %0, dims = [0] : tensor<4xf32> -> tensor<f32>
  return %1, %0 : tensor<f32>, tensor<4xf32>
}

func.func @aux_missing(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  // expected-error @+1 {{'loom.value_and_grad' op results must be the callee's results followed by the gradients' types}}
  %v, %g = loom.value_and_grad @with_aux(%x) wrt = [0] : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
  return %v, %g : tensor<f32>, tensor<4xf32>
}
