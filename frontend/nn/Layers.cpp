// Implementation of the nn building blocks (see Layers.h).
#include "frontend/nn/Layers.h"

#include "frontend/CallerScope.h"
#include "frontend/Random.h"

#include <cmath>

using namespace loom;

Tensor nn::layerNorm(const Tree<Tensor> &params, const Tensor &x, double eps, Loc loc) {
  CallerScope scope("nn::layerNorm", loc);
  Tensor mu = mean(x, {-1}, true);
  Tensor centered = x - mu;
  Tensor variance = mean(centered * centered, {-1}, true);
  return centered * rsqrt(variance + eps) * params.at("scale").leaf() +
         params.at("bias").leaf();
}

Tensor nn::inPrecision(const Tensor &a, const Tensor &b, DType compute,
                       const std::function<Tensor(const Tensor &, const Tensor &)> &contract,
                       Loc loc) {
  // No scope of its own: the ops carry the caller's location, as a plain product there would.
  if (compute == a.dtype() && compute == b.dtype())
    return contract(a, b);
  return astype(contract(astype(a, compute, loc), astype(b, compute, loc)), a.dtype(), loc);
}

Tensor nn::product(const char *equation, const Tensor &a, const Tensor &b, DType compute,
                   Loc loc) {
  return inPrecision(
      a, b, compute,
      [&](const Tensor &x, const Tensor &y) { return einsum(equation, x, y, loc); }, loc);
}

Tensor nn::causalSelfAttention(const Tensor &qkv, const Tensor &out, const Tensor &x,
                               const NamedSharding &heads, DType compute,
                               const AttentionDropout &drop, Loc loc) {
  CallerScope scope("nn::causalSelfAttention", loc);
  int64_t batch = x.dim(0), seq = x.dim(1), numHeads = qkv.dim(2), headDim = qkv.dim(3);
  // [B, T, 3, H, Dh]: one projection for queries, keys and values.
  Tensor projected = product("btc,kchd->btkhd", x, qkv, compute);
  auto part = [&](int64_t k) {
    Tensor s = slice(projected, {0, 0, k, 0, 0}, {batch, seq, k + 1, numHeads, headDim});
    return with_sharding_constraint(reshape(s, {batch, seq, numHeads, headDim}), heads);
  };
  Tensor q = part(0), key = part(1), v = part(2);
  // Position t attends to positions s <= t.
  if (compute == x.dtype())
    return product("bthd,hdc->btc", dot_product_attention(q, key, v, drop, /*causal=*/true),
                   out, compute);
  // Mixed precision: the products in `compute`, the softmax in x's dtype.
  Tensor scores =
      product("bthd,bshd->bhts", q, key, compute) * (1.0 / std::sqrt(double(headDim)));
  Tensor allowed = greater_equal(iota({seq, seq}, 0), iota({seq, seq}, 1));
  scores = where(allowed, scores, full({}, -1e9, scores.dtype()));
  Tensor weights = dropout(softmax(scores, -1), drop.rate, drop.key);
  Tensor attended = product("bhts,bshd->bhtd", weights, v, compute);
  return product("bhtd,hdc->btc", attended, out, compute);
}

Tensor nn::dropout(const Tensor &x, double rate, const Tensor &key, Loc loc) {
  if (rate == 0 || !key.valid())
    return x;
  CallerScope scope("nn::dropout", loc);
  if (!(rate > 0 && rate < 1))
    fail(loc, "dropout", "the rate must be in [0, 1), got " + std::to_string(rate));
  Tensor keep = random::bernoulliPaired(key, 1 - rate, x.shape());
  return where(keep, x * (1 / (1 - rate)), full({}, 0, x.dtype()));
}

Tensor nn::crossEntropy(const Tensor &logits, const Tensor &targets, Loc loc) {
  CallerScope scope("nn::crossEntropy", loc);
  Tensor logp = log_softmax(logits, -1);
  Tensor picked = sum(logp * one_hot(targets, logits.dim(-1), logits.dtype()), {-1});
  return -mean(picked);
}
