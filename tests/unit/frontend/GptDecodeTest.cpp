// Decoding a GPT token by token with a key-value cache (nn::gptDecodeStep) against its
// forward over the whole sequence (nn::gptForward, whose attention is one blocked
// dot_product_attention op): the same logits at every position, whatever the cache holds past
// the position being decoded.
#include "frontend/Loom.h"
#include "frontend/nn/GptDecode.h"

#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <random>

using namespace loom;

namespace {

using DecodeStep = std::function<std::pair<Tensor, Tree<Tensor>>(Tree<Tensor>, Tree<Tensor>,
                                                                   Tensor, Tensor)>;

/// A cache of gptCacheShapes(c) with every value `fill`.
Tree<Array> filledCache(const nn::GptConfig &c, float fill) {
  return tree_map(
      [fill](const Shape &shape) {
        int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1),
                                    std::multiplies<int64_t>());
        return Array::from(std::vector<float>(n, fill), shape);
      },
      nn::gptCacheShapes(c));
}

TEST(GptDecode, EachStepsLogitsEqualTheForwardsAtItsPosition) {
  nn::GptConfig c{.vocab = 64, .embed = 32, .layers = 2, .heads = 4, .seq = 12, .batch = 1};
  Tree<Array> params = nn::gptInit(c, 3);
  std::mt19937 rng(5);
  std::vector<int32_t> ids(c.seq);
  for (int32_t &id : ids)
    id = static_cast<int32_t>(rng() % c.vocab);
  auto forward = jit([&c](Tree<Tensor> p, Tensor x) { return nn::gptForward(c, p, x); });
  std::vector<float> whole = forward(params, Array::from(ids, {1, c.seq})).to_host<float>();
  auto decode = jit(DecodeStep([&c](Tree<Tensor> p, Tree<Tensor> cache, Tensor id, Tensor pos) {
                      return nn::gptDecodeStep(c, p, cache, id, pos);
                    }),
                    JitOptions{.name = "decode", .donateArgnums = {1}});
  // A token at a time and in chunks, from a cache of zeros and from one whose positions not
  // yet written hold large values: all must give the forward's logits (the positions after
  // a token's are masked out).
  struct Case {
    std::vector<int64_t> chunks;
    float fill;
  };
  for (const Case &run : {Case{std::vector<int64_t>(c.seq, 1), 0.0f},
                          Case{std::vector<int64_t>(c.seq, 1), 50.0f},
                          Case{{4, 1, 3, 2, 2}, 50.0f}}) {
    Tree<Array> cache = filledCache(c, run.fill);
    double worst = 0;
    int64_t t = 0;
    for (int64_t n : run.chunks) {
      std::vector<int32_t> chunk(ids.begin() + t, ids.begin() + t + n), positions(n);
      std::iota(positions.begin(), positions.end(), int32_t(t));
      Array logits;
      std::tie(logits, cache) =
          decode(params, cache, Array::from(chunk, {n}), Array::from(positions, {n}));
      std::vector<float> got = logits.to_host<float>();
      EXPECT_EQ(logits.shape(), (Shape{n, c.vocab}));
      for (int64_t i = 0; i < n * c.vocab; ++i)
        worst = std::max(worst, std::abs(double(got[i]) - whole[t * c.vocab + i]));
      t += n;
    }
    EXPECT_LT(worst, 2e-5) << "chunks of " << run.chunks[0] << ", cache filled with " << run.fill;
  }
}

TEST(GptDecode, SequencesDecodedTogetherEachGiveTheirForwardsLogits) {
  nn::GptConfig c{.vocab = 64, .embed = 32, .layers = 2, .heads = 4, .seq = 10, .batch = 3};
  Tree<Array> params = nn::gptInit(c, 8);
  std::mt19937 rng(2);
  std::vector<int32_t> ids(c.batch * c.seq); // three sequences, row by row
  for (int32_t &id : ids)
    id = static_cast<int32_t>(rng() % c.vocab);
  auto forward = jit([&c](Tree<Tensor> p, Tensor x) { return nn::gptForward(c, p, x); });
  std::vector<float> whole =
      forward(params, Array::from(ids, {c.batch, c.seq})).to_host<float>(); // [B, T, V]
  auto decode = jit(DecodeStep([&c](Tree<Tensor> p, Tree<Tensor> cache, Tensor id, Tensor pos) {
                      return nn::gptDecodeStep(c, p, cache, id, pos);
                    }),
                    JitOptions{.name = "decode_together", .donateArgnums = {1}});
  Tree<Array> cache = nn::gptEmptyCache(c, c.batch);
  EXPECT_EQ(cache.at("layers").list()[0].at("k").leaf().shape(),
            (Shape{c.seq, c.batch * c.heads, c.headDim()}));
  double worst = 0;
  int64_t t = 0;
  for (int64_t n : {3, 1, 4, 2}) {
    std::vector<int32_t> chunk, positions(n);
    for (int64_t b = 0; b < c.batch; ++b)
      chunk.insert(chunk.end(), ids.begin() + b * c.seq + t, ids.begin() + b * c.seq + t + n);
    std::iota(positions.begin(), positions.end(), int32_t(t));
    Array logits;
    std::tie(logits, cache) =
        decode(params, cache, Array::from(chunk, {c.batch, n}), Array::from(positions, {n}));
    ASSERT_EQ(logits.shape(), (Shape{c.batch, n, c.vocab}));
    std::vector<float> got = logits.to_host<float>();
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t i = 0; i < n * c.vocab; ++i)
        worst = std::max(worst, std::abs(double(got[(b * n) * c.vocab + i]) -
                                         whole[(b * c.seq + t) * c.vocab + i]));
    t += n;
  }
  EXPECT_LT(worst, 2e-5);
}

} // namespace
