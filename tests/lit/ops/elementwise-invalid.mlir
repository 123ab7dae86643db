// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Invalid elementwise ops: one case per constraint of each op (see LoomOps.td).

// Tests that loom.neg rejects a result whose element type differs from its operand's.
func.func @neg_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.neg' op requires the same type for all operands and results}}
  %0 = "loom.neg"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that loom.neg rejects a result whose shape differs from its operand's.
func.func @neg_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.neg' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.neg"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that loom.neg rejects the i1 element type (it takes numbers only).
func.func @neg_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'loom.neg' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.neg %a : tensor<4xi1>
  return
}

// -----

// Tests that loom.neg rejects an element type outside the accepted list (i8).
func.func @neg_i8(%a: tensor<4xi8>) {
  // expected-error @+1 {{'loom.neg' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = loom.neg %a : tensor<4xi8>
  return
}

// -----

// Tests that loom.neg rejects a tensor with a dynamic dim.
func.func @neg_dynamic(%a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.neg' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<?xf32>'}}
  %0 = loom.neg %a : tensor<?xf32>
  return
}

// -----

// Tests that loom.neg rejects an unranked tensor.
func.func @neg_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.neg' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.neg"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.abs rejects a result whose element type differs from its operand's.
func.func @abs_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.abs' op requires the same type for all operands and results}}
  %0 = "loom.abs"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that loom.abs rejects a result whose shape differs from its operand's.
func.func @abs_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.abs' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.abs"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that loom.abs rejects the i1 element type (it takes numbers only).
func.func @abs_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'loom.abs' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.abs %a : tensor<4xi1>
  return
}

// -----

// Tests that loom.abs rejects an element type outside the accepted list (i8).
func.func @abs_i8(%a: tensor<4xi8>) {
  // expected-error @+1 {{'loom.abs' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = loom.abs %a : tensor<4xi8>
  return
}

// -----

// Tests that loom.abs rejects a tensor with a dynamic dim.
func.func @abs_dynamic(%a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.abs' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<?xf32>'}}
  %0 = loom.abs %a : tensor<?xf32>
  return
}

// -----

// Tests that loom.abs rejects an unranked tensor.
func.func @abs_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.abs' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.abs"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.exp rejects a result whose element type differs from its operand's.
func.func @exp_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.exp' op requires the same type for all operands and results}}
  %0 = "loom.exp"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that loom.exp rejects a result whose shape differs from its operand's.
func.func @exp_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.exp' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.exp"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that loom.exp rejects an integer element type (it takes floats only).
func.func @exp_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'loom.exp' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %0 = loom.exp %a : tensor<4xi32>
  return
}

// -----

// Tests that loom.exp rejects a tensor with a dynamic dim.
func.func @exp_dynamic(%a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.exp' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<?xf32>'}}
  %0 = loom.exp %a : tensor<?xf32>
  return
}

// -----

// Tests that loom.exp rejects an unranked tensor.
func.func @exp_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.exp' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<*xf32>'}}
  %0 = "loom.exp"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.log rejects a result whose element type differs from its operand's.
func.func @log_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.log' op requires the same type for all operands and results}}
  %0 = "loom.log"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that loom.log rejects a result whose shape differs from its operand's.
func.func @log_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.log' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.log"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that loom.log rejects an integer element type (it takes floats only).
func.func @log_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'loom.log' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %0 = loom.log %a : tensor<4xi32>
  return
}

// -----

// Tests that loom.log rejects a tensor with a dynamic dim.
func.func @log_dynamic(%a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.log' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<?xf32>'}}
  %0 = loom.log %a : tensor<?xf32>
  return
}

// -----

// Tests that loom.log rejects an unranked tensor.
func.func @log_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.log' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<*xf32>'}}
  %0 = "loom.log"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.tanh rejects a result whose element type differs from its operand's.
func.func @tanh_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.tanh' op requires the same type for all operands and results}}
  %0 = "loom.tanh"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that loom.tanh rejects a result whose shape differs from its operand's.
func.func @tanh_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.tanh' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.tanh"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that loom.tanh rejects an integer element type (it takes floats only).
func.func @tanh_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'loom.tanh' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %0 = loom.tanh %a : tensor<4xi32>
  return
}

// -----

