// RUN: loom-opt %s -loom-decompose-attention -split-input-file | FileCheck %s --check-prefixes=CHECK,CPU
// RUN: loom-opt %s -loom-decompose-attention=all=true -split-input-file | FileCheck %s --check-prefixes=CHECK,ALL,DECOMPOSED
// RUN: loom-opt %s -loom-decompose-attention=gpu=true -split-input-file | FileCheck %s --check-prefixes=CHECK,GPU,DECOMPOSED

// Tests that an f32 attention stays one op for the CPU's kernel, and that with `all` (the GPU)
// it becomes the scores' product, the scale, the causal mask (-inf where s > t), a softmax
// whose max carries no gradient, the product with the values moved back to [B, T, H, Dv],
// and the logsumexp max + log(sum).
// CHECK-LABEL: func.func @causal
// CPU: loom.attention
// CPU-NOT: loom.on_gpu
// With `gpu`, f32 stays one op, marked for the GPU's kernels.
// GPU: loom.attention %arg0, %arg1, %arg2, scale = 5.000000e-01 causal {loom.on_gpu}
// ALL-NOT: loom.attention
// ALL: %[[S:.*]] = loom.dot_general %arg0, %arg1, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) -> tensor<1x2x4x4xf32>
// ALL: %[[SCALED:.*]] = loom.mul %[[S]], %{{.*}} : tensor<1x2x4x4xf32>
// ALL-DAG: %[[COLS:.*]] = loom.iota dim = 1 : tensor<4x4xi32>
// ALL-DAG: %[[ROWS:.*]] = loom.iota dim = 0 : tensor<4x4xi32>
// ALL: %[[ALLOWED:.*]] = loom.compare ge, %[[ROWS]], %[[COLS]]
// ALL: %[[NEGINF:.*]] = loom.constant dense<0xFF800000> : tensor<1x2x4x4xf32>
// ALL: %[[MASK:.*]] = loom.broadcast_in_dim %[[ALLOWED]], dims = [2, 3]
// ALL: %[[MASKED:.*]] = loom.select %[[MASK]], %[[SCALED]], %[[NEGINF]]
// ALL: %[[MAX:.*]] = loom.reduce max %[[MASKED]], dims = [3]
// ALL: %[[FIXED:.*]] = loom.stop_gradient %[[MAX]]
// ALL: loom.sub %[[MASKED]]
// ALL: %[[E:.*]] = loom.exp
// ALL: %[[SUM:.*]] = loom.reduce sum %[[E]], dims = [3]
// ALL: %[[P:.*]] = loom.div %[[E]]
// ALL: %[[PV:.*]] = loom.dot_general %[[P]], %arg2, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1] : (tensor<1x2x4x4xf32>, tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
// ALL: %[[OUT:.*]] = loom.transpose %[[PV]], permutation = [0, 2, 1, 3] : tensor<1x2x4x8xf32> -> tensor<1x4x2x8xf32>
// ALL: %[[LOG:.*]] = loom.log %[[SUM]]
// ALL: %[[LSE:.*]] = loom.add %[[FIXED]], %[[LOG]] : tensor<1x2x4xf32>
// ALL: return %[[OUT]], %[[LSE]]
func.func @causal(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>)
    -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>) {
  %out, %lse = loom.attention %q, %k, %v, scale = 0.5 causal
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
  return %out, %lse : tensor<1x4x2x8xf32>, tensor<1x2x4xf32>
}

// -----

