// RUN: loom-opt %s -loom-decompose-attention=gpu=true -split-input-file -verify-diagnostics

// Tests that the GPU pipeline names an attention with dropout that its kernels cannot run
// (only the kernels compute the mask, so it cannot be decomposed): f64, or head dims over 128.
func.func @f64(%q: tensor<1x4x2x8xf64>, %seeds: tensor<1x2xi32>) -> tensor<1x4x2x8xf64> {
  // expected-error @+1 {{'loom.attention' op has dropout, which only the attention kernel computes, and the GPU's kernel takes f32 or 16-bit attention with head dims up to 128, not query 'tensor<1x4x2x8xf64>' and value 'tensor<1x4x2x8xf64>'}}
  %out, %lse = loom.attention %q, %q, %q seeds %seeds, scale = 0.5 dropout = 0.25
      : (tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>, tensor<1x2xi32>)
      -> (tensor<1x4x2x8xf64>, tensor<1x2x4xf64>)
  return %out : tensor<1x4x2x8xf64>
}

// -----

func.func @wide(%q: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x136xf32>, %seeds: tensor<1x2xi32>)
    -> tensor<1x4x2x136xf32> {
  // expected-error @+1 {{GPU's kernel takes f32 or 16-bit attention with head dims up to 128, not query 'tensor<1x4x2x8xf32>' and value 'tensor<1x4x2x136xf32>'}}
  %out, %lse = loom.attention %q, %q, %v seeds %seeds, scale = 0.5 dropout = 0.25
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x136xf32>, tensor<1x2xi32>)
      -> (tensor<1x4x2x136xf32>, tensor<1x2x4xf32>)
  return %out : tensor<1x4x2x136xf32>
}
