// nn::dropout: the share it zeroes and the scale of the rest, masks that repeat for a key and
// are independent across keys, a gradient through the same mask, the identity without a key
// or at rate 0, the rate's error; the GPT's loss with and without it.
#include "frontend/Loom.h"
#include "tests/unit/frontend/ErrorOf.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loom;

namespace {

constexpr int64_t kDropRows = 512, kDropCols = 1024;

/// [kDropRows, kDropCols] of 1.5.
Array dropOnes() {
  return Array::from(std::vector<float>(kDropRows * kDropCols, 1.5f), {kDropRows, kDropCols});
}

double dropZeroShare(const std::vector<float> &v) {
  double zeros = 0;
  for (float x : v)
    zeros += x == 0;
  return zeros / v.size();
}

TEST(Dropout, ZeroesTheRatesShareAndScalesTheRestToKeepTheMean) {
  for (double rate : {0.1, 0.3, 0.5}) {
    auto drop = jit([rate](Tensor x, Tensor key) { return nn::dropout(x, rate, key); });
    std::vector<float> y = drop(dropOnes(), random::key(11)).to_host<float>();
    // 524,288 draws: the share's standard deviation is at most 0.0007.
    EXPECT_NEAR(dropZeroShare(y), rate, 0.004) << "rate " << rate;
    const float kept = 1.5f * static_cast<float>(1 / (1 - rate)); // x times the f32 scale
    size_t wrong = 0;
    for (float x : y)
      wrong += x != 0 && x != kept;
    EXPECT_EQ(wrong, 0u) << "rate " << rate;
  }
}

TEST(Dropout, AKeyRepeatsItsMaskAndTwoKeysDrawIndependently) {
  auto drop = jit([](Tensor x, Tensor key) {
    return std::make_tuple(nn::dropout(x, 0.5, key), nn::dropout(x, 0.5, random::foldIn(key, 1)));
  });
  auto [a, b] = drop(dropOnes(), random::key(3));
  auto [a2, b2] = drop(dropOnes(), random::key(3));
  std::vector<float> va = a.to_host<float>(), vb = b.to_host<float>();
  EXPECT_EQ(va, a2.to_host<float>()); // bit for bit
  EXPECT_EQ(vb, b2.to_host<float>());
  double both = 0;
  for (size_t i = 0; i < va.size(); ++i)
    both += va[i] == 0 && vb[i] == 0;
  EXPECT_NEAR(both / va.size(), 0.25, 0.004); // independent: 0.5 * 0.5
  // Neighbouring rows are not alike either, nor the two elements of a pair (the two words
  // of one Threefry block), nor a pair's second and the next pair's first.
  auto alike = [&](int64_t first, int64_t step, int64_t apart) {
    double same = 0, n = 0;
    for (int64_t i = first; i + apart < static_cast<int64_t>(va.size()); i += step)
      same += (va[i] == 0) == (va[i + apart] == 0), ++n;
    return same / n;
  };
  EXPECT_NEAR(alike(0, 1, kDropCols), 0.5, 0.004);
  EXPECT_NEAR(alike(0, 2, 1), 0.5, 0.004);
  EXPECT_NEAR(alike(1, 2, 1), 0.5, 0.004);
}

TEST(Dropout, TheGradientGoesThroughTheSameMaskScaled) {
  // d/dx sum(dropout(x) * w) = dropout(w) with the same key: w where kept, scaled, else 0.
  auto both = jit([](Tensor x, Tensor w, Tensor key) {
    auto loss = [](const Tensor &in, const Tensor &by, const Tensor &k) {
      return sum(nn::dropout(in, 0.25, k) * by);
    };
    return std::make_tuple(grad(loss)(x, w, key), nn::dropout(w, 0.25, key));
  });
  std::vector<float> weights(kDropRows * kDropCols);
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = 0.5f + static_cast<float>(i % 7);
  auto [g, expected] =
      both(dropOnes(), Array::from(weights, {kDropRows, kDropCols}), random::key(5));
  std::vector<float> vg = g.to_host<float>();
  EXPECT_EQ(vg, expected.to_host<float>());
  EXPECT_NEAR(dropZeroShare(vg), 0.25, 0.004);
}

TEST(Dropout, WithoutAKeyOrAtRateZeroItIsTheIdentityAndARateOfOneIsAnError) {
  auto plain = jit([](Tensor x, Tensor key) {
    return std::make_tuple(nn::dropout(x, 0.5, Tensor()), nn::dropout(x, 0.0, key));
  });
  auto [a, b] = plain(dropOnes(), random::key(1));
  EXPECT_EQ(a.to_host<float>(), dropOnes().to_host<float>());
  EXPECT_EQ(b.to_host<float>(), dropOnes().to_host<float>());
  for (double rate : {1.0, -0.5}) {
    auto bad = jit([rate](Tensor x, Tensor key) { return nn::dropout(x, rate, key); });
    std::string message = errorOf([&] { bad(dropOnes(), random::key(1)); });
    EXPECT_NE(message.find("in nn::dropout: dropout: the rate must be in [0, 1), got"),
              std::string::npos)
        << message;
  }
}

TEST(Dropout, TheGptDropsOnlyWithAKey) {
  nn::GptConfig config{.vocab = 16, .embed = 16, .layers = 2, .heads = 2, .seq = 8, .batch = 4};
  nn::GptConfig dropping = config;
  dropping.dropout = 0.2;
  auto losses = jit([&](Tree<Tensor> params, Tensor ids, Tensor key) {
    return std::make_tuple(nn::gptLoss(config, params, ids, ids, {}, key),
                           nn::gptLoss(dropping, params, ids, ids),
                           nn::gptLoss(dropping, params, ids, ids, {}, key),
                           nn::gptLoss(dropping, params, ids, ids, {}, random::foldIn(key, 1)));
  });
  std::vector<int32_t> tokens(config.batch * config.seq);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<int32_t>((i * 5) % config.vocab);
  auto [plain, keyless, dropped, other] = losses(
      nn::gptInit(config, 2), Array::from(tokens, {config.batch, config.seq}), random::key(9));
  // Rate 0 with a key, or a rate without one: the forward without dropout.
  EXPECT_EQ(plain.item<float>(), keyless.item<float>());
  EXPECT_GT(std::abs(dropped.item<float>() - plain.item<float>()), 1e-4);
  EXPECT_GT(std::abs(dropped.item<float>() - other.item<float>()), 1e-4);
}

} // namespace
