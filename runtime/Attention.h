// The attention kernel of the C ABI that compiled code calls for loom.attention and
// loom.attention_grad (bufferized by compiler/Lowering/LowerAttention.cpp): softmax(q k^T) v
// computed in blocks of queries and keys with an online softmax, as flash attention does on
// GPUs, so that no [B, H, Tq, Tk] tensor is ever made and each block stays in cache. Each
// block's products run on one thread (runtime/SmallGemm.h); the forward's blocks of queries
// and the backward's (batch, head) problems run on the device's threads.
#ifndef LOOM_RUNTIME_ATTENTION_H
#define LOOM_RUNTIME_ATTENTION_H

#include <cstdint>

namespace loom::rt {

/// Where a tensor's element (b, t, h, x) is: offset + b * batch + t * sequence + h * head + x,
/// in elements from its buffer's address. The logsumexp [B, H, Tq] has no x, the dropout's
/// seeds [B, H] (i32) neither t nor x.
struct AttentionLayout {
  int64_t offset, batch, sequence, head;
};

/// What a call describes, written by compiled code as an array of int64 words in this order.
/// Query [B, Tq, H, D], key [B, Tk, H, D], value [B, Tk, H, Dv]; result and its gradient
/// [B, Tq, H, Dv]; logsumexp [B, H, Tq]; the gradients of query, key and value like them;
/// with dropout the seeds [B, H] of runtime/cuda/AttentionDropout.h.
struct AttentionCall {
  int64_t batch, queries, keys, heads, dim, valueDim;
  int64_t causal;      ///< 1: query t attends to keys s <= t (then Tq == Tk)
  int64_t scaleBits;   ///< the scale of q k^T, the bits of a double
  int64_t dropoutBits; ///< the share of probabilities dropped, the bits of a double; 0: none
  enum Tensor {
    Query, Key, Value, Result, Logsumexp, ResultGrad, QueryGrad, KeyGrad, ValueGrad, Seeds
  };
  /// Indexed by Tensor; the forward's call has the first five, the gradient's nine, and
  /// either has the seeds' with dropout (the forward's 5-8 then unused).
  AttentionLayout layouts[10];
};

inline constexpr int64_t kAttentionHeaderWords = 9;
inline constexpr int64_t kAttentionLayoutWords = 4;
static_assert(sizeof(AttentionLayout) == kAttentionLayoutWords * sizeof(int64_t));
static_assert(sizeof(AttentionCall) ==
              (kAttentionHeaderWords + 10 * kAttentionLayoutWords) * sizeof(int64_t));

} // namespace loom::rt

extern "C" {
/// loom.attention: `call` is the address of an AttentionCall; the others are the buffers'
/// addresses (passed apart so that a buffer's last use is the call); `seeds` is 0 without
/// dropout.
void loom_rt_attention_f32(int64_t call, int64_t query, int64_t key, int64_t value,
                           int64_t result, int64_t logsumexp, int64_t seeds);
void loom_rt_attention_f64(int64_t call, int64_t query, int64_t key, int64_t value,
                           int64_t result, int64_t logsumexp, int64_t seeds);
/// loom.attention_grad: writes the gradients of query, key and value.
void loom_rt_attention_grad_f32(int64_t call, int64_t query, int64_t key, int64_t value,
                                int64_t result, int64_t logsumexp, int64_t resultGrad,
                                int64_t queryGrad, int64_t keyGrad, int64_t valueGrad,
                                int64_t seeds);
void loom_rt_attention_grad_f64(int64_t call, int64_t query, int64_t key, int64_t value,
                                int64_t result, int64_t logsumexp, int64_t resultGrad,
                                int64_t queryGrad, int64_t keyGrad, int64_t valueGrad,
                                int64_t seeds);
}

#endif // LOOM_RUNTIME_ATTENTION_H
