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
  /// Dropout (AttentionDropout.h): (b, h)'s seed at seeds[b * seedsBatch + h * seedsHead];
  /// a probability is kept, scaled by keepScale, where its word reaches dropThreshold;
  /// dropThreshold 0: no dropout (seeds may then be null).
  const unsigned *seeds;
  long long seedsBatch, seedsHead;
  unsigned dropThreshold;
  float keepScale;
};

#endif // LOOM_RUNTIME_CUDA_ATTENTIONPARAMS_H
