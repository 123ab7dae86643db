// Attention dropout's mask: which probabilities p[t, s] of one (batch, head) a step drops,
// computed where the kernels need it (the CPU's runtime/Attention.cpp and the GPU's
// runtime/cuda/Attention.cu, forward and backward alike) rather than stored: a pure function
// of the (batch, head)'s 32-bit seed and the position (t, s), so the backward regenerates the
// forward's mask, and a sharded attention draws the same masks as one device (the seeds are
// drawn by the position of (batch, head) in the whole tensor). Plain C, shared by nvcc and
// the host compiler.
#ifndef LOOM_RUNTIME_CUDA_ATTENTIONDROPOUT_H
#define LOOM_RUNTIME_CUDA_ATTENTIONDROPOUT_H

#ifdef __CUDACC__
#define LOOM_ATTENTION_DROPOUT_FN __host__ __device__ __forceinline__
#else
#define LOOM_ATTENTION_DROPOUT_FN inline
#endif

/// A uniform 32-bit word for probability (t, s) under `seed`: splitmix64's finalizer (a
/// bijection of 64 bits that mixes every input bit into every output bit) of the position
/// (t in the high half, s in the low) xor the seed spread over 64 bits by the golden ratio.
LOOM_ATTENTION_DROPOUT_FN unsigned loomAttentionDropoutWord(unsigned seed, unsigned t,
                                                            unsigned s) {
  unsigned long long x = ((unsigned long long)t << 32 | s) ^
                         ((unsigned long long)seed * 0x9E3779B97F4A7C15ull);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return (unsigned)(x >> 32);
}

/// Whether probability (t, s) is kept: its word is at least `threshold`, which
/// loomAttentionDropThreshold makes of the rate.
LOOM_ATTENTION_DROPOUT_FN int loomAttentionDropoutKeeps(unsigned seed, unsigned t, unsigned s,
                                                        unsigned threshold) {
  return loomAttentionDropoutWord(seed, t, s) >= threshold;
}

/// The threshold that drops a share `rate` (in [0, 1)) of the words: rate * 2^32, rounded.
LOOM_ATTENTION_DROPOUT_FN unsigned loomAttentionDropThreshold(double rate) {
  double words = rate * 4294967296.0 + 0.5;
  return words >= 4294967295.0 ? 4294967295u : (unsigned)words;
}

#endif // LOOM_RUNTIME_CUDA_ATTENTIONDROPOUT_H
