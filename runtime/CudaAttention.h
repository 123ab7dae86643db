// Attention on a CUDA device: what the GPU pipeline's host code calls for loom.attention and
// loom.attention_grad of f32 with head dims up to 128 (loom-decompose-attention{gpu=true}
// keeps those), with the CPU kernel's arguments (runtime/Attention.h) holding device
// addresses. The kernels (runtime/cuda/Attention.cu, flash attention's blocking with f32
// arithmetic) are built by nvcc with Loom and embedded in the runtime; they run on the
// launching device's stream, in order with its other kernels.
#ifndef LOOM_RUNTIME_CUDAATTENTION_H
#define LOOM_RUNTIME_CUDAATTENTION_H

#include <cstddef>
#include <cstdint>

namespace loom::rt {
/// The largest head dim (of queries and keys, or of values) the GPU's kernels take.
inline constexpr int64_t kGpuAttentionMaxDim = 128;
} // namespace loom::rt

/// The fatbin nvcc made of runtime/cuda/Attention.cu, embedded by cmake/EmbedFile.cmake.
extern const unsigned char loomAttentionFatbin[];
extern const size_t loomAttentionFatbinSize;

extern "C" {
/// As loom_rt_attention_f32 (runtime/Attention.h): `call` the host address of an
/// AttentionCall, the others device addresses.
void loom_rt_gpu_attention_f32(int64_t call, int64_t query, int64_t key, int64_t value,
                               int64_t result, int64_t logsumexp, int64_t seeds);
/// As loom_rt_attention_grad_f32.
void loom_rt_gpu_attention_grad_f32(int64_t call, int64_t query, int64_t key, int64_t value,
                                    int64_t result, int64_t logsumexp, int64_t resultGrad,
                                    int64_t queryGrad, int64_t keyGrad, int64_t valueGrad,
                                    int64_t seeds);
}

#endif // LOOM_RUNTIME_CUDAATTENTION_H