// Tests that a bf16 attention runs on the CPU's f32 kernel: its operands converted up, its
// results rounded back once, with more keys than queries and a value dim unlike the query's.
// With `all`, and on the GPU (whose tensor cores run its 16-bit products), it is decomposed,
// without a mask when not causal.
// CHECK-LABEL: func.func @bf16
// CPU: %[[Q:.*]] = loom.convert %arg0 : tensor<1x4x2x8xbf16> -> tensor<1x4x2x8xf32>
// CPU: %[[K:.*]] = loom.convert %arg1 : tensor<1x6x2x8xbf16> -> tensor<1x6x2x8xf32>
// CPU: %[[V:.*]] = loom.convert %arg2 : tensor<1x6x2x3xbf16> -> tensor<1x6x2x3xf32>
// CPU: %[[OUT:.*]], %{{.*}} = loom.attention %[[Q]], %[[K]], %[[V]], scale = 5.000000e-01 : {{.*}} -> (tensor<1x4x2x3xf32>, tensor<1x2x4xf32>)
// CPU: %[[ROUNDED:.*]] = loom.convert %[[OUT]] : tensor<1x4x2x3xf32> -> tensor<1x4x2x3xbf16>
// CPU: return %[[ROUNDED]]
// GPU-NOT: loom.attention
// GPU-NOT: loom.select
// GPU: loom.dot_general %arg0, %arg1, {{.*}} -> tensor<1x2x4x6xbf16>
// GPU: loom.dot_general %{{.*}}, %arg2, {{.*}} : (tensor<1x2x4x6xbf16>, tensor<1x6x2x3xbf16>) -> tensor<1x2x4x3xbf16>
// ALL-NOT: loom.attention
// ALL-NOT: loom.select
// ALL: loom.dot_general %arg0, %arg1, {{.*}} -> tensor<1x2x4x6xbf16>
// ALL: loom.dot_general %{{.*}}, %arg2, {{.*}} : (tensor<1x2x4x6xbf16>, tensor<1x6x2x3xbf16>) -> tensor<1x2x4x3xbf16>
func.func @bf16(%q: tensor<1x4x2x8xbf16>, %k: tensor<1x6x2x8xbf16>, %v: tensor<1x6x2x3xbf16>)
    -> tensor<1x4x2x3xbf16> {
  %out, %lse = loom.attention %q, %k, %v, scale = 0.5
      : (tensor<1x4x2x8xbf16>, tensor<1x6x2x8xbf16>, tensor<1x6x2x3xbf16>)
      -> (tensor<1x4x2x3xbf16>, tensor<1x2x4xbf16>)
  return %out : tensor<1x4x2x3xbf16>
}

// -----

// Tests the gradient's decomposition: P = exp(scores - lse) recomputed under the mask,
// dV = P^T dO, dS = P (dO V^T - rowsum(dO O)) scale, dQ = dS K, dK = dS^T Q.
// CHECK-LABEL: func.func @grad
// CPU: loom.attention_grad
// GPU: loom.attention_grad {{.*}} {loom.on_gpu}
// ALL-NOT: loom.attention_grad
// ALL: %[[LSE:.*]] = loom.broadcast_in_dim %arg4, dims = [0, 1, 2] : tensor<1x2x4xf32> -> tensor<1x2x4x4xf32>
// ALL: %[[MASKED:.*]] = loom.select
// ALL: %[[P:.*]] = loom.exp
// ALL: %[[DV:.*]] = loom.dot_general %[[P]], %arg5, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1]
// ALL: %[[DP:.*]] = loom.dot_general %arg5, %arg2, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]
// ALL: %[[DO_O:.*]] = loom.mul %arg5, %arg3 : tensor<1x4x2x8xf32>
// ALL: %[[DELTA:.*]] = loom.reduce sum %[[DO_O]], dims = [3]
// ALL: loom.transpose %[[DELTA]], permutation = [0, 2, 1]
// ALL: %[[DIFF:.*]] = loom.sub %[[DP]]
// ALL: %[[PDIFF:.*]] = loom.mul %[[P]], %[[DIFF]]
// ALL: %[[DS:.*]] = loom.mul %[[PDIFF]], %{{.*}} : tensor<1x2x4x4xf32>
// ALL: %[[DQ:.*]] = loom.dot_general %[[DS]], %arg1, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1]
// ALL: %[[DK:.*]] = loom.dot_general %[[DS]], %arg0, batching_dims = [0, 1] x [0, 2], contracting_dims = [2] x [1]
func.func @grad(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>,
                %o: tensor<1x4x2x8xf32>, %lse: tensor<1x2x4xf32>, %do: tensor<1x4x2x8xf32>)
    -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) {
  %dq, %dk, %dv = loom.attention_grad %q, %k, %v, %o, %lse, %do, scale = 0.5 causal
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>,
         tensor<1x2x4xf32>, tensor<1x4x2x8xf32>)
      -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
  return %dq, %dk, %dv : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>
}

// -----

// Tests that the GPU pipeline decomposes what its kernels cannot run: f64, and f32 with a
// head dim (of the values here) over 128.
// CHECK-LABEL: func.func @gpuLimits
// CPU-COUNT-2: loom.attention
// GPU-NOT: loom.attention
// GPU-COUNT-2: loom.reduce max
func.func @gpuLimits(%q: tensor<1x4x2x8xf64>, %q32: tensor<1x4x2x8xf32>,
                     %v32: tensor<1x4x2x136xf32>) -> (tensor<1x4x2x8xf64>, tensor<1x4x2x136xf32>) {
  %out, %lse = loom.attention %q, %q, %q, scale = 0.5
      : (tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>, tensor<1x4x2x8xf64>)
      -> (tensor<1x4x2x8xf64>, tensor<1x2x4xf64>)
  %wide, %lse2 = loom.attention %q32, %q32, %v32, scale = 0.5
      : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x136xf32>)
      -> (tensor<1x4x2x136xf32>, tensor<1x2x4xf32>)
  return %out, %wide : tensor<1x4x2x8xf64>, tensor<1x4x2x136xf32>
}

