// Boxes at positions known only at run time: reading one (loom.dynamic_slice) and writing one
// into a copy of a tensor (loom.dynamic_update_slice), as XLA's ops of the same names. A
// decoding step writes its new key/value rows into the cache with the second, in place when
// the cache is donated.

#ifndef LOOM_IR_LOOMDYNAMICSLICEOPS_TD
#define LOOM_IR_LOOMDYNAMICSLICEOPS_TD

def Loom_DynamicSliceOp : Loom_Op<"dynamic_slice"> {
  let summary = "A box of a tensor whose start is given by rank-0 integer tensors.";
  let description = [{
    The result, of the result type's shape, is the box of the operand starting at `starts`
    (one rank-0 integer tensor per operand dim). Each start is clamped to
    `[0, dim(operand, i) - dim(result, i)]`, so the box always lies inside the operand.
    ```mlir
    %1 = loom.dynamic_slice %0[%i, %j]
        : (tensor<8x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
    ```
    **Constraints:**
    - one start per operand dim, each a rank-0 tensor of an integer type;
    - the result has the operand's rank and element type, and no dim larger than the
      operand's.
  }];
  let arguments = (ins Loom_Tensor:$operand, Variadic<Loom_IndexTensor>:$starts);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $starts `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Loom_DynamicUpdateSliceOp : Loom_Op<"dynamic_update_slice"> {
  let summary = "The operand with a box, starting at run-time positions, replaced by update.";
  let description = [{
    The result is the operand with the box of the update's shape starting at `starts` (one
    rank-0 integer tensor per dim, each clamped to `[0, dim(operand, i) - dim(update, i)]`)
    replaced by the update. After bufferization it writes into the operand's buffer when
    nothing reads the operand afterwards (a donated argument, a dead temporary).
    ```mlir
    %2 = loom.dynamic_update_slice %0, %1[%i, %j]
        : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x4xf32>
    ```
    **Constraints:**
    - one start per operand dim, each a rank-0 tensor of an integer type;
    - the update has the operand's rank and element type, and no dim larger than the
      operand's;
    - the result type is the operand's.
  }];
  let arguments = (ins Loom_Tensor:$operand, Loom_Tensor:$update,
                       Variadic<Loom_IndexTensor>:$starts);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $update `[` $starts `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // LOOM_IR_LOOMDYNAMICSLICEOPS_TD