// Tests that loom.tanh rejects a tensor with a dynamic dim.
func.func @tanh_dynamic(%a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.tanh' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<?xf32>'}}
  %0 = loom.tanh %a : tensor<?xf32>
  return
}

// -----

// Tests that loom.tanh rejects an unranked tensor.
func.func @tanh_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.tanh' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<*xf32>'}}
  %0 = "loom.tanh"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.sqrt rejects a result whose element type differs from its operand's.
func.func @sqrt_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.sqrt' op requires the same type for all operands and results}}
  %0 = "loom.sqrt"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that loom.sqrt rejects a result whose shape differs from its operand's.
func.func @sqrt_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.sqrt' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.sqrt"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that loom.sqrt rejects an integer element type (it takes floats only).
func.func @sqrt_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'loom.sqrt' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %0 = loom.sqrt %a : tensor<4xi32>
  return
}

// -----

// Tests that loom.sqrt rejects a tensor with a dynamic dim.
func.func @sqrt_dynamic(%a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.sqrt' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<?xf32>'}}
  %0 = loom.sqrt %a : tensor<?xf32>
  return
}

// -----

// Tests that loom.sqrt rejects an unranked tensor.
func.func @sqrt_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.sqrt' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<*xf32>'}}
  %0 = "loom.sqrt"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.rsqrt rejects a result whose element type differs from its operand's.
func.func @rsqrt_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.rsqrt' op requires the same type for all operands and results}}
  %0 = "loom.rsqrt"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that loom.rsqrt rejects a result whose shape differs from its operand's.
func.func @rsqrt_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.rsqrt' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.rsqrt"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that loom.rsqrt rejects an integer element type (it takes floats only).
func.func @rsqrt_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'loom.rsqrt' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %0 = loom.rsqrt %a : tensor<4xi32>
  return
}

// -----

// Tests that loom.rsqrt rejects a tensor with a dynamic dim.
func.func @rsqrt_dynamic(%a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.rsqrt' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<?xf32>'}}
  %0 = loom.rsqrt %a : tensor<?xf32>
  return
}

// -----

// Tests that loom.rsqrt rejects an unranked tensor.
func.func @rsqrt_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.rsqrt' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<*xf32>'}}
  %0 = "loom.rsqrt"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.logistic rejects a result whose element type differs from its operand's.
func.func @logistic_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.logistic' op requires the same type for all operands and results}}
  %0 = "loom.logistic"(%a) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// Tests that loom.logistic rejects a result whose shape differs from its operand's.
func.func @logistic_result_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.logistic' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.logistic"(%a) : (tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Tests that loom.logistic rejects an integer element type (it takes floats only).
func.func @logistic_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'loom.logistic' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %0 = loom.logistic %a : tensor<4xi32>
  return
}

// -----

// Tests that loom.logistic rejects a tensor with a dynamic dim.
func.func @logistic_dynamic(%a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.logistic' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<?xf32>'}}
  %0 = loom.logistic %a : tensor<?xf32>
  return
}

// -----

// Tests that loom.logistic rejects an unranked tensor.
func.func @logistic_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.logistic' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<*xf32>'}}
  %0 = "loom.logistic"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that the custom syntax of a unary op rejects an unranked tensor type at parse time.
func.func @unary_unranked_custom(%a: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = loom.exp %a : tensor<*xf32>
  return
}

// -----

// Tests that loom.add rejects operands of different element types.
func.func @add_operand_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'loom.add' op requires the same type for all operands and results}}
  %0 = "loom.add"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.add rejects operands of different shapes (broadcasting is explicit).
func.func @add_operand_shapes(%a: tensor<4xf32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'loom.add' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.add"(%a, %b) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.add rejects a result type that differs from the operands' type.
func.func @add_result_type(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.add' op requires the same type for all operands and results}}
  %0 = "loom.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

// Tests that loom.add rejects the i1 element type (it takes numbers only).
func.func @add_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'loom.add' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.add %a, %a : tensor<4xi1>
  return
}

// -----

// Tests that loom.add rejects a tensor with a dynamic dim.
func.func @add_dynamic(%a: tensor<2x?xf32>) {
  // expected-error @+1 {{'loom.add' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x?xf32>'}}
  %0 = loom.add %a, %a : tensor<2x?xf32>
  return
}

// -----

// Tests that loom.add rejects an unranked tensor.
func.func @add_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.add' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.add"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.sub rejects operands of different element types.
func.func @sub_operand_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'loom.sub' op requires the same type for all operands and results}}
  %0 = "loom.sub"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.sub rejects operands of different shapes (broadcasting is explicit).
