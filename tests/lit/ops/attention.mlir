// RUN: loom-opt %s | loom-opt | FileCheck %s

// Round-trip tests of loom.attention and loom.attention_grad.

// CHECK-LABEL: func.func @causal
// CHECK: %{{.*}}, %{{.*}} = loom.attention %{{.*}}, %{{.*}}, %{{.*}}, scale = 2.500000e-01 causal : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>) -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>)
func.func @causal(%q: tensor<2x8x4x16xf32>, %k: tensor<2x8x4x16xf32>, %v: tensor<2x8x4x16xf32>)
    -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>) {
  %out, %lse = loom.attention %q, %k, %v, scale = 0.25 causal
      : (tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>)
      -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>)
  return %out, %lse : tensor<2x8x4x16xf32>, tensor<2x4x8xf32>
}

// More keys than queries, a value dim unlike the query's, not causal.
// CHECK-LABEL: func.func @cross
// CHECK: loom.attention %{{.*}}, %{{.*}}, %{{.*}}, scale = 1.000000e+00 : (tensor<1x3x2x4xf64>, tensor<1x5x2x4xf64>, tensor<1x5x2x6xf64>) -> (tensor<1x3x2x6xf64>, tensor<1x2x3xf64>)
func.func @cross(%q: tensor<1x3x2x4xf64>, %k: tensor<1x5x2x4xf64>, %v: tensor<1x5x2x6xf64>)
    -> tensor<1x3x2x6xf64> {
  %out, %lse = loom.attention %q, %k, %v, scale = 1.0
      : (tensor<1x3x2x4xf64>, tensor<1x5x2x4xf64>, tensor<1x5x2x6xf64>)
      -> (tensor<1x3x2x6xf64>, tensor<1x2x3xf64>)
  return %out : tensor<1x3x2x6xf64>
}

// CHECK-LABEL: func.func @grad
// CHECK: %{{.*}}, %{{.*}}, %{{.*}} = loom.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, scale = 5.000000e-01 causal
func.func @grad(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>,
                %o: tensor<1x4x2x8xf32>, %lse: tensor<1x2x4xf32>, %do: tensor<1x4x2x8xf32>)
    -> tensor<1x4x2x8xf32> {
  %dq, %dk, %dv = loom.attention_grad %q, %k, %v, %o, %lse, %do, scale = 0.5 causal
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>,
         tensor<1x2x4xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
  return %dq : tensor<1x4x2x8xf32>
}

// Dropout: the seeds [B, H] and the rate, on the forward and the gradient.
// CHECK-LABEL: func.func @dropout
// CHECK: loom.attention %{{.*}}, %{{.*}}, %{{.*}} seeds %{{.*}}, scale = 5.000000e-01 dropout = 1.000000e-01 causal : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2xi32>)
// CHECK: loom.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} seeds %{{.*}}, scale = 5.000000e-01 dropout = 1.000000e-01 causal
func.func @dropout(%q: tensor<1x4x2x8xf32>, %seeds: tensor<1x2xi32>) -> tensor<1x4x2x8xf32> {
  %o, %lse = loom.attention %q, %q, %q seeds %seeds, scale = 0.5 dropout = 0.1 causal
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2xi32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  %dq, %dk, %dv = loom.attention_grad %q, %q, %q, %o, %lse, %o seeds %seeds, scale = 0.5
      dropout = 0.1 causal
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>,
         tensor<1x2x4xf32>, tensor<1x4x2x8xf32>, tensor<1x2xi32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
  return %dq : tensor<1x4x2x8xf32>
}
