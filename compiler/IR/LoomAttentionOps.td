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

    With `seeds` ([B, H] i32) and `dropout` (a rate in (0, 1)), each probability p[t, s] of
    (b, h) is dropped (set to 0) where the word of (seeds[b, h], t, s) says so
    (runtime/cuda/AttentionDropout.h: a share `dropout` of them), the rest scaled by
    1 / (1 - dropout), after the softmax's denominator is summed (as torch's
    scaled_dot_product_attention with dropout_p); the logsumexp is the undropped one's.
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
    - `seeds` and `dropout` come together: seeds is [B, H] of i32, dropout in (0, 1);
    - the results are [B, Tq, H, Dv] and [B, H, Tq] of that element type.
  }];
  let arguments = (ins Loom_FloatTensor:$query, Loom_FloatTensor:$key, Loom_FloatTensor:$value,
                       Optional<Loom_IndexTensor>:$seeds, F64Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$dropout);
  let results = (outs Loom_FloatTensor:$result, Loom_FloatTensor:$logsumexp);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`seeds` $seeds^)? `,` `scale` `=` $scale
    (`dropout` `=` $dropout^)? (`causal` $causal^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let builders = [OpBuilder<(ins "Value":$query, "Value":$key, "Value":$value,
                                 "double":$scale, "bool":$causal,
                                 CArg<"Value", "{}">:$seeds, CArg<"double", "0.0">:$dropout)>];
  let extraClassDeclaration = [{
    /// The share of probabilities dropped: 0 without dropout.
    double getDropoutRate() { return getDropout() ? getDropout()->convertToDouble() : 0.0; }
  }];
  let hasVerifier = 1;
}

def Loom_AttentionGradOp : Loom_Op<"attention_grad"> {
  let summary = "The gradients of loom.attention's result with respect to its operands.";
  let description = [{
    Given the operands of a `loom.attention`, its two results and the cotangent of its first
    result (`result_grad`), returns the cotangents of query, key and value. It recomputes the
    probabilities from `logsumexp`, block by block, as the forward pass made them, and with
    `seeds` and `dropout` the forward's mask.
    ```mlir
    %dq, %dk, %dv = loom.attention_grad %q, %k, %v, %out, %lse, %dout, scale = 0.25, causal
        : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>,
           tensor<2x8x4x16xf32>, tensor<2x4x8xf32>, tensor<2x8x4x16xf32>)
        -> (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>)
    ```
    **Constraints:**
    - query, key, value, `scale`, `causal`, `seeds` and `dropout` as for loom.attention;
    - result and result_grad are [B, Tq, H, Dv], logsumexp is [B, H, Tq], all of the
      operands' element type;
    - the results have the types of query, key and value.
  }];
  let arguments = (ins Loom_FloatTensor:$query, Loom_FloatTensor:$key, Loom_FloatTensor:$value,
                       Loom_FloatTensor:$result, Loom_FloatTensor:$logsumexp,
                       Loom_FloatTensor:$result_grad, Optional<Loom_IndexTensor>:$seeds,
                       F64Attr:$scale, UnitAttr:$causal, OptionalAttr<F64Attr>:$dropout);
  let results = (outs Loom_FloatTensor:$query_grad, Loom_FloatTensor:$key_grad,
                      Loom_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $result `,` $logsumexp `,` $result_grad
    (`seeds` $seeds^)? `,` `scale` `=` $scale (`dropout` `=` $dropout^)? (`causal` $causal^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let builders = [OpBuilder<(ins "Value":$query, "Value":$key, "Value":$value,
                                 "Value":$result, "Value":$logsumexp, "Value":$resultGrad,
                                 "double":$scale, "bool":$causal,
                                 CArg<"Value", "{}">:$seeds, CArg<"double", "0.0">:$dropout)>];
  let extraClassDeclaration = [{
    /// The share of probabilities dropped: 0 without dropout.
    double getDropoutRate() { return getDropout() ? getDropout()->convertToDouble() : 0.0; }
  }];
  let hasVerifier = 1;
}

#endif // LOOM_IR_LOOMATTENTIONOPS_TD