func.func @sub_operand_shapes(%a: tensor<4xf32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'loom.sub' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.sub"(%a, %b) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.sub rejects a result type that differs from the operands' type.
func.func @sub_result_type(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.sub' op requires the same type for all operands and results}}
  %0 = "loom.sub"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

// Tests that loom.sub rejects the i1 element type (it takes numbers only).
func.func @sub_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'loom.sub' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.sub %a, %a : tensor<4xi1>
  return
}

// -----

// Tests that loom.sub rejects a tensor with a dynamic dim.
func.func @sub_dynamic(%a: tensor<2x?xf32>) {
  // expected-error @+1 {{'loom.sub' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x?xf32>'}}
  %0 = loom.sub %a, %a : tensor<2x?xf32>
  return
}

// -----

// Tests that loom.sub rejects an unranked tensor.
func.func @sub_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.sub' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.sub"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.mul rejects operands of different element types.
func.func @mul_operand_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'loom.mul' op requires the same type for all operands and results}}
  %0 = "loom.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.mul rejects operands of different shapes (broadcasting is explicit).
func.func @mul_operand_shapes(%a: tensor<4xf32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'loom.mul' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.mul"(%a, %b) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.mul rejects a result type that differs from the operands' type.
func.func @mul_result_type(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.mul' op requires the same type for all operands and results}}
  %0 = "loom.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

// Tests that loom.mul rejects the i1 element type (it takes numbers only).
func.func @mul_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'loom.mul' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.mul %a, %a : tensor<4xi1>
  return
}

// -----

// Tests that loom.mul rejects a tensor with a dynamic dim.
func.func @mul_dynamic(%a: tensor<2x?xf32>) {
  // expected-error @+1 {{'loom.mul' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x?xf32>'}}
  %0 = loom.mul %a, %a : tensor<2x?xf32>
  return
}

// -----

// Tests that loom.mul rejects an unranked tensor.
func.func @mul_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.mul' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.mul"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.div rejects operands of different element types.
func.func @div_operand_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'loom.div' op requires the same type for all operands and results}}
  %0 = "loom.div"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.div rejects operands of different shapes (broadcasting is explicit).
func.func @div_operand_shapes(%a: tensor<4xf32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'loom.div' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.div"(%a, %b) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.div rejects a result type that differs from the operands' type.
func.func @div_result_type(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.div' op requires the same type for all operands and results}}
  %0 = "loom.div"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

// Tests that loom.div rejects the i1 element type (it takes numbers only).
func.func @div_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'loom.div' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.div %a, %a : tensor<4xi1>
  return
}

// -----

// Tests that loom.div rejects a tensor with a dynamic dim.
func.func @div_dynamic(%a: tensor<2x?xf32>) {
  // expected-error @+1 {{'loom.div' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x?xf32>'}}
  %0 = loom.div %a, %a : tensor<2x?xf32>
  return
}

// -----

// Tests that loom.div rejects an unranked tensor.
func.func @div_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.div' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.div"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.max rejects operands of different element types.
func.func @max_operand_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'loom.max' op requires the same type for all operands and results}}
  %0 = "loom.max"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.max rejects operands of different shapes (broadcasting is explicit).
func.func @max_operand_shapes(%a: tensor<4xf32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'loom.max' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.max"(%a, %b) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.max rejects a result type that differs from the operands' type.
func.func @max_result_type(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.max' op requires the same type for all operands and results}}
  %0 = "loom.max"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

// Tests that loom.max rejects the i1 element type (it takes numbers only).
func.func @max_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'loom.max' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.max %a, %a : tensor<4xi1>
  return
}

// -----

// Tests that loom.max rejects a tensor with a dynamic dim.
func.func @max_dynamic(%a: tensor<2x?xf32>) {
  // expected-error @+1 {{'loom.max' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x?xf32>'}}
  %0 = loom.max %a, %a : tensor<2x?xf32>
  return
}

// -----

// Tests that loom.max rejects an unranked tensor.
func.func @max_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.max' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.max"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.min rejects operands of different element types.
func.func @min_operand_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'loom.min' op requires the same type for all operands and results}}
  %0 = "loom.min"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.min rejects operands of different shapes (broadcasting is explicit).
