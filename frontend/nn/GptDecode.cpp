// Decoding a GPT with a key-value cache (see GptDecode.h).
#include "frontend/nn/GptDecode.h"

#include "frontend/CallerScope.h"
#include "frontend/nn/Layers.h"

#include <cmath>

using namespace loom;
using namespace loom::nn;

Tree<Shape> nn::gptCacheShapes(const GptConfig &c, int64_t sequences) {
  std::vector<Tree<Shape>> layers;
  for (int64_t i = 0; i < c.layers; ++i) {
    Tree<Shape> layer;
    layer["k"] = Shape{c.seq, sequences * c.heads, c.headDim()};
    layer["v"] = Shape{c.seq, sequences * c.heads, c.headDim()};
    layers.push_back(layer);
  }
  Tree<Shape> shapes;
  shapes["layers"] = Tree<Shape>::list(layers);
  return shapes;
}

Tree<Array> nn::gptEmptyCache(const GptConfig &c, int64_t sequences) {
  std::vector<float> zeros(c.seq * sequences * c.heads * c.headDim());
  return tree_map([&](const Shape &shape) { return Array::from(zeros, shape); },
                  gptCacheShapes(c, sequences));
}

std::pair<Tensor, Tree<Tensor>> nn::gptDecodeStep(const GptConfig &c, const Tree<Tensor> &params,
                                                  const Tree<Tensor> &cache, const Tensor &ids,
                                                  const Tensor &positions, Loc loc) {
  CallerScope scope("nn::gptDecodeStep", loc);
  // B sequences of n tokens each ([n] is one sequence). A sequence's heads sit side by side in
  // the cache's second dim (B * H "heads"), so that attention is one product per head over
  // them all, reading the cache in place.
  const bool batched = ids.rank() == 2;
  const int64_t T = c.seq, H = c.heads, D = c.headDim(), n = ids.dim(-1);
  const int64_t B = batched ? ids.dim(0) : 1;
  Tensor rows = batched ? ids : reshape(ids, {1, n});
  // The step writes cache rows [p, p + n), p its first position (the positions are
  // consecutive).
  Tensor first = reshape(slice(positions, {0}, {1}), {}), zero = scalar_like(first, 0);
  // [B H, n, T]: token i attends to the positions up to its own.
  Tensor attends = less_equal(iota({B * H, n, T}, 2), reshape(positions, {1, n, 1}));
  // [B, n, C]: the tokens' embeddings plus their positions', as gptForward's residual stream.
  Tensor x = take(params.at("in_kernel"), rows) + take(params.at("pos_embed"), positions);
  std::vector<Tree<Tensor>> layers;
  const std::vector<Tree<Tensor>> &cached = cache.at("layers").list();
  for (size_t i = 0; i < cached.size(); ++i) {
    const Tree<Tensor> &layer = params.at("layers").list()[i];
    Tensor h = layerNorm(layer.at("ln1"), x);
    // [3, n, B, H, D]: the tokens' queries, keys and values.
    Tensor qkv = product("bnc,kchd->knbhd", h, layer.at("att_qkv").leaf(), c.precision);
    auto part = [&](int64_t k) { // [n, B H, D]
      return reshape(slice(qkv, {k, 0, 0, 0, 0}, {k + 1, n, B, H, D}), {n, B * H, D});
    };
    // The cache with the step's rows written over the donated one in place: only those
    // rows move.
    auto write = [&](const Tensor &old, const Tensor &fresh) {
      return dynamic_update_slice(old, fresh, {first, zero, zero});
    };
    Tree<Tensor> updated;
    updated["k"] = write(cached[i].at("k").leaf(), part(1));
    updated["v"] = write(cached[i].at("v").leaf(), part(2));
    Tensor scores = product("nhd,thd->hnt", part(0), updated.at("k").leaf(), c.precision) *
                    (1.0 / std::sqrt(double(D)));
    scores = where(attends, scores, full({}, -1e9, scores.dtype()));
    Tensor attended = reshape(
        product("hnt,thd->nhd", softmax(scores, -1), updated.at("v").leaf(), c.precision),
        {n, B, H, D});
    layers.push_back(updated);
    x = x + product("nbhd,hdc->bnc", attended, layer.at("att_out").leaf(), c.precision);
    h = layerNorm(layer.at("ln2"), x);
    Tensor hidden = product("bnc,cf->bnf", h, layer.at("mlp_in").leaf(), c.precision);
    x = x + product("bnf,fc->bnc", gelu(hidden), layer.at("mlp_out").leaf(), c.precision);
  }
  x = layerNorm(params.at("ln_final"), x);
  Tensor logits = product("bnc,cv->bnv", x, params.at("out_kernel").leaf(), c.precision) +
                  params.at("out_bias").leaf();
  Tree<Tensor> next;
  next["layers"] = Tree<Tensor>::list(layers);
  return {batched ? logits : reshape(logits, {n, c.vocab}), next};
}
