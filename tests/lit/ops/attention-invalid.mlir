// RUN: loom-opt %s -split-input-file -verify-diagnostics

// Tests that the operands have rank 4.
func.func @rank(%q: tensor<8x16xf32>) {
  // expected-error @+1 {{'loom.attention' op query 'tensor<8x16xf32>' must have rank 4: [batch, sequence, heads, dim]}}
  %o, %l = loom.attention %q, %q, %q, scale = 1.0
      : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>)
  return
}

// -----

// Tests that the operands have one element type.
func.func @element_type(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf64>) {
  // expected-error @+1 {{'loom.attention' op query 'tensor<1x4x2x8xf32>', key 'tensor<1x4x2x8xf64>' and value 'tensor<1x4x2x8xf64>' must have one element type}}
  %o, %l = loom.attention %q, %k, %k, scale = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that batch and heads agree.
func.func @heads(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x3x8xf32>) {
  // expected-error @+1 {{'loom.attention' op query 'tensor<1x4x2x8xf32>', key 'tensor<1x4x3x8xf32>' and value 'tensor<1x4x3x8xf32>' must have the same batch (dim 0) and heads (dim 2)}}
  %o, %l = loom.attention %q, %k, %k, scale = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x4x3x8xf32>, tensor<1x4x3x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that key has the query's dim.
func.func @dim(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x6xf32>) {
  // expected-error @+1 {{'loom.attention' op dim 3 of key 'tensor<1x4x2x6xf32>' must equal dim 3 of query 'tensor<1x4x2x8xf32>' (8)}}
  %o, %l = loom.attention %q, %k, %k, scale = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x6xf32>, tensor<1x4x2x6xf32>)
      -> (tensor<1x4x2x6xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that value has the key's sequence.
func.func @value_sequence(%q: tensor<1x4x2x8xf32>, %v: tensor<1x5x2x8xf32>) {
  // expected-error @+1 {{'loom.attention' op dim 1 of value 'tensor<1x5x2x8xf32>' must equal dim 1 of key 'tensor<1x4x2x8xf32>' (4)}}
  %o, %l = loom.attention %q, %q, %v, scale = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x5x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that there is a key to attend to.
func.func @no_keys(%q: tensor<1x4x2x8xf32>, %k: tensor<1x0x2x8xf32>) {
  // expected-error @+1 {{'loom.attention' op key 'tensor<1x0x2x8xf32>' has no positions to attend to}}
  %o, %l = loom.attention %q, %k, %k, scale = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x0x2x8xf32>, tensor<1x0x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that a causal attention has one sequence length.
func.func @causal_lengths(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'loom.attention' op is causal, so query 'tensor<1x4x2x8xf32>' and key 'tensor<1x6x2x8xf32>' must have one sequence length}}
  %o, %l = loom.attention %q, %k, %k, scale = 1.0 causal
      : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that the scale is finite.
func.func @scale(%q: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{'loom.attention' op scale INF must be finite}}
  %o, %l = loom.attention %q, %q, %q, scale = 0x7FF0000000000000
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests the result types.
func.func @result_type(%q: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{'loom.attention' op logsumexp 'tensor<1x4x2xf32>' must be 'tensor<1x2x4xf32>'}}
  %o, %l = loom.attention %q, %q, %q, scale = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x4x2xf32>)
  return
}

// -----

// Tests that the gradient reads a result of the forward's type.
func.func @grad_result(%q: tensor<1x4x2x8xf32>, %o: tensor<1x4x2x6xf32>, %l: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'loom.attention_grad' op result 'tensor<1x4x2x6xf32>' must be 'tensor<1x4x2x8xf32>'}}
  %dq, %dk, %dv = loom.attention_grad %q, %q, %q, %o, %l, %o, scale = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x6xf32>,
         tensor<1x2x4xf32>, tensor<1x4x2x6xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

// Tests that the gradients have their operands' types.
func.func @grad_types(%q: tensor<1x4x2x8xf32>, %l: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'loom.attention_grad' op value_grad 'tensor<1x4x2x6xf32>' must be 'tensor<1x4x2x8xf32>'}}
  %dq, %dk, %dv = loom.attention_grad %q, %q, %q, %q, %l, %q, scale = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>,
         tensor<1x2x4xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x6xf32>)
  return
}

// -----

// Tests that a dropout rate comes with seeds.
func.func @rate_without_seeds(%q: tensor<1x4x2x8xf32>) {
  // expected-error @+1 {{'loom.attention' op has a dropout rate without seeds}}
  %o, %l = loom.attention %q, %q, %q, scale = 1.0 dropout = 0.1
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that seeds come with a dropout rate.
func.func @seeds_without_rate(%q: tensor<1x4x2x8xf32>, %s: tensor<1x2xi32>) {
  // expected-error @+1 {{'loom.attention' op has seeds without a dropout rate}}
  %o, %l = loom.attention %q, %q, %q seeds %s, scale = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2xi32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that the rate is below 1.
func.func @rate_one(%q: tensor<1x4x2x8xf32>, %s: tensor<1x2xi32>) {
  // expected-error @+1 {{'loom.attention' op dropout 1.000000e+00 must be in (0, 1)}}
  %o, %l = loom.attention %q, %q, %q seeds %s, scale = 1.0 dropout = 1.0
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2xi32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

// Tests that the seeds are [B, H] of i32.
func.func @seeds_shape(%q: tensor<1x4x2x8xf32>, %s: tensor<2x1xi32>, %do: tensor<1x4x2x8xf32>,
                       %lse: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'loom.attention_grad' op seeds 'tensor<2x1xi32>' must be 'tensor<1x2xi32>'}}
  %dq, %dk, %dv = loom.attention_grad %q, %q, %q, %q, %lse, %do seeds %s, scale = 1.0
      dropout = 0.5
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>,
         tensor<1x2x4xf32>, tensor<1x4x2x8xf32>, tensor<2x1xi32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
  return
}