func.func @min_operand_shapes(%a: tensor<4xf32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'loom.min' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.min"(%a, %b) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.min rejects a result type that differs from the operands' type.
func.func @min_result_type(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.min' op requires the same type for all operands and results}}
  %0 = "loom.min"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

// Tests that loom.min rejects the i1 element type (it takes numbers only).
func.func @min_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'loom.min' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.min %a, %a : tensor<4xi1>
  return
}

// -----

// Tests that loom.min rejects a tensor with a dynamic dim.
func.func @min_dynamic(%a: tensor<2x?xf32>) {
  // expected-error @+1 {{'loom.min' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x?xf32>'}}
  %0 = loom.min %a, %a : tensor<2x?xf32>
  return
}

// -----

// Tests that loom.min rejects an unranked tensor.
func.func @min_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.min' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.min"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.pow rejects operands of different element types.
func.func @pow_operand_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'loom.pow' op requires the same type for all operands and results}}
  %0 = "loom.pow"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.pow rejects operands of different shapes (broadcasting is explicit).
func.func @pow_operand_shapes(%a: tensor<4xf32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'loom.pow' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.pow"(%a, %b) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.pow rejects a result type that differs from the operands' type.
func.func @pow_result_type(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.pow' op requires the same type for all operands and results}}
  %0 = "loom.pow"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

// Tests that loom.pow rejects an integer element type (it takes floats only).
func.func @pow_int(%a: tensor<4xi64>) {
  // expected-error @+1 {{'loom.pow' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi64>'}}
  %0 = loom.pow %a, %a : tensor<4xi64>
  return
}

// -----

// Tests that loom.pow rejects a tensor with a dynamic dim.
func.func @pow_dynamic(%a: tensor<2x?xf32>) {
  // expected-error @+1 {{'loom.pow' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<2x?xf32>'}}
  %0 = loom.pow %a, %a : tensor<2x?xf32>
  return
}

// -----

// Tests that loom.pow rejects an unranked tensor.
func.func @pow_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.pow' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float values, but got 'tensor<*xf32>'}}
  %0 = "loom.pow"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.compare rejects operands of different types.
func.func @compare_operand_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'loom.compare' op requires all operands to have the same type}}
  %0 = "loom.compare"(%a, %b) {direction = 2 : i32} : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xi1>
  return
}

// -----

// Tests that loom.compare rejects operands of different shapes.
func.func @compare_operand_shapes(%a: tensor<4xi32>, %b: tensor<2x2xi32>) {
  // expected-error @+1 {{'loom.compare' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "loom.compare"(%a, %b) {direction = 0 : i32} : (tensor<4xi32>, tensor<2x2xi32>) -> tensor<4xi1>
  return
}

// -----

// Tests that loom.compare rejects a result whose shape is not the operands' shape.
func.func @compare_result_shape(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.compare' op all non-scalar operands/results must have the same shape and base type}}
  %0 = loom.compare lt, %a, %b : tensor<4xf32> -> tensor<5xi1>
  return
}

// -----

// Tests that loom.compare rejects a rank-0 result for rank-1 operands.
func.func @compare_result_rank(%a: tensor<1xf32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'loom.compare' op all non-scalar operands/results must have the same shape and base type}}
  %0 = loom.compare lt, %a, %b : tensor<1xf32> -> tensor<i1>
  return
}

// -----

// Tests that loom.compare rejects a result whose element type is not i1.
func.func @compare_result_element(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.compare' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = loom.compare lt, %a, %b : tensor<4xf32> -> tensor<4xi32>
  return
}

// -----

// Tests that loom.compare rejects i1 operands (it compares numbers only).
func.func @compare_i1(%a: tensor<4xi1>, %b: tensor<4xi1>) {
  // expected-error @+1 {{'loom.compare' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = loom.compare eq, %a, %b : tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

// Tests that loom.compare rejects dynamically shaped operands.
func.func @compare_dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) {
  // expected-error @+1 {{'loom.compare' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<?xf32>'}}
  %0 = loom.compare eq, %a, %b : tensor<?xf32> -> tensor<?xi1>
  return
}

// -----

// Tests that loom.compare rejects an unranked operand.
func.func @compare_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.compare' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.compare"(%a, %a) {direction = 0 : i32} : (tensor<*xf32>, tensor<*xf32>) -> tensor<4xi1>
  return
}

