// What the GPU attention kernels (runtime/cuda/Attention.cu) take, filled in by the runtime
// (runtime/CudaAttention.cpp) from an AttentionCall: plain C, shared by nvcc and the host
// compiler.
#ifndef LOOM_RUNTIME_CUDA_ATTENTIONPARAMS_H
#define LOOM_RUNTIME_CUDA_ATTENTIONPARAMS_H

/// A [B, T, H, X] tensor: element (b, t, h, x) at data[b * batch + t * sequence + h * head + x]
/// (the logsumexp [B, H, T] the same way, without x).
struct LoomAttentionTensor {
  float *data;
  long long batch, sequence, head;
};

struct LoomAttentionParams {
  LoomAttentionTensor query, key, value, result, logsumexp, resultGrad, queryGrad, keyGrad,
      valueGrad;
  /// The backward's sum over x of resultGrad * result, [B, H, Tq] densely (scratch).
  float *delta;
  int batch, queries, keys, heads, dim, valueDim, causal;
  float scale;     ///< of q k^T
  float scaleLog2; ///< scale * log2(e): the kernels exponentiate in base 2
};

#endif // LOOM_RUNTIME_CUDA_ATTENTIONPARAMS_H
