// Neural-network building blocks in the DSL, as plain functions of a parameter Tree (no
// hidden state): layer norm, dense layers, causal multi-head attention, cross-entropy.
#ifndef LOOM_FRONTEND_NN_LAYERS_H
#define LOOM_FRONTEND_NN_LAYERS_H

#include "frontend/Ops.h"
#include "frontend/Sharding.h"
#include "frontend/Tree.h"

#include <functional>

namespace loom::nn {

// Each takes its caller's location: errors inside name the caller (see CallerScope.h).

/// Normalizes the last dim to zero mean and unit variance, then scales and shifts:
/// params {"scale": [C], "bias": [C]}.
Tensor layerNorm(const Tree<Tensor> &params, const Tensor &x, double eps = 1e-5,
                 Loc loc = Loc::current());

/// `contract(a, b)`, with its operands rounded to `compute` (bf16 or f16) when that is not
/// their dtype and the product, accumulated in f32, returned in a's dtype: mixed precision
/// as autocast does it (the tensor cores' products on a GPU). The ops carry `loc`.
Tensor inPrecision(const Tensor &a, const Tensor &b, DType compute,
                   const std::function<Tensor(const Tensor &, const Tensor &)> &contract,
                   Loc loc = Loc::current());

/// einsum(`equation`, a, b) in `compute` (see inPrecision).
Tensor product(const char *equation, const Tensor &a, const Tensor &b, DType compute,
               Loc loc = Loc::current());

/// Causal softmax attention of x [B, T, C] with heads: qkv [3, C, H, Dh] projects to queries,
/// keys and values, out [H, Dh, C] projects back. `heads`, if specified, constrains the
/// queries, keys and values [B, T, H, Dh] (the cookbook's act_att). With `compute` x's
/// dtype, the attention is one dot_product_attention (blocked, no [B, H, T, T] scores);
/// otherwise the four products compute in `compute` (see product) and the softmax in x's.
/// `dropout` (training) drops attention's probabilities, in the kernels (see
/// dot_product_attention) or, with the four products, by nn::dropout of the [B, H, T, T]
/// weights (another mask from the same key).
Tensor causalSelfAttention(const Tensor &qkv, const Tensor &out, const Tensor &x,
                           const NamedSharding &heads = {}, DType compute = DType::F32,
                           const AttentionDropout &dropout = {}, Loc loc = Loc::current());

/// Dropout (training only): each element of x zeroed with probability `rate` and the others
/// scaled by 1 / (1 - rate), so that the expectation is x. The mask is drawn from `key` by
/// the element's position in x's whole shape (counter-based), so it is the same whatever the
/// device layout, and each device draws only its own part. x itself where rate is 0 or `key`
/// is not given (evaluation).
Tensor dropout(const Tensor &x, double rate, const Tensor &key, Loc loc = Loc::current());

/// Mean over the batch of -log p(target): logits [..., V], targets [...] (i32).
Tensor crossEntropy(const Tensor &logits, const Tensor &targets, Loc loc = Loc::current());

} // namespace loom::nn

#endif // LOOM_FRONTEND_NN_LAYERS_H
