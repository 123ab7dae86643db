// Attention as one op, and its gradient: what lets a backend compute softmax(q k^T) v in
// blocks over the keys (an online softmax) without making the [B, H, Tq, Tk] scores.

#ifndef LOOM_IR_LOOMATTENTIONOPS_TD
#define LOOM_IR_LOOMATTENTIONOPS_TD

def Loom_AttentionOp : Loom_Op<"attention"> {
  let summary = "Scaled dot-product attention over [batch, sequence, heads, dim] tensors.";
  let description = [{
    For each batch b and head h: `result[b, t, h, :] = sum_s p[t, s] value[b, s, h, :]` with
    `p[t, :] = softmax_s(scale * query[b, t, h, :] . key[b, s, h, :])`; with `causal`, query
    position t attends to key positions s <= t only. The second result is the log of each
    softmax's denominator with its max added back, `logsumexp[b, h, t]`, which the gradient
    reads instead of the probabilities. Shardable over the batch and head dims.
    ```mlir
    %out, %lse = loom.attention %q, %k, %v, scale = 0.25, causal
        : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>)
        -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>)
    ```
    **Constraints:**
    - query, key and value have rank 4 and the same element type;
    - query is [B, Tq, H, D], key [B, Tk, H, D] and value [B, Tk, H, Dv], with Tk >= 1;
    - with `causal`, Tq == Tk;
    - `scale` is finite;
    - the results are [B, Tq, H, Dv] and [B, H, Tq] of that element type.
  }];
  let arguments = (ins Loom_FloatTensor:$query, Loom_FloatTensor:$key, Loom_FloatTensor:$value,
                       F64Attr:$scale, UnitAttr:$causal);
  let results = (outs Loom_FloatTensor:$result, Loom_FloatTensor:$logsumexp);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` `scale` `=` $scale (`causal` $causal^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let builders = [OpBuilder<(ins "Value":$query, "Value":$key, "Value":$value,
                                 "double":$scale, "bool":$causal)>];
  let hasVerifier = 1;
}

def Loom_AttentionGradOp : Loom_Op<"attention_grad"> {
  let summary = "The gradients of loom.attention's result with respect to its operands.";
  let description = [{
    Given the operands of a `loom.attention`, its two results and the cotangent of its first
    result (`result_grad`), returns the cotangents of query, key and value. It recomputes the
    probabilities from `logsumexp`, block by block, as the forward pass made them.
    ```mlir
    %dq, %dk, %dv = loom.attention_grad %q, %k, %v, %out, %lse, %dout, scale = 0.25, causal
        : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>,
           tensor<2x8x4x16xf32>, tensor<2x4x8xf32>, tensor<2x8x4x16xf32>)
        -> (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>)
    ```
    **Constraints:**
    - query, key, value, `scale` and `causal` as for loom.attention;
    - result and result_grad are [B, Tq, H, Dv], logsumexp is [B, H, Tq], all of the
      operands' element type;
    - the results have the types of query, key and value.
  }];
  let arguments = (ins Loom_FloatTensor:$query, Loom_FloatTensor:$key, Loom_FloatTensor:$value,
                       Loom_FloatTensor:$result, Loom_FloatTensor:$logsumexp,
                       Loom_FloatTensor:$result_grad, F64Attr:$scale, UnitAttr:$causal);
  let results = (outs Loom_FloatTensor:$query_grad, Loom_FloatTensor:$key_grad,
                      Loom_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $result `,` $logsumexp `,` $result_grad `,`
    `scale` `=` $scale (`causal` $causal^)? attr-dict `:` functional-type(operands, results)
  }];
  let builders = [OpBuilder<(ins "Value":$query, "Value":$key, "Value":$value,
                                 "Value":$result, "Value":$logsumexp, "Value":$resultGrad,
                                 "double":$scale, "bool":$causal)>];
  let hasVerifier = 1;
}

#endif // LOOM_IR_LOOMATTENTIONOPS_TD