// -----

// Tests that loom.compare rejects an unknown direction keyword.
func.func @compare_bad_direction(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'direction' [eq, ne, lt, le, gt, ge]}}
  %0 = loom.compare foo, %a, %b : tensor<4xf32> -> tensor<4xi1>
  return
}

// -----

// Tests that loom.compare rejects an out-of-range direction value in the generic syntax.
func.func @compare_bad_direction_value(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.compare' op attribute 'direction' failed to satisfy constraint: comparison direction of loom.compare}}
  %0 = "loom.compare"(%a, %a) {direction = 9 : i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

// Tests that loom.select rejects a pred whose shape is not the result's.
func.func @select_pred_shape(%p: tensor<5xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.select' op all non-scalar operands/results must have the same shape and base type}}
  %0 = loom.select %p, %a, %b : tensor<5xi1>, tensor<4xf32>
  return
}

// -----

// Tests that loom.select rejects a rank-0 pred for a rank-1 result (no implicit broadcast).
func.func @select_pred_rank(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'loom.select' op all non-scalar operands/results must have the same shape and base type}}
  %0 = loom.select %p, %a, %b : tensor<i1>, tensor<4xf32>
  return
}

// -----

// Tests that loom.select rejects a pred whose element type is not i1.
func.func @select_pred_element(%p: tensor<4xi32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = loom.select %p, %a, %a : tensor<4xi32>, tensor<4xf32>
  return
}

// -----

// Tests that loom.select rejects on_true and on_false of different types.
func.func @select_branch_types(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'loom.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "loom.select"(%p, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

// Tests that loom.select rejects a result type that differs from on_true and on_false.
func.func @select_result_type(%p: tensor<4xi1>, %a: tensor<4xi32>) {
  // expected-error @+1 {{'loom.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "loom.select"(%p, %a, %a) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi64>
  return
}

// -----

// Tests that loom.select rejects an element type outside the accepted list (i8).
func.func @select_i8(%p: tensor<4xi1>, %a: tensor<4xi8>) {
  // expected-error @+1 {{'loom.select' op operand #1 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = loom.select %p, %a, %a : tensor<4xi1>, tensor<4xi8>
  return
}

// -----

// Tests that loom.select rejects dynamically shaped values.
func.func @select_dynamic(%p: tensor<?xi1>, %a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<?xi1>'}}
  %0 = loom.select %p, %a, %a : tensor<?xi1>, tensor<?xf32>
  return
}

// -----

// Tests that loom.select rejects unranked values.
func.func @select_unranked(%p: tensor<4xi1>, %a: tensor<*xf32>) {
  // expected-error @+1 {{'loom.select' op operand #1 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.select"(%p, %a, %a) : (tensor<4xi1>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Tests that loom.convert rejects a result whose shape differs from the operand's.
func.func @convert_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.convert' op all non-scalar operands/results must have the same shape and base type}}
  %0 = loom.convert %a : tensor<4xf32> -> tensor<5xbf16>
  return
}

// -----

// Tests that loom.convert rejects a result with the same element count but another rank.
func.func @convert_rank(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.convert' op all non-scalar operands/results must have the same shape and base type}}
  %0 = loom.convert %a : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

// Tests that loom.convert rejects a result element type outside the accepted list (i8).
func.func @convert_result_i8(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.convert' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = loom.convert %a : tensor<4xf32> -> tensor<4xi8>
  return
}

// -----

// Tests that loom.convert rejects an operand element type outside the accepted list (ui32).
func.func @convert_operand_ui32(%a: tensor<4xui32>) {
  // expected-error @+1 {{'loom.convert' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xui32>'}}
  %0 = loom.convert %a : tensor<4xui32> -> tensor<4xi32>
  return
}

// -----

// Tests that loom.convert rejects a dynamically shaped operand.
func.func @convert_dynamic(%a: tensor<?xf32>) {
  // expected-error @+1 {{'loom.convert' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<?xf32>'}}
  %0 = loom.convert %a : tensor<?xf32> -> tensor<?xf16>
  return
}

// -----

// Tests that loom.convert rejects an unranked result.
func.func @convert_unranked(%a: tensor<4xf32>) {
  // expected-error @+1 {{'loom.convert' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "loom.convert"(%a) : (tensor<4xf32>) -> tensor<*xf32>
  return
}