// -----

// Tests that a bf16 gradient runs on the CPU's f32 kernel too, every operand (the logsumexp
// too) converted up and each gradient rounded back; the GPU decomposes it.
// CHECK-LABEL: func.func @bf16Grad
// CPU-COUNT-6: loom.convert %arg{{[0-5]}} : {{.*}}xbf16> -> {{.*}}xf32>
// CPU: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = loom.attention_grad {{.*}} -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>)
// CPU-DAG: loom.convert %[[DQ]] : tensor<1x4x2x8xf32> -> tensor<1x4x2x8xbf16>
// CPU-DAG: loom.convert %[[DK]] : tensor<1x4x2x8xf32> -> tensor<1x4x2x8xbf16>
// CPU-DAG: loom.convert %[[DV]] : tensor<1x4x2x8xf32> -> tensor<1x4x2x8xbf16>
// GPU-NOT: loom.attention_grad
// ALL-NOT: loom.attention_grad
func.func @bf16Grad(%q: tensor<1x4x2x8xbf16>, %k: tensor<1x4x2x8xbf16>, %v: tensor<1x4x2x8xbf16>,
                    %o: tensor<1x4x2x8xbf16>, %lse: tensor<1x2x4xbf16>, %do: tensor<1x4x2x8xbf16>)
    -> (tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>) {
  %dq, %dk, %dv = loom.attention_grad %q, %k, %v, %o, %lse, %do, scale = 0.5 causal
      : (tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>,
         tensor<1x2x4xbf16>, tensor<1x4x2x8xbf16>)
      -> (tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>)
  return %dq, %dk, %dv : tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>
}

// -----

// Tests that an attention with dropout keeps its seeds and rate on the CPU's kernel (in f32
// for bf16), and that its decomposition computes the kernels' mask: splitmix64's finalizer of
// (t << 32 | s) xor the seed (zero-extended) times the golden ratio, in i64, the word's high
// half against the threshold (0.25 * 2^32), the kept probabilities scaled by 1 / (1 - 0.25).
// CHECK-LABEL: func.func @bf16Dropout
// CPU: %[[Q:.*]] = loom.convert %arg0 : tensor<1x4x2x8xbf16> -> tensor<1x4x2x8xf32>
// CPU: loom.attention %[[Q]], %[[Q]], %[[Q]] seeds %arg1, scale = 5.000000e-01 dropout = 2.500000e-01 causal
// CPU-SAME: -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
// ALL-NOT: loom.attention
// GPU-NOT: loom.attention
// DECOMPOSED: %[[SEED:.*]] = loom.and %{{.*}}, %{{.*}} : tensor<1x2xi64>
// DECOMPOSED: %[[SPREAD:.*]] = loom.mul %[[SEED]], %{{.*}} : tensor<1x2xi64>
// DECOMPOSED: loom.xor %{{.*}}, %{{.*}} : tensor<1x2x4x4xi64>
// DECOMPOSED: %[[C32:.*]] = loom.constant dense<32> : tensor<1x2x4x4xi64>
// DECOMPOSED: %[[WORD:.*]] = loom.shift_right_logical %{{.*}}, %[[C32]] : tensor<1x2x4x4xi64>
// DECOMPOSED: %[[T:.*]] = loom.constant dense<1073741824> : tensor<1x2x4x4xi64>
// DECOMPOSED: %[[KEPT:.*]] = loom.compare ge, %[[WORD]], %[[T]] : tensor<1x2x4x4xi64>
// DECOMPOSED: loom.select %[[KEPT]]
func.func @bf16Dropout(%q: tensor<1x4x2x8xbf16>, %seeds: tensor<1x2xi32>)
    -> tensor<1x4x2x8xbf16> {
  %out, %lse = loom.attention %q, %q, %q seeds %seeds, scale = 0.5 dropout = 0.25 causal
      : (tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>, tensor<1x2xi32>)
      -> (tensor<1x4x2x8xbf16>, tensor<1x2x4xbf16>)
  return %out : tensor<1x4x2x8xbf16>
}
